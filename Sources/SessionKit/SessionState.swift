import Foundation
import AssessmentKit
import Localization

/// Typed text (or an answer whose save failed) that the journal does not have yet.
public struct Draft: Sendable, Equatable {
    public var response: Response?
    /// When it last changed, and when it first differed from the journal (session clock).
    public var editedAt: Double
    public var dirtySince: Double
    /// Failed saves so far, when to try again, and why the last one failed.
    public var failures = 0
    public var retryAt = 0.0
    public var error: String?
}

/// Whether the journal has what the student sees for one question.
public enum AnswerSave: Sendable, Equatable {
    /// Nothing typed or chosen yet: no mark at all.
    case untouched
    /// Being typed; the journal has an older version.
    case pending
    /// The journal has exactly this answer.
    case saved
    /// The last save failed (reason); it is retried.
    case failed(String)
}

/// The assessment session as a value. `update` is the only way it changes.
public struct SessionState: Sendable, Equatable {
    public var plan: SessionPlan
    public var status: SessionStatus
    public var endReason: EndReason?
    public var position: Int
    /// Answers exactly as the journal has them.
    public var responses: [String: Response]
    /// Answers the journal does not have yet (typing, or a failed save).
    public var drafts: [String: Draft]
    /// Items answered, typed or cleared in this session.
    public var touched: Set<String>
    public var flags: Set<String>
    /// Active seconds used.
    public var elapsed: Double
    public var lastSavedElapsed: Double
    /// The session clock (active seconds), for draft timing; set by the runtime.
    public var clock: Double
    /// Seconds-left marks already announced (300, 60).
    public var warned: Set<Int>
    public var prompt: SessionPrompt?
    /// The "ask your proctor" prompt: tries, and until when typing waits (session time).
    public var passphrase = PassphrasePrompt()
    /// Wrong passphrases at the prompt so far.
    public var passphraseFailures: Int { passphrase.failures }
    /// What the proctor's commands made of the session (pause, time added, a message, a hand).
    public var room = RoomControl()

    /// Time used is saved at least this often.
    public static let timeSaveInterval = 5.0
    public static let warningMarks = [300, 60]
    /// Typed text is saved after this pause…
    public static let draftPause = 0.8
    /// …and at least this often while typing goes on.
    public static let draftMaxAge = 2.0

    public init(plan: SessionPlan, status: SessionStatus = .beginning, position: Int = 0,
                responses: [String: Response] = [:], flags: Set<String> = [], elapsed: Double = 0) {
        self.plan = plan
        self.status = status
        self.position = position
        self.responses = responses
        self.drafts = [:]
        self.touched = Set(responses.keys)
        self.flags = flags
        self.elapsed = elapsed
        self.lastSavedElapsed = elapsed
        self.clock = elapsed
        self.warned = Set(Self.warningMarks.filter { mark in plan.timeAllowed.map { Double($0) - elapsed <= Double(mark) } ?? false })
        self.prompt = nil
    }

    public var currentItemID: String? {
        plan.itemOrder.indices.contains(position) ? plan.itemOrder[position] : nil
    }

    /// Takes the proctor's commands a resumed session had applied; a time warning already
    /// passed is not given again.
    public mutating func adopt(room control: RoomControl) {
        room = control
        warned = Set(Self.warningMarks.filter { mark in remaining.map { $0 <= Double(mark) } ?? false })
    }

    /// Seconds allowed, with the time the proctor added; nil when untimed.
    public var timeAllowed: Int? {
        plan.timeAllowed.map { $0 + room.addedSeconds }
    }

    /// Seconds left, or nil when untimed.
    public var remaining: Double? {
        timeAllowed.map { max(0, Double($0) - elapsed) }
    }

    /// The words a paused seat shows and speaks.
    public static let pausedWords: Phrase = "Paused by the proctor — the clock is stopped"

