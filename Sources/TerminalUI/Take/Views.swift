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
}
