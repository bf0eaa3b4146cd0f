import AssessmentKit
import Localization
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
        case .lockedBanner: return banner(width: width, height: height, say: m.say)
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

    /// The keys of a screen on its last line, in the student's language. What does not fit is
    /// dropped whole, never cut: the entries that fit, with F1 (help) always kept, last.
    public static func footer(_ s: inout Screen, _ keys: [(String, String)], notice: String? = nil, say: Localizer = .english) {
        let row = s.height - 1
        let entries = keys.map { (key: say.keyName($0.0), label: say.footerLabel($0.1), help: $0.0 == "F1") }
        func piece(_ e: (key: String, label: String, help: Bool)) -> Int { TextWidth.of(e.key) + TextWidth.of(e.label) + 3 }
        var shown: [(key: String, label: String, help: Bool)] = []
        if 1 + entries.reduce(0, { $0 + piece($1) }) <= s.width {
            shown = entries
        } else {
            let help = entries.first { $0.help }
            var col = 1 + (help.map(piece) ?? 0)
            for e in entries where !e.help {
                if col + piece(e) > s.width { break }
                shown.append(e)
                col += piece(e)
            }
            if let help { shown.append(help) }
        }
        var col = 1
        for e in shown {
            col = s.put(e.key, row: row, column: col, role: .key)
            col = s.put(" " + e.label + "  ", row: row, column: col)
        }
        if let notice {
            // A status too long for one line takes the line above too (the "more below"
            // line), so no word of it is cut; past two lines it ends with "…".
            let lines = noticeLines(notice, width: s.width)
            for (i, line) in lines.enumerated() {
                let r = s.height - 1 - lines.count + i
                s.put(String(repeating: " ", count: s.width), row: r, column: 0)
                s.put(line, row: r, column: 1, role: .warning)
            }
        }
    }

    /// The status line's text as it is drawn: one line, or two when it is long.
    public static func noticeLines(_ notice: String, width: Int) -> [String] {
        let lines = TextWidth.wrap("» " + notice, width: max(10, width - 2))
        guard lines.count > 2 else { return lines }
        return [lines[0], TextWidth.clip(lines.dropFirst().joined(separator: " "), to: max(10, width - 2))]
    }

    /// The words of one kind of list of questions: its full form, and the summaries of a list
    /// too long for the room (with its first numbers, and without).
    struct NumberWords {
        let full: String
        let firstOnes: String
        let count: String
        let what: String?
    }

    static let numberWords: [String: NumberWords] = [
        "Not answered": NumberWords(
            full: "Not answered: {0, plural, one {question {1}} other {questions {1}}}",
            firstOnes: "{0, plural, one {# question not answered} other {# questions not answered}}; first: {1} …",
            count: "{0, plural, one {# question not answered} other {# questions not answered}}", what: nil),
        "Flagged": NumberWords(
            full: "Flagged: {0, plural, one {question {1}} other {questions {1}}}",
            firstOnes: "{0, plural, one {# question flagged} other {# questions flagged}}; first: {1} …",
            count: "{0, plural, one {# question flagged} other {# questions flagged}}", what: nil),
        "Part answered": NumberWords(
            full: "Part answered: {0, plural, one {question {1}} other {questions {1}}}",
            firstOnes: "{0, plural, one {# question part answered} other {# questions part answered}}; first: {1} …",
            count: "{0, plural, one {# question part answered} other {# questions part answered}}", what: nil),
    ]

    /// Question numbers in words: "Not answered: question 3", "Flagged: questions 2, 4 and 5";
    /// a long list is summarised ("298 questions not answered; first: 1, 2, 3 …") so it fits
    /// `room` columns. `what` is "Not answered", "Flagged" or "Part answered".
    public static func numbers(_ list: [Int], what: String, room: Int, say: Localizer = .english) -> String {
        numbers(list.map { String($0) }, what: what, room: room, say: say)
    }

    /// The same for entries already in words ("4 (2 of 3 matched)").
    static func numbers(_ entries: [String], what: String, room: Int, say: Localizer) -> String {
        guard !entries.isEmpty else { return "" }
        let words = numberWords[what] ?? NumberWords(
            full: "{2}: {0, plural, one {question {1}} other {questions {1}}}",
            firstOnes: "{2}: {0, plural, one {# question} other {# questions}}; first: {1} …",
            count: "{2}: {0, plural, one {# question} other {# questions}}", what: what)
        let what = Arg.s(words.what ?? "")
        let full = say(words.full, .n(entries.count), .s(say.list(entries)), what)
        if entries.count == 1 || TextWidth.of(full) <= room { return full }
        let separator = say("⟨between question numbers⟩, ")
        var text = ""
        for k in 1...entries.count {
            let next = say(words.firstOnes, .n(entries.count), .s(entries.prefix(k).joined(separator: separator)), what)
            if TextWidth.of(next) > room { break }
            text = next
        }
        return text.isEmpty ? say(words.count, .n(entries.count), what) : text
    }

    public static func rule(_ s: inout Screen, row: Int) {
        s.put(String(repeating: "─", count: s.width), row: row, column: 0, role: .dim)
    }

    static func policyLines(_ p: RestrictionPolicy, practice: Bool = false, say: Localizer) -> [String] {
        var parts: [String] = []
        parts.append(p.paste == .block ? say("Pasting: blocked and logged") : say("Pasting: allowed"))
        parts.append(p.pasteboards == .clear ? say("Clipboards: cleared at start and end") : say("Clipboards: left alone"))
        if practice {
            parts.append(say("Ctrl-C: end this practice test (asks first; your answers are kept)"))
        } else {
            parts.append(p.suspend == .block ? say("Ctrl-C / Ctrl-Z: ask your proctor") : say("Ctrl-C / Ctrl-Z: leave (saved, resumable)"))
        }
        parts.append(p.focus == .log ? say("Leaving this window: logged") : say("Leaving this window: not logged"))
        parts.append(p.multiplexer == .refuse ? say("tmux/screen: refused") : say("tmux/screen: allowed"))
        parts.append(p.extensions == .refuse ? say("Injected code, debuggers: refused") : say("Injected code: allowed"))
        parts.append(p.remote == .refuse ? say("SSH: refused (local console only)") : say("SSH: allowed"))
        parts.append(say("Ends itself after {0} at most", .time(p.maxDuration)))
        return parts
    }

    /// The label of a field the proctor types into, with the space after it.
    static func passphraseLabel(_ say: Localizer) -> String { say("Proctor passphrase:") + " " }

    /// Parts of a line said one after another ("Question 2 of 8, flagged, proctor called").
    static func joinedParts(_ parts: [String], _ say: Localizer) -> String {
        parts.joined(separator: say("⟨between parts of a line⟩, "))
    }

    // MARK: screens

    static func start(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let a = m.assessment
        let say = m.say
        s.put(TextWidth.clip("Carrel · " + a.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        var r = 2
        s.put(TextWidth.clip(say("Candidate: {0}", .s(m.candidate ?? say("(not given)"))), to: width - 4), row: r, column: 2)
        r += 1
        let time = m.timeAllowed.map { say("time allowed {0}", .time($0)) } ?? say("no time limit")
        let nav = a.navigation == .linear ? say("no going back") : say("move freely between questions")
        let count = say("{0, plural, one {# question} other {# questions}}", .n(a.questionsPerSession))
        r = paragraph(&s, [count, time, nav].joined(separator: " · "), row: r, limit: r + 2) + 1
        // What the test is and what it forbids; a language whose words take more lines
        // leaves the teacher's description fewer of them.
        let policy = TextWidth.wrap(policyLines(a.policy, practice: !m.needsLaunchPassphrase, say: say).joined(separator: " · "),
                                    width: width - 4)
        let never = TextWidth.wrap(say("Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions."),
                                   width: width - 4)
        let extra = max(0, policy.count - 4) + max(0, never.count - 2)
        if let d = a.description {
            r = paragraph(&s, d, row: r, limit: r + max(1, 4 - extra)) + 1
        }
        s.put(TextWidth.clip(say("During this assessment"), to: width - 4), row: r, column: 2, role: .title)
        r += 1
        for line in policy where r < height - 2 {
            s.put(line, row: r, column: 2)
            r += 1
        }
        for line in never where r < height - 2 {
            s.put(line, row: r, column: 2)
            r += 1
        }
        r += 1
        if m.waitsForProctor {
            let text = say("Waiting for the proctor to start. Nothing is locked and no time runs yet.")
            var next = paragraph(&s, text, row: r, role: .title, limit: height - 2)
            s.cursor = (r, 2)
            if let key = m.seatKey {
                // What the proctor's console lists for this seat before it sends the test's key.
                next = paragraph(&s, say("Seat key: {0} (the proctor checks it before starting)", .s(key)), row: next, limit: height - 2)
            }
            r = next - 1
        } else if m.needsLaunchPassphrase {
            r = paragraph(&s, say("The proctor enters the passphrase to start."), row: r, limit: r + 2)
            let end = s.put(passphraseLabel(say), row: r, column: 2, role: .title)
            s.put(String(repeating: "•", count: m.secret.characters.count), row: r, column: end)
            s.cursor = (r, end + m.secret.characters.count)
        } else {
            s.cursor = (0, 1)
        }
        if let message = m.startMessage {
            paragraph(&s, message, row: min(r + 2, height - 3), role: .error, limit: height - 1)
        }
        let waits = m.waitsForProctor
        footer(&s, TakeKeys.start(passphrase: m.needsLaunchPassphrase).footer { !waits || $0 == .quit || $0 == .help }, say: say)
        return s
    }

    static func confirmLock(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        s.put(TextWidth.clip("Carrel · " + m.assessment.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        var r = paragraph(&s, say("This terminal will be locked to this test until you submit, for at most {0}.",
                                  .time(m.assessment.policy.maxDuration)), row: 4)
        // A practice test (no proctor passphrase) lets Ctrl-C end it after asking: it says so.
        let leaving = m.needsLaunchPassphrase ? say("Pasting, other programs and leaving with Ctrl-C or Ctrl-Z will not be possible until then.") : say("Pasting and other programs will not be possible until then; Ctrl-C asks whether to end this practice test.")
        r = paragraph(&s, leaving, row: r + 1)
        let end = s.put(say("Begin? {0}/N", .s(say.keyName("y"))) + " ", row: r + 1, column: 2, role: .title)
        s.cursor = (r + 1, end)
        footer(&s, TakeKeys.confirmLock.footer(), say: say)
        return s
    }

    static func banner(width: Int, height: Int, say: Localizer) -> Screen {
        var s = Screen(width: width, height: height)
        let title = TextWidth.wrap(say("This terminal is now locked to Carrel"), width: width - 4)
        let press = TextWidth.wrap(say("Press any key for the first question."), width: width - 4)
        let top = height / 2 - title.count
        for (i, line) in title.enumerated() {
            s.put(line, row: top + i, column: max(0, (width - TextWidth.of(line)) / 2), role: .title)
        }
        for (i, line) in press.enumerated() {
            s.put(line, row: height / 2 + 1 + i, column: max(0, (width - TextWidth.of(line)) / 2))
        }
        s.cursor = (top, max(0, (width - TextWidth.of(title.first ?? "")) / 2))
        return s
    }

    static func tooSmall(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        let sizes: [Arg] = [.s(String(minimumWidth)), .s(String(minimumHeight)), .s(String(width)), .s(String(height))]
        let text = m.session == nil
            ? say.say(Phrase(template: "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}).", args: sizes))
            : say.say(Phrase(template: "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}). Your time keeps counting; keys do nothing until the test fits.",
                             args: sizes))
        let columns = max(1, width - 2)
        // The lines as a list first, so that none is ever written over another: on a tiny
        // screen the question asked (and its keys) is kept, then the sentence's first lines.
        var explanation = TextWidth.wrap(text, width: columns).map { ($0, Role.plain) }
        if !explanation.isEmpty { explanation[0].1 = .warning }
        var clock: [(String, Role)] = []
        // The clock ticks here only where it ticks on the test itself.
        if let session = m.session, session.plan.timeAllowed != nil, !m.screenReader, !m.clockHidden {
            clock = [(TextWidth.clip(m.timeText(session), to: columns), .plain)]
        }
        var asked: [(String, Role)] = []
        var secret = 0
        switch m.session?.prompt {
        case .confirmEnd?:
            asked = TextWidth.wrap(say("End this practice test now?") + " " + TakeKeys.confirmEnd.footerLine(say), width: columns).map { ($0, .title) }
        case .confirmSubmit?:
            // Only "no" works here: what is unanswered cannot be shown.
            let no = KeyMap("", "", TakeKeys.confirmSubmit.bindings.filter { $0.action == .no }).footerLine(say)
            asked = TextWidth.wrap(say("Submit? Enlarge the terminal to see what is unanswered") + " · " + no, width: columns).map { ($0, .title) }
        case .proctor?:
            // The proctor can still end the session from here.
            asked = [(TextWidth.clip(passphraseLabel(say), to: max(1, columns - 4)), .title)]
            secret = m.secret.characters.count
        default:
            break
        }
        var gap = 1
        while explanation.count + clock.count * (1 + gap) + (asked.isEmpty ? 0 : asked.count + gap) > height {
            if gap > 0 { gap = 0 } else if !clock.isEmpty { clock = [] } else if explanation.count > 1 { explanation.removeLast() } else { break }
        }
        if asked.count > height {
            asked = Array(asked.prefix(max(1, height)))
            asked[asked.count - 1].0 = TextWidth.clip(asked[asked.count - 1].0 + " …", to: columns)
            explanation = []
        }
        var row = 0
        for (line, role) in explanation where row < height {
            s.put(line, row: row, column: 1, role: role)
            row += 1
        }
        s.cursor = (0, 1)
        for (line, role) in clock where row + gap < height {
            row += gap
            s.put(line, row: row, column: 1, role: role)
            row += 1
        }
        if !asked.isEmpty {
            row = min(row + gap, max(0, height - asked.count))
            s.cursor = (row, 1)
            for (i, (line, role)) in asked.enumerated() where row + i < height {
                let end = s.put(line, row: row + i, column: 1, role: role)
                if secret > 0 || m.session?.prompt == .proctor {
                    let dots = String(repeating: "•", count: min(secret, max(0, width - end)))
                    s.put(dots, row: row + i, column: end)
                    s.cursor = (row + i, min(width - 1, end + dots.count))
                }
            }
        }
        return s
    }

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

    static func review(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        guard let session = m.session else { return s }
        header(&s, m, session)
        let items = session.plan.itemOrder
        let unanswered = session.unansweredIDs.count, flagged = session.flaggedIDs.count
        s.put(TextWidth.clip(say("Review: {0} of {1} answered, {2} flagged", .n(items.count - unanswered), .n(items.count), .n(flagged)),
                             to: width - 4),
              row: 3, column: 2, role: .title)
        let rows = max(1, height - 8)
        let offset = max(0, min(m.reviewHighlight - rows / 2, items.count - rows))
        let sr = m.screenReader
        // State in words; the symbols only repeat them.
        let answeredWord = say("⟨question state⟩answered"), notAnsweredWord = say("⟨question state⟩not answered")
        let flaggedWord = say("⟨question state⟩flagged")
        /// A row's state in words, long ("part answered: 1 of 3 matched") and short ("part
        /// answered") for a row with no room for the long one: what is said is never cut.
        func state(_ id: String) -> (long: String, short: String, answered: Bool) {
            let answered = session.answer(id).map { !$0.isEmpty } ?? false
            let mark = sr ? "" : (answered ? "✓ " : "○ ")
            guard answered else { return (mark + notAnsweredWord, mark + notAnsweredWord, false) }
            if let part = session.partDone(id, item: m.item(id)) {
                let mark = sr ? "" : "◐ "
                return (mark + say("part answered: {0}", .phrase(part)), mark + say("⟨question state⟩part answered"), true)
            }
            return (mark + answeredWord, mark + answeredWord, true)
        }
        let states = items.map(state)
        // The columns line up: every state as wide as the widest, as far as the question's
        // words keep 20 columns; a longer state takes its own row's room.
        let flagColumn = "⚑ " + flaggedWord
        let flagWidth = TextWidth.of(flagColumn)
        let baseWidth = max(TextWidth.of("✓ " + answeredWord), TextWidth.of("○ " + notAnsweredWord))
        let widest = max(baseWidth, states.map { TextWidth.of($0.long) }.max() ?? 0)
        let stateWidth = min(widest, max(baseWidth, width - 6 - 4 - 2 - flagWidth - 2 - 20))
        func padded(_ text: String, to columns: Int) -> String {
            text + String(repeating: " ", count: max(0, columns - TextWidth.of(text)))
        }
        for (i, id) in items.enumerated() where i >= offset && i < offset + rows {
            let (long, short, answered) = states[i]
            let isFlagged = session.flags.contains(id)
            let prompt = m.item(id)?.listedPrompt ?? id
            let number = i + 1 < 10 ? " \(i + 1)" : "\(i + 1)"
            let focused = i == m.reviewHighlight
            let promptText = prompt.replacingOccurrences(of: "\n", with: " ")
            let line: String
            if sr {
                func head(_ state: String) -> String {
                    say("⟨review row⟩{0}: {1}", .s(joinedParts([state] + (isFlagged ? [flaggedWord] : []), say)), .s(""))
                }
                var words = joinedParts([long] + (isFlagged ? [flaggedWord] : []), say)
                var room = width - 10 - TextWidth.of(head(long))
                if room < 8 {
                    words = joinedParts([short] + (isFlagged ? [flaggedWord] : []), say)
                    room = width - 10 - TextWidth.of(head(short))
                }
                line = (focused ? "› " : "  ") + number + ". "
                    + say("⟨review row⟩{0}: {1}", .s(words), .s(TextWidth.clip(promptText, to: max(0, room))))
            } else {
                func head(_ state: String) -> String {
                    "\(number). " + padded(state, to: stateWidth) + "  "
                        + (isFlagged ? flagColumn : String(repeating: " ", count: flagWidth)) + "  "
                }
                var h = head(long)
                if width - 6 - TextWidth.of(h) < 8 { h = head(short) }
                line = (focused ? "› " : "  ") + h + TextWidth.clip(promptText, to: max(0, width - 6 - TextWidth.of(h)))
            }
            let row = 5 + i - offset
            s.put(line, row: row, column: 1, role: focused ? .focus : (answered ? .plain : .warning))
            if focused {
                s.paint(row: row, from: 1, to: width - 1, role: .focus)
                s.cursor = (row, 3)
            }
        }
        if offset > 0 {
            let text = "↑ " + say("{0} more above", .n(offset))
            s.put(text, row: 4, column: max(0, min(width - 18, width - TextWidth.of(text) - 2)), role: .dim)
        }
        if items.count > offset + rows {
            let text = "↓ " + say("{0} more below", .n(items.count - offset - rows))
            s.put(text, row: height - 3, column: max(0, min(width - 18, width - TextWidth.of(text) - 2)), role: .dim)
        }
        footer(&s, session.prompt != nil ? [] : TakeKeys.review(linear: session.plan.navigation == .linear).footer(), notice: m.notice, say: say)
        if let prompt = session.prompt { overlay(&s, m, prompt, session) } else { roomOverlay(&s, session, say: say) }
        return s
    }

    /// A boxed question in the middle of the screen: submit, proctor, or end confirmation.
    static func overlay(_ s: inout Screen, _ m: TakeModel, _ prompt: SessionPrompt, _ session: SessionState) {
        let inner = min(s.width - 8, 64)
        let say = m.say
        switch prompt {
        case .confirmSubmit:
            // One pass over the test, in its order: the numbers as the student sees them.
            var unanswered: [Int] = [], flagged: [Int] = [], part: [String] = []
            for (i, id) in session.plan.itemOrder.enumerated() {
                if !(session.answer(id).map { !$0.isEmpty } ?? false) { unanswered.append(i + 1) }
                if session.flags.contains(id) { flagged.append(i + 1) }
                if let done = session.partDone(id, item: m.item(id)) {
                    part.append(say("⟨question and how much of it is answered⟩{0} ({1})", .n(i + 1), .phrase(done)))
                }
            }
            var lines = [say("Submit your answers now?")]
            if !unanswered.isEmpty {
                lines.append(numbers(unanswered, what: "Not answered", room: inner * 2, say: say))
            } else {
                lines.append(part.isEmpty ? say("Every question is answered.") : say("Every question has an answer."))
            }
            if !part.isEmpty { lines.append(numbers(part, what: "Part answered", room: inner * 2, say: say)) }
            if !flagged.isEmpty { lines.append(numbers(flagged, what: "Flagged", room: inner * 2, say: say)) }
            lines.append(TakeKeys.confirmSubmit.footerLine(say, yes: TakeKeys.yesLetter(say, opener: TakeKeys.submitLetter)))
            box(&s, lines, field: nil, secret: 0)
        case .proctor:
            box(&s, [say("Ask your proctor to end this session."), say("Your answers are saved. Esc returns to the test.")],
                field: passphraseLabel(say), secret: m.secret.characters.count)
        case .confirmEnd:
            box(&s, [say("End this practice test now?"), say("Your answers are kept and submitted as they are."),
                     TakeKeys.confirmEnd.footerLine(say)],
                field: nil, secret: 0)
        }
    }

    /// The proctor's message (until a key closes it), or the pause.
    static func roomOverlay(_ s: inout Screen, _ session: SessionState, say: Localizer) {
        if let message = session.room.message {
            box(&s, [say("Message from the proctor"), message, say("Press any key to close this message.")], field: nil, secret: 0)
        } else if session.room.paused {
            box(&s, [say.say(SessionState.pausedWords), say("Your answers are saved. Ctrl-T says the time left; F12 calls the proctor.")],
                field: nil, secret: 0)
        }
    }

    /// The raised hand in words, for the header.
    static func handWords(_ session: SessionState, say: Localizer) -> String? {
        switch session.room.hand {
        case .down: return nil
        case .raised: return say("proctor called")
        case .acknowledged: return say("the proctor is coming")
        }
    }

    /// Draws a box; its last line (the keys) always stays on screen. The lines come already
    /// said in the student's language: the box itself has no words.
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
        // The rows the box stands on are cleared whole: no sentence behind it shows in part
        // at its sides.
        for row in top..<min(s.height, top + height) { s.put(String(repeating: " ", count: s.width), row: row, column: 0) }
        s.put("┌" + String(repeating: "─", count: inner + 2) + "┐", row: top, column: left, role: .title)
        for (i, line) in wrapped.enumerated() {
            s.put("│ " + String(repeating: " ", count: inner) + " │", row: top + 1 + i, column: left, role: .title)
            s.put(line, row: top + 1 + i, column: left + 2, role: i == 0 ? .title : .plain)
        }
        s.put("└" + String(repeating: "─", count: inner + 2) + "┘", row: top + height - 1, column: left, role: .title)
        if let field {
            let row = top + wrapped.count
            let end = s.put(TextWidth.clip(field, to: inner), row: row, column: left + 2, role: .title)
            s.put(String(repeating: "•", count: min(secret, max(0, left + 2 + inner - end))), row: row, column: end)
            s.cursor = (row, min(end + secret, left + 2 + inner))
        } else {
            s.cursor = (top + 1, left + 2)
        }
    }

    static func receipt(_ m: TakeModel, _ r: TakeModel.Receipt, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        s.put(TextWidth.clip("Carrel · " + m.assessment.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        let headline: String
        switch r.status {
        case .submitted: headline = "✓ " + say("Your answers were submitted.")
        case .timedOut: headline = "⏱ " + say("Time is up: your answers were saved and submitted.")
        case .endedByProctor: headline = say("The proctor ended this session. Your answers were saved.")
        case .endedByCandidate: headline = say("You ended this practice session. Your answers were saved.")
        }
        var row = paragraph(&s, headline, row: 3, role: .success, limit: 6) + 1
        var rows: [(String, String)] = [
            (say("⟨receipt⟩Candidate"), m.candidate ?? say("(not given)")),
            (say("⟨receipt⟩Session"), r.session),
            (say("⟨receipt⟩Time used"), say.duration(r.timeUsed)),
            (say("⟨receipt⟩Answered"), say("⟨receipt⟩{0} of {1}", .n(r.answered), .n(r.total))),
        ]
        if let score = r.score {
            let points = score.pending > 0
                ? say("{0} of {1} points ({2} still to be marked by a person)", .points(score.points), .points(score.max), .points(score.pending))
                : say("{0} of {1} points", .points(score.points), .points(score.max))
            rows.append((say("⟨receipt⟩Score"), points))
        }
        // Labels in a column as wide as the widest, whatever the language.
        let labelWidth = (rows.map { TextWidth.of($0.0) }.max() ?? 0) + 2
        for (k, v) in rows {
            // A value too long for its line goes on under itself, not under the label.
            let lines = TextWidth.wrap(v, width: max(10, width - 4 - labelWidth))
            for (i, line) in lines.enumerated() {
                s.put(i == 0 ? k : "", row: row, column: 2)
                s.put(line, row: row, column: 2 + labelWidth)
                row += 1
            }
        }
        if let problem = r.problem {
            row = paragraph(&s, say("Tell your proctor: {0}", .s(problem)), row: row + 1, role: .error)
        }
        paragraph(&s, say("This terminal is no longer locked."), row: row + 1, role: .title, limit: height - 2)
        s.cursor = (3, 2)
        footer(&s, TakeKeys.receipt.footer(), say: say)
        return s
    }

    static func help(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        s.put(say("Keys"), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        // Written from the screen's key map: the same list as the README and the man page.
        let keyColumn = 2, meaningColumn = 30
        var lines: [(String, String)] = []
        var starts: [Int] = []
        for e in m.helpListing.rows {
            let keys = TextWidth.wrap(say.keyWords(e.keys), width: meaningColumn - keyColumn - 2)
            let meaning = TextWidth.wrap(say(e.meaning), width: width - meaningColumn - 2)
            starts.append(lines.count)
            for i in 0..<max(keys.count, meaning.count) {
                lines.append((i < keys.count ? keys[i] : "", i < meaning.count ? meaning[i] : ""))
            }
        }
        starts.append(lines.count)
        // Whole keys only: the window begins with a key's first line and ends after a key's
        // last, so that no sentence is shown cut in two.
        let rows = height - 4
        let wanted = max(0, min(m.helpScroll, lines.count - rows))
        let first = starts.first { $0 >= wanted } ?? wanted
        var last = first
        for end in starts where end > first && end - first <= rows { last = end }
        if last == first { last = min(lines.count, first + rows) }
        for i in first..<last {
            s.put(lines[i].0, row: 2 + i - first, column: keyColumn, role: .key)
            s.put(lines[i].1, row: 2 + i - first, column: meaningColumn)
        }
        let scrolls = lines.count > rows
        if scrolls {
            let shown = say("lines {0}–{1} of {2}", .n(first + 1), .n(last), .n(lines.count))
            s.put(shown, row: 0, column: width - TextWidth.of(shown) - 2, role: .dim)
        }
        s.cursor = (0, 1)
        footer(&s, TakeKeys.help.footer { scrolls || $0 == .back }, say: say)
        return s
    }
}
