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
        case .question: return question(m, width: width, height: height)
        case .review: return review(m, width: width, height: height)
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

    public static func rule(_ s: inout Screen, row: Int) {
        s.put(String(repeating: "─", count: s.width), row: row, column: 0, role: .dim)
    }

    static func policyLines(_ p: RestrictionPolicy) -> [String] {
        var parts: [String] = []
        parts.append(p.paste == .block ? "Pasting: blocked and logged" : "Pasting: allowed")
        parts.append(p.pasteboards == .clear ? "Clipboards: cleared at start and end" : "Clipboards: left alone")
        parts.append(p.suspend == .block ? "Ctrl-C / Ctrl-Z: ask your proctor" : "Ctrl-C / Ctrl-Z: leave (saved, resumable)")
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
        s.put("\(a.items.count) questions · \(time) · \(nav)", row: r, column: 2)
        r += 2
        if let d = a.description {
            r = paragraph(&s, d, row: r, limit: r + 4) + 1
        }
        s.put("During this assessment", row: r, column: 2, role: .title)
        r += 1
        let parts = policyLines(a.policy)
        r = paragraph(&s, parts.joined(separator: " · "), row: r, limit: r + 4)
        r = paragraph(&s, "Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions.",
                      row: r, limit: r + 2) + 1
        var keys: [(String, String)] = [("Enter", "continue"), ("Esc", "leave"), ("F1", "help")]
        if m.needsLaunchPassphrase {
            let label = "Proctor passphrase: "
            s.put("The proctor enters the passphrase to start.", row: r, column: 2)
            r += 1
            let end = s.put(label, row: r, column: 2, role: .title)
            s.put(String(repeating: "•", count: m.secret.characters.count), row: r, column: end)
            s.cursor = (r, end + m.secret.characters.count)
            keys[0] = ("Enter", "start")
        } else {
            s.cursor = (0, 1)
        }
        if let message = m.startMessage {
            s.put(TextWidth.clip(message, to: width - 4), row: min(r + 2, height - 3), column: 2, role: .error)
        }
        footer(&s, keys)
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
        footer(&s, [("y", "begin"), ("n", "back")])
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
        let lines = TextWidth.wrap("Please enlarge the terminal to at least \(minimumWidth)×\(minimumHeight) (now \(width)×\(height)). Your time keeps counting.", width: max(1, width - 2))
        for (i, line) in lines.enumerated() { s.put(line, row: i, column: 1, role: i == 0 ? .warning : .plain) }
        if let session = m.session, session.plan.timeAllowed != nil {
            s.put(m.timeText(session), row: min(height - 1, lines.count + 1), column: 1)
        }
        s.cursor = (0, 1)
        return s
    }

    static func header(_ s: inout Screen, _ m: TakeModel, _ session: SessionState) {
        let a = m.assessment
        let time: String
        if m.screenReader {
            time = session.plan.timeAllowed == nil ? "" : "Ctrl-T: time left"
        } else {
            time = session.remaining.map { "⏱ \(Clock.text(Int($0.rounded(.up)))) left" } ?? "no time limit"
        }
        let timeRole: Role = (session.remaining ?? 999) <= 60 ? .warning : .plain
        let right = TextWidth.of(time)
        s.put(TextWidth.clip(a.title, to: s.width - right - 4), row: 0, column: 1, role: .title)
        s.put(time, row: 0, column: s.width - right - 1, role: timeRole)
        var info = "Question \(session.position + 1) of \(session.plan.itemOrder.count)"
        if let id = session.currentItemID, let section = a.sections.first(where: { $0.items.contains { $0.id == id } }), let t = section.title {
            info += " · " + t
        }
        var marks: [String] = []
        if let id = session.currentItemID, session.flags.contains(id) { marks.append("⚑ flagged") }
        var failed = false
        if let id = session.currentItemID {
            switch session.save(id) {
            case .untouched: break
            case .saved: marks.append("✓ saved")
            case .pending: marks.append("… saving")
            case let .failed(why):
                marks.append("✗ not saved (\(why)), retrying")
                failed = true
            }
        }
        let markText = TextWidth.clip(marks.joined(separator: "  "), to: max(10, s.width / 2))
        s.put(TextWidth.clip(info, to: max(10, s.width - TextWidth.of(markText) - 4)), row: 1, column: 1)
        s.put(markText, row: 1, column: s.width - TextWidth.of(markText) - 1, role: failed ? .error : .dim)
        rule(&s, row: 2)
    }

    static func question(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        guard let session = m.session, let item = m.currentItem else { return s }
        header(&s, m, session)
        var body: [(String, Role, Int)] = []   // text, role, indent
        var focus: (line: Int, column: Int) = (0, 2)
        let inner = width - 6
        if let section = m.assessment.sections.first(where: { $0.items.contains { $0.id == item.id } }),
           let instructions = section.instructions, session.plan.itemOrder.first(where: { id in section.items.contains { $0.id == id } }) == item.id {
            for line in TextWidth.wrap(instructions, width: inner) { body.append((line, .dim, 2)) }
            body.append(("", .plain, 2))
        }
        for line in TextWidth.wrap(item.prompt, width: inner) { body.append((line, .plain, 2)) }
        body.append(("", .plain, 2))
        let widget = Widgets.lines(m, item: item, session: session, width: inner)
        focus = (body.count + widget.focus.line, widget.focus.column)
        body += widget.lines
        // Scroll so the focused line shows; PgUp/PgDn move the view by hand.
        let top = 3, bottom = height - 3
        let rows = bottom - top
        var offset = max(0, min(m.scroll, max(0, body.count - rows)))
        if focus.line < offset { offset = focus.line }
        if focus.line >= offset + rows { offset = focus.line - rows + 1 }
        for (i, entry) in body.enumerated() where i >= offset && i < offset + rows {
            s.put(entry.0, row: top + i - offset, column: entry.2, role: entry.1)
        }
        if offset > 0 { s.put("↑ more", row: top, column: width - 8, role: .dim) }
        if body.count > offset + rows { s.put("↓ more", row: bottom - 1, column: width - 8, role: .dim) }
        s.cursor = (top + focus.line - offset, focus.column)
        var keys: [(String, String)] = [("Tab", "next"), ("S-Tab", "back"), ("^F", "flag"), ("^R", "review"), ("^S", "submit"), ("F1", "help")]
        if session.plan.navigation == .linear { keys.remove(at: 1) }
        footer(&s, keys, notice: m.notice)
        if let prompt = session.prompt { overlay(&s, m, prompt, session) }
        return s
    }

    static func review(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        guard let session = m.session else { return s }
        header(&s, m, session)
        s.put("Review — ✓ answered · ○ not answered · ⚑ flagged", row: 3, column: 2, role: .title)
        let items = session.plan.itemOrder
        let rows = height - 7
        let offset = max(0, min(m.reviewHighlight - rows / 2, items.count - rows))
        for (i, id) in items.enumerated() where i >= offset && i < offset + rows {
            let answered = session.answer(id).map { !$0.isEmpty } ?? false
            let flagged = session.flags.contains(id)
            let prompt = m.assessment.items.first { $0.id == id }?.prompt ?? id
            let mark = (answered ? "✓ answered    " : "○ unanswered  ") + (flagged ? "⚑ " : "  ")
            let number = i + 1 < 10 ? " \(i + 1)" : "\(i + 1)"
            let line = "\(number). \(mark)" + TextWidth.clip(prompt.replacingOccurrences(of: "\n", with: " "), to: width - 28)
            let row = 5 + i - offset
            s.put(line, row: row, column: 2, role: answered ? .plain : .warning)
            if i == m.reviewHighlight {
                s.paint(row: row, from: 1, to: width - 1, role: .focus)
                s.cursor = (row, 2)
            }
        }
        let unanswered = session.unansweredIDs.count, flagged = session.flaggedIDs.count
        s.put("\(items.count - unanswered) of \(items.count) answered · \(flagged) flagged", row: height - 3, column: 2)
        var keys: [(String, String)] = [("↑↓", "choose"), ("Enter", "go to"), ("Esc", "back"), ("s", "submit"), ("F1", "help")]
        if session.plan.navigation == .linear { keys[1] = ("Enter", "go to (forward only)") }
        footer(&s, keys, notice: m.notice)
        if let prompt = session.prompt { overlay(&s, m, prompt, session) }
        return s
    }

    /// A boxed question in the middle of the screen: submit, proctor, or end confirmation.
    static func overlay(_ s: inout Screen, _ m: TakeModel, _ prompt: SessionPrompt, _ session: SessionState) {
        var lines: [String] = []
        var field: String? = nil
        switch prompt {
        case .confirmSubmit:
            lines.append("Submit your answers now?")
            let unanswered = session.unansweredIDs.compactMap { id in session.plan.itemOrder.firstIndex(of: id).map { "\($0 + 1)" } }
            let flagged = session.flaggedIDs.compactMap { id in session.plan.itemOrder.firstIndex(of: id).map { "\($0 + 1)" } }
            lines.append(unanswered.isEmpty ? "Every question is answered." : "Not answered: " + unanswered.joined(separator: ", "))
            if !flagged.isEmpty { lines.append("Flagged: " + flagged.joined(separator: ", ")) }
            lines.append("y: submit    n: keep working")
        case .proctor:
            lines.append("Ask your proctor to end this session.")
            lines.append("Your answers are saved. Esc returns to the test.")
            field = "Proctor passphrase: "
        case .confirmEnd:
            lines.append("End the session now?")
            lines.append("Your answers are submitted as they are.")
            lines.append("y: end now    n: keep working")
        }
        let inner = min(s.width - 8, 64)
        let wrapped = lines.flatMap { TextWidth.wrap($0, width: inner) } + (field != nil ? [""] : [])
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
            s.put(String(repeating: "•", count: m.secret.characters.count), row: row, column: end)
            s.cursor = (row, end + m.secret.characters.count)
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
        footer(&s, [("Enter", "close")])
        return s
    }

    static func help(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        s.put("Keys", row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        let entries: [(String, String)] = [
            ("Tab / Ctrl-N", "next question"),
            ("Shift-Tab / Ctrl-P", "previous question (not in linear tests)"),
            ("Ctrl-F / F2", "flag or unflag this question"),
            ("Ctrl-R / F3", "review: every question, answered, unanswered, flagged"),
            ("Ctrl-S / F10", "submit (asks first)"),
            ("Ctrl-T / F4", "say how much time is left"),
            ("PgUp / PgDn", "scroll a long question"),
            ("↑ ↓ Enter Space", "choose; letters a, b, c… or digits pick directly"),
            ("Shift-↑↓ or u / d", "move an entry up or down (ordering questions)"),
            ("← → / a, b, c…", "pick a match for the highlighted entry"),
            ("Ctrl-C / Ctrl-Z / Ctrl-Q", "ask your proctor to end the session"),
            ("F1 / Ctrl-G", "this help (Esc closes it)"),
        ]
        for (i, e) in entries.enumerated() where 2 + i < height - 2 {
            s.put(e.0, row: 2 + i, column: 2, role: .key)
            s.put(e.1, row: 2 + i, column: 28)
        }
        s.cursor = (0, 1)
        footer(&s, [("Esc", "close help")])
        return s
    }
}
