import AssessmentKit
import Localization
import SessionKit

// The screens before the first question, and the one for a terminal too small.
extension Views {
    // MARK: screens

    static func start(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let a = m.assessment
        let say = m.say
        s.put(TextWidth.clip("Carrel · " + a.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        var r = 2
        s.put(TextWidth.clip(say("Candidate: {0}", .s(m.candidate ?? say("(not given)"))), to: width - 4), row: r, column: 2)
        r += 1
        let time = m.timeAllowed.map { say("time allowed {0}", .time($0)) } ?? say("no time limit")
        let nav = a.navigation == .linear ? say("no going back") : say("move freely between questions")
        let count = say("{0, plural, one {# question} other {# questions}}", .n(a.questionsPerSession))
        r = paragraph(&s, [count, time, nav].joined(separator: " · "), row: r, limit: r + 2) + 1
        // What the test is and what it forbids; a language whose words take more lines
        // leaves the teacher's description fewer of them.
        let policy = TextWidth.wrap(policyLines(a.policy, practice: !m.needsLaunchPassphrase, say: say).joined(separator: " · "),
                                    width: width - 4)
        let never = TextWidth.wrap(say("Never offered: autocorrect, spell check, predictive text, lookup, clipboard, extensions."),
                                   width: width - 4)
        let extra = max(0, policy.count - 4) + max(0, never.count - 2)
        if let d = a.description {
            r = paragraph(&s, d, row: r, limit: r + max(1, 4 - extra)) + 1
        }
        s.put(TextWidth.clip(say("During this assessment"), to: width - 4), row: r, column: 2, role: .title)
        r += 1
        for line in policy where r < height - 2 {
            s.put(line, row: r, column: 2)
            r += 1
        }
        for line in never where r < height - 2 {
            s.put(line, row: r, column: 2)
            r += 1
        }
        r += 1
        if m.waitsForProctor {
            let text = say("Waiting for the proctor to start. Nothing is locked and no time runs yet.")
            var next = paragraph(&s, text, row: r, role: .title, limit: height - 2)
            s.cursor = (r, 2)
            if let key = m.seatKey {
                // What the proctor's console lists for this seat before it sends the test's key.
                next = paragraph(&s, say("Seat key: {0} (the proctor checks it before starting)", .s(key)), row: next, limit: height - 2)
            }
            r = next - 1
        } else if m.needsLaunchPassphrase {
            r = paragraph(&s, say("The proctor enters the passphrase to start."), row: r, limit: r + 2)
            let end = s.put(passphraseLabel(say), row: r, column: 2, role: .title)
            s.put(String(repeating: "•", count: m.secret.characters.count), row: r, column: end)
            s.cursor = (r, end + m.secret.characters.count)
        } else {
            s.cursor = (0, 1)
        }
        if let message = m.startMessage {
            paragraph(&s, message, row: min(r + 2, height - 3), role: .error, limit: height - 1)
        }
        let waits = m.waitsForProctor
        footer(&s, TakeKeys.start(passphrase: m.needsLaunchPassphrase).footer { !waits || $0 == .quit || $0 == .help }, say: say)
        return s
    }

    static func confirmLock(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        s.put(TextWidth.clip("Carrel · " + m.assessment.title, to: width - 2), row: 0, column: 1, role: .title)
        rule(&s, row: 1)
        var r = paragraph(&s, say("This terminal will be locked to this test until you submit, for at most {0}.",
                                  .time(m.assessment.policy.maxDuration)), row: 4)
        // A practice test (no proctor passphrase) lets Ctrl-C end it after asking: it says so.
        let leaving = m.needsLaunchPassphrase ? say("Pasting, other programs and leaving with Ctrl-C or Ctrl-Z will not be possible until then.") : say("Pasting and other programs will not be possible until then; Ctrl-C asks whether to end this practice test.")
        r = paragraph(&s, leaving, row: r + 1)
        let end = s.put(say("Begin? {0}/N", .s(say.keyName("y"))) + " ", row: r + 1, column: 2, role: .title)
        s.cursor = (r + 1, end)
        footer(&s, TakeKeys.confirmLock.footer(), say: say)
        return s
    }

    static func banner(width: Int, height: Int, say: Localizer) -> Screen {
        var s = Screen(width: width, height: height)
        let title = TextWidth.wrap(say("This terminal is now locked to Carrel"), width: width - 4)
        let press = TextWidth.wrap(say("Press any key for the first question."), width: width - 4)
        let top = height / 2 - title.count
        for (i, line) in title.enumerated() {
            s.put(line, row: top + i, column: max(0, (width - TextWidth.of(line)) / 2), role: .title)
        }
        for (i, line) in press.enumerated() {
            s.put(line, row: height / 2 + 1 + i, column: max(0, (width - TextWidth.of(line)) / 2))
        }
        s.cursor = (top, max(0, (width - TextWidth.of(title.first ?? "")) / 2))
        return s
    }

    static func tooSmall(_ m: TakeModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        let sizes: [Arg] = [.s(String(minimumWidth)), .s(String(minimumHeight)), .s(String(width)), .s(String(height))]
        let text = m.session == nil
            ? say.say(Phrase(template: "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}).", args: sizes))
            : say.say(Phrase(template: "Please enlarge the terminal to at least {0}×{1} (now {2}×{3}). Your time keeps counting; keys do nothing until the test fits.",
                             args: sizes))
        let columns = max(1, width - 2)
        // The lines as a list first, so that none is ever written over another: on a tiny
        // screen the question asked (and its keys) is kept, then the sentence's first lines.
        var explanation = TextWidth.wrap(text, width: columns).map { ($0, Role.plain) }
        if !explanation.isEmpty { explanation[0].1 = .warning }
        var clock: [(String, Role)] = []
        // The clock ticks here only where it ticks on the test itself.
        if let session = m.session, session.plan.timeAllowed != nil, !m.screenReader, !m.clockHidden {
            clock = [(TextWidth.clip(m.timeText(session), to: columns), .plain)]
        }
        var asked: [(String, Role)] = []
        var secret = 0
        switch m.session?.prompt {
        case .confirmEnd?:
            asked = TextWidth.wrap(say("End this practice test now?") + " " + TakeKeys.confirmEnd.footerLine(say), width: columns).map { ($0, .title) }
        case .confirmSubmit?:
            // Only "no" works here: what is unanswered cannot be shown.
            let no = KeyMap("", "", TakeKeys.confirmSubmit.bindings.filter { $0.action == .no }).footerLine(say)
            asked = TextWidth.wrap(say("Submit? Enlarge the terminal to see what is unanswered") + " · " + no, width: columns).map { ($0, .title) }
        case .proctor?:
            // The proctor can still end the session from here.
            asked = [(TextWidth.clip(passphraseLabel(say), to: max(1, columns - 4)), .title)]
            secret = m.secret.characters.count
        default:
            break
        }
        var gap = 1
        while explanation.count + clock.count * (1 + gap) + (asked.isEmpty ? 0 : asked.count + gap) > height {
            if gap > 0 { gap = 0 } else if !clock.isEmpty { clock = [] } else if explanation.count > 1 { explanation.removeLast() } else { break }
        }
        if asked.count > height {
            asked = Array(asked.prefix(max(1, height)))
            asked[asked.count - 1].0 = TextWidth.clip(asked[asked.count - 1].0 + " …", to: columns)
            explanation = []
        }
        var row = 0
        for (line, role) in explanation where row < height {
            s.put(line, row: row, column: 1, role: role)
            row += 1
        }
        s.cursor = (0, 1)
        for (line, role) in clock where row + gap < height {
            row += gap
            s.put(line, row: row, column: 1, role: role)
            row += 1
        }
        if !asked.isEmpty {
            row = min(row + gap, max(0, height - asked.count))
            s.cursor = (row, 1)
            for (i, (line, role)) in asked.enumerated() where row + i < height {
                let end = s.put(line, row: row + i, column: 1, role: role)
                if secret > 0 || m.session?.prompt == .proctor {
                    let dots = String(repeating: "•", count: min(secret, max(0, width - end)))
                    s.put(dots, row: row + i, column: end)
                    s.cursor = (row + i, min(width - 1, end + dots.count))
                }
            }
        }
        return s
    }
}
