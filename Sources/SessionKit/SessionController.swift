import AssessmentKit
import Foundation
import Lockdown

/// How a session came to an end in this process.
public enum SessionOutcome: Sendable, Equatable {
    case finished(ResultDocument, resultPath: String?, writeError: String?)
    case interrupted(String)
}

/// What the front end should show after an event: notices, saved answers, and the end.
public struct Reaction: Sendable, Equatable {
    public var notices: [String] = []
    /// Items whose answer is now committed to the journal: only these may show "saved".
    public var saved: [String] = []
    public var saveFailed = false
    public var outcome: SessionOutcome?
    public init() {}
}

/// The terminal counterpart of AEAssessmentSession: runs the begin steps, feeds events to the
/// pure state machine, commits every effect to the journal before reporting it, and ends
/// through the same steps in reverse.
public final class SessionController {
    public let assessment: Assessment
    public private(set) var state: SessionState
    public private(set) var record: SessionRecord
    public let journal: Journal
    public let signalGuard: SignalGuard?
    public private(set) var outcome: SessionOutcome?
    let context: SessionContext
    let lock: HeldLock
    let leaveUI: () -> Void
    let monotonicStart: Double
    let elapsedAtStart: Double
    var passphraseBlockedUntil = 0.0

    init(assessment: Assessment, state: SessionState, record: SessionRecord, journal: Journal, signalGuard: SignalGuard?,
         context: SessionContext, lock: HeldLock, leaveUI: @escaping () -> Void) {
        self.assessment = assessment
        self.state = state
        self.record = record
        self.journal = journal
        self.signalGuard = signalGuard
        self.context = context
        self.lock = lock
        self.leaveUI = leaveUI
        self.monotonicStart = context.clock.monotonic()
        self.elapsedAtStart = state.elapsed
    }

    // MARK: begin

    /// Runs preflight → lock → clear pasteboards → guard signals → open journal → enter UI.
    public static func begin(
        assessment: Assessment, source: String, path: String, candidate: String?, extraTime: ExtraTime,
        context: SessionContext, enterUI: @escaping () throws -> Void = {}, leaveUI: @escaping () -> Void = {}
    ) throws(SessionError) -> SessionController {
        let id = UUID().uuidString.lowercased()
        let seed = UInt64.random(in: 0 ... .max)
        let now = context.clock.now()
        let record = SessionRecord(
            id: id, assessmentID: assessment.id, assessmentTitle: assessment.title,
            fingerprint: Fingerprint.of(assessment), assessmentSource: source, assessmentPath: path,
            candidate: candidate, status: .active, seed: seed, extraTime: extraTime, startedAt: now,
            pid: context.pid, host: context.host, tty: context.tty)
        let plan = SessionPlan.make(assessment: assessment, sessionID: id, seed: seed, extraTime: extraTime)
        let launch = Launch(context: context, assessment: assessment, record: record, resuming: false)
        launch.log(.beginRequested, "\(assessment.id)" + (candidate.map { ", candidate \($0)" } ?? ""))
        try launch.run(enterUI: enterUI, leaveUI: leaveUI)
        return try launch.controller(state: SessionState(plan: plan), leaveUI: leaveUI)
    }

    /// Continues an interrupted session: same order, answers, flags, position and time used.
    public static func resume(
        sessionID: String?, context: SessionContext,
        enterUI: @escaping () throws -> Void = {}, leaveUI: @escaping () -> Void = {}
    ) throws(SessionError) -> SessionController {
        let journal = try Launch.openJournal(context.location)
        let record = try pick(sessionID, from: try waiting(journal: journal, location: context.location))
        let assessment = try storedAssessment(record)
        let launch = Launch(context: context, assessment: assessment, record: record, resuming: true)
        try launch.run(enterUI: enterUI, leaveUI: leaveUI)
        guard let journal = launch.journal else { throw .state("the journal closed") }
        let plan = SessionPlan.make(assessment: assessment, sessionID: record.id, seed: record.seed, extraTime: record.extraTime)
        let responses: [String: Response]
        let flags: Set<String>
        do {
            responses = try journal.answers(session: record.id)
            flags = try journal.flags(session: record.id)
        } catch {
            throw .state("\(error)")
        }
        let state = SessionState(plan: plan, status: .active, position: record.position, responses: responses,
                                 flags: flags, elapsed: record.elapsed)
        return try launch.controller(state: state, leaveUI: leaveUI)
    }

    /// Sessions waiting for the proctor: marked interrupted, or still `active` while no live
    /// process holds the lock for them (killed with SIGKILL, power lost).
    public static func waiting(journal: any SessionStore, location: StateLocation) throws(SessionError) -> [SessionRecord] {
        let candidates: [SessionRecord]
        do {
            candidates = try journal.sessions(status: [.active, .interrupted])
        } catch {
            throw .state("\(error)")
        }
        let liveSession: String?
        switch SessionLock.inspect(path: location.lockPath) {
        case .free: liveSession = nil
        case let .held(holder): liveSession = holder?.session ?? "?"
        }
        return candidates.filter { $0.status == .interrupted || $0.id != liveSession }
    }

    /// The session named by `id` (or a prefix of it), or the only one waiting.
    public static func pick(_ id: String?, from records: [SessionRecord]) throws(SessionError) -> SessionRecord {
        if let id {
            guard let match = records.first(where: { $0.id == id || $0.id.hasPrefix(id.lowercased()) }) else {
                throw .noSuchSession(id)
            }
            return match
        }
        guard let only = records.first else { throw .nothingToResume }
        guard records.count == 1 else { throw .ambiguous(records) }
        return only
    }

