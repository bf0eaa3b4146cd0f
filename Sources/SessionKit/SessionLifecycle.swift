import AssessmentKit
import Foundation

/// How a session leaves: the same revert path serves a failed begin, an interruption, an
/// end with a result, and the proctor's unlock.
public enum Finalization: Sendable, Equatable {
    case failedToBegin(String)
    case interrupted(String)
    case finished(EndReason, elapsed: Double)
}

/// What the end steps produced.
public struct Ending: Sendable, Equatable {
    public var result: ResultDocument?
    public var resultPath: String?
    /// Why the result (or the interrupted status), or its file, could not be written.
    public var problem: String?
    /// The journal has the result and the final status.
    public var recorded = false
    /// Why this machine's assessment mode was not ended with the session (an unlock the
    /// service refused): the machine stays locked until it ends by itself or is freed.
    public var machine: String?
}

/// The begin steps of one session as a reversible sequence (like Safe Exam Browser's
/// OperationSequence): preflight → acquire_lock → guard_signals → open_journal →
/// assessment_mode (the machine's service, unless `machine: off`) → clear_pasteboards →
/// enter_ui → publish (a session that publishes to a lab's store). Ending runs them back: leave the UI, clear the pasteboards
/// again (logged while the journal is still open, so the result says so), record the
/// result or the interruption, stop guarding signals, release the lock.
final class SessionLifecycle {
    enum Mode: Equatable {
        case begin
        case resume
        case unlock
    }

    let context: SessionContext
    let assessment: Assessment
    var record: SessionRecord
    let source: StoredAssessment?
    let mode: Mode
    let sequence = OperationSequence()
    private(set) var journal: Journal?
    private(set) var lock: (any HeldSessionLock)?
    private(set) var signals: (any SignalSource)?
    /// Events that wait for the session's row (begin) or the journal (resume).
    var early: [JournalWrite] = []
    var rowReady = false
    var finalization: Finalization = .failedToBegin("not begun")
    var ending: Ending?
    var pasteboardsCleared = false
    /// The assessment-mode service began (or took over) the mode for this session.
    var modeHeld = false
    /// Why an unlock did not end the machine's mode, for the command to say.
    var modeNote: String?

    init(context: SessionContext, assessment: Assessment, record: SessionRecord, source: StoredAssessment?, mode: Mode,
         journal: Journal? = nil) {
        self.context = context
        self.assessment = assessment
        self.record = record
        self.source = source
        self.mode = mode
        self.journal = journal
        rowReady = mode != .begin
    }

    func log(_ kind: EventKind, _ detail: String) {
        log([(kind, detail)])
    }

    /// Events of one step, committed in one transaction (one write to the disk, not one each).
    func log(_ events: [(EventKind, String)]) {
        guard !events.isEmpty else { return }
        let now = context.clock.now()
        let writes = events.map { JournalWrite.event($0.0, $0.1, at: now) }
        guard rowReady, let journal else {
            early += writes
            return
        }
        do {
            try journal.commit(session: record.id, writes, at: context.clock.now())
        } catch {
            // The events are kept for the next commit of this session, never dropped silently.
            early += writes
        }
    }

    /// Writes events that had to wait; false when the journal still refuses them.
    @discardableResult
    func flushEarly() -> Bool {
        guard rowReady, let journal, !early.isEmpty else { return early.isEmpty }
        do {
            try journal.commit(session: record.id, early, at: context.clock.now())
            early.removeAll()
            return true
        } catch {
            return false
        }
    }

    func clearPasteboards(_ when: String) {
        guard assessment.policy.pasteboards == .clear else { return }
        // Every pasteboard is cleared first, then all are said in one commit: a process killed
        // in between leaves no line, and the next start or resume clears them again.
        log(context.pasteboards.clearAndDescribe().map { (.pasteboardCleared, "\(when) — \($0)") })
    }

