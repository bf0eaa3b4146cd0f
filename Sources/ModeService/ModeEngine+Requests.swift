import AssessmentMode
import Foundation

extension ModeEngine {
    /// The owner's end: the session ended as it should.
    public func end(_ caller: Caller) -> [Outgoing] {
        guard record != nil else { return [Outgoing(caller.connection, .refused(reason: "no assessment mode runs"))] }
        guard owner == caller.connection else {
            return [Outgoing(caller.connection, .refused(reason: "this connection does not own the assessment mode"))]
        }
        return finish(.ended)
    }

    /// A connection has closed: if it owned the mode, the mode stays, interrupted.
    public func left(_ connection: Int) {
        guard owner == connection, var current = record else { return }
        owner = nil
        current.interrupted = true
        record = current
        log("session \(current.begin.session): the owning Carrel went away; the mode stays, interrupted")
        save(current)
    }

    /// A Carrel of the mode's account takes an interrupted mode over with the proctor's passphrase.
    public func resume(session: String, passphrase: String, caller: Caller) -> [Outgoing] {
        guard var current = record, current.begin.session == session else {
            return [Outgoing(caller.connection, .refused(reason: "\(ModeWire.noMode) \(Sanitise.text(session, limit: 80))"))]
        }
        guard owner == nil else {
            return [Outgoing(caller.connection, .refused(reason: "session \(session)'s mode is owned by a Carrel that still runs; end it there or unlock it"))]
        }
        guard caller.uid == current.uid else {
            return [Outgoing(caller.connection, .refused(reason: "session \(session)'s mode is for uid \(current.uid), not \(caller.uid)"))]
        }
        if let why = passphraseRefusal(current, passphrase) { return [Outgoing(caller.connection, .refused(reason: why))] }
        owner = caller.connection
        current.interrupted = false
        record = current
        save(current)
        log("session \(session): resumed by a new Carrel of \(caller.account)")
        return [Outgoing(caller.connection, .began(session: session, steps: current.steps))]
    }

    /// The proctor's passphrase ends the mode early (from any checked caller); the owner, if
    /// any, is told too.
    public func unlock(session: String, passphrase: String, caller: Caller) -> [Outgoing] {
        guard let current = record, current.begin.session == session else {
            return [Outgoing(caller.connection, .refused(reason: "\(ModeWire.noMode) \(Sanitise.text(session, limit: 80))"))]
        }
        if let why = passphraseRefusal(current, passphrase) { return [Outgoing(caller.connection, .refused(reason: why))] }
        return finish(.unlocked, also: caller.connection)
    }

    func passphraseRefusal(_ current: ModeRecord, _ passphrase: String) -> String? {
        guard let text = current.begin.passphraseHash else {
            return "session \(current.begin.session) has no proctor passphrase: it ends with the session, at its time limit, or when root stops the service"
        }
        // The hash was read at begin; one that no longer reads matches nothing.
        guard let check = try? PassphraseCheck(parsing: text), check.verify(passphrase) else { return Self.wrongPassphrase }
        return nil
    }

    public func status(_ caller: Caller) -> [Outgoing] {
        [Outgoing(caller.connection, .status(record?.status))]
    }

    /// The mode's time limit: at `endsBy` it ends by itself.
    public func expire(now: Double) -> [Outgoing] {
        guard let current = record, now >= current.endsBy else { return [] }
        return finish(.timeLimit)
    }

    /// The service stops (SIGTERM): the machine is put back; the owner hears `restored`.
    public func shutdown() -> [Outgoing] {
        finish(.restored)
    }

    /// What happened: kept (the latest 200, saved once for all of them) and sent to the owner, if any.
    public func note(_ incidents: [Incident]) -> [Outgoing] {
        guard var current = record, !incidents.isEmpty else { return [] }
        current.incidents = Array((current.incidents + incidents).suffix(ModeRecord.keptIncidents))
        record = current
        save(current)
        guard let owner else { return [] }
        return incidents.map { Outgoing(owner, .incident($0)) }
    }

    /// Processes stopped after begin (kept so that the revert continues them).
    public func stopped(_ processes: [ProcessMark]) {
        guard var current = record, !processes.isEmpty else { return }
        current.stopped += processes
        record = current
        save(current)
    }

    /// At the service's start: a mode left on disk by a crash or a reboot is reverted, in
    /// reverse, and its record removed. A record that cannot be read is set aside and the
    /// changes only this service ever makes are undone (`sweep`). What was done, in words.
    public func restore(sweep: [AppliedChange]) -> String? {
        let found: ModeRecord?
        do { found = try store.load() } catch {
            log("the record on disk cannot be read (\(error.reason)); undoing the changes only this service makes")
            for applied in sweep.reversed() { revert(applied) }
            do { try store.remove() } catch { log("the unreadable record could not be removed: \(error.reason)") }
            return "an unreadable record was found; Carrel's own table and files were removed"
        }
        guard let found else { return nil }
        record = found
        revertAll()
        record = nil
        let kinds = Set(found.changes.map(\.step.rawValue)).sorted().joined(separator: ", ")
        return "session \(found.begin.session) (uid \(found.uid)) was left in assessment mode; reverted \(found.changes.count) change(s) (\(kinds))"
    }

    func save(_ current: ModeRecord) {
        do { try store.save(current) } catch { log("the record could not be saved: \(error.reason)") }
    }
}
