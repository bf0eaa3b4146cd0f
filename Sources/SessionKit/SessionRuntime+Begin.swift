import Localization
import AssessmentKit
import Foundation
import GRDB

// Starting a session, resuming or unlocking one, and reading what the journal keeps of its assessment.
extension SessionRuntime {
    // MARK: begin

    /// Runs the begin steps and starts a new session.
    public static func begin(
        assessment: Assessment, source: StoredAssessment, candidate: String?, extraTime: ExtraTime,
        options: SessionOptions = SessionOptions(), context: SessionContext, start: RoomStart? = nil,
        enterUI: @escaping () throws -> Void = {}, leaveUI: @escaping () -> Void = {}
    ) throws(SessionError) -> SessionRuntime {
        let id = context.ids.sessionID()
        let seed = context.ids.seed()
        // A sealed assessment is known at rest by its package's keyed fingerprint only: the
        // plain one would let a student confirm a guessed key offline.
        let fingerprint: String
        if source.format == .sealed {
            do throws(SealedAssessment.Failure) {
                fingerprint = try SealedAssessment.header(of: [UInt8](source.bytes)).metadata.fingerprint
            } catch {
                throw .sealed(file: source.path, error)
            }
        } else {
            fingerprint = Fingerprint.of(assessment)
        }
        let (plan, record) = newSession(
            assessment: assessment, id: id, seed: seed, fingerprint: fingerprint, path: source.path, candidate: candidate,
            extraTime: extraTime, options: options, startedAt: context.clock.now(), pid: context.pid, host: context.host,
            tty: context.tty)
        let lifecycle = SessionLifecycle(context: context, assessment: assessment, record: record, source: source, mode: .begin)
        lifecycle.log(.beginRequested, "\(assessment.id)" + (candidate.map { ", candidate \($0)" } ?? ""))
        try lifecycle.run(enterUI: enterUI, leaveUI: leaveUI)
        var first = firstState(plan, record)
        if let start {
            // Nothing the proctor signed before this session joined its room (or before the
            // start that began it) is its own.
            first.room.lastSequence = start.command.map { $0.sequence - 1 } ?? SignedCommand.floor(joined: record.startedAt)
        }
        var then: [SessionMessage] = []
        var logs: [(EventKind, String)] = []
        if let start {
            // Commands the room had before this session began are not its own; a proctor's
            // start that began it is recorded as applied (with `began`, in one commit).
            if let command = start.command {
                then.append(.proctor(command))
                if let seatKey = command.seatKey { logs.append((.seatKey, seatKey)) }
            } else if start.seen > 0 {
                then.append(.commandsBefore(start.seen))
            }
        }
        return try started(lifecycle, state: first, then: then, logs: logs)
    }

    /// Runs, on throwaway values, the parts of `begin` that are slow only the first time in a
    /// process (a session's rows and first records encoded, its plan and state made): a seat
    /// waiting for the proctor's start does it while it waits, so that when a room of seats
    /// is started at once each begins without that first-time cost. Nothing is written, locked
    /// or timed.
    public static func rehearseBegin(assessment: Assessment, candidate: String?, extraTime: ExtraTime,
                                     options: SessionOptions) {
        let (plan, record) = newSession(
            assessment: assessment, id: "rehearsal", seed: 1, fingerprint: "rehearsal", path: "", candidate: candidate,
            extraTime: extraTime, options: options, startedAt: Date(), pid: 0, host: "", tty: nil)
        _ = Fingerprint.of(assessment)
        // The journal's first writes, on a journal in memory: the same encoders and statements
        // as the session's own first commits. Only their cost is wanted: a write that failed
        // here fails, and is reported, at begin.
        if let memory = try? Journal(writer: DatabaseQueue()) {
            try? memory.createSession(record, source: StoredAssessment(bytes: Data(), path: "", format: .yaml))
            try? memory.commit(session: record.id, [.event(.proctorCommand, "#0 start", at: Date()),
                                                    .progress(position: 0, elapsed: 0)], at: Date())
        }
        var state = firstState(plan, record)
        _ = state.update(.proctor(ProctorCommand(id: 0, action: .start)), now: 0)
    }

