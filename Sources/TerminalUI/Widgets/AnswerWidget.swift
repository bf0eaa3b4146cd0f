import Localization
import AssessmentKit
import SessionKit

/// What one of a question's own keys does.
public enum AnswerAction: Sendable, Equatable {
    /// Move the highlight.
    case up, down, first, last
    /// Choose (or check, or keep) the highlighted entry: Enter or Space.
    case choose
    /// Choose the entry a letter or a digit names.
    case pick
    /// Ordering: move the highlighted entry up or down.
    case earlier, later
    /// Matching: the next or the previous match for the highlighted entry, or none.
    case nextMatch, previousMatch, clear
    /// Typing in the answer, and moving in it.
    case edit
    /// A one-line answer's Enter: the next question.
    case next
}

/// What a widget reads: its question, its answer, and what the screen holds for it.
struct WidgetContext {
    let item: Item
    let response: Response?
    /// The entries as shown (choices in the plan's order, an ordering as arranged, matching's left column).
    let options: [String]
    /// Matching: the right-hand entries, in the plan's order.
    let rights: [String]
    /// The highlighted entry, within `options`.
    let highlight: Int
    let editor: TextEditor
    let screenReader: Bool
    /// The student's language.
    var say = Localizer.english
    /// The screen's width (an essay wraps by it).
    let viewWidth: Int
    /// A text with gaps: each gap's options as shown (empty for a typed gap).
    var gapOptions: [[String]] = []
    /// A text with gaps: the highlighted option of a gap that takes several picks.
    var optionHighlight = 0
}

/// What a key did to a widget: the model applies it.
struct WidgetChange {
    var highlight: Int?
    var optionHighlight: Int?
    var editor: TextEditor?
    /// A status to say ("Ottawa selected").
    var say: String?
    var commands: [TakeRequest] = []
    /// Go on to the next question (a one-line answer's Enter).
    var nextQuestion = false

    static let none = WidgetChange()
}

/// One kind of question's answer area: its keys (its map) and its lines, in one type.
protocol AnswerWidget {
    var context: WidgetContext { get }
    var keyMap: KeyMap<AnswerAction> { get }
    func perform(_ action: AnswerAction, key: Key) -> WidgetChange
    func lines(width: Int) -> Widgets.Output
}

enum AnswerWidgets {
    /// The widget of `item`'s kind.
    static func make(_ context: WidgetContext) -> any AnswerWidget {
        switch context.item.kind {
        case .choice: return ChoiceWidget(context: context)
        case .multiple: return CheckboxWidget(context: context)
        case .trueFalse: return TrueFalseWidget(context: context)
        case .text: return TextFieldWidget(context: context)
        case .numeric: return NumericWidget(context: context)
        case .essay: return EssayWidget(context: context)
        case .order: return OrderWidget(context: context)
        case .match: return MatchWidget(context: context)
        case .gaps: return GapsWidget(context: context)
        }
    }

    /// The answer keys of every kind in words, one row for kinds that share their keys: the
    /// question screen's help and the README list these.
    static let summaries: [KeyListing.Row] = [ChoiceWidget.summary, OrderWidget.summary, MatchWidget.summary, TextFieldWidget.summary, GapsWidget.summary]

    typealias Binding = KeyBinding<AnswerAction>

    /// ↑ ↓ Home End over a list of entries.
    static let listMoves: [Binding] = [
        Binding("↑ ↓", "highlight the entry above or below", keys: [.up], .up),
        Binding("", "", keys: [.down], .down),
        Binding("Home / End", "highlight the first or the last entry", keys: [.home], .first),
        Binding("", "", keys: [.end], .last),
    ]

    /// A list to choose from: ↑ ↓ Home End, Enter or Space on the highlighted entry, or its letter or digit.
    static func listMap(_ name: String, _ title: String, count: Int, choose: String, pick: String) -> KeyMap<AnswerAction> {
        KeyMap(name, title, listMoves + [
            Binding("Enter or Space", choose, keys: [.enter, .character(" ")], .choose),
            Binding("a, b, c… or 1, 2, 3…", pick, keys: pickKeys(count: count, digits: true), .pick),
        ])
    }

    /// The letters a, b, c… (either case) and, with `digits`, 1, 2, 3… that name `count` entries.
    static func pickKeys(count: Int, digits: Bool) -> [Key] {
        var keys: [Key] = []
        for i in 0..<min(count, 26) {
            let lower = Character(UnicodeScalar(UInt8(97 + i)))
            keys += [.character(lower), .character(Character(lower.uppercased()))]
        }
        if digits { keys += (1..<min(count, 9) + 1).map { Key.character(Character(String($0))) } }
        return keys
    }

    /// The entry a pick key names.
    static func pickIndex(_ key: Key, count: Int) -> Int? {
        guard case let .character(c) = key, c.isASCII else { return nil }
        if let d = c.wholeNumberValue, d >= 1, d <= count { return d - 1 }
        guard c.isLetter, let a = c.lowercased().unicodeScalars.first else { return nil }
        let i = Int(a.value) - 97
        return i >= 0 && i < count ? i : nil
    }

    /// The new highlight for a move over `count` entries; nil for other actions.
    static func moved(_ action: AnswerAction, from h: Int, count: Int) -> Int? {
        switch action {
        case .up: return max(0, h - 1)
        case .down: return min(max(0, count - 1), h + 1)
        case .first: return 0
        case .last: return max(0, count - 1)
        default: return nil
        }
    }

    /// The entry Enter or Space (the highlighted one) or a pick key (the one it names) is about.
    static func entry(_ action: AnswerAction, key: Key, _ context: WidgetContext) -> Int? {
        let index = action == .pick ? pickIndex(key, count: context.options.count) : context.highlight
        guard let i = index, context.options.indices.contains(i) else { return nil }
        return i
    }
}
