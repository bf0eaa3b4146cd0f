import AssessmentKit
import Localization
import SessionKit

extension AnswerWidgets {
    /// Typing in a typed answer: whatever the editor did, and the draft sent when the text changed.
    static func edited(_ context: WidgetContext, key: Key, wrapWidth: Int?) -> WidgetChange {
        var e = context.editor
        let before = e.text
        guard e.apply(key, wrapWidth: wrapWidth) else { return .none }
        var change = WidgetChange(editor: e)
        if e.text != before {
            change.commands = [.session(.edit(context.item.id, TakeModel.response(for: context.item, text: e.text)))]
        }
        return change
    }
}

/// A one-line typed answer: type, move with ← → Home End; Enter goes on.
struct TextFieldWidget: AnswerWidget {
    let context: WidgetContext
    static let summary = KeyListing.Row(keys: "← → ↑ ↓ Home End",
                                        meaning: "move in a typed answer; in an essay Enter starts a new line and ↑ ↓ move by line")

    var keyMap: KeyMap<AnswerAction> {
        KeyMap("text", "A typed answer", [
            AnswerWidgets.Binding("a character", "type it (printable text)", keys: [], keyClass: .printableText, .edit),
            AnswerWidgets.Binding("← → Home End", "move in the answer", keys: [.left, .right, .home, .end], .edit),
            AnswerWidgets.Binding("Backspace / Delete", "delete before or after the cursor", keys: [.backspace, .delete], .edit),
            AnswerWidgets.Binding("Enter", "the next question", keys: [.enter], .next),
        ])
    }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        switch action {
        case .edit: return AnswerWidgets.edited(context, key: key, wrapWidth: nil)
        case .next: return WidgetChange(nextQuestion: true)
        default: return .none
        }
    }

    func lines(width: Int) -> Widgets.Output {
        var out = Widgets.Output()
        let e = context.editor
        let label = context.say("⟨typed answer⟩Answer:") + " "
        let visible = width - 4 - TextWidth.of(label) - 2
        let (shown, cursorCol) = Widgets.window(e.text, cursorColumn: e.cursorColumn, width: visible)
        out.add(label + shown)
        out.add(String(repeating: " ", count: TextWidth.of(label)) + String(repeating: "‾", count: max(1, min(visible, 40))), .dim)
        out.focus = (0, 4 + TextWidth.of(label) + cursorCol)
        if e.text.isEmpty { out.paragraph(context.say("Not answered yet: type your answer."), width: width) }
        return out
    }
}

/// A number: typed as a one-line answer, with a warning while the text is not a number yet.
struct NumericWidget: AnswerWidget {
    let context: WidgetContext
    var field: TextFieldWidget { TextFieldWidget(context: context) }

    var keyMap: KeyMap<AnswerAction> { field.keyMap.named("numeric", "A number") }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange { field.perform(action, key: key) }

    func lines(width: Int) -> Widgets.Output {
        var out = field.lines(width: width)
        let text = context.editor.text
        // Under the field (an empty field says it is not answered yet instead).
        if !text.isEmpty, NumericText.parse(text) == nil {
            out.paragraph(context.say("Not a number yet: use digits, one decimal point or comma, and an optional exponent such as 2e3."),
                          .warning, width: width)
        }
        return out
    }
}

/// An essay: lines of text, Enter starts a new line and ↑ ↓ Home End move by the lines as shown.
struct EssayWidget: AnswerWidget {
    let context: WidgetContext
    var keyMap: KeyMap<AnswerAction> {
        KeyMap("essay", "An essay", [
            AnswerWidgets.Binding("a character", "type it (printable text)", keys: [], keyClass: .printableText, .edit),
            AnswerWidgets.Binding("Enter", "start a new line", keys: [.enter], .edit),
            AnswerWidgets.Binding("← → ↑ ↓ Home End", "move in the essay, by the lines as shown",
                                  keys: [.left, .right, .up, .down, .home, .end], .edit),
            AnswerWidgets.Binding("Backspace / Delete", "delete before or after the cursor", keys: [.backspace, .delete], .edit),
        ])
    }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        action == .edit ? AnswerWidgets.edited(context, key: key, wrapWidth: Views.essayWidth(context.viewWidth)) : .none
    }

    func lines(width: Int) -> Widgets.Output {
        guard case let .essay(minWords, maxWords) = context.item.kind else { return Widgets.Output() }
        var out = Widgets.Output()
        let e = context.editor
        let textWidth = Views.essayWidth(width)
        let (row, column, visual) = e.visualCursor(width: textWidth)
        for line in visual {
            var text = String(e.characters[line.start..<line.end])
            while text.hasSuffix(" ") && TextWidth.of(text) > textWidth { text.removeLast() }
            out.add("│ " + text)
        }
        out.focus = (row, 6 + column)
        let words = AnswerText.wordCount(e.text)
        let say = context.say
        var count = say("{0, plural, one {# word} other {# words}}", .n(words))
        if let minWords { count = say("{0} · at least {1}", .s(count), .n(minWords)) }
        if let maxWords { count = say("{0} · at most {1}", .s(count), .n(maxWords)) }
        let outside = (minWords.map { words < $0 } ?? false) || (maxWords.map { words > $0 } ?? false)
        if outside { count = say("{0} (outside the range)", .s(count)) }
        out.add("", indent: 2)
        out.paragraph(count, outside ? .warning : .dim, width: width)
        out.paragraph(say("Enter starts a new line; ↑ ↓ move by line; Tab goes to the next question."), width: width)
        return out
    }
}