    func steps(enterUI: @escaping () throws -> Void, leaveUI: @escaping () -> Void) -> [OperationSequence.Step] {
        var steps: [OperationSequence.Step] = []
        if mode != .unlock {
            steps.append(.init("preflight", perform: { [self] in
                let refusals = context.gate.refusals(policy: assessment.policy, needsTerminal: context.needsTerminal)
                if !refusals.isEmpty { throw SessionError.refused(refusals) }
            }))
        }
        steps.append(.init("acquire_lock", perform: { [self] in try acquireLock() }, undo: { [self] in
            lock?.release()
            lock = nil
        }))
        if mode != .unlock {
            steps.append(.init("guard_signals", perform: { [self] in
                guard let source = try context.signals() else { return }
                try source.install()
                signals = source
            }, undo: { [self] in
                signals?.remove()
            }))
        }
        steps.append(.init("open_journal", perform: { [self] in try openJournal() }, undo: { [self] in finalize() }))
        steps.append(assessmentModeStep())
        steps.append(.init("clear_pasteboards", perform: { [self] in
            clearPasteboards(mode == .unlock ? "on unlock" : "on entry")
            pasteboardsCleared = true
        }, undo: { [self] in
            switch finalization {
            case .failedToBegin: clearPasteboards("after a failed begin")
            case .interrupted, .finished: clearPasteboards(mode == .unlock ? "on unlock" : "on exit")
            }
        }))
        if mode != .unlock {
            steps.append(.init("enter_ui", perform: enterUI, undo: leaveUI))
        }
        if mode != .unlock, record.options.shared != nil, let publisher = context.publisher {
            // The last step, so that no later step can fail and undo a begin while a publisher
            // works on the journal. What is left unsent at the session's end waits in the
            // outbox; the command's last step gives it a few seconds before the process leaves.
            steps.append(.init("publish", perform: { [self] in
                if let journal { publisher.start(journal: journal) }
            }))
        }
        return steps
    }

    /// Runs the begin steps; a failure undoes the finished ones and leaves a trace.
    func run(enterUI: @escaping () throws -> Void = {}, leaveUI: @escaping () -> Void = {}) throws(SessionError) {
        do {
            try sequence.run(steps(enterUI: enterUI, leaveUI: leaveUI))
        } catch {
            let cause = (error.error as? SessionError) ?? .frontEnd("\(error.error)")
            finalization = .failedToBegin("\(error.step): \(cause)")
            recordFailure(cause, step: error.step)
            throw cause
        }
    }

    /// Runs the steps back, recording `how` the session left.
    func end(_ how: Finalization) -> Ending {
        finalization = how
        sequence.undoAll()
        var ended = ending ?? Ending(result: nil, resultPath: nil, problem: nil)
        ended.machine = modeNote
        return ended
    }

    // MARK: steps

    func acquireLock() throws {
        let journal = try self.journal ?? Self.openJournal(context, create: true)
        self.journal = journal
        let holder = LockHolder(
            session: mode == .unlock ? "unlock" : record.id, pid: context.pid, host: context.host, tty: context.tty,
            candidate: record.candidate, assessment: assessment.id, started: Timestamp.iso(context.clock.now()))
        let held: any HeldSessionLock
        do {
            held = try context.lock.acquire(holder)
        } catch {
            switch error {
            case let .held(who): throw SessionError.lockHeld(who)
            case let .unusable(why): throw SessionError.state(why)
            }
        }
        // Holding the lock, any session still marked active or interrupted is not running.
        let waiting: [SessionRecord]
        do {
            waiting = try journal.sessions(status: [.active, .interrupted])
        } catch {
            held.release()
            throw SessionError.state("the journal cannot be read: \(error)")
        }
        switch mode {
        case .resume, .unlock:
            guard waiting.contains(where: { $0.id == record.id }) else {
                held.release()
                throw SessionError.noSuchSession(record.id)
            }
        case .begin:
            if !waiting.isEmpty {
                held.release()
                throw SessionError.interruptedSessions(waiting)
            }
        }
        lock = held
    }

    func openJournal() throws {
        guard let journal else { throw SessionError.state("the journal is not open") }
        switch mode {
        case .begin:
            guard let source else { throw SessionError.state("no assessment to record") }
            do {
                try journal.createSession(record, source: source, events: early)
            } catch {
                throw SessionError.state("cannot record the session in the journal: \(Self.describe(error))")
            }
            early.removeAll()
            rowReady = true
        case .resume:
            record.interruptions += 1
            record.pid = context.pid
            do {
                try journal.commit(session: record.id, [.resumed(pid: context.pid)] + early, at: context.clock.now())
            } catch {
                throw SessionError.state("cannot record the resumed session in the journal: \(Self.describe(error))")
            }
            early.removeAll()
            log(.resumed, "interruption \(record.interruptions)")
        case .unlock:
            log(.unlocked, "ended by the proctor after an interruption")
        }
    }