    /// A time warning in words: "5 minutes left", "30 seconds left".
    public static func warningWords(_ mark: Int) -> Phrase {
        mark >= 60 ? Phrase("{0, plural, one {# minute left} other {# minutes left}}", .n(mark / 60))
            : Phrase("{0, plural, one {# second left} other {# seconds left}}", .n(mark))
    }

    public var isRunning: Bool { status == .active || status == .review }

    /// What the student sees as their answer: the draft when there is one.
    public func answer(_ id: String) -> Response? {
        if let draft = drafts[id] { return draft.response }
        return responses[id]
    }

    public func save(_ id: String) -> AnswerSave {
        if let draft = drafts[id] {
            if let error = draft.error { return .failed(error) }
            return .pending
        }
        return touched.contains(id) ? .saved : .untouched
    }

    func isAnswered(_ id: String) -> Bool { answer(id).map { !$0.isEmpty } ?? false }

    public var answeredCount: Int { plan.itemOrder.filter(isAnswered).count }

    public var unansweredIDs: [String] { plan.itemOrder.filter { !isAnswered($0) } }

    public var flaggedIDs: [String] { plan.itemOrder.filter { flags.contains($0) } }

    /// Items whose answer the journal does not have, in test order.
    public var unsavedIDs: [String] {
        drafts.keys.sorted { (plan.positions[$0] ?? Int.max, $0) < (plan.positions[$1] ?? Int.max, $1) }
    }

    /// Applies one event and says what must happen as a result. `now` is the session
    /// clock (active seconds), used to time drafts.
    public mutating func update(_ event: SessionMessage, now: Double? = nil) -> [SessionEffect] {
        if let now { clock = max(clock, now) }
        var effects = apply(event)
        // Every saved answer, flag or move also saves the time used, so a crash between
        // ticks never gives time back.
        let savesWork = effects.contains { effect in
            switch effect {
            case .saveAnswer, .saveFlag: return true
            default: return false
            }
        }
        let savesProgress = effects.contains { if case .saveProgress = $0 { return true } else { return false } }
        if savesWork && !savesProgress && elapsed > lastSavedElapsed {
            lastSavedElapsed = elapsed
            effects.append(.saveProgress(position: position, elapsed: elapsed))
        }
        return effects
    }

