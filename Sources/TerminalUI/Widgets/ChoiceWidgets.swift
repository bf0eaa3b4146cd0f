import AssessmentKit
import Localization
import SessionKit

/// One answer from a list: ↑ ↓ and Enter or Space, or the entry's letter or digit.
struct ChoiceWidget: AnswerWidget {
    let context: WidgetContext
    static let summary = KeyListing.Row(keys: "↑ ↓, Enter or Space",
                                        meaning: "move between choices and choose; a letter a, b, c… or a digit picks one directly")

    var keyMap: KeyMap<AnswerAction> {
        AnswerWidgets.listMap("choice", "A choice question", count: context.options.count,
                              choose: "choose the highlighted choice", pick: "choose that choice")
    }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        if let h = AnswerWidgets.moved(action, from: context.highlight, count: context.options.count) { return WidgetChange(highlight: h) }
        guard let i = AnswerWidgets.entry(action, key: key, context) else { return .none }
        let opts = context.options
        return WidgetChange(highlight: i, say: context.say("{0} selected", .s(opts[i])),
                            commands: [.session(.answer(context.item.id, .choice(opts[i])))])
    }

    func lines(width: Int) -> Widgets.Output {
        var picked: String?
        if case let .choice(c)? = context.response { picked = c }
        return Widgets.radioList(context, picked: picked, width: width)
    }
}

/// True or false: ↑ ↓ and Enter or Space, or t / a / 1 and f / b / 2.
struct TrueFalseWidget: AnswerWidget {
    let context: WidgetContext
    static let trueKeys: [Key] = [.character("t"), .character("T"), .character("a"), .character("1")]

    var keyMap: KeyMap<AnswerAction> {
        KeyMap("true-false", "A true/false question", [
            AnswerWidgets.Binding("↑ ↓", "highlight the other answer", keys: [.up, .down], .down),
            AnswerWidgets.Binding("Enter or Space", "choose the highlighted answer", keys: [.enter, .character(" ")], .choose),
            AnswerWidgets.Binding("t, a or 1", "choose True", keys: Self.trueKeys, .pick),
            AnswerWidgets.Binding("f, b or 2", "choose False", keys: [.character("f"), .character("F"), .character("b"), .character("2")], .pick),
        ])
    }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        let h = context.highlight
        let value: Bool
        switch action {
        case .up, .down: return WidgetChange(highlight: 1 - h)
        case .choose: value = h == 0
        case .pick: value = Self.trueKeys.contains(key)
        default: return .none
        }
        return WidgetChange(highlight: value ? 0 : 1, say: context.say("{0} selected", .s(context.say(value ? "True" : "False"))),
                            commands: [.session(.answer(context.item.id, .trueFalse(value)))])
    }

    func lines(width: Int) -> Widgets.Output {
        var picked: String?
        if case let .trueFalse(b)? = context.response { picked = context.say(b ? "True" : "False") }
        return Widgets.radioList(context, picked: picked, width: width)
    }
}

/// Any number of answers from a list: Space, Enter or a letter checks or unchecks.
struct CheckboxWidget: AnswerWidget {
    let context: WidgetContext
    var picks: [String] {
        if case let .multiple(p)? = context.response { return p }
        return []
    }

    var keyMap: KeyMap<AnswerAction> {
        AnswerWidgets.listMap("multiple", "A question with several answers", count: context.options.count,
                              choose: "check or uncheck the highlighted choice", pick: "check or uncheck that choice")
    }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        let opts = context.options
        if let h = AnswerWidgets.moved(action, from: context.highlight, count: opts.count) { return WidgetChange(highlight: h) }
        guard let i = AnswerWidgets.entry(action, key: key, context) else { return .none }
        let choice = opts[i]
        let on = !picks.contains(choice)
        let set = on ? picks + [choice] : picks.filter { $0 != choice }
        return WidgetChange(highlight: i, say: on ? context.say("{0} checked; {1, plural, one {# checked} other {# checked}}", .s(choice), .n(set.count))
                                  : context.say("{0} unchecked; {1, plural, one {# checked} other {# checked}}", .s(choice), .n(set.count)),
                            commands: [.session(.answer(context.item.id, .multiple(opts.filter { set.contains($0) })))])
    }

    func lines(width: Int) -> Widgets.Output {
        var out = Widgets.Output()
        let (h, sr) = (context.highlight, context.screenReader)
        for (i, o) in context.options.enumerated() {
            let on = picks.contains(o)
            let line = out.entry(prefix: Widgets.marker(i == h) + (on ? "[x] " : "[ ] ") + Widgets.letter(i) + ") ",
                                 Widgets.stated(o, on ? context.say("⟨state⟩checked") : (sr ? context.say("⟨state⟩not checked") : nil),
                                                screenReader: sr, say: context.say),
                                 role: Widgets.role(i == h, on), width: width)
            if i == h { out.focus = (line, 4) }
        }
        out.add("", indent: 2)
        out.paragraph(context.say("Pick all that apply: {0, plural, one {# checked} other {# checked}}. Space or a letter checks or unchecks.",
                                  .n(picks.count)), width: width)
        return out
    }
}
