import AssessmentKit
import Localization
import SessionKit

// The receipt after the test, and F1's help.
extension Views {
    static func receipt(_ m: TakeModel, _ r: TakeModel.Receipt, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        s.put(TextWidth.clip("Carrel · " + m.assessment.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        let headline: String
        switch r.status {
        case .submitted: headline = "✓ " + say("Your answers were submitted.")
        case .timedOut: headline = "⏱ " + say("Time is up: your answers were saved and submitted.")
        case .endedByProctor, .seatLost: headline = say("The proctor ended this session. Your answers were saved.")
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
        } else if r.heldScore != nil {
            rows.append((say("⟨receipt⟩Score"), say("shown once this seat's answers reach the store")))
        } else if r.unscored {
            rows.append((say("⟨receipt⟩Score"), say("given by your proctor, who holds the answer key")))
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
