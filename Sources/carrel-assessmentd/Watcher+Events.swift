#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import CAssessmentd
import ModeService

/// The kernel's process events (the netlink proc connector): every fork, change of user ids
/// and exit on the machine, as they happen. While a Carrel owns the mode, a stranger is known
/// at its fork and acted on at once, however short its life; the look at /proc every quarter
/// of a second stays, for what the events cannot place.
extension Watcher {

    func subscribe() {
        guard events < 0 else { return }
        events = cad_proc_events_open()
        eventsMissing = events >= 0 ? nil : (errno == EPERM || errno == EACCES
            ? "the service does not run as root in the machine's own process namespace" : Files.error())
        if let why = eventsMissing { log("the kernel's process events are not available: \(why); /proc is looked at instead") }
        if events >= 0, execFiles < 0 {
            execFiles = cad_exec_files_open()
            if execFiles < 0 { log("the files programs run are not told (fanotify: \(Files.error())); a program that ends at once may go unnamed") }
        }
    }

    /// The files run since the last call (at most 4 096 a call), by process, ld.so left out; those
    /// older than two seconds are forgotten.
    func readExecFiles(now: Double) {
        ranFiles = ranFiles.filter { now - $0.value.at < 2 }
        guard execFiles >= 0 else { return }
        var buffer = [cad_exec_file](repeating: cad_exec_file(), count: 256)
        for _ in 0..<16 {
            let n = Int(cad_exec_files_read(execFiles, &buffer, Int32(buffer.count)))
            guard n > 0 else { break }
            for file in buffer[0..<n] {
                let path = withUnsafeBytes(of: file.path) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                let name = path.split(separator: "/").last.map(String.init) ?? path
                if name.hasPrefix("ld-linux") || name.hasPrefix("ld-musl") || name.hasPrefix("ld.so") { continue }
                var known = ranFiles[file.pid] ?? ([], now)
                // The last three: where a chain of execs got to, and a script's file before its interpreter.
                if known.files.last != path { known.files = Array((known.files + [path]).suffix(3)) }
                known.at = now
                ranFiles[file.pid] = known
            }
            if n < buffer.count { break }
        }
    }

    func unsubscribe() {
        if events >= 0 { close(events) }
        events = -1
        if execFiles >= 0 { close(execFiles) }
        execFiles = -1
        ranFiles = [:]
        toldPrograms = [:]
        lineage = nil
        lineageOwner = nil
    }

    /// The lines placed from a table of the machine: the owner's descendants, the account's
    /// strangers (those reported before stay reported).
    func seed(_ table: [ProcessEntry], record: ModeRecord, owner: ProcessMark) {
        guard events >= 0 else { return }
        // Placed again for the same owner (events were lost): its line as the events knew it.
        let keep = owner == lineageOwner ? Set(lineage?.lines.filter { $0.value == .owner }.map(\.key) ?? []) : []
        var fresh = Lineage(uid: record.uid)
        let allowed = Self.ancestors(table, of: owner)
        let strangers = ProcessRule.strangers(table, uid: record.uid, owners: [], kept: allowed)
            .filter { !keep.contains($0.pid) }
        fresh.seed(table, owner: owner, strangers: strangers, reported: reported, keep: keep)
        lineage = fresh
        lineageOwner = owner
        reseed = false
    }

    /// Reads every event waiting; while a Carrel owns the mode, the strangers they show are
    /// acted on (ended at once under `processes: end`) and each new line is an incident.
    func drain(_ record: ModeRecord?, owner: ProcessMark?, now: Double) -> [Incident] {
        guard events >= 0 else { return [] }
        var batch: [ProcessEvent] = []
        var dropped = false
        var buffer = [cad_proc_event](repeating: cad_proc_event(), count: 512)
        // At most 32 768 events at a time: the loop comes back at once for more, and a
        // program that forks without pause cannot keep the service in here.
        for _ in 0..<64 {
            let n = cad_proc_events_read(events, &buffer, Int32(buffer.count))
            if n < 0 && errno == ENOBUFS {
                dropped = true
                continue
            }
            if n < 0 {
                log("the kernel's process events cannot be read (\(Files.error())); /proc is looked at instead")
                eventsMissing = Files.error()
                unsubscribe()
                return []
            }
            batch += buffer[0..<Int(n)].compactMap(Self.event)
            if n < Int32(buffer.count) { break }
        }
        guard let record, let owner, owner == lineageOwner, var lines = lineage, record.begin.policy.processRule != .ignore else { return [] }
        // After the batch: the kernel tells a file opened to run before the exec it makes.
        readExecFiles(now: now)
        // A program between the login and Carrel that runs another is looked at now.
        let ancestors = Set(ownerAncestors.map(\.pid))
        if batch.contains(where: { $0.kind == .exec && ancestors.contains($0.pid) }) { nextFullLook = 0 }
        let readable = Lineage.readableExecs(batch)
        for (i, event) in batch.enumerated() {
            lines.apply(event)
            // What a stranger's process runs is read as soon as its exec is known, before it
            // can end (a program that lives a millisecond is still named when the read wins
            // the race; it is reported either way): once a process a batch, not when the batch
            // says it has ended or its pid went to another process since (nothing of it is left
            // to read), and at most `execReads` a second.
            guard readable.contains(i), case .stranger? = lines.lines[event.pid], execReads.take(now: now) else { continue }
            if let read = ProcTable.commandLine(event.pid) ?? ProcTable.shortName(event.pid) {
                lines.apply(ProcessEvent(pid: event.pid, .name(read)))
            }
        }
        lines.settle(read: ProcTable.entry, helper: ProcTable.helper, serves: ProcTable.serves, ranOther: { [ranFiles] pid in
            (ranFiles[pid]?.files ?? []).contains { !ProcTable.isHelperFile($0) }
        })
        lineage = lines
        if dropped && !reseed {
            // Some events were lost: the lines are placed again from what runs at the next
            // look (not here: reading all of /proc now would lose more). Meanwhile a process
            // the lines do not place is read with its ancestors.
            log("the kernel dropped process events; the machine is looked at again")
            reseed = true
            nextFullLook = 0
        }
        return act(record, now: now)
    }

