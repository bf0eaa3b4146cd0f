import AssessmentKit
import SessionKit

/// Pure views: the model and a size in, a Screen out.
public enum Views {
    public static let minimumWidth = 80
    public static let minimumHeight = 24

    public static func render(_ m: TakeModel, width: Int, height: Int) -> Screen {
        if width < minimumWidth || height < minimumHeight { return tooSmall(m, width: width, height: height) }
        if m.showHelp { return help(m, width: width, height: height) }
        switch m.phase {
        case .start: return start(m, width: width, height: height)
        case .confirmLock: return confirmLock(m, width: width, height: height)
        case .lockedBanner: return banner(width: width, height: height)
        case .test: return m.reviewing ? review(m, width: width, height: height) : question(m, width: width, height: height)
        case let .receipt(r): return receipt(m, r, width: width, height: height)
        }
    }

    // MARK: pieces

    /// Writes wrapped text from `row`; returns the next free row.
    @discardableResult
    static func paragraph(_ s: inout Screen, _ text: String, row: Int, indent: Int = 2, role: Role = .plain, limit: Int? = nil) -> Int {
        var r = row
        let bottom = limit ?? s.height
        for line in TextWidth.wrap(text, width: s.width - indent - 2) where r < bottom {
            s.put(line, row: r, column: indent, role: role)
            r += 1
        }
        return r
    }

    public static func footer(_ s: inout Screen, _ keys: [(String, String)], notice: String? = nil) {
        var col = 1
        let row = s.height - 1
        for (key, label) in keys {
            let piece = TextWidth.of(key) + TextWidth.of(label) + 3
            if col + piece > s.width { break }
            col = s.put(key, row: row, column: col, role: .key)
            col = s.put(" " + label + "  ", row: row, column: col)
        }
        if let notice {
            s.put(TextWidth.clip("» " + notice, to: s.width - 2), row: s.height - 2, column: 1, role: .warning)
        }
    }

    /// Question numbers in words: "question 3", "questions 2, 4 and 5"; a long list is
    /// summarised ("298 questions not answered; first: 1, 2, 3 …") so it fits `room` columns.
    public static func numbers(_ list: [Int], what: String, room: Int) -> String {
        guard let last = list.last else { return "" }
        if list.count == 1 { return "\(what): question \(last)" }
        let full = "\(what): questions " + list.dropLast().map(String.init).joined(separator: ", ") + " and \(last)"
        if TextWidth.of(full) <= room { return full }
        var shown: [String] = []
        var text = ""
        for n in list {
            let next = "\(list.count) questions \(what.lowercased()); first: " + (shown + ["\(n)"]).joined(separator: ", ") + " …"
            if TextWidth.of(next) > room { break }
            shown.append("\(n)")
            text = next
        }
        return text.isEmpty ? "\(list.count) questions \(what.lowercased())" : text
    }

    public static func rule(_ s: inout Screen, row: Int) {
        s.put(String(repeating: "─", count: s.width), row: row, column: 0, role: .dim)
    }

    static func policyLines(_ p: RestrictionPolicy, practice: Bool = false) -> [String] {
        var parts: [String] = []
        parts.append(p.paste == .block ? "Pasting: blocked and logged" : "Pasting: allowed")
        parts.append(p.pasteboards == .clear ? "Clipboards: cleared at start and end" : "Clipboards: left alone")
        if practice {
            parts.append("Ctrl-C: end this practice test (asks first; your answers are kept)")
        } else {
            parts.append(p.suspend == .block ? "Ctrl-C / Ctrl-Z: ask your proctor" : "Ctrl-C / Ctrl-Z: leave (saved, resumable)")
        }
        parts.append(p.focus == .log ? "Leaving this window: logged" : "Leaving this window: not logged")
        parts.append(p.multiplexer == .refuse ? "tmux/screen: refused" : "tmux/screen: allowed")
        parts.append(p.extensions == .refuse ? "Injected code, debuggers: refused" : "Injected code: allowed")
        parts.append(p.remote == .refuse ? "SSH: refused (local console only)" : "SSH: allowed")
        parts.append("Ends itself after \(DurationText.format(p.maxDuration)) at most")
        return parts
    }

    // MARK: screens