    private mutating func apply(_ event: SessionMessage) -> [SessionEffect] {
        if case .began = event {
            guard status == .beginning else { return [] }
            status = .active
            return [.log(.began, "")]
        }
        switch event {
        case .endRecorded:
            if status == .ending { status = .ended }
            return []
        case .leftForProctor:
            status = .interrupted
            prompt = nil
            return []
        case let .proctor(command):
            // Applied once, and only to a running session (a start that began this session is
            // sent to it just after `began`, and recorded then).
            guard command.id > room.lastCommand, command.sequence == 0 || command.sequence > room.lastSequence,
                  isRunning else { return [] }
            room.lastCommand = command.id
            room.lastSequence = max(room.lastSequence, command.sequence)
            return [.log(.proctorCommand, command.journalDetail)] + proctor(command.action)
        case let .commandRefused(id, reason):
            // Logged once, for the proctor (the console shows it); the student sees nothing.
            guard id > room.lastCommand, isRunning else { return [] }
            room.lastCommand = id
            return [.log(.commandRefused, ProctorCommand.refusedDetail(id, reason))]
        case let .commandsBefore(id):
            guard id > room.lastCommand else { return [] }
            room.lastCommand = id
            return [.log(.proctorCommand, ProctorCommand.seenDetail(id))]
        case .raiseHand:
            guard isRunning else { return [] }
            guard room.watched else {
                return [.notice("No proctor console watches this room: raise your hand")]
            }
            guard room.hand != .raised else { return [.notice("The proctor has been called")] }
            room.hand = .raised
            return [.log(.handRaised, ""), .notice("The proctor has been called")]
        case .dismissMessage:
            room.message = nil
            return []
        default:
            break
        }
        if case let .hangUp(reason) = event {
            guard isRunning || status == .beginning else { return [] }
            let saves = flushAll()
            status = .interrupted
            prompt = nil
            return saves + [progress(), .log(.interrupted, reason), .interrupt(reason)]
        }
        guard isRunning else { return [] }
        if room.paused && Self.waitsWhilePaused(event) {
            return [.notice(Self.pausedWords)]
        }
        switch event {
        case .began, .hangUp, .endRecorded, .leftForProctor, .proctor, .raiseHand, .dismissMessage, .commandsBefore, .commandRefused:
            return []
        case .next:
            if plan.navigation == .linear && position + 1 >= plan.itemOrder.count {
                return flushAll()
            }
            if position + 1 < plan.itemOrder.count { return move(to: position + 1) }
            status = .review
            return flushAll()
        case .previous:
            guard position > 0 else { return [] }
            return move(to: position - 1)
        case let .jump(index):
            guard plan.itemOrder.indices.contains(index) else { return [] }
            return move(to: index)
        case let .answer(id, response):
            guard let index = plan.positions[id] else { return [] }
            if plan.navigation == .linear && index != position {
                return [.notice("In this assessment you answer the question in front of you only")]
            }
            touched.insert(id)
            if drafts[id] == nil && responses[id] == response { return [] }
            drafts[id] = nil
            responses[id] = response
            return [.saveAnswer(id, response)]
        case let .edit(id, response):
            guard let index = plan.positions[id] else { return [] }
            if plan.navigation == .linear && index != position { return [] }
            touched.insert(id)
            if var draft = drafts[id] {
                draft.response = response
                draft.editedAt = clock
                drafts[id] = draft
            } else if responses[id] != response {
                drafts[id] = Draft(response: response, editedAt: clock, dirtySince: clock)
            }
            return []
        case let .toggleFlag(id):
            guard plan.positions[id] != nil else { return [] }
            let on = !flags.contains(id)
            if on { flags.insert(id) } else { flags.remove(id) }
            return [.saveFlag(id, on), .notice(on ? "Question flagged" : "Flag removed")]
        case .openReview:
            status = .review
            return flushAll()
        case .closeReview:
            status = .active
            return []
        case .submitRequested:
            prompt = .confirmSubmit
            return flushAll()
        case .submitConfirmed:
            guard prompt == .confirmSubmit else { return [] }
            return finish(.submitted, log: .submitted, detail: "\(answeredCount) of \(plan.itemOrder.count) answered")
        case .cancelPrompt:
            prompt = nil
            return []
        case let .tick(now):
            return tick(now)
        case let .pasteAttempt(count):
            guard plan.policy.paste == .block else { return [] }
            return [.log(.pasteBlocked, "\(count) characters"), .notice("Paste is disabled during this assessment")]
        case .focusLost:
            return plan.policy.focus == .log ? [.log(.focusLost, "")] : []
        case .focusRegained:
            return plan.policy.focus == .log ? [.log(.focusRegained, "")] : []
        case let .resized(columns, rows):
            return [.log(.resized, "\(columns)x\(rows)")]
        case let .exitAttempt(kind):
            let saves = flushAll()
            guard plan.policy.suspend == .block else {
                status = .interrupted
                prompt = nil
                return saves + [progress(), .log(.interrupted, kind), .interrupt(kind)]
            }
            prompt = plan.practiceMode ? .confirmEnd : .proctor
            return saves + [.log(.exitAttempt, kind)]
        case let .tracerAttached(pid):
            let saves = flushAll()
            prompt = plan.practiceMode ? .confirmEnd : .proctor
            return saves + [.log(.tracerAttached, "pid \(pid)"),
                            .notice("A debugger or tracer attached to this session; ask your proctor")]
        case let .machineIncident(kind, detail, action):
            // Evidence for the proctor (the journal, the store, the console): nothing changes
            // on the student's screen.
            return [.log(.machineIncident, "\(kind): \(detail) (\(action))")]
        case let .passphrase(correct):
            guard prompt == .proctor else { return [] }
            return passphraseStep(passphrase.verdict(correct: correct), now: clock)
        case let .passphraseChecked(verdict):
            guard prompt == .proctor else { return [] }
            return passphraseStep(verdict, now: clock)
        case .endConfirmed:
            guard prompt == .confirmEnd else { return [] }
            return finish(.endedByCandidate, log: .ended, detail: "ended early by the candidate (practice mode)")
        }
    }

