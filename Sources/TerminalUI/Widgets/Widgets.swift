import AssessmentKit
import Localization
import SessionKit

/// One line of the question area: its text, its role and the column it starts at.
public struct BodyLine: Sendable, Equatable {
    public var text: String
    public var role: Role
    public var indent: Int
    /// Columns of `text` drawn as the focused element (a gap's field in a line of text).
    public var highlight: Range<Int>? = nil
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
    /// before it, so the word is on the line the cursor is on however the text wraps. `state`
    /// is already said in the student's language.
    static func stated(_ text: String, _ state: String?, screenReader: Bool, say: Localizer) -> String {
        guard let state else { return text }
        return screenReader ? say("⟨state, then the entry⟩{0}: {1}", .s(state), .s(text))
            : say("⟨the entry, then its state⟩{0} — {1}", .s(text), .s(state))
    }

    static func marker(_ focused: Bool) -> String { focused ? "› " : "  " }
    static func role(_ focused: Bool, _ on: Bool) -> Role { focused ? .focus : (on ? .selected : .plain) }

    /// One answer of a list, as round buttons (a choice, true or false).
    static func radioList(_ context: WidgetContext, picked: String?, width: Int) -> Output {
        var out = Output()
        let (h, sr) = (context.highlight, context.screenReader)
        for (i, o) in context.options.enumerated() {
            let on = o == picked
            let line = out.entry(prefix: marker(i == h) + (on ? "(•) " : "( ) ") + letter(i) + ") ",
                                 stated(o, on ? context.say("⟨state⟩selected") : nil, screenReader: sr, say: context.say),
                                 role: role(i == h, on), width: width)
            if i == h { out.focus = (line, 4) }
        }
        out.add("", indent: 2)
        out.paragraph(picked.map { context.say("Your answer: {0}", .s($0)) } ?? context.say("⟨answer area⟩Not answered yet"), width: width)
        return out
    }

    /// The answer area for `item`, `width` columns wide (the whole screen's width): its widget's lines.
    static func lines(_ m: TakeModel, item: Item, width: Int) -> Output {
        m.widget(for: item).lines(width: width)
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