    /// The revert of `open_journal`: how the journal records the way the session left.
    func finalize() {
        guard let journal else { return }
        let now = context.clock.now()
        switch finalization {
        case .failedToBegin:
            // Recorded by `recordFailure`, which also covers steps before the journal.
            return
        case let .interrupted(reason):
            do {
                try journal.commit(session: record.id, early + [.status(.interrupted, nil, endedAt: nil)], at: now)
                early.removeAll()
                ending = Ending(result: nil, resultPath: nil, problem: nil, recorded: true)
            } catch {
                // Still `active` with nobody holding the lock, the session reads as
                // interrupted all the same; the caller reports the failure.
                ending = Ending(result: nil, resultPath: nil, problem: "the journal could not record the interruption (\(Self.describe(error)))")
                _ = reason
            }
        case let .finished(reason, elapsed):
            var writes = early
            if reason == .submitted || reason == .timedOut {
                writes.append(.event(.ended, reason.rawValue, at: now))
            }
            let events: [JournalEvent]
            let responses: [String: Response]
            let flags: Set<String>
            do {
                try journal.commit(session: record.id, writes, at: now)
                early.removeAll()
                events = try journal.events(session: record.id)
                responses = try journal.answers(session: record.id)
                flags = try journal.flags(session: record.id)
            } catch {
                ending = Ending(result: nil, resultPath: nil, problem: "the journal could not record the end (\(Self.describe(error)))")
                return
            }
            var counted = record
            if mode == .unlock && record.status == .active { counted.interruptions += 1 }
            let result = ResultDocument.make(
                assessment: assessment, record: counted, reason: reason, endedAt: now, elapsed: elapsed,
                responses: responses, flags: flags, events: events)
            let data: Data
            do {
                data = try result.json()
            } catch {
                ending = Ending(result: result, resultPath: nil, problem: "the result cannot be encoded (\(error))")
                return
            }
            do {
                try journal.commit(session: record.id, [
                    .result(json: String(decoding: data, as: UTF8.self), digest: ResultDigest(result)), .status(.ended, reason, endedAt: now),
                ], at: now)
            } catch {
                ending = Ending(result: result, resultPath: nil, problem: "the journal could not record the result (\(Self.describe(error)))")
                return
            }
            do {
                let path = try context.storage.writeResult(data + Data("\n".utf8), session: record.id)
                ending = Ending(result: result, resultPath: path, problem: nil, recorded: true)
            } catch {
                ending = Ending(result: result, resultPath: nil, problem: "the result file could not be written: \(error)",
                                recorded: true)
            }
        }
    }

    /// Keeps a trace of a failed begin in the journal when it can be opened.
    func recordFailure(_ cause: SessionError, step: String) {
        // A failed begin is a way out too: the pasteboards are cleared once more, whether
        // or not entry got as far as clearing them.
        if !pasteboardsCleared { clearPasteboards("after a failed begin") }
        log(.failedToBegin, "\(step): \(cause)")
        guard mode == .begin else {
            flushEarly()
            return
        }
        if case .lockHeld = cause { return }
        if case .interruptedSessions = cause { return }
        // The trace is best effort: the caller reports the failure itself either way, and a
        // journal that cannot be opened cannot hold it.
        guard let journal = journal ?? (try? Self.openJournal(context, create: true)), let source else { return }
        self.journal = journal
        if !rowReady {
            var failed = record
            failed.status = .failedToBegin
            // The trace is best effort: the caller reports the failure itself either way.
            if (try? journal.createSession(failed, source: source, events: early)) != nil {
                early.removeAll()
                rowReady = true
            }
        } else {
            early.append(.status(.failedToBegin, nil, endedAt: nil))
            flushEarly()
        }
    }

    static func openJournal(_ context: SessionContext, create: Bool) throws(SessionError) -> Journal {
        do {
            guard let writer = try context.storage.openJournal(create: create) else { throw SessionError.nothingToResume }
            return try Journal(writer: writer)
        } catch let error as SessionError {
            throw error
        } catch {
            throw .state(describe(error))
        }
    }

    /// A journal error in words a proctor can act on.
    static func describe(_ error: any Error) -> String {
        let text = "\(error)"
        let lowered = text.lowercased()
        if lowered.contains("full") || lowered.contains("no space") { return "the disk is full" }
        if lowered.contains("readonly") || lowered.contains("read-only") || lowered.contains("read only") {
            return "the state directory is read-only"
        }
        return text
    }
}
