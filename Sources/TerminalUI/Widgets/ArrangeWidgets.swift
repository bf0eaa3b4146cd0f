import AssessmentKit
import Localization
import SessionKit

/// Ordering: ↑ ↓ highlight an entry, Shift-↑ ↓ (or u / d, - / +) move it; Enter keeps the order.
struct OrderWidget: AnswerWidget {
    let context: WidgetContext
    static let summary = KeyListing.Row(keys: "Shift-↑ ↓, or u / d", meaning: "move the highlighted entry of an ordering question up or down")

    var keyMap: KeyMap<AnswerAction> {
        KeyMap("order", "An ordering question", [
            AnswerWidgets.Binding("↑ ↓", "highlight the entry above or below", keys: [.up], .up),
            AnswerWidgets.Binding("", "", keys: [.down], .down),
            AnswerWidgets.Binding("Shift-↑, u or -", "move the highlighted entry up",
                                  keys: [.shiftUp, .character("u"), .character("U"), .character("-")], .earlier),
            AnswerWidgets.Binding("Shift-↓, d or +", "move the highlighted entry down",
                                  keys: [.shiftDown, .character("d"), .character("D"), .character("+")], .later),
            AnswerWidgets.Binding("Enter or Space", "keep this order as the answer", keys: [.enter, .character(" ")], .choose),
        ])
    }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        let opts = context.options, h = context.highlight
        func move(to: Int) -> WidgetChange {
            var arranged = opts
            arranged.swapAt(h, to)
            return WidgetChange(highlight: to, say: context.say("{0} moved to position {1} of {2}", .s(arranged[to]), .n(to + 1), .n(opts.count)),
                                commands: [.session(.answer(context.item.id, .order(arranged)))])
        }
        switch action {
        case .up, .down: return WidgetChange(highlight: AnswerWidgets.moved(action, from: h, count: opts.count))
        case .earlier:
            guard h > 0 else { return WidgetChange(say: context.say("{0} is already first", .s(opts.first ?? ""))) }
            return move(to: h - 1)
        case .later:
            guard h + 1 < opts.count else { return WidgetChange(say: context.say("{0} is already last", .s(opts.last ?? ""))) }
            return move(to: h + 1)
        case .choose:
            return WidgetChange(say: context.say("This order is your answer"), commands: [.session(.answer(context.item.id, .order(opts)))])
        default:
            return .none
        }
    }

    func lines(width: Int) -> Widgets.Output {
        var out = Widgets.Output()
        let arranged = context.options, h = context.highlight
        let touched: Bool = { if case .order? = context.response { return true } else { return false } }()
        for (i, o) in arranged.enumerated() {
            let prefix = context.screenReader ? context.say("position {0} of {1}:", .n(i + 1), .n(arranged.count)) + " " : "\(i + 1). "
            let line = out.entry(prefix: Widgets.marker(i == h) + prefix, o, role: Widgets.role(i == h, false), width: width)
            if i == h { out.focus = (line, 4) }
        }
        out.add("", indent: 2)
        out.paragraph(touched ? context.say("This order is your answer.")
                      : context.say("Not answered yet: move entries, or Enter to keep this order."), width: width)
        out.paragraph(context.say("↑ ↓ choose an entry · Shift-↑ ↓ or u / d move it"), width: width)
        return out
    }
}

/// Matching: ↑ ↓ highlight a left entry, ← → or a letter pick its match, Backspace clears it.
struct MatchWidget: AnswerWidget {
    let context: WidgetContext
    static let summary = KeyListing.Row(keys: "← → or a letter", meaning: "pick the match for the highlighted entry; Backspace clears it")

    var picks: [String: String] {
        if case let .match(p)? = context.response { return p }
        return [:]
    }

    var keyMap: KeyMap<AnswerAction> {
        // With no entries to match there is nothing to do.
        guard !context.options.isEmpty else { return KeyMap("match", "A matching question", []) }
        return KeyMap("match", "A matching question", [
            AnswerWidgets.Binding("↑ ↓", "highlight the entry above or below", keys: [.up], .up),
            AnswerWidgets.Binding("", "", keys: [.down], .down),
            AnswerWidgets.Binding("→ / ←", "the next or the previous match, then none", keys: [.right], .nextMatch),
            AnswerWidgets.Binding("", "", keys: [.left], .previousMatch),
            AnswerWidgets.Binding("a, b, c…", "that match", keys: AnswerWidgets.pickKeys(count: context.rights.count, digits: false), .pick),
            AnswerWidgets.Binding("Backspace / Delete", "no match", keys: [.backspace, .delete], .clear),
        ])
    }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        let opts = context.options, rights = context.rights, h = context.highlight
        guard opts.indices.contains(h) else { return .none }
        let left = opts[h]
        func pick(_ right: String?) -> WidgetChange {
            var next = picks
            next[left] = right
            return WidgetChange(say: right.map { context.say("{0} → {1}", .s(left), .s($0)) } ?? context.say("{0}: no match", .s(left)),
                                commands: [.session(.answer(context.item.id, .match(next)))])
        }
        switch action {
        case .up, .down: return WidgetChange(highlight: AnswerWidgets.moved(action, from: h, count: opts.count))
        case .nextMatch, .previousMatch:
            let current = picks[left].flatMap { rights.firstIndex(of: $0) }
            let step = action == .nextMatch ? 1 : -1
            // Cycles through every right-hand entry and "no answer".
            let slots = rights.count + 1
            let next = ((current ?? rights.count) + step + slots) % slots
            return pick(next == rights.count ? nil : rights[next])
        case .clear:
            return pick(nil)
        case .pick:
            guard case let .character(c) = key, c.isLetter, let i = AnswerWidgets.pickIndex(key, count: rights.count) else { return .none }
            return pick(rights[i])
        default:
            return .none
        }
    }

    func lines(width: Int) -> Widgets.Output {
        var out = Widgets.Output()
        let rights = context.rights, lefts = context.options, h = context.highlight
        let leftWidth = min(max(8, (width - 12) / 3), lefts.map(TextWidth.of).max() ?? 0)
        for (i, left) in lefts.enumerated() {
            let pick = picks[left].map { r in "\(Widgets.letter(rights.firstIndex(of: r) ?? 0))) \(r)" } ?? context.say("no match yet")
            // The left entry wraps in its own column; its match follows the arrow.
            let leftLines = TextWidth.wrap(left, width: leftWidth)
            let head = Widgets.marker(i == h)
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
                out.add(lead + padded(l) + mid + r, Widgets.role(i == h, picks[left] != nil), indent: 2)
            }
            // The cursor sits on the match: what ← → change.
            if i == h { out.focus = (first, pickColumn) }
        }
        out.add("", indent: 2)
        let choices = rights.enumerated().map { "\(Widgets.letter($0.offset))) \($0.element)" }.joined(separator: " · ")
        out.paragraph(context.say("Choose from: {0}", .s(choices)), width: width)
        out.paragraph(context.say("↑ ↓ choose an entry · ← → or a letter picks its match · Backspace clears"), width: width)
        return out
    }
}
