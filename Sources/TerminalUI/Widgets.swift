import AssessmentKit
import SessionKit

/// One line of the question area: its text, its role and the column it starts at.
public struct BodyLine: Sendable, Equatable {
    public var text: String
    public var role: Role
    public var indent: Int
}

/// The answer area of a question: wrapped lines to show and where the focus is. Every entry
/// wraps at word boundaries with a hanging indent, and says its state in words.
public enum Widgets {
    struct Output {
        var lines: [BodyLine] = []
        /// The focused element: its line and the screen column of the cursor.
        var focus: (line: Int, column: Int) = (0, 4)

        mutating func add(_ text: String, _ role: Role = .plain, indent: Int = 4) {
            lines.append(BodyLine(text: text, role: role, indent: indent))
        }

        /// Wrapped text with a hanging indent (`indent` columns from the edge, all lines).
        mutating func paragraph(_ text: String, _ role: Role = .dim, indent: Int = 4, width: Int) {
            for line in TextWidth.wrap(text, width: max(8, width - indent)) { add(line, role, indent: indent) }
        }

        /// An entry: `prefix` on its first line, the text wrapped beside it and under itself.
        /// Returns the index of its first line.
        @discardableResult
        mutating func entry(prefix: String, _ text: String, role: Role, indent: Int = 2, width: Int) -> Int {
            let first = lines.count
            let hang = TextWidth.of(prefix)
            let wrapped = TextWidth.wrap(text, width: max(8, width - indent - hang))
            for (i, line) in wrapped.enumerated() {
                add((i == 0 ? prefix : String(repeating: " ", count: hang)) + line, role, indent: indent)
            }
            return first
        }
    }

    static func letter(_ i: Int) -> String {
        i < 26 ? String(UnicodeScalar(UInt8(97 + i))) : "\(i + 1)"
    }

    /// Text with its state in words: after it ("Ottawa — selected") or, for a screen reader,
    /// before it, so the word is on the line the cursor is on however the text wraps.
    static func stated(_ text: String, _ state: String?, screenReader: Bool) -> String {
        guard let state else { return text }
        return screenReader ? "\(state): \(text)" : "\(text) — \(state)"
    }

