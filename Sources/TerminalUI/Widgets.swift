import AssessmentKit
import SessionKit

/// The answer area of a question: lines to show and where the focus is.
public enum Widgets {
    struct Output {
        var lines: [(String, Role, Int)] = []
        var focus: (line: Int, column: Int) = (0, 4)
    }

    static func letter(_ i: Int) -> String {
        i < 26 ? String(UnicodeScalar(UInt8(97 + i))) : "\(i + 1)"
    }

    static func lines(_ m: TakeModel, item: Item, session: SessionState, width: Int) -> Output {
        var out = Output()
        let response = session.answer(item.id)
        let h = m.highlight[item.id] ?? 0
        switch item.kind {
        case .choice, .trueFalse:
            let opts = m.options(item)
            var picked: String? = nil
            if case let .choice(c)? = response { picked = c }
            if case let .trueFalse(b)? = response { picked = b ? "True" : "False" }
            for (i, o) in opts.enumerated() {
                let on = o == picked
                add(&out, "\(on ? "(•)" : "( )") \(letter(i))) \(o)", on: on, focused: i == h, width: width)
                if i == h { out.focus = (out.lines.count - 1, 4) }
            }
            out.lines.append(("", .plain, 2))
            out.lines.append((picked == nil ? "Not answered yet" : "Your answer: \(picked ?? "")", .dim, 4))
        case .multiple:
            var picks: [String] = []
            if case let .multiple(p)? = response { picks = p }
            for (i, o) in m.options(item).enumerated() {
                let on = picks.contains(o)
                add(&out, "\(on ? "[x]" : "[ ]") \(letter(i))) \(o)", on: on, focused: i == h, width: width)
                if i == h { out.focus = (out.lines.count - 1, 4) }
            }
            out.lines.append(("", .plain, 2))
            out.lines.append(("Pick all that apply: \(picks.count) picked. Space or a letter toggles.", .dim, 4))
        case .text, .numeric:
            let e = m.editor(for: item)
            let label = "Answer: "
            let visible = width - TextWidth.of(label) - 2
            let (shown, cursorCol) = window(e.text, cursorColumn: e.cursorColumn, width: visible)
            out.lines.append((label + shown, .plain, 4))
            out.lines.append((String(repeating: " ", count: TextWidth.of(label)) + String(repeating: "‾", count: max(1, min(visible, 40))), .dim, 4))
            out.focus = (0, 4 + TextWidth.of(label) + cursorCol)
            if case .numeric = item.kind, !e.text.isEmpty, NumericText.parse(e.text) == nil {
                for line in TextWidth.wrap("Not a number yet: use digits, one decimal point or comma, and an optional exponent such as 2e3.", width: width - 2) {
                    out.lines.append((line, .warning, 4))
                }
            }
        case let .essay(minWords, maxWords):
            let e = m.editor(for: item)
            let paragraphs = e.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let cursorLine = e.cursorLine
            for (i, p) in paragraphs.enumerated() {
                let (shown, col) = window(p, cursorColumn: i == cursorLine ? e.cursorColumn : 0, width: width - 4)
                out.lines.append(("│ " + shown, .plain, 4))
                if i == cursorLine { out.focus = (out.lines.count - 1, 6 + col) }
            }
            let words = AnswerText.wordCount(e.text)
            var count = "\(words) word\(words == 1 ? "" : "s")"
            if let minWords { count += " · at least \(minWords)" }
            if let maxWords { count += " · at most \(maxWords)" }
            let outside = (minWords.map { words < $0 } ?? false) || (maxWords.map { words > $0 } ?? false)
            out.lines.append(("", .plain, 2))
            out.lines.append((count + (outside ? "  (outside the range)" : ""), outside ? .warning : .dim, 4))
        case .order:
            let arranged = m.options(item)
            let touched: Bool = { if case .order? = response { return true } else { return false } }()
            for (i, o) in arranged.enumerated() {
                add(&out, "\(i + 1). \(o)", on: false, focused: i == h, width: width)
                if i == h { out.focus = (out.lines.count - 1, 4) }
            }
            out.lines.append(("", .plain, 2))
            out.lines.append((touched ? "Your order is saved." : "Not answered yet: move entries, or Enter to keep this order.", .dim, 4))
            out.lines.append(("↑↓ choose · Shift-↑↓ or u/d move the chosen entry", .dim, 4))
        case .match:
            var picks: [String: String] = [:]
            if case let .match(p)? = response { picks = p }
            let rights = m.displayOrder(item)
            let lefts = m.options(item)
            let leftWidth = min(24, lefts.map(TextWidth.of).max() ?? 0)
            for (i, left) in lefts.enumerated() {
                let pick = picks[left].map { r in "\(letter(rights.firstIndex(of: r) ?? 0))) \(r)" } ?? "—"
                let padded = left + String(repeating: " ", count: max(0, leftWidth - TextWidth.of(left)))
                add(&out, "\(padded)  →  \(pick)", on: picks[left] != nil, focused: i == h, width: width)
                if i == h { out.focus = (out.lines.count - 1, 4) }
            }
            out.lines.append(("", .plain, 2))
            let choices = rights.enumerated().map { "\(letter($0.offset))) \($0.element)" }.joined(separator: "   ")
            for line in TextWidth.wrap("Choose from: " + choices, width: width - 2) { out.lines.append((line, .dim, 4)) }
            out.lines.append(("↑↓ choose an entry · ←→ or a letter picks its match · Backspace clears", .dim, 4))
        }
        return out
    }

    static func add(_ out: inout Output, _ text: String, on: Bool, focused: Bool, width: Int) {
        let marker = focused ? "› " : "  "
        out.lines.append((TextWidth.clip(marker + text, to: width), focused ? .focus : (on ? .selected : .plain), 2))
    }

    /// The part of a long line that keeps the cursor in view.
    public static func window(_ text: String, cursorColumn: Int, width: Int) -> (String, Int) {
        guard TextWidth.of(text) > width, width > 4 else { return (text, cursorColumn) }
        var start = 0
        if cursorColumn >= width - 1 { start = cursorColumn - width + 2 }
        var skipped = 0
        var index = text.startIndex
        while index < text.endIndex && skipped < start {
            skipped += TextWidth.of(text[index])
            index = text.index(after: index)
        }
        let (shown, _) = TextWidth.split(String(text[index...]), at: width)
        return (shown, cursorColumn - skipped)
    }
}