    /// Answer keys, moves and the submit wait while the proctor has paused the session;
    /// the clock, the passphrase prompt, signals and evidence go on.
    static func waitsWhilePaused(_ event: SessionMessage) -> Bool {
        switch event {
        case .next, .previous, .jump, .answer, .edit, .toggleFlag, .openReview, .closeReview,
             .submitRequested, .submitConfirmed, .endConfirmed:
            return true
        default:
            return false
        }
    }

    /// What one of the proctor's commands does to a running session.
    private mutating func proctor(_ action: ProctorAction) -> [SessionEffect] {
        switch action {
        case .start:
            return []
        case .pause:
            guard !room.paused else { return [] }
            room.paused = true
            if prompt == .confirmSubmit || prompt == .confirmEnd { prompt = nil }
            // What is being typed is saved now: the clock stops with it.
            return flushAll() + [progress(), .notice(Self.pausedWords), .bell]
        case .resume:
            guard room.paused else { return [] }
            room.paused = false
            return [.notice("The proctor resumed the session: the clock runs again")]
        case let .addTime(seconds):
            guard let allowed = timeAllowed else {
                return [.notice("The proctor added time; this assessment has no time limit")]
            }
            // Within the session cap: time used never reaches past it.
            let added = max(0, min(seconds, plan.maxDuration - allowed))
            room.addedSeconds += added
            // A warning already given is given again if the new time left passes its mark.
            let left = Double(allowed + added) - elapsed
            warned = warned.filter { Double($0) >= left }
            let words: Phrase = added == 0 ? "The session cap is reached: no time could be added"
                : Phrase("The proctor added {0}: {1} left", .time(added), .time(Int(left.rounded(.down))))
            return [.notice(words)]
        case let .message(text):
            room.message = text
            return [.notice(Phrase("Message from the proctor: {0}", .s(text))), .bell]
        case .end:
            return finish(.endedByProctor, log: .ended, detail: "ended by the proctor from the console")
        case .acknowledge:
            guard room.hand == .raised else { return [] }
            room.hand = .acknowledged
            return [.notice("The proctor is coming")]
        }
    }

    /// Turns every draft into a save (the runtime commits them with the message).
    private mutating func flushAll() -> [SessionEffect] {
        flush { _ in true }
    }

    private mutating func flush(where due: (Draft) -> Bool) -> [SessionEffect] {
        var out: [SessionEffect] = []
        // Texts waiting for their save are few: walk them, not the test, in the order shown.
        guard !drafts.isEmpty else { return [] }
        let waiting = drafts.keys.sorted { (plan.positions[$0] ?? Int.max, $0) < (plan.positions[$1] ?? Int.max, $1) }
        for id in waiting {
            guard let draft = drafts[id], due(draft) else { continue }
            drafts[id] = nil
            responses[id] = draft.response
            out.append(.saveAnswer(id, draft.response))
        }
        return out
    }

    private func progress() -> SessionEffect { .saveProgress(position: position, elapsed: elapsed) }

    private mutating func move(to index: Int) -> [SessionEffect] {
        if plan.navigation == .linear && index < position {
            return [.notice("This assessment does not allow going back")]
        }
        guard index != position || status == .review else { return [] }
        let saves = flushAll()
        position = index
        status = .active
        lastSavedElapsed = elapsed
        return saves + [progress()]
    }

