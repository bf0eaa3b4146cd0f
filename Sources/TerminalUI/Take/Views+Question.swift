import AssessmentKit
import Localization
import SessionKit

// The question screen: its header, its body and how the body scrolls.
extension Views {
    static func header(_ s: inout Screen, _ m: TakeModel, _ session: SessionState) {
        let a = m.assessment
        let say = m.say
        let position = say("Question {0} of {1}", .n(session.position + 1), .n(session.plan.itemOrder.count))
        var sectionTitle: String?
        if let id = session.currentItemID, let section = m.section(of: id) { sectionTitle = section.title }
        let flagged = session.currentItemID.map { session.flags.contains($0) } ?? false
        // A part-done answer in words ("part answered: 1 of 3 matched"), and in short where
        // the line has no room for it: what is said is never cut.
        let part = session.currentItemID.flatMap { session.partDone($0, item: m.item($0)) }
            .map { (long: say("part answered: {0}", .phrase($0)), short: say("⟨question state⟩part answered")) }
        var failure: String?
        var saveMark: String?
        if let id = session.currentItemID {
            switch session.save(id) {
            case .untouched: break
            case .saved: saveMark = "✓ " + say("⟨save⟩saved")
            case .pending: saveMark = "… " + say("⟨save⟩saving")
            case let .failed(why): failure = say("not saved ({0}), retrying", .s(why))
            }
        }
        if m.screenReader {
            // Read first after a whole repaint: where the student is, then its state in words.
            let room = s.width - 2
            var said = position
            for (withSection, longPart) in [(true, true), (false, true), (false, false)] {
                var info = [position]
                if withSection, let sectionTitle { info.append(say("section {0}", .s(sectionTitle))) }
                if flagged { info.append(say("⟨question state⟩flagged")) }
                if let part { info.append(longPart ? part.long : part.short) }
                if session.room.paused { info.append(say("paused by the proctor")) }
                if let hand = handWords(session, say: say) { info.append(hand) }
                if let failure { info.append(failure) }
                said = joinedParts(info, say)
                if TextWidth.of(said) <= room { break }
            }
            s.put(TextWidth.clip(said, to: room), row: 0, column: 1, role: failure == nil ? .title : .error)
            let time = session.plan.timeAllowed == nil ? say("no time limit") : say("Ctrl-T: time left")
            s.put(TextWidth.clip(a.title, to: s.width - TextWidth.of(time) - 4), row: 1, column: 1)
            s.put(time, row: 1, column: s.width - TextWidth.of(time) - 1)
            rule(&s, row: 2)
            return
        }
        let time: String
        if session.plan.timeAllowed == nil {
            time = say("no time limit")
        } else if m.clockHidden {
            time = say("clock hidden (Ctrl-K)")
        } else {
            time = session.remaining == nil ? "" : "⏱ " + m.timeText(session)
        }
        let timeRole: Role = !m.clockHidden && (session.remaining ?? 999) <= 60 ? .warning : .plain
        let right = TextWidth.of(time)
        s.put(TextWidth.clip(a.title, to: s.width - right - 4), row: 0, column: 1, role: .title)
        s.put(time, row: 0, column: s.width - right - 1, role: timeRole)
        // The state words may take the room of the section's title, never of the position;
        // "saved" gives way first, then the part-done answer's detail, before any word is cut.
        let markRoom = max(10, s.width / 2, s.width - TextWidth.of(position) - 6)
        var marks: [String] = []
        for (longPart, withSave) in [(true, true), (true, false), (false, true), (false, false)] {
            marks = []
            if flagged { marks.append("⚑ " + say("⟨question state⟩flagged")) }
            if let part { marks.append("◐ " + (longPart ? part.long : part.short)) }
            if session.room.paused { marks.append(say("⟨header⟩paused")) }
            if let hand = handWords(session, say: say) { marks.append(hand) }
            if let failure {
                marks.append("✗ " + failure)
            } else if withSave, let saveMark {
                marks.append(saveMark)
            }
            if TextWidth.of(marks.joined(separator: "  ")) <= markRoom { break }
        }
        let markText = TextWidth.clip(marks.joined(separator: "  "), to: markRoom)
        let info = position + (sectionTitle.map { " · " + $0 } ?? "")
        s.put(TextWidth.clip(info, to: max(10, s.width - TextWidth.of(markText) - 4)), row: 1, column: 1)
        s.put(markText, row: 1, column: s.width - TextWidth.of(markText) - 1, role: failure != nil ? .error : .dim)
        rule(&s, row: 2)
    }

    /// The question area's lines and focused element, before scrolling.
    struct Body {
        var lines: [BodyLine]
        var focus: (line: Int, column: Int)
    }

