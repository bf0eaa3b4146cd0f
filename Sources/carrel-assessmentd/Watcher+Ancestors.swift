#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import ModeService

/// What stands between the student's login and Carrel: shells waiting for it, the terminal
/// and multiplexer that show it. A program of the student's there (a launcher of theirs), or a
/// shell there that runs commands of its own instead of waiting for Carrel (a script that
/// started Carrel in the background), could read files and write over the exam's screen
/// throughout the exam; it cannot be ended without the exam's terminal, so under
/// `processes: end` one found at the begin refuses it and one found later is stopped until the
/// end; under `report` each is reported (again whenever it runs another program).
extension Watcher {
    static let shells: Set<String> = ["bash", "sh", "dash", "zsh", "fish", "ksh", "ksh93", "mksh", "tcsh", "csh"]

    /// The owner's ancestors of the account that are a program of the student's or a shell not
    /// waiting (`held` ones, stopped by the mode, aside), nearest first, with what they are.
    static func launchers(_ table: [ProcessEntry], uid: UInt32, owner: ProcessMark,
                          held: Set<ProcessMark> = []) -> [(entry: ProcessEntry, what: String)] {
        let strange = ProcessRule.strangeAncestors(table, uid: uid, owner: owner, reported: [], program: ProcTable.program)
        var out = strange.map { (entry: $0, what: "a program") }
        let known = Set(strange.map(\.mark))
        for mark in ancestors(table, of: owner) where mark != owner && !known.contains(mark) && !held.contains(mark) {
            guard let entry = table.first(where: { $0.mark == mark }), entry.uids.contains(uid),
                  let program = ProcTable.program(entry.pid), shells.contains(program), !ProcTable.waiting(entry.pid) else { continue }
            out.append((entry, "a shell running commands of its own (not waiting for Carrel)"))
        }
        return out
    }

    func lookAtAncestors(_ table: [ProcessEntry], record: ModeRecord, owner: ProcessMark, now: Double) -> [Incident] {
        let end = record.begin.policy.processRule == .end
        if end { holdShells(table, uid: record.uid, owner: owner) }
        var incidents: [Incident] = []
        for launcher in Self.launchers(table, uid: record.uid, owner: owner, held: heldShells) {
            let entry = launcher.entry
            let program = (ProcTable.program(entry.pid) ?? "?") + (launcher.what.hasPrefix("a shell") ? " (busy)" : "")
            let before = ancestorPrograms[entry.mark]
            guard before != program else { continue }
            ancestorPrograms[entry.mark] = program
            var found = entry
            found.command = ProcTable.command(entry.pid)
            let stopped = end && ProcTable.signal(entry.mark, SIGSTOP)
            if stopped { frozen.append(entry.mark) }
            var incident = ProcessRule.incident(found, account: record.account, action: stopped ? "stopped until the end" : "reported", at: now)
            incident.detail = "\(launcher.what) between the login and Carrel" + (before == nil ? ": " : ", again: ") + incident.detail
            incidents.append(incident)
        }
        return incidents
    }

    /// Under `processes: end`, the shells between the login and Carrel are stopped while Carrel
    /// runs: one waiting for it could still run commands of its own from a trap (a resize, a
    /// signal of the student's), between two looks. They are continued when Carrel goes away
    /// (the kiosk must be able to start it again) and at the mode's end.
    func holdShells(_ table: [ProcessEntry], uid: UInt32, owner: ProcessMark) {
        for mark in Self.ancestors(table, of: owner) where mark != owner && !heldShells.contains(mark) {
            guard let entry = table.first(where: { $0.mark == mark }), entry.uids.contains(uid),
                  let program = ProcTable.program(entry.pid), Self.shells.contains(program), ProcTable.signal(mark, SIGSTOP) else { continue }
            heldShells.insert(mark)
            frozen.append(mark)
        }
    }

    /// Carrel went away: the shells held for it go on (a new Carrel holds them again).
    func releaseShells() {
        for mark in heldShells { _ = ProcTable.signal(mark, SIGCONT) }
        heldShells = []
    }
}