    /// What a passphrase verdict at the prompt does: the proctor ends the session; a wrong one
    /// is logged and waits by the one rule; after the last try the test goes on and the
    /// proctor can try again later (the wait still holds).
    mutating func passphraseStep(_ verdict: PassphraseVerdict, now: Double) -> [SessionEffect] {
        switch passphrase.apply(verdict, now: now) {
        case .accepted:
            return finish(.endedByProctor, log: .ended, detail: "ended by the proctor")
        case let .wrong(_, triesLeft, _):
            var effects: [SessionEffect] = [.log(.passphraseFailed, "attempt \(passphrase.failures)"), .notice("That passphrase is not right")]
            if triesLeft == 0 {
                prompt = nil
                passphrase.reopen()
                effects.append(.notice("Three wrong passphrases: back to the test; the proctor can try again later"))
            }
            return effects
        case let .mustWait(seconds):
            return [.notice(Phrase("{0, plural, one {Wait # second before trying again} other {Wait # seconds before trying again}}", .n(Int(seconds.rounded(.up)))))]
        case let .unavailable(why):
            return [.notice(Phrase("The passphrase cannot be checked: {0}", .s(why)))]
        }
    }

    private mutating func tick(_ now: Double) -> [SessionEffect] {
        clock = max(clock, now)
        guard now >= elapsed else { return [] }
        elapsed = now
        var effects: [SessionEffect] = []
        if elapsed >= Double(plan.maxDuration) {
            return finish(.timedOut, log: .timedOut, detail: "session cap of \(DurationText.format(plan.maxDuration)) reached")
        }
        if let left = remaining {
            if left <= 0 {
                return finish(.timedOut, log: .timedOut, detail: "time limit reached")
            }
            for mark in Self.warningMarks where left <= Double(mark) && !warned.contains(mark) {
                warned.insert(mark)
                let words = mark >= 60 ? "\(mark / 60) minute\(mark == 60 ? "" : "s")" : "\(mark) seconds"
                effects.append(.log(.timeWarning, "\(words) left"))
                effects.append(.notice(Self.warningWords(mark)))
                effects.append(.bell)
            }
        }
        let clockNow = clock
        effects += flush { draft in
            if draft.error != nil { return clockNow >= draft.retryAt }
            return clockNow - draft.editedAt >= Self.draftPause || clockNow - draft.dirtySince >= Self.draftMaxAge
        }
        if elapsed - lastSavedElapsed >= Self.timeSaveInterval {
            lastSavedElapsed = elapsed
            effects.insert(progress(), at: 0)
        }
        return effects
    }

    private mutating func finish(_ reason: EndReason, log kind: EventKind, detail: String) -> [SessionEffect] {
        let saves = flushAll()
        status = .ending
        endReason = reason
        prompt = nil
        return saves + [progress(), .log(kind, detail), .finish(reason)]
    }

    /// The state after a message whose journal commit failed: `next` is not adopted for
    /// what the journal would have recorded. Answers stay unsaved drafts with the reason,
    /// retried with a growing delay; a way out that could not be recorded is not taken.
    public func afterFailedCommit(next: SessionState, effects: [SessionEffect], error: String) -> SessionState {
        let ending = next.status == .ending || next.status == .interrupted
        var held = ending ? self : next
        if ending {
            held.elapsed = next.elapsed
            held.warned = next.warned
        }
        held.prompt = ending ? nil : next.prompt
        for case let .saveAnswer(id, response) in effects {
            let before = drafts[id]
            var draft = Draft(response: response, editedAt: before?.editedAt ?? clock, dirtySince: before?.dirtySince ?? clock)
            draft.failures = (before?.failures ?? 0) + 1
            draft.retryAt = next.clock + min(0.5 * Double(1 << min(draft.failures - 1, 4)), 8)
            draft.error = error
            held.drafts[id] = draft
            held.touched.insert(id)
            if let committed = responses[id] { held.responses[id] = committed } else { held.responses[id] = nil }
        }
        // Progress and time are written again with the next commit.
        held.lastSavedElapsed = min(lastSavedElapsed, held.lastSavedElapsed)
        return held
    }
}