    static func questionBody(_ m: TakeModel, width: Int) -> Body? {
        guard m.session != nil, let item = m.currentItem else { return nil }
        var lines: [BodyLine] = []
        let textWidth = width - 4
        if let section = m.section(of: item.id), let instructions = section.instructions, m.opensSection(item.id) {
            for line in TextWidth.wrap(instructions, width: textWidth) { lines.append(BodyLine(text: line, role: .dim, indent: 2)) }
            lines.append(BodyLine(text: "", role: .plain, indent: 2))
        }
        if case .gaps = item.kind {
            // The widget shows the prompt, with each gap's field in its place.
        } else {
            for line in TextWidth.wrap(item.prompt, width: textWidth) { lines.append(BodyLine(text: line, role: .plain, indent: 2)) }
            lines.append(BodyLine(text: "", role: .plain, indent: 2))
        }
        let widget = Widgets.lines(m, item: item, width: width)
        let focus = (lines.count + widget.focus.line, widget.focus.column)
        return Body(lines: lines + widget.lines, focus: focus)
    }

    /// The rows the question area has on a screen of this size.
    static func questionRows(height: Int) -> (top: Int, rows: Int) { (3, max(1, height - 6)) }

    /// Where the question area starts: the student's own scrolling, moved only as far as
    /// needed to show the focused element while the view follows it.
    static func offset(lines: Int, rows: Int, focus: Int, scroll: Int, follow: Bool) -> Int {
        var offset = max(0, min(scroll, max(0, lines - rows)))
        if follow {
            if focus < offset { offset = focus }
            if focus >= offset + rows { offset = focus - rows + 1 }
        }
        return offset
    }

    public struct Viewport: Sendable, Equatable {
        public var offset: Int
        public var rows: Int
        public var lines: Int
    }

    public static func questionViewport(_ m: TakeModel, width: Int, height: Int) -> Viewport {
        guard let body = questionBody(m, width: width) else { return Viewport(offset: 0, rows: 1, lines: 0) }
        let rows = questionRows(height: height).rows
        return Viewport(offset: offset(lines: body.lines.count, rows: rows, focus: body.focus.line, scroll: m.scroll, follow: m.followFocus),
                        rows: rows, lines: body.lines.count)
    }

    public static func questionOffset(_ m: TakeModel, width: Int, height: Int) -> Int {
        questionViewport(m, width: width, height: height).offset
    }

    /// The columns an essay's text has inside its box.
    public static func essayWidth(_ width: Int) -> Int { max(10, width - 8) }

    static func question(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        guard let session = m.session, let body = questionBody(m, width: width) else { return s }
        header(&s, m, session)
        let (top, rows) = questionRows(height: height)
        let offset = Self.offset(lines: body.lines.count, rows: rows, focus: body.focus.line, scroll: m.scroll, follow: m.followFocus)
        for i in offset..<min(body.lines.count, offset + rows) {
            let line = body.lines[i]
            s.put(line.text, row: top + i - offset, column: line.indent, role: line.role)
            if let columns = line.highlight {
                // The focused field within a line of text.
                let (before, rest) = columns.lowerBound == 0 ? ("", line.text) : TextWidth.split(line.text, at: columns.lowerBound)
                let (field, _) = TextWidth.split(rest, at: columns.count)
                s.put(field, row: top + i - offset, column: line.indent + TextWidth.of(before), role: .focus)
            }
        }
        // Scrolling is said in words, on lines of their own.
        if offset > 0 {
            let text = " ↑ " + say("{0, plural, one {# line above} other {# lines above}}: PgUp", .n(offset)) + " "
            s.put(text, row: 2, column: max(0, width - TextWidth.of(text) - 2), role: .dim)
        }
        let below = body.lines.count - offset - rows
        if below > 0 {
            let text = "↓ " + say("{0, plural, one {# more line below} other {# more lines below}}: PgDn", .n(below))
            s.put(text, row: height - 3, column: max(0, width - TextWidth.of(text) - 2), role: .dim)
        }
        if body.focus.line >= offset && body.focus.line < offset + rows {
            s.cursor = (top + body.focus.line - offset, body.focus.column)
        } else {
            // Reading away from the answer: the cursor is where the reading is.
            s.cursor = (top, 2)
        }
        // Under a box the screen's own keys do nothing: the box says its keys, the footer none.
        let boxed = session.prompt != nil || m.confirmSkip
        footer(&s, boxed ? [] : TakeKeys.question(linear: session.plan.navigation == .linear).footer(), notice: m.notice, say: say)
        if let prompt = session.prompt {
            overlay(&s, m, prompt, session)
        } else if m.confirmSkip {
            box(&s, [say("Question {0} is not answered.", .n(session.position + 1)),
                     say("In this test you cannot come back to it. Leave it unanswered?"),
                     TakeKeys.confirmSkip.footerLine(say)], field: nil, secret: 0)
        } else {
            roomOverlay(&s, session, say: say)
        }
        return s
    }
}