    /// A new session's plan and its record (the label it publishes under counts its items and
    /// time), as `begin` makes them and its rehearsal does.
    static func newSession(assessment: Assessment, id: String, seed: UInt64, fingerprint: String, path: String,
                           candidate: String?, extraTime: ExtraTime, options: SessionOptions, startedAt: Date,
                           pid: Int32, host: String, tty: String?) -> (SessionPlan, SessionRecord) {
        let plan = SessionPlan.make(assessment: assessment, sessionID: id, seed: seed, extraTime: extraTime)
        var options = options
        options.shared?.total = plan.itemOrder.count
        options.shared?.timeAllowed = plan.timeAllowed
        // A session that publishes proves itself to the store with a token of its own (the
        // seat's launch made one when it announced itself first).
        if options.shared != nil, options.shared?.storeToken == nil { options.shared?.storeToken = SessionMAC.randomToken() }
        let record = SessionRecord(
            id: id, assessmentID: assessment.id, assessmentTitle: assessment.title,
            fingerprint: fingerprint, assessmentPath: path, candidate: candidate, status: .active,
            seed: seed, extraTime: extraTime, options: options, startedAt: startedAt, pid: pid, host: host, tty: tty)
        return (plan, record)
    }

    /// A new session's first state: its plan, watched by a console when it publishes.
    static func firstState(_ plan: SessionPlan, _ record: SessionRecord) -> SessionState {
        var state = SessionState(plan: plan)
        state.room = RoomControl(watched: record.options.shared != nil)
        return state
    }

    /// Continues an interrupted session: same order, answers, flags, position and time used.
    /// `open` reads the stored assessment (a sealed one needs the proctor's passphrase).
    public static func resume(
        sessionID: String?, context: SessionContext,
        open: (StoredAssessment) throws(SessionError) -> Assessment = SessionRuntime.readYAML,
        enterUI: @escaping () throws -> Void = {}, leaveUI: @escaping () -> Void = {}
    ) throws(SessionError) -> SessionRuntime {
        let journal = try SessionLifecycle.openJournal(context, create: false)
        let record = try pick(sessionID, from: try waiting(journal: journal, context: context))
        let assessment = try open(try stored(record, journal: journal))
        let lifecycle = SessionLifecycle(context: context, assessment: assessment, record: record, source: nil,
                                         mode: .resume, journal: journal)
        try lifecycle.run(enterUI: enterUI, leaveUI: leaveUI)
        let plan = SessionPlan.make(assessment: assessment, sessionID: record.id, seed: record.seed, extraTime: record.extraTime)
        let responses: [String: Response]
        let flags: Set<String>
        let events: [JournalEvent]
        do {
            responses = try journal.answers(session: record.id)
            flags = try journal.flags(session: record.id)
            // The proctor's commands already applied: without them an old command would apply again.
            events = try journal.events(session: record.id)
        } catch {
            _ = lifecycle.end(.interrupted("the journal could not be read"))
            throw .state("the journal cannot be read: \(error)")
        }
        var state = SessionState(plan: plan, status: .active, position: record.position, responses: responses,
                                 flags: flags, elapsed: record.elapsed)
        // The proctor's commands applied before the interruption (pause, time added, a hand).
        var control = RoomControl.replay(events, watched: record.options.shared != nil)
        if record.options.shared != nil {
            control.lastSequence = max(control.lastSequence, SignedCommand.floor(joined: record.startedAt))
        }
        state.adopt(room: control)
        return try started(lifecycle, state: state)
    }

    /// The runtime of a session whose begin steps ran: `began`, and the messages and events
    /// that come with it (the proctor's start that began it), in one commit.
    static func started(_ lifecycle: SessionLifecycle, state: SessionState, then: [SessionMessage] = [],
                        logs: [(EventKind, String)] = []) throws(SessionError) -> SessionRuntime {
        guard let journal = lifecycle.journal else {
            _ = lifecycle.end(.failedToBegin("the journal closed"))
            throw .state("the begin steps left no journal")
        }
        let runtime = SessionRuntime(lifecycle: lifecycle, state: state, journal: journal)
        let first = runtime.send([.began] + then, logs: logs)
        if first.outcome != nil || !first.failed.isEmpty || !runtime.retained.isEmpty { runtime.begun = first }
        return runtime
    }