    public static func storedAssessment(_ record: SessionRecord) throws(SessionError) -> Assessment {
        let outcome = AssessmentReader.read(text: record.assessmentSource, file: record.assessmentPath)
        guard let assessment = outcome.assessment else {
            throw .storedAssessment(outcome.diagnostics.first?.description ?? "invalid")
        }
        return assessment
    }

    // MARK: running

    /// Active seconds used, counted on the monotonic clock from where the journal left off.
    public func elapsedNow() -> Double {
        elapsedAtStart + max(0, context.clock.monotonic() - monotonicStart)
    }

    public func tick() -> Reaction { handle(.tick(elapsed: elapsedNow())) }

    /// Signals received since the last call, as session events.
    public func pollSignals() -> Reaction {
        var reaction = Reaction()
        for signal in signalGuard?.drain() ?? [] {
            let r: Reaction
            switch signal {
            case let .exitAttempt(name): r = handle(.exitAttempt(name))
            case let .hangUp(name): r = handle(.hangUp(name))
            }
            reaction.merge(r)
        }
        return reaction
    }

    /// Checks a proctor passphrase typed at the "ask your proctor" prompt, with backoff.
    public func enterPassphrase(_ text: String) -> Reaction {
        guard state.prompt == .proctor, let hash = assessment.proctor.passphrase else { return Reaction() }
        let now = context.clock.monotonic()
        if now < passphraseBlockedUntil {
            var r = Reaction()
            r.notices.append("Wait \(Int((passphraseBlockedUntil - now).rounded(.up))) s before trying again")
            return r
        }
        return handle(.passphrase(correct: hash.verify(text)))
    }

    /// Applies an event; journal writes happen, in order, before anything is reported.
    public func handle(_ event: SessionEvent) -> Reaction {
        var reaction = Reaction()
        guard outcome == nil else { return reaction }
        let effects = state.update(event)
        let now = context.clock.now()
        let id = record.id
        for effect in effects {
            do {
                switch effect {
                case let .saveAnswer(item, response):
                    try journal.saveAnswer(session: id, item: item, response: response, at: now)
                    reaction.saved.append(item)
                case let .saveFlag(item, on):
                    try journal.saveFlag(session: id, item: item, flagged: on)
                case let .savePosition(position):
                    try journal.savePosition(session: id, position: position)
                case let .saveTime(elapsed):
                    try journal.saveTime(session: id, elapsed: elapsed)
                case let .log(kind, detail):
                    try journal.log(session: id, kind: kind, detail: detail, at: now)
                case let .notice(text):
                    reaction.notices.append(text)
                case let .passphraseBackoff(seconds):
                    passphraseBlockedUntil = context.clock.monotonic() + Double(seconds)
                case let .finish(reason):
                    reaction.outcome = finish(reason)
                case let .interrupt(reason):
                    reaction.outcome = interrupt(reason)
                }
            } catch {
                reaction.saveFailed = true
                reaction.notices.append("Could not save to the journal (\(error)); ask your proctor")
            }
        }
        return reaction
    }

    // MARK: ending

    func clearPasteboards() {
        PasteboardClearing.run(policy: assessment.policy, pasteboards: context.pasteboards, when: "on exit") {
            try? journal.log(session: record.id, kind: .pasteboardCleared, detail: $0, at: context.clock.now())
        }
    }

    /// Ends through the steps in reverse: leave the UI, clear pasteboards again, write the
    /// result, stop guarding signals, release the lock.
    func finish(_ reason: EndReason) -> SessionOutcome {
        let elapsed = state.elapsed
        leaveUI()
        clearPasteboards()
        let endedAt = context.clock.now()
        // A proctor's end was already logged as `ended`, with how it was confirmed.
        if reason != .endedByProctor {
            try? journal.log(session: record.id, kind: .ended, detail: reason.rawValue, at: endedAt)
        }
        let events = (try? journal.events(session: record.id)) ?? []
        let result = ResultDocument.make(
            assessment: assessment, record: record, reason: reason, endedAt: endedAt, elapsed: elapsed,
            responses: state.responses, flags: state.flags, events: events)
        let (path, writeError) = ResultWriter.write(result, location: context.location, journal: journal)
        try? journal.setStatus(session: record.id, status: .ended, endReason: reason, endedAt: endedAt)
        state.status = .ended
        releaseGuards()
        let done = SessionOutcome.finished(result, resultPath: path, writeError: writeError)
        outcome = done
        return done
    }

    /// SIGHUP, SIGTERM, lost terminal: everything saved, session left for `carrel resume`.
    func interrupt(_ reason: String) -> SessionOutcome {
        try? journal.setStatus(session: record.id, status: .interrupted, endReason: nil, endedAt: nil)
        leaveUI()
        clearPasteboards()
        releaseGuards()
        let done = SessionOutcome.interrupted(reason)
        outcome = done
        return done
    }

    func releaseGuards() {
        signalGuard?.remove()
        lock.release()
    }
}

extension Reaction {
    mutating func merge(_ other: Reaction) {
        notices += other.notices
        saved += other.saved
        saveFailed = saveFailed || other.saveFailed
        if outcome == nil { outcome = other.outcome }
    }
}
