import AssessmentKit
import Foundation
import Lockdown

/// One attempt to begin or resume: the ordered steps and what they leave behind.
final class Launch {
    let context: SessionContext
    let assessment: Assessment
    var record: SessionRecord
    let resuming: Bool
    let sequence = OperationSequence()
    var journal: Journal?
    var lock: HeldLock?
    var signalGuard: SignalGuard?
    /// Events wait here until the session's journal row exists.
    var pending: [(EventKind, String, Date)] = []
    var rowReady = false

    init(context: SessionContext, assessment: Assessment, record: SessionRecord, resuming: Bool) {
        self.context = context
        self.assessment = assessment
        self.record = record
        self.resuming = resuming
        rowReady = resuming
    }

    func log(_ kind: EventKind, _ detail: String) {
        let now = context.clock.now()
        if rowReady, let journal {
            try? journal.log(session: record.id, kind: kind, detail: detail, at: now)
        } else {
            pending.append((kind, detail, now))
        }
    }

    func flush() {
        guard let journal else { return }
        for (kind, detail, at) in pending {
            try? journal.log(session: record.id, kind: kind, detail: detail, at: at)
        }
        pending.removeAll()
    }

    static func openJournal(_ location: StateLocation) throws(SessionError) -> Journal {
        do {
            try location.prepare()
            try SecureFiles.preparePrivateFile(location.journalPath)
            return try Journal(path: location.journalPath)
        } catch let error as FileSystemError {
            throw .state(error.description)
        } catch {
            throw .state("\(error)")
        }
    }

    func injected(_ step: String) throws {
        if context.failAt == step { throw SessionError.injected(step) }
    }

    func clearPasteboards(_ when: String) {
        PasteboardClearing.run(policy: assessment.policy, pasteboards: context.pasteboards, when: when) {
            log(.pasteboardCleared, $0)
        }
    }

    func steps(enterUI: @escaping () throws -> Void, leaveUI: @escaping () -> Void) -> [OperationSequence.Step] {
        [
            .init("preflight", perform: { [self] in
                try injected("preflight")
                let refusals = Preflight.refusals(context.facts, policy: assessment.policy, needsTerminal: context.needsTerminal)
                if !refusals.isEmpty { throw SessionError.refused(refusals) }
            }),
            .init("acquire_lock", perform: { [self] in
                try injected("acquire_lock")
                let journal = try Self.openJournal(context.location)
                self.journal = journal
                let holder = LockHolder(
                    session: record.id, pid: context.pid, host: context.host, tty: context.tty,
                    candidate: record.candidate, assessment: assessment.id, started: Timestamp.iso(context.clock.now()))
                let held: HeldLock
                do {
                    held = try SessionLock.acquire(path: context.location.lockPath, holder: holder)
                } catch let LockError.held(holder) {
                    throw SessionError.lockHeld(holder)
                } catch let LockError.fileSystem(fs) {
                    throw SessionError.state(fs.description)
                }
                // Holding the lock, any session still marked active or interrupted is dead.
                let waiting = (try? journal.sessions(status: [.active, .interrupted])) ?? []
                if resuming {
                    guard waiting.contains(where: { $0.id == record.id }) else {
                        held.release()
                        throw SessionError.noSuchSession(record.id)
                    }
                } else if !waiting.isEmpty {
                    held.release()
                    throw SessionError.interruptedSessions(waiting)
                }
                lock = held
            }, undo: { [self] in
                lock?.release()
            }),
            .init("clear_pasteboards", perform: { [self] in
                try injected("clear_pasteboards")
                clearPasteboards("on entry")
            }),
            .init("guard_signals", perform: { [self] in
                try injected("guard_signals")
                let guardian = try SignalGuard()
                guardian.install()
                signalGuard = guardian
            }, undo: { [self] in
                signalGuard?.remove()
            }),
            .init("open_journal", perform: { [self] in
                try injected("open_journal")
                guard let journal else { throw SessionError.state("the journal is not open") }
                if resuming {
                    try journal.noteResumed(session: record.id, pid: context.pid)
                    record.interruptions += 1
                    record.pid = context.pid
                    log(.resumed, "interruption \(record.interruptions)")
                } else {
                    try journal.createSession(record)
                    rowReady = true
                    flush()
                }
            }, undo: { [self] in
                try? journal?.setStatus(session: record.id, status: resuming ? .interrupted : .failedToBegin, endReason: nil, endedAt: nil)
            }),
            .init("enter_ui", perform: { [self] in
                try injected("enter_ui")
                try enterUI()
            }, undo: leaveUI),
        ]
    }

    func run(enterUI: @escaping () throws -> Void, leaveUI: @escaping () -> Void) throws(SessionError) {
        do {
            try sequence.run(steps(enterUI: enterUI, leaveUI: leaveUI))
        } catch {
            let cause = (error.error as? SessionError) ?? .frontEnd("\(error.error)")
            // A failed begin is an exit path too: the pasteboards are cleared once more.
            clearPasteboards("after a failed begin")
            log(.failedToBegin, "\(error.step): \(cause)")
            recordFailure()
            throw cause
        }
    }

    /// Keeps a trace of a failed begin in the journal when it can be opened.
    func recordFailure() {
        guard !resuming else { return }
        if journal == nil { journal = try? Self.openJournal(context.location) }
        guard let journal else { return }
        if !rowReady {
            var failed = record
            failed.status = .failedToBegin
            if (try? journal.createSession(failed)) != nil { rowReady = true }
        } else {
            try? journal.setStatus(session: record.id, status: .failedToBegin, endReason: nil, endedAt: nil)
        }
        flush()
    }

    func controller(state: SessionState, leaveUI: @escaping () -> Void) throws(SessionError) -> SessionController {
        guard let journal, let lock else {
            sequence.undoAll()
            throw .state("the begin steps left no journal or lock")
        }
        let controller = SessionController(
            assessment: assessment, state: state, record: record, journal: journal, signalGuard: signalGuard,
            context: context, lock: lock, leaveUI: leaveUI)
        _ = controller.handle(.began)
        return controller
    }
}
