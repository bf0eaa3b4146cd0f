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
        let busy = shellAncestors(table, uid: uid, owner: owner).filter { !held.contains($0.mark) && !ProcTable.waiting($0.pid) }
        return strange.map { (entry: $0, what: "a program") }
            + busy.map { (entry: $0, what: "a shell running commands of its own (not waiting for Carrel)") }
    }

    /// Why an end mode does not begin with what stands between the login and Carrel: a second
    /// shell (the nearer could not be held without its own shell taking the terminal back), a
    /// program of the student's or a busy shell (neither could be ended without the exam's
    /// terminal, and either would run through the exam). Nil when nothing does.
    static func refusalAtBegin(_ table: [ProcessEntry], record: ModeRecord, owner: ProcessMark) -> String? {
        let shells = shellAncestors(table, uid: record.uid, owner: owner)
        let found: (entry: ProcessEntry, what: String, why: String)
        if shells.count > 1 {
            found = (shells[0], "a second shell", "could not be held through the exam")
        } else if let launcher = launchers(table, uid: record.uid, owner: owner).first {
            found = (launcher.entry, launcher.what, "would run through the exam")
        } else {
            return nil
        }
        let command = Sanitise.text(ProcTable.describe(found.entry.pid), limit: 340)
        return "\(ModeWire.refusedHere) \(found.what) of \(record.account) stands between the login and Carrel "
            + "(process \(found.entry.pid): \(command)) and \(found.why) (processes: end); start Carrel from the login's shell"
    }

    func lookAtAncestors(_ table: [ProcessEntry], record: ModeRecord, owner: ProcessMark, now: Double) -> [Incident] {
        let end = record.begin.policy.processRule == .end
        var incidents = end ? holdShells(table, record: record, owner: owner, now: now) : []
        for launcher in Self.launchers(table, uid: record.uid, owner: owner, held: heldShells) {
            let entry = launcher.entry
            let program = (ProcTable.program(entry.pid) ?? "?") + (launcher.what.hasPrefix("a shell") ? " (busy)" : "")
            let before = ancestorPrograms[entry.mark]
            guard before != program else { continue }
            ancestorPrograms[entry.mark] = program
            var found = entry
            found.command = ProcTable.describe(entry.pid)
            let stopped = end && ProcTable.signal(entry.mark, SIGSTOP)
            if stopped { frozen.append(entry.mark) }
            var incident = ProcessRule.incident(found, account: record.account, action: stopped ? "stopped until the end" : "reported", at: now)
            incident.detail = "\(launcher.what) between the login and Carrel" + (before == nil ? ": " : ", again: ") + incident.detail
            incidents.append(incident)
        }
        return incidents
    }

    /// The owner's ancestors of the account that run an installed shell, nearest first.
    static func shellAncestors(_ table: [ProcessEntry], uid: UInt32, owner: ProcessMark) -> [ProcessEntry] {
        let byPid = Dictionary(table.map { ($0.pid, $0) }, uniquingKeysWith: { first, _ in first })
        var out: [ProcessEntry] = []
        var seen = Set<Int32>()
        var current = byPid[owner.pid].flatMap { $0.start == owner.start ? byPid[$0.parent] : nil }
        while let entry = current, seen.insert(entry.pid).inserted {
            if entry.uids.contains(uid), let program = ProcTable.program(entry.pid), shells.contains(program) { out.append(entry) }
            current = entry.parent > 0 ? byPid[entry.parent] : nil
        }
        return out
    }

    /// Under `processes: end`, the shell between the login and Carrel (one at most: the begin
    /// refuses a second, which could not be held without handing its own shell the terminal
    /// back) is stopped while Carrel runs: waiting for it, it could still run commands of its
    /// own from a trap (a resize, a signal of the student's) between two looks. It is continued
    /// when Carrel goes away (the kiosk must be able to start it again) and at the mode's end;
    /// one found running again is stopped again, and reported: the first time, then at most
    /// once a minute with how often it was continued since (a login program that continues its
    /// shell every few seconds says nothing new each time).
    func holdShells(_ table: [ProcessEntry], record: ModeRecord, owner: ProcessMark, now: Double) -> [Incident] {
        var incidents: [Incident] = []
        for entry in Self.shellAncestors(table, uid: record.uid, owner: owner) {
            if heldShells.contains(entry.mark) {
                guard !ProcTable.stopped(entry.pid), ProcTable.signal(entry.mark, SIGSTOP) else { continue }
                let before = continued[entry.mark]
                if let before, now - before.said < 60 {
                    continued[entry.mark] = (before.said, before.since + 1)
                    continue
                }
                continued[entry.mark] = (now, 0)
                var found = entry
                found.command = ProcTable.describe(entry.pid)
                var incident = ProcessRule.incident(found, account: record.account, action: "stopped until the end", at: now)
                let again = before.map { ", again (\($0.since + 1) times in the last minute or more)" } ?? ""
                incident.detail = "a shell held while Carrel runs was continued by another program\(again): " + incident.detail
                incidents.append(incident)
            } else if ProcTable.signal(entry.mark, SIGSTOP) {
                heldShells.insert(entry.mark)
                frozen.append(entry.mark)
            }
        }
        return incidents
    }

    /// Carrel went away: the shells held for it go on (a new Carrel holds them again).
    func releaseShells() {
        for mark in heldShells { _ = ProcTable.signal(mark, SIGCONT) }
        heldShells = []
    }
}