    /// The answer area for `item`, `width` columns wide (the whole screen's width).
    static func lines(_ m: TakeModel, item: Item, session: SessionState, width: Int) -> Output {
        var out = Output()
        let response = session.answer(item.id)
        let h = m.highlight[item.id] ?? 0
        let sr = m.screenReader
        func marker(_ focused: Bool) -> String { focused ? "› " : "  " }
        func role(_ focused: Bool, _ on: Bool) -> Role { focused ? .focus : (on ? .selected : .plain) }
        switch item.kind {
        case .choice, .trueFalse:
            let opts = m.options(item)
            var picked: String? = nil
            if case let .choice(c)? = response { picked = c }
            if case let .trueFalse(b)? = response { picked = b ? "True" : "False" }
            for (i, o) in opts.enumerated() {
                let on = o == picked
                let line = out.entry(prefix: marker(i == h) + (on ? "(•) " : "( ) ") + letter(i) + ") ",
                                     stated(o, on ? "selected" : nil, screenReader: sr), role: role(i == h, on), width: width)
                if i == h { out.focus = (line, 4) }
            }
            out.add("", indent: 2)
            out.paragraph(picked.map { "Your answer: \($0)" } ?? "Not answered yet", width: width)
        case .multiple:
            var picks: [String] = []
            if case let .multiple(p)? = response { picks = p }
            for (i, o) in m.options(item).enumerated() {
                let on = picks.contains(o)
                let line = out.entry(prefix: marker(i == h) + (on ? "[x] " : "[ ] ") + letter(i) + ") ",
                                     stated(o, on ? "checked" : (sr ? "not checked" : nil), screenReader: sr),
                                     role: role(i == h, on), width: width)
                if i == h { out.focus = (line, 4) }
            }
            out.add("", indent: 2)
            out.paragraph("Pick all that apply: \(picks.count) checked. Space or a letter checks or unchecks.", width: width)
        case .text, .numeric:
            let e = m.editor(for: item)
            let label = "Answer: "
            let visible = width - 4 - TextWidth.of(label) - 2
            let (shown, cursorCol) = window(e.text, cursorColumn: e.cursorColumn, width: visible)
            out.add(label + shown)
            out.add(String(repeating: " ", count: TextWidth.of(label)) + String(repeating: "‾", count: max(1, min(visible, 40))), .dim)
            out.focus = (0, 4 + TextWidth.of(label) + cursorCol)
            if case .numeric = item.kind, !e.text.isEmpty, NumericText.parse(e.text) == nil {
                out.paragraph("Not a number yet: use digits, one decimal point or comma, and an optional exponent such as 2e3.",
                              .warning, width: width)
            }
            if e.text.isEmpty { out.paragraph("Not answered yet: type your answer.", width: width) }
        case let .essay(minWords, maxWords):
            let e = m.editor(for: item)
            let textWidth = Views.essayWidth(width)
            let (row, column, visual) = e.visualCursor(width: textWidth)
            let first = out.lines.count
            for line in visual {
                var text = String(e.characters[line.start..<line.end])
                while text.hasSuffix(" ") && TextWidth.of(text) > textWidth { text.removeLast() }
                out.add("│ " + text)
            }
            out.focus = (first + row, 6 + column)
            let words = AnswerText.wordCount(e.text)
            var count = "\(words) word\(words == 1 ? "" : "s")"
            if let minWords { count += " · at least \(minWords)" }
            if let maxWords { count += " · at most \(maxWords)" }
            let outside = (minWords.map { words < $0 } ?? false) || (maxWords.map { words > $0 } ?? false)
            out.add("", indent: 2)
            out.paragraph(count + (outside ? " (outside the range)" : ""), outside ? .warning : .dim, width: width)
            out.paragraph("Enter starts a new line; ↑ ↓ move by line; Tab goes to the next question.", width: width)
        case .order:
            let arranged = m.options(item)
            let touched: Bool = { if case .order? = response { return true } else { return false } }()
            for (i, o) in arranged.enumerated() {
                let prefix = sr ? "position \(i + 1) of \(arranged.count): " : "\(i + 1). "
                let line = out.entry(prefix: marker(i == h) + prefix, o, role: role(i == h, false), width: width)
                if i == h { out.focus = (line, 4) }
            }
            out.add("", indent: 2)
            out.paragraph(touched ? "This order is your answer." : "Not answered yet: move entries, or Enter to keep this order.",
                          width: width)
            out.paragraph("↑ ↓ choose an entry · Shift-↑ ↓ or u / d move it", width: width)
        case .match:
            var picks: [String: String] = [:]
            if case let .match(p)? = response { picks = p }
            let rights = m.displayOrder(item)
            let lefts = m.options(item)
            let leftWidth = min(max(8, (width - 12) / 3), lefts.map(TextWidth.of).max() ?? 0)
            for (i, left) in lefts.enumerated() {
                let pick = picks[left].map { r in "\(letter(rights.firstIndex(of: r) ?? 0))) \(r)" } ?? "no match yet"
                // The left entry wraps in its own column; its match follows the arrow.
                let leftLines = TextWidth.wrap(left, width: leftWidth)
                let head = marker(i == h)
                let padded = { (s: String) in s + String(repeating: " ", count: max(0, leftWidth - TextWidth.of(s))) }
                let arrow = " → "
                let pickColumn = 2 + TextWidth.of(head) + leftWidth + TextWidth.of(arrow)
                let pickLines = TextWidth.wrap(pick, width: max(8, width - pickColumn - 2))
                let first = out.lines.count
                for row in 0..<max(leftLines.count, pickLines.count) {
                    let l = row < leftLines.count ? leftLines[row] : ""
                    let r = row < pickLines.count ? pickLines[row] : ""
                    let lead = row == 0 ? head : "  "
                    let mid = row == 0 ? arrow : String(repeating: " ", count: TextWidth.of(arrow))
                    out.add(lead + padded(l) + mid + r, role(i == h, picks[left] != nil), indent: 2)
                }
                // The cursor sits on the match: what ← → change.
                if i == h { out.focus = (first, pickColumn) }
            }
            out.add("", indent: 2)
            let choices = rights.enumerated().map { "\(letter($0.offset))) \($0.element)" }.joined(separator: " · ")
            out.paragraph("Choose from: " + choices, width: width)
            out.paragraph("↑ ↓ choose an entry · ← → or a letter picks its match · Backspace clears", width: width)
        }
        return out
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
