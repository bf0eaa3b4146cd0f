import AssessmentKit
import Localization
import SessionKit

// What is drawn over a question or the review: a confirmation, the proctor's word, a box.
extension Views {
    /// A boxed question in the middle of the screen: submit, proctor, or end confirmation.
    static func overlay(_ s: inout Screen, _ m: TakeModel, _ prompt: SessionPrompt, _ session: SessionState) {
        let inner = min(s.width - 8, 64)
        let say = m.say
        switch prompt {
        case .confirmSubmit:
            // One pass over the test, in its order: the numbers as the student sees them.
            var unanswered: [Int] = [], flagged: [Int] = [], part: [String] = []
            for (i, id) in session.plan.itemOrder.enumerated() {
                if !(session.answer(id).map { !$0.isEmpty } ?? false) { unanswered.append(i + 1) }
                if session.flags.contains(id) { flagged.append(i + 1) }
                if let done = session.partDone(id, item: m.item(id)) {
                    part.append(say("⟨question and how much of it is answered⟩{0} ({1})", .n(i + 1), .phrase(done)))
                }
            }
            var lines = [say("Submit your answers now?")]
            if !unanswered.isEmpty {
                lines.append(numbers(unanswered, what: "Not answered", room: inner * 2, say: say))
            } else {
                lines.append(part.isEmpty ? say("Every question is answered.") : say("Every question has an answer."))
            }
            if !part.isEmpty { lines.append(numbers(part, what: "Part answered", room: inner * 2, say: say)) }
            if !flagged.isEmpty { lines.append(numbers(flagged, what: "Flagged", room: inner * 2, say: say)) }
            lines.append(TakeKeys.confirmSubmit.footerLine(say, yes: TakeKeys.yesLetter(say, opener: TakeKeys.submitLetter)))
            box(&s, lines, field: nil, secret: 0)
        case .proctor:
            box(&s, [say("Ask your proctor to end this session."), say("Your answers are saved. Esc returns to the test.")],
                field: passphraseLabel(say), secret: m.secret.characters.count)
        case .confirmEnd:
            box(&s, [say("End this practice test now?"), say("Your answers are kept and submitted as they are."),
                     TakeKeys.confirmEnd.footerLine(say)],
                field: nil, secret: 0)
        }
    }

    /// The proctor's message (until a key closes it), or the pause.
    static func roomOverlay(_ s: inout Screen, _ session: SessionState, say: Localizer) {
        if let message = session.room.message {
            box(&s, [say("Message from the proctor"), message, say("Press any key to close this message.")], field: nil, secret: 0)
        } else if session.room.paused {
            box(&s, [say.say(SessionState.pausedWords), say("Your answers are saved. Ctrl-T says the time left; F12 calls the proctor.")],
                field: nil, secret: 0)
        }
    }

    /// The raised hand in words, for the header.
    static func handWords(_ session: SessionState, say: Localizer) -> String? {
        switch session.room.hand {
        case .down: return nil
        case .raised: return say("proctor called")
        case .acknowledged: return say("the proctor is coming")
        }
    }

    /// Draws a box; its last line (the keys) always stays on screen. The lines come already
    /// said in the student's language: the box itself has no words.
    static func box(_ s: inout Screen, _ lines: [String], field: String?, secret: Int) {
        let inner = min(s.width - 8, 64)
        var wrapped = lines.dropLast().flatMap { TextWidth.wrap($0, width: inner) }
        let last = lines.last.map { TextWidth.wrap($0, width: inner) } ?? []
        let room = max(1, s.height - 8 - last.count - (field != nil ? 1 : 0))
        if wrapped.count > room { wrapped = Array(wrapped.prefix(room - 1)) + ["…"] }
        wrapped += last
        if field != nil { wrapped.append("") }
        let height = wrapped.count + 2
        let top = max(3, (s.height - height) / 2)
        let left = (s.width - inner - 4) / 2
        // The rows the box stands on are cleared whole: no sentence behind it shows in part
        // at its sides.
        for row in top..<min(s.height, top + height) { s.put(String(repeating: " ", count: s.width), row: row, column: 0) }
        s.put("┌" + String(repeating: "─", count: inner + 2) + "┐", row: top, column: left, role: .title)
        for (i, line) in wrapped.enumerated() {
            s.put("│ " + String(repeating: " ", count: inner) + " │", row: top + 1 + i, column: left, role: .title)
            s.put(line, row: top + 1 + i, column: left + 2, role: i == 0 ? .title : .plain)
        }
        s.put("└" + String(repeating: "─", count: inner + 2) + "┘", row: top + height - 1, column: left, role: .title)
        if let field {
            let row = top + wrapped.count
            let end = s.put(TextWidth.clip(field, to: inner), row: row, column: left + 2, role: .title)
            s.put(String(repeating: "•", count: min(secret, max(0, left + 2 + inner - end))), row: row, column: end)
            s.cursor = (row, min(end + secret, left + 2 + inner))
        } else {
            s.cursor = (top + 1, left + 2)
        }
    }
}
