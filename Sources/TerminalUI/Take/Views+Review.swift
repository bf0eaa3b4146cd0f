import AssessmentKit
import Localization
import SessionKit

// The review screen: every question with its state, flag and first words.
extension Views {
    static func review(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        guard let session = m.session else { return s }
        header(&s, m, session)
        let items = session.plan.itemOrder
        let unanswered = session.unansweredIDs.count, flagged = session.flaggedIDs.count
        s.put(TextWidth.clip(say("Review: {0} of {1} answered, {2} flagged", .n(items.count - unanswered), .n(items.count), .n(flagged)),
                             to: width - 4),
              row: 3, column: 2, role: .title)
        let rows = max(1, height - 8)
        let offset = max(0, min(m.reviewHighlight - rows / 2, items.count - rows))
        let list = ReviewList(m, session, width: width)
        for (i, id) in items.enumerated() where i >= offset && i < offset + rows {
            let focused = i == m.reviewHighlight
            let row = 5 + i - offset
            s.put(list.line(i, id, focused: focused), row: row, column: 1,
                  role: focused ? .focus : (list.states[i].answered ? .plain : .warning))
            if focused {
                s.paint(row: row, from: 1, to: width - 1, role: .focus)
                s.cursor = (row, 3)
            }
        }
        if offset > 0 {
            let text = "↑ " + say("{0} more above", .n(offset))
            s.put(text, row: 4, column: max(0, min(width - 18, width - TextWidth.of(text) - 2)), role: .dim)
        }
        if items.count > offset + rows {
            let text = "↓ " + say("{0} more below", .n(items.count - offset - rows))
            s.put(text, row: height - 3, column: max(0, min(width - 18, width - TextWidth.of(text) - 2)), role: .dim)
        }
        footer(&s, session.prompt != nil ? [] : TakeKeys.review(linear: session.plan.navigation == .linear).footer(), notice: m.notice, say: say)
        if let prompt = session.prompt { overlay(&s, m, prompt, session) } else { roomOverlay(&s, session, say: say) }
        return s
    }
}

/// The review list's words and columns, worked out once a frame.
private struct ReviewList {
    let m: TakeModel
    let session: SessionState
    let say: Localizer
    let width: Int
    let sr: Bool
    // State in words; the symbols only repeat them.
    let answeredWord: String
    let notAnsweredWord: String
    let flaggedWord: String
    let flagColumn: String
    let flagWidth: Int
    private(set) var stateWidth = 0
    private(set) var states: [(long: String, short: String, answered: Bool)] = []

    init(_ m: TakeModel, _ session: SessionState, width: Int) {
        let say = m.say
        self.m = m
        self.session = session
        self.say = say
        self.width = width
        sr = m.screenReader
        answeredWord = say("⟨question state⟩answered")
        notAnsweredWord = say("⟨question state⟩not answered")
        flaggedWord = say("⟨question state⟩flagged")
        // The columns line up: every state as wide as the widest, as far as the question's
        // words keep 20 columns; a longer state takes its own row's room.
        flagColumn = "⚑ " + flaggedWord
        flagWidth = TextWidth.of(flagColumn)
        states = session.plan.itemOrder.map { state($0) }
        let baseWidth = max(TextWidth.of("✓ " + answeredWord), TextWidth.of("○ " + notAnsweredWord))
        let widest = max(baseWidth, states.map { TextWidth.of($0.long) }.max() ?? 0)
        stateWidth = min(widest, max(baseWidth, width - 6 - 4 - 2 - flagWidth - 2 - 20))
    }

    /// A row's state in words, long ("part answered: 1 of 3 matched") and short ("part
    /// answered") for a row with no room for the long one: what is said is never cut.
    func state(_ id: String) -> (long: String, short: String, answered: Bool) {
        let answered = session.answer(id).map { !$0.isEmpty } ?? false
        let mark = sr ? "" : (answered ? "✓ " : "○ ")
        guard answered else { return (mark + notAnsweredWord, mark + notAnsweredWord, false) }
        if let part = session.partDone(id, item: m.item(id)) {
            let mark = sr ? "" : "◐ "
            return (mark + say("part answered: {0}", .phrase(part)), mark + say("⟨question state⟩part answered"), true)
        }
        return (mark + answeredWord, mark + answeredWord, true)
    }

    /// The row of the question at `i`: in words for a screen reader, in columns otherwise.
    func line(_ i: Int, _ id: String, focused: Bool) -> String {
        let (long, short, _) = states[i]
        let isFlagged = session.flags.contains(id)
        let prompt = m.item(id)?.listedPrompt ?? id
        let number = i + 1 < 10 ? " \(i + 1)" : "\(i + 1)"
        let promptText = prompt.replacingOccurrences(of: "\n", with: " ")
        let rest = sr ? spoken(number, long, short, isFlagged, promptText) : columns(number, long, short, isFlagged, promptText)
        return (focused ? "› " : "  ") + rest
    }

    private func spoken(_ number: String, _ long: String, _ short: String, _ isFlagged: Bool, _ promptText: String) -> String {
        func head(_ state: String) -> String {
            say("⟨review row⟩{0}: {1}", .s(Views.joinedParts([state] + (isFlagged ? [flaggedWord] : []), say)), .s(""))
        }
        var words = Views.joinedParts([long] + (isFlagged ? [flaggedWord] : []), say)
        var room = width - 10 - TextWidth.of(head(long))
        if room < 8 {
            words = Views.joinedParts([short] + (isFlagged ? [flaggedWord] : []), say)
            room = width - 10 - TextWidth.of(head(short))
        }
        return number + ". " + say("⟨review row⟩{0}: {1}", .s(words), .s(TextWidth.clip(promptText, to: max(0, room))))
    }

    private func columns(_ number: String, _ long: String, _ short: String, _ isFlagged: Bool, _ promptText: String) -> String {
        func padded(_ text: String, to columns: Int) -> String {
            text + String(repeating: " ", count: max(0, columns - TextWidth.of(text)))
        }
        func head(_ state: String) -> String {
            "\(number). " + padded(state, to: stateWidth) + "  "
                + (isFlagged ? flagColumn : String(repeating: " ", count: flagWidth)) + "  "
        }
        var h = head(long)
        if width - 6 - TextWidth.of(h) < 8 { h = head(short) }
        return h + TextWidth.clip(promptText, to: max(0, width - 6 - TextWidth.of(h)))
    }
}