    static func start(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let a = m.assessment
        s.put(TextWidth.clip("Carrel · " + a.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        var r = 2
        s.put("Candidate: " + (m.candidate ?? "(not given)"), row: r, column: 2)
        r += 1
        let time = m.timeAllowed.map { "time allowed \(DurationText.format($0))" } ?? "no time limit"
        let nav = a.navigation == .linear ? "no going back" : "move freely between questions"
        s.put("\(a.questionsPerSession) questions · \(time) · \(nav)", row: r, column: 2)
        r += 2
        if let d = a.description {
            r = paragraph(&s, d, row: r, limit: r + 4) + 1
        }
        s.put("During this assessment", row: r, column: 2, role: .title)
        r += 1
        let parts = policyLines(a.policy, practice: !m.needsLaunchPassphrase)
        r = paragraph(&s, parts.joined(separator: " · "), row: r, limit: r + 4)
        r = paragraph(&s, "Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions.",
                      row: r, limit: r + 2) + 1
        if m.waitsForProctor {
            let text = "Waiting for the proctor to start. Nothing is locked and no time runs yet."
            s.put(TextWidth.clip(text, to: width - 4), row: r, column: 2, role: .title)
            s.cursor = (r, 2)
            if let key = m.seatKey, r + 1 < height - 2 {
                // What the proctor's console lists for this seat before it sends the test's key.
                s.put(TextWidth.clip("Seat key: \(key) (the proctor checks it before starting)", to: width - 4), row: r + 1, column: 2)
            }
        } else if m.needsLaunchPassphrase {
            let label = "Proctor passphrase: "
            s.put("The proctor enters the passphrase to start.", row: r, column: 2)
            r += 1
            let end = s.put(label, row: r, column: 2, role: .title)
            s.put(String(repeating: "•", count: m.secret.characters.count), row: r, column: end)
            s.cursor = (r, end + m.secret.characters.count)
        } else {
            s.cursor = (0, 1)
        }
        if let message = m.startMessage {
            s.put(TextWidth.clip(message, to: width - 4), row: min(r + 2, height - 3), column: 2, role: .error)
        }
        let waits = m.waitsForProctor
        footer(&s, TakeKeys.start(passphrase: m.needsLaunchPassphrase).footer { !waits || $0 == .quit || $0 == .help })
        return s
    }

    static func confirmLock(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        s.put(TextWidth.clip("Carrel · " + m.assessment.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        let hours = DurationText.format(m.assessment.policy.maxDuration)
        var r = paragraph(&s, "This terminal will be locked to this test until you submit, for at most \(hours).", row: 4)
        r = paragraph(&s, "Pasting, other programs and leaving with Ctrl-C or Ctrl-Z will not be possible until then.", row: r + 1)
        let end = s.put("Begin? y/N ", row: r + 1, column: 2, role: .title)
        s.cursor = (r + 1, end)
        footer(&s, TakeKeys.confirmLock.footer())
        return s
    }

    static func banner(width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let text = "This terminal is now locked to Carrel"
        let col = max(0, (width - TextWidth.of(text)) / 2)
        s.put(text, row: height / 2 - 1, column: col, role: .title)
        s.put("Press any key for the first question.", row: height / 2 + 1, column: max(0, (width - 38) / 2))
        s.cursor = (height / 2 - 1, col)
        return s
    }

    static func tooSmall(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        var text = "Please enlarge the terminal to at least \(minimumWidth)×\(minimumHeight) (now \(width)×\(height))."
        if m.session != nil { text += " Your time keeps counting; keys do nothing until the test fits." }
        let lines = TextWidth.wrap(text, width: max(1, width - 2))
        for (i, line) in lines.enumerated() { s.put(line, row: i, column: 1, role: i == 0 ? .warning : .plain) }
        s.cursor = (0, 1)
        var row = lines.count + 1
        // The clock ticks here only where it ticks on the test itself.
        if let session = m.session, session.plan.timeAllowed != nil, !m.screenReader, !m.clockHidden {
            s.put(m.timeText(session), row: min(height - 1, row), column: 1)
            row += 2
        }
        switch m.session?.prompt {
        case .confirmEnd?:
            s.put(TextWidth.clip("End this practice test now? " + TakeKeys.confirmEnd.footerLine, to: width - 2),
                  row: min(height - 1, row), column: 1, role: .title)
            s.cursor = (min(height - 1, row), 1)
        case .confirmSubmit?:
            // Only "no" works here: what is unanswered cannot be shown.
            let no = TakeKeys.confirmSubmit.footer { $0 == .no }.map { "\($0.0): \($0.1)" }
            s.put(TextWidth.clip((["Submit? Enlarge the terminal to see what is unanswered"] + no).joined(separator: " · "), to: width - 2),
                  row: min(height - 1, row), column: 1, role: .title)
            s.cursor = (min(height - 1, row), 1)
        default:
            break
        }
        if m.session?.prompt == .proctor {
            // The proctor can still end the session from here.
            let end = s.put("Proctor passphrase: ", row: min(height - 1, row), column: 1, role: .title)
            s.put(String(repeating: "•", count: m.secret.characters.count), row: min(height - 1, row), column: end)
            s.cursor = (min(height - 1, row), end + m.secret.characters.count)
        }
        return s
    }

    static func header(_ s: inout Screen, _ m: TakeModel, _ session: SessionState) {
        let a = m.assessment
        let position = "Question \(session.position + 1) of \(session.plan.itemOrder.count)"
        var sectionTitle: String?
        if let id = session.currentItemID, let section = m.section(of: id) { sectionTitle = section.title }
        let flagged = session.currentItemID.map { session.flags.contains($0) } ?? false
        var failure: String?
        var saveMark: String?
        if let id = session.currentItemID {
            switch session.save(id) {
            case .untouched: break
            case .saved: saveMark = "✓ saved"
            case .pending: saveMark = "… saving"
            case let .failed(why): failure = "not saved (\(why)), retrying"
            }
        }
        if m.screenReader {
            // Read first after a whole repaint: where the student is, then its state in words.
            var info = position + (sectionTitle.map { ", section \($0)" } ?? "")
            if flagged { info += ", flagged" }
            if session.room.paused { info += ", paused by the proctor" }
            if let hand = handWords(session) { info += ", " + hand }
            if let failure { info += ", " + failure }
            s.put(TextWidth.clip(info, to: s.width - 2), row: 0, column: 1, role: failure == nil ? .title : .error)
            let time = session.plan.timeAllowed == nil ? "no time limit" : "Ctrl-T: time left"
            s.put(TextWidth.clip(a.title, to: s.width - TextWidth.of(time) - 4), row: 1, column: 1)
            s.put(time, row: 1, column: s.width - TextWidth.of(time) - 1)
            rule(&s, row: 2)
            return
        }
        let time: String
        if session.plan.timeAllowed == nil {
            time = "no time limit"
        } else if m.clockHidden {
            time = "clock hidden (Ctrl-K)"
        } else {
            time = session.remaining.map { "⏱ \(Clock.text(Int($0.rounded(.up)))) left" } ?? ""
        }
        let timeRole: Role = !m.clockHidden && (session.remaining ?? 999) <= 60 ? .warning : .plain
        let right = TextWidth.of(time)
        s.put(TextWidth.clip(a.title, to: s.width - right - 4), row: 0, column: 1, role: .title)
        s.put(time, row: 0, column: s.width - right - 1, role: timeRole)
        var marks: [String] = []
        if flagged { marks.append("⚑ flagged") }
        if session.room.paused { marks.append("paused") }
        if let hand = handWords(session) { marks.append(hand) }
        if let failure { marks.append("✗ " + failure) } else if let saveMark { marks.append(saveMark) }
        let markText = TextWidth.clip(marks.joined(separator: "  "), to: max(10, s.width / 2))
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
            let text = " ↑ \(offset) line\(offset == 1 ? "" : "s") above: PgUp "
            s.put(text, row: 2, column: width - TextWidth.of(text) - 2, role: .dim)
        }
        let below = body.lines.count - offset - rows
        if below > 0 {
            let text = "↓ \(below) more line\(below == 1 ? "" : "s") below: PgDn"
            s.put(text, row: height - 3, column: width - TextWidth.of(text) - 2, role: .dim)
        }
        if body.focus.line >= offset && body.focus.line < offset + rows {
            s.cursor = (top + body.focus.line - offset, body.focus.column)
        } else {
            // Reading away from the answer: the cursor is where the reading is.
            s.cursor = (top, 2)
        }
        footer(&s, TakeKeys.question(linear: session.plan.navigation == .linear).footer(), notice: m.notice)
        if let prompt = session.prompt {
            overlay(&s, m, prompt, session)
        } else if m.confirmSkip {
            box(&s, ["Question \(session.position + 1) is not answered.",
                     "In this test you cannot come back to it. Leave it unanswered?",
                     TakeKeys.confirmSkip.footerLine], field: nil, secret: 0)
        } else {
            roomOverlay(&s, session)
        }
        return s
    }

    static func review(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        guard let session = m.session else { return s }
        header(&s, m, session)
        let items = session.plan.itemOrder
        let unanswered = session.unansweredIDs.count, flagged = session.flaggedIDs.count
        s.put(TextWidth.clip("Review: \(items.count - unanswered) of \(items.count) answered, \(flagged) flagged", to: width - 4),
              row: 3, column: 2, role: .title)
        let rows = max(1, height - 8)
        let offset = max(0, min(m.reviewHighlight - rows / 2, items.count - rows))
        let sr = m.screenReader
        for (i, id) in items.enumerated() where i >= offset && i < offset + rows {
            let answered = session.answer(id).map { !$0.isEmpty } ?? false
            let isFlagged = session.flags.contains(id)
            let prompt = m.item(id)?.listedPrompt ?? id
            // State in words; the symbols only repeat them.
            let state = sr ? (answered ? "answered" : "not answered") + (isFlagged ? ", flagged" : "")
                : (answered ? "✓ answered    " : "○ not answered") + (isFlagged ? "  ⚑ flagged" : "           ")
            let number = i + 1 < 10 ? " \(i + 1)" : "\(i + 1)"
            let head = "\(number). \(state)" + (sr ? ": " : "  ")
            let focused = i == m.reviewHighlight
            let line = (focused ? "› " : "  ") + head + TextWidth.clip(prompt.replacingOccurrences(of: "\n", with: " "), to: max(8, width - 6 - TextWidth.of(head)))
            let row = 5 + i - offset
            s.put(line, row: row, column: 1, role: focused ? .focus : (answered ? .plain : .warning))
            if focused {
                s.paint(row: row, from: 1, to: width - 1, role: .focus)
                s.cursor = (row, 3)
            }
        }
        if offset > 0 { s.put("↑ \(offset) more above", row: 4, column: width - 18, role: .dim) }
        if items.count > offset + rows { s.put("↓ \(items.count - offset - rows) more below", row: height - 3, column: width - 18, role: .dim) }
        footer(&s, TakeKeys.review(linear: session.plan.navigation == .linear).footer(), notice: m.notice)
        if let prompt = session.prompt { overlay(&s, m, prompt, session) } else { roomOverlay(&s, session) }
        return s
    }

    /// A boxed question in the middle of the screen: submit, proctor, or end confirmation.
    static func overlay(_ s: inout Screen, _ m: TakeModel, _ prompt: SessionPrompt, _ session: SessionState) {
        let inner = min(s.width - 8, 64)
        switch prompt {
        case .confirmSubmit:
            // One pass over the test, in its order: the numbers as the student sees them.
            var unanswered: [Int] = [], flagged: [Int] = []
            for (i, id) in session.plan.itemOrder.enumerated() {
                if !(session.answer(id).map { !$0.isEmpty } ?? false) { unanswered.append(i + 1) }
                if session.flags.contains(id) { flagged.append(i + 1) }
            }
            var lines = ["Submit your answers now?"]
            lines.append(unanswered.isEmpty ? "Every question is answered." : numbers(unanswered, what: "Not answered", room: inner * 2))
            if !flagged.isEmpty { lines.append(numbers(flagged, what: "Flagged", room: inner * 2)) }
            lines.append(TakeKeys.confirmSubmit.footerLine)
            box(&s, lines, field: nil, secret: 0)
        case .proctor:
            box(&s, ["Ask your proctor to end this session.", "Your answers are saved. Esc returns to the test."],
                field: "Proctor passphrase: ", secret: m.secret.characters.count)
        case .confirmEnd:
            box(&s, ["End this practice test now?", "Your answers are kept and submitted as they are.", TakeKeys.confirmEnd.footerLine],
                field: nil, secret: 0)
        }
    }

    /// The proctor's message (until a key closes it), or the pause.
    static func roomOverlay(_ s: inout Screen, _ session: SessionState) {
        if let message = session.room.message {
            box(&s, ["Message from the proctor", message, "Press any key to close this message."], field: nil, secret: 0)
        } else if session.room.paused {
            box(&s, [SessionState.pausedWords.english, "Your answers are saved. Ctrl-T says the time left; F12 calls the proctor."],
                field: nil, secret: 0)
        }
    }

    /// The raised hand in words, for the header.
    static func handWords(_ session: SessionState) -> String? {
        switch session.room.hand {
        case .down: return nil
        case .raised: return "proctor called"
        case .acknowledged: return "the proctor is coming"
        }
    }

    /// Draws a box; its last line (the keys) always stays on screen.
    static func box(_ s: inout Screen, _ lines: [String], field: String?, secret: Int) {
        let inner = min(s.width - 8, 64)
        var wrapped = lines.dropLast().flatMap { TextWidth.wrap($0, width: inner) }
        let last = lines.last.map { TextWidth.wrap($0, width: inner) } ?? []
        let room = max(1, s.height - 8 - last.count - (field != nil ? 1 : 0))
        if wrapped.count > room { wrapped = Array(wrapped.prefix(room - 1)) + ["…"] }
        wrapped += last
        if field != nil { wrapped.append("") }
        let height = wrapped.count + 2
        let top = max(3, (s.height - height) / 2)
        let left = (s.width - inner - 4) / 2
        s.put("┌" + String(repeating: "─", count: inner + 2) + "┐", row: top, column: left, role: .title)
        for (i, line) in wrapped.enumerated() {
            s.put("│ " + String(repeating: " ", count: inner) + " │", row: top + 1 + i, column: left, role: .title)
            s.put(line, row: top + 1 + i, column: left + 2, role: i == 0 ? .title : .plain)
        }
        s.put("└" + String(repeating: "─", count: inner + 2) + "┘", row: top + height - 1, column: left, role: .title)
        if let field {
            let row = top + wrapped.count
            let end = s.put(field, row: row, column: left + 2, role: .title)
            s.put(String(repeating: "•", count: secret), row: row, column: end)
            s.cursor = (row, end + secret)
        } else {
            s.cursor = (top + 1, left + 2)
        }
    }

    static func receipt(_ m: TakeModel, _ r: TakeModel.Receipt, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        s.put(TextWidth.clip("Carrel · " + m.assessment.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        let headline: String
        switch r.status {
        case .submitted: headline = "✓ Your answers were submitted."
        case .timedOut: headline = "⏱ Time is up: your answers were saved and submitted."
        case .endedByProctor: headline = "The proctor ended this session. Your answers were saved."
        case .endedByCandidate: headline = "You ended this practice session. Your answers were saved."
        }
        s.put(headline, row: 3, column: 2, role: .success)
        var row = 5
        let rows: [(String, String)] = [
            ("Candidate", m.candidate ?? "(not given)"),
            ("Session", r.session),
            ("Time used", DurationText.format(r.timeUsed)),
            ("Answered", "\(r.answered) of \(r.total)"),
        ]
        for (k, v) in rows {
            s.put(k.padding(toLength: 11, withPad: " ", startingAt: 0) + v, row: row, column: 2)
            row += 1
        }
        if let score = r.score {
            var text = "Score      \(PointsText.format(score.points)) of \(PointsText.format(score.max)) points"
            if score.pending > 0 { text += " (\(PointsText.format(score.pending)) still to be marked by a person)" }
            s.put(text, row: row, column: 2)
            row += 1
        }
        if let problem = r.problem {
            row = paragraph(&s, "Tell your proctor: " + problem, row: row + 1, role: .error)
        }
        s.put("This terminal is no longer locked.", row: row + 1, column: 2, role: .title)
        s.cursor = (3, 2)
        footer(&s, TakeKeys.receipt.footer())
        return s
    }

    static func help(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        s.put("Keys", row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        // Written from the screen's key map: the same list as the README and the man page.
        let keyColumn = 2, meaningColumn = 30
        var lines: [(String, String)] = []
        for e in m.helpListing.rows {
            let keys = TextWidth.wrap(e.keys, width: meaningColumn - keyColumn - 2)
            let meaning = TextWidth.wrap(e.meaning, width: width - meaningColumn - 2)
            for i in 0..<max(keys.count, meaning.count) {
                lines.append((i < keys.count ? keys[i] : "", i < meaning.count ? meaning[i] : ""))
            }
        }
        let rows = height - 4
        let offset = max(0, min(m.helpScroll, lines.count - rows))
        for (i, line) in lines.enumerated() where i >= offset && i < offset + rows {
            s.put(line.0, row: 2 + i - offset, column: keyColumn, role: .key)
            s.put(line.1, row: 2 + i - offset, column: meaningColumn)
        }
        let scrolls = lines.count > rows
        if scrolls {
            let shown = "lines \(offset + 1)–\(min(lines.count, offset + rows)) of \(lines.count)"
            s.put(shown, row: 0, column: width - TextWidth.of(shown) - 2, role: .dim)
        }
        s.cursor = (0, 1)
        footer(&s, TakeKeys.help.footer { scrolls || $0 == .back })
        return s
    }
}
