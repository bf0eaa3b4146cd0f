import Localization
import AssessmentKit
import Foundation
import GRDB

/// How a session came to an end in this process.
public enum SessionOutcome: Sendable, Equatable {
    /// Submitted, timed out or ended: the result is in the journal (and its file, unless
    /// `problem` says otherwise).
    case finished(ResultDocument, resultPath: String?, problem: String?)
    /// Left for `carrel resume` (signal, lost terminal). `unsaved` lists answers that could
    /// not be saved before leaving.
    case interrupted(String, unsaved: [String])
    /// A way out (submit, time-out, end) could not be recorded, usually a full disk: the
    /// session stays resumable, with what is listed in `unsaved` not saved.
    case saveFailed(String, unsaved: [String])
}

/// What the front end should show after a message.
public struct Reaction: Sendable, Equatable {
    public var notices: [Phrase] = []
    /// Items whose answer is now committed to the journal.
    public var saved: [String] = []
    /// Items whose save failed, with the reason.
    public var failed: [String] = []
    public var bell = false
    public var outcome: SessionOutcome?
    public init() {}

    mutating func merge(_ other: Reaction) {
        notices += other.notices
        saved += other.saved
        failed += other.failed
        bell = bell || other.bell
        if outcome == nil { outcome = other.outcome }
    }
}

/// The one session runtime, for take, resume, demo and the headless test driver alike:
/// `SessionState.update` decides, and this interpreter runs the effects — every journal
/// write of one message in one transaction, committed before the new state is adopted or
/// anything is shown; then notices, the bell, and the end steps.
public final class SessionRuntime {
    public let assessment: Assessment
    public private(set) var state: SessionState
    public var record: SessionRecord { lifecycle.record }

    /// What the store says became of this session when it no longer takes this seat's records
    /// for it ("moved S1": the proctor moved it to another seat; "lost": the proctor ended it).
    public var fate: String? { context.publisher?.fate(session: record.id) }
    public let journal: Journal
    public private(set) var outcome: SessionOutcome?
    let lifecycle: SessionLifecycle
    let context: SessionContext
    let monotonicStart: Double
    let elapsedAtStart: Double
    /// Writes of failed commits other than answers (answers wait as drafts in the state).
    var retained: [JournalWrite] = []
    var passphraseChecker: (any PassphraseChecker)?
    /// When `pump` last looked for a tracer (monotonic seconds).
    var lastTracerCheck = -Double.infinity
    /// Monotonic seconds spent paused by the proctor before the current pause, and when the
    /// current pause began: time used never counts a pause.
    var pausedTotal = 0.0
    var pausedSince: Double?
    /// What the begin's own commit left to say on the first screen (`firstReaction`).
    var begun: Reaction?

    init(lifecycle: SessionLifecycle, state: SessionState, journal: Journal) {
        self.lifecycle = lifecycle
        self.assessment = lifecycle.assessment
        self.context = lifecycle.context
        self.state = state
        self.journal = journal
        self.monotonicStart = context.clock.monotonic()
        self.elapsedAtStart = state.elapsed
        // A session left while paused comes back paused: its clock waits for the proctor.
        if state.room.paused { pausedSince = monotonicStart }
    }

    public var signalDescriptor: Int32 { lifecycle.signals?.readEnd ?? -1 }

    /// Once, for the screen that shows the session first: a begin whose commit failed says so
    /// ("Not saved …": its writes are kept and the next commit carries them), and one that
    /// ended at once says how. Nil when the begin committed (the start's own notices are not
    /// repeated: the test's first screen says it began).
    public func firstReaction() -> Reaction? {
        defer { begun = nil }
        return begun
    }

    // MARK: running

    /// Active seconds used, counted on the monotonic clock from where the journal left off.
    public func elapsedNow() -> Double {
        let now = context.clock.monotonic()
        let paused = pausedTotal + (pausedSince.map { max(0, now - $0) } ?? 0)
        return elapsedAtStart + max(0, now - monotonicStart - paused)
    }

    public func tick() -> Reaction {
        let elapsed = elapsedNow()
        context.publisher?.progress(session: record.id, elapsed: elapsed)
        return send(.tick(elapsed: elapsed))
    }

    /// Signals received since the last call, as session messages.
    public func pollSignals() -> Reaction {
        var reaction = Reaction()
        for signal in lifecycle.signals?.drain() ?? [] {
            switch signal {
            case let .exitAttempt(name): reaction.merge(send(.exitAttempt(name)))
            case let .hangUp(name): reaction.merge(send(.hangUp(name)))
            }
        }
        return reaction
    }