    /// The strangers found since the last time: ended or reported by the policy. An incident
    /// for each new line (told by the first of its processes found now that still runs: a
    /// shell that started a program in the background and exited is gone, the program is not)
    /// and, under `report`, for each program a stranger's process runs afterwards: a shell
    /// reported once runs no program unseen. A process that ended before it could be read is
    /// told by what was read of it at its exec, when anything was.
    func act(_ record: ModeRecord, now: Double) -> [Incident] {
        guard var lines = lineage else { return [] }
        let found = lines.take()
        let programs = lines.takePrograms()
        lineage = lines
        let end = record.begin.policy.processRule == .end
        var living: [Int: (entry: ProcessEntry, command: String)] = [:]
        for stranger in found where !stranger.ended {
            let entry = ProcTable.entry(stranger.pid).flatMap { $0.isOf(record.uid) && !$0.zombie ? $0 : nil }
            guard let entry else { continue }
            // The command is read before the kill, of the process that will name the line only.
            if living[stranger.root] == nil { living[stranger.root] = (entry, told(entry.pid, name: stranger.name)) }
            if end { _ = ProcTable.signal(entry.mark, SIGKILL) }
            reported.insert(entry.mark)
        }
        var incidents: [Incident] = []
        var covered = Set<Int32>()
        // `take` marks one process of each line new: one incident a new line, by its first
        // process found now that still runs, else by what the events said of the first.
        for stranger in found where stranger.new {
            let named = living[stranger.root]
                ?? (ProcessEntry(pid: stranger.pid, parent: 0, uids: [record.uid], start: 0), gone(stranger.pid, stranger.name))
            covered.insert(named.entry.pid)
            guard burst.take(now: now, program: false) else { continue }
            var entry = named.entry
            entry.command = named.command
            // Under `end` every process of the line still running was killed (as root a kill
            // fails only for a process already gone), and any it starts will be: the line is
            // ended either way.
            incidents.append(ProcessRule.incident(entry, account: record.account, action: end ? "ended" : "reported", at: now))
        }
        // Under `end` a stranger is ended at its first sight: what it runs is never let run.
        guard !end else { return incidents + leftOut(record, now: now) }
        for program in programs where !covered.contains(program.pid) {
            // A process still there whose real id is not the account's is not its (a line kept
            // for a pid whose end the kernel dropped, until the next look places them again).
            if !program.ended, let entry = ProcTable.entry(program.pid), !entry.zombie, !entry.isOf(record.uid) { continue }
            guard burst.take(now: now, program: !program.new) else { continue }
            var shown = ProcessEntry(pid: program.pid, parent: 0, uids: [record.uid], start: 0)
            shown.command = program.ended ? gone(program.pid, program.name) : told(program.pid, name: program.name)
            // A line placed at the begin and not looked at yet is reported by this program first.
            if program.leftBehind { shown.command += " (its parent went on to run another program)" }
            // The same program of the same process, said already (its exec read late): once.
            guard toldPrograms[program.pid] != shown.command else { continue }
            if toldPrograms.count > 4096 { toldPrograms = [:] }
            toldPrograms[program.pid] = shown.command
            incidents.append(program.new ? ProcessRule.incident(shown, account: record.account, action: "reported", at: now)
                                         : ProcessRule.ran(shown, account: record.account, at: now))
        }
        return incidents + leftOut(record, now: now)
    }

    /// What is said of a process gone before it could be read: what it ran, as read at its
    /// exec and as the kernel said it opened the files.
    func gone(_ pid: Int32, _ name: String?) -> String {
        ProcessRule.gone(name: name, files: ranFiles[pid]?.files ?? [])
    }

    /// A living process as its command line and file say. One without a command line now —
    /// on its way out, or one that blanked its own — by what it ran as read at its exec, when
    /// that was read, and the file it runs.
    func told(_ pid: Int32, name: String?) -> String {
        let now = ProcTable.describe(pid)
        guard now.hasPrefix("[") else { return now }
        guard let name, let running = ProcTable.executable(pid) else { return now.hasPrefix("[it ended") ? gone(pid, name) : now }
        return ProcessRule.describe(command: name, executable: running, system: ProcTable.program(pid) != nil)
    }

    /// One incident for the new lines and programs past the limits, once their ten seconds are over.
    func leftOut(_ record: ModeRecord, now: Double) -> [Incident] {
        guard let count = burst.leftOut(now: now) else { return [] }
        let end = record.begin.policy.processRule == .end
        return [Incident(kind: .process, detail: "\(count) more programs of \(record.account) were started in a burst",
                         at: now, action: end ? "ended" : "reported")]
    }

    static func event(_ raw: cad_proc_event) -> ProcessEvent? {
        switch raw.what {
        case 1: ProcessEvent(pid: raw.pid, .fork(parent: raw.parent))
        case 2: ProcessEvent(pid: raw.pid, .exec)
        case 3: ProcessEvent(pid: raw.pid, .ids(real: raw.ruid, effective: raw.euid))
        case 4: ProcessEvent(pid: raw.pid, .exit)
        // A name a process gave itself is a short name, said as one: `[name]` (a blank one is none).
        case 5: withUnsafeBytes(of: raw.name) { bytes in
            let name = String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            return name.isEmpty ? nil : ProcessEvent(pid: raw.pid, .name("[\(name)]"))
        }
        default: nil
        }
    }
}