    /// Ends interrupted sessions as the proctor, through the same end steps as a session
    /// that finishes: its committed answers become a result.
    public static func unlock(
        sessionID: String?, context: SessionContext,
        open: (StoredAssessment) throws(SessionError) -> Assessment = SessionRuntime.readYAML
    ) throws(SessionError) -> [Ending] {
        if case let .held(holder) = context.lock.inspect() { throw .lockHeld(holder) }
        let journal = try SessionLifecycle.openJournal(context, create: false)
        let waiting = try waiting(journal: journal, context: context)
        let chosen = try sessionID.map { id throws(SessionError) in [try pick(id, from: waiting)] } ?? waiting
        var endings: [Ending] = []
        for record in chosen {
            let assessment = try open(try stored(record, journal: journal))
            let lifecycle = SessionLifecycle(context: context, assessment: assessment, record: record, source: nil,
                                             mode: .unlock, journal: journal)
            try lifecycle.run()
            endings.append(lifecycle.end(.finished(.endedByProctor, elapsed: record.elapsed)))
        }
        return endings
    }

    /// Sessions waiting for the proctor: marked interrupted, or still `active` while no live
    /// process holds the lock for them (killed with SIGKILL, power lost).
    public static func waiting(journal: Journal, context: SessionContext) throws(SessionError) -> [SessionRecord] {
        let candidates: [SessionRecord]
        do {
            candidates = try journal.sessions(status: [.active, .interrupted])
        } catch {
            throw .state("the journal cannot be read: \(error)")
        }
        switch context.lock.inspect() {
        case .free:
            return candidates
        case let .held(holder):
            // Whoever holds the lock is running one of these (or starting up): not waiting.
            guard let live = holder?.session else { return [] }
            return candidates.filter { $0.id != live }
        }
    }

    /// The session named by `id` (or a prefix of it), or the only one waiting.
    public static func pick(_ id: String?, from records: [SessionRecord]) throws(SessionError) -> SessionRecord {
        if let id {
            let matches = records.filter { $0.id == id.lowercased() || $0.id.hasPrefix(id.lowercased()) }
            guard let match = matches.first else { throw .noSuchSession(id) }
            guard matches.count == 1 else { throw .ambiguous(matches) }
            return match
        }
        guard let only = records.first else { throw .nothingToResume }
        guard records.count == 1 else { throw .ambiguous(records) }
        return only
    }

    public static func stored(_ record: SessionRecord, journal: Journal) throws(SessionError) -> StoredAssessment {
        do {
            return try journal.storedAssessment(fingerprint: record.fingerprint)
        } catch {
            throw .storedAssessment("\(error)")
        }
    }

    /// Reads a stored YAML assessment.
    public static func readYAML(_ stored: StoredAssessment) throws(SessionError) -> Assessment {
        guard stored.format == .yaml else {
            throw .storedAssessment("the assessment is sealed; open it with the proctor passphrase")
        }
        let outcome = AssessmentReader.read(bytes: [UInt8](stored.bytes), file: stored.path)
        guard let assessment = outcome.assessment else {
            throw .storedAssessment(outcome.diagnostics.first?.description ?? "invalid")
        }
        return assessment
    }

    /// Reads a stored assessment: YAML as it is; a sealed package in memory only, with the
    /// proctor's passphrase (`checked` when the proctor gate has already verified it).
    public static func open(_ stored: StoredAssessment, passphrase: String?, checked: Bool = false) throws(SessionError) -> Assessment {
        guard stored.format == .sealed else { return try readYAML(stored) }
        guard let passphrase else {
            throw .storedAssessment("the assessment is sealed; open it with the proctor passphrase")
        }
        do {
            return try SealedAssessment.open([UInt8](stored.bytes), passphrase: passphrase, file: stored.path,
                                             passphraseChecked: checked)
        } catch {
            throw .sealed(file: "the journal's sealed copy of \(stored.path)", error)
        }
    }

    /// What a stored sealed assessment says about itself without the passphrase.
    public static func publicFacts(_ stored: StoredAssessment) throws(SessionError) -> SealedAssessment.Metadata {
        do {
            return try SealedAssessment.header(of: [UInt8](stored.bytes)).metadata
        } catch {
            throw .sealed(file: "the journal's sealed copy of \(stored.path)", error)
        }
    }
}