    /// Everything a running session does between inputs, in one place for every front end
    /// (take, resume, demo, the test driver): the signals received, a tracer that attached
    /// (looked for once a second), and the clock.
    public func pump() -> Reaction {
        var reaction = pollSignals()
        let now = context.clock.monotonic()
        if now - lastTracerCheck >= 1 {
            lastTracerCheck = now
            reaction.merge(checkTracer())
        }
        reaction.merge(applyCommands())
        reaction.merge(machineIncidents())
        reaction.merge(tick())
        return reaction
    }

    /// What assessment mode saw on the machine since the last look, each journalled (and so
    /// sent to the store and the console like every event).
    public func machineIncidents() -> Reaction {
        var reaction = Reaction()
        guard let link = context.assessmentMode else { return reaction }
        for incident in link.incidents() {
            reaction.merge(send(.machineIncident(kind: incident.kind.rawValue, detail: incident.detail, action: incident.action)))
        }
        return reaction
    }

    /// The proctor's commands the publisher has received for this seat, in order; each is
    /// verified (`SignedCommand.verify`: the test's proctor key, this room, seat and test, its
    /// time, a sequence above the last applied) and then a message to `update`, journalled
    /// like any other and applied once. One that fails is journalled as refused, with why.
    public func applyCommands() -> Reaction {
        var reaction = Reaction()
        guard let publisher = context.publisher, let seat = record.options.shared else { return reaction }
        for signed in publisher.commands(after: state.room.lastCommand) {
            guard outcome == nil else { break }
            let check = SignedCommand.Check(
                key: assessment.proctor.key, room: seat.room, seat: seat.seat, fingerprint: record.fingerprint,
                now: context.clock.now(), lastSequence: state.room.lastSequence, session: record.id)
            switch signed.verify(check) {
            case let .success(command): reaction.merge(send(.proctor(command)))
            case let .failure(refusal): reaction.merge(send(.commandRefused(id: signed.id, refusal)))
            }
        }
        return reaction
    }

    /// A tracer that attached while the session runs is logged and puts the session
    /// behind the proctor prompt.
    public func checkTracer() -> Reaction {
        guard assessment.policy.extensions == .refuse, state.prompt == nil,
              let pid = context.gate.attachedTracer() else { return Reaction() }
        return send(.tracerAttached(pid: pid))
    }

    /// Checks a proctor passphrase typed at the "ask your proctor" prompt: the attempts file
    /// (when the context has one) or the hash gives a verdict, and the state decides what it
    /// means (`PassphrasePrompt`). Typed during a wait, it is not checked at all.
    public func enterPassphrase(_ text: String) -> Reaction {
        guard state.prompt == .proctor, let hash = assessment.proctor.passphrase else { return Reaction() }
        if let left = state.passphrase.wait(now: elapsedNow()) { return send(.passphraseChecked(.mustWait(left))) }
        guard let make = context.passphrases else { return send(.passphrase(correct: hash.verify(text))) }
        let checker = passphraseChecker ?? make(hash, "end \(record.id.prefix(8))")
        passphraseChecker = checker
        let verdict = checker.check(text)
        switch verdict {
        case .accepted, .rejected(triesLeft: 0, wait: _):
            // The next opening of the prompt gets its tries again (the wait still holds).
            passphraseChecker = nil
        default:
            break
        }
        return send(.passphraseChecked(verdict))
    }

    /// Applies one message: journal writes commit in one transaction before the new state
    /// is adopted; nothing is reported saved that the journal does not have.
    public func send(_ event: SessionMessage) -> Reaction {
        send([event])
    }

    /// Messages taken one after the other, and events that are no state change after them,
    /// with every journal write in one commit. For a begin only (`began` and the proctor's
    /// start that began it): the effects of all are read as one message's, so a later
    /// message's progress replaces an earlier one's and only the last effect can interrupt.
    func send(_ events: [SessionMessage], logs: [(EventKind, String)] = []) -> Reaction {
        var reaction = Reaction()
        guard outcome == nil else { return reaction }
        var next = state
        var effects: [SessionEffect] = []
        for event in events { effects += next.update(event, now: elapsedNow()) }
        let now = context.clock.now()
        var writes = retained
        var answered: [String] = []
        for effect in effects {
            switch effect {
            case let .saveAnswer(item, response):
                writes.append(.answer(item: item, response: response))
                answered.append(item)
            case let .saveFlag(item, on):
                writes.append(.flag(item: item, on: on))
            case let .saveProgress(position, elapsed):
                writes.removeAll { if case .progress = $0 { return true } else { return false } }
                writes.append(.progress(position: position, elapsed: elapsed))
            case let .log(kind, detail):
                writes.append(.event(kind, detail, at: now))
            default:
                break
            }
        }
        writes += logs.map { .event($0.0, $0.1, at: now) }
        do {
            try journal.commit(session: record.id, writes, at: now)
            retained = []
            if state.drafts.values.contains(where: { $0.error != nil }) && next.drafts.values.allSatisfy({ $0.error == nil }) {
                reaction.notices.append("Saving works again: every answer is saved")
            }
            notePause(from: state.room.paused, to: next.room.paused)
            state = next
            reaction.saved = answered
        } catch {
            let why = SessionLifecycle.describe(error)
            state = state.afterFailedCommit(next: next, effects: effects, error: why)
            retained = writes.filter { if case .answer = $0 { return false } else { return true } }
            reaction.failed = answered
            let ending = effects.contains { effect in
                switch effect {
                case .finish, .interrupt: return true
                default: return false
                }
            }
            if case .interrupt = effects.last {
                reaction.outcome = leave(.interrupted(interruptReason(effects)), unsaved: state.unsavedIDs, failure: nil)
            } else if ending {
                reaction.outcome = leave(.interrupted("could not record the end: \(why)"), unsaved: state.unsavedIDs, failure: why)
            } else if !answered.isEmpty || !retained.isEmpty {
                reaction.notices.append(Phrase("Not saved: {0}. Carrel keeps trying; tell your proctor", .s(why)))
            }
            return reaction
        }
        for effect in effects {
            switch effect {
            case let .notice(text):
                reaction.notices.append(text)
            case .bell:
                reaction.bell = true
            case let .finish(reason):
                reaction.outcome = finish(reason)
            case let .interrupt(reason):
                reaction.outcome = leave(.interrupted(reason), unsaved: state.unsavedIDs, failure: nil)
            default:
                break
            }
        }
        return reaction
    }

    /// Stops or restarts the clock when the proctor paused or resumed the session.
    func notePause(from was: Bool, to now: Bool) {
        guard was != now else { return }
        let clock = context.clock.monotonic()
        if now {
            pausedSince = clock
        } else if let since = pausedSince {
            pausedTotal += max(0, clock - since)
            pausedSince = nil
        }
    }

    /// Records an event that is not a state change (a launch passphrase failure).
    public func log(_ kind: EventKind, _ detail: String) -> Reaction {
        var reaction = Reaction()
        let now = context.clock.now()
        let writes = retained + [.event(kind, detail, at: now)]
        do {
            try journal.commit(session: record.id, writes, at: now)
            retained = []
        } catch {
            // Kept for the next commit, never dropped.
            retained = writes
            reaction.notices.append(Phrase("Not saved: {0}. Carrel keeps trying; tell your proctor", .s(SessionLifecycle.describe(error))))
        }
        return reaction
    }

    func interruptReason(_ effects: [SessionEffect]) -> String {
        for case let .interrupt(reason) in effects { return reason }
        return "interrupted"
    }

    // MARK: ending

    func finish(_ reason: EndReason) -> SessionOutcome {
        let ending = lifecycle.end(.finished(reason, elapsed: state.elapsed))
        let done: SessionOutcome
        if let result = ending.result, ending.recorded {
            adopt(.endRecorded)
            done = .finished(result, resultPath: ending.resultPath, problem: ending.problem)
        } else {
            done = .saveFailed(ending.problem ?? "the end could not be recorded", unsaved: state.unsavedIDs)
        }
        outcome = done
        return done
    }

    /// Signals, a lost terminal, or a way out that could not be recorded: the session is
    /// left for `carrel resume` through the same end steps.
    func leave(_ how: Finalization, unsaved: [String], failure: String?) -> SessionOutcome {
        _ = lifecycle.end(how)
        let done: SessionOutcome
        if let failure {
            done = .saveFailed(failure, unsaved: unsaved)
        } else {
            let reason: String
            if case let .interrupted(r) = how { reason = r } else { reason = "interrupted" }
            done = .interrupted(reason, unsaved: unsaved)
        }
        adopt(.leftForProctor)
        outcome = done
        return done
    }

    /// Tells the state what the end steps did. These messages write nothing (the end steps
    /// recorded it all), so the new state is adopted as it is.
    func adopt(_ event: SessionMessage) {
        var next = state
        _ = next.update(event)
        state = next
    }
}
