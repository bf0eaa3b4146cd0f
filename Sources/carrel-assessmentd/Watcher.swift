#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import ModeService

/// What the mode watches while it runs: the seat account's other processes, other login
/// sessions at begin, USB devices plugged in. Each process is reported once.
final class Watcher {
    /// Whether a pid runs the trusted Carrel.
    let isCarrel: (Int32) -> Bool
    var reported = Set<ProcessMark>()
    var suspects = Set<ProcessMark>()
    /// The owner's ancestors as last seen: while the mode is interrupted they are still allowed
    /// (the kiosk's login shell that started the Carrel that went away), their new children not.
    var ownerAncestors = Set<ProcessMark>()
    /// The student's programs between the login and Carrel, with what each ran when reported.
    var ancestorPrograms: [ProcessMark: String] = [:]
    /// Processes stopped since the last time the server took them (the mode's record keeps
    /// them, to continue them at its end).
    var frozen: [ProcessMark] = []
    /// Shells between the login and Carrel stopped while it runs (`processes: end`).
    var heldShells = Set<ProcessMark>()
    /// Each held shell found continued: when that was last said, and how often since.
    var continued: [ProcessMark: (said: Double, since: Int)] = [:]
    var devices: Set<String>?
    var pendingKills: [(process: ProcessMark, at: Double)] = []
    /// The kernel's process events while a mode runs (-1: none), and the lines they keep for
    /// the Carrel that owns the mode (`lineageOwner`).
    var events: Int32 = -1
    var eventsMissing: String?
    /// The kernel's word of each file opened to be run (fanotify; -1: none), and the files each
    /// process ran in the last two seconds, kept to name one that ends before it can be read.
    var execFiles: Int32 = -1
    var ranFiles: [Int32: (files: [String], at: Double)] = [:]
    /// What was last said each process ran (a later exec read the same is not said again).
    var toldPrograms: [Int32: String] = [:]
    var lineage: Lineage?
    var lineageOwner: ProcessMark?
    /// Incidents for new lines and for programs of lines reported in these ten seconds, and
    /// those left out past the limits (said in one incident once the ten seconds are over).
    var burst = ProcessRule.Burst()
    /// Reads of what a stranger runs at its exec: at most `limit` a second.
    var execReads = ProcessRule.WaitBudget(limit: 200)
    /// Events were lost: the lines are placed again at the next whole look.
    var reseed = false
    var nextFullLook = 0.0
    static let fullLook = 2.0

    init(isCarrel: @escaping (Int32) -> Bool) {
        self.isCarrel = isCarrel
    }

    /// After the changes of a begin: other login sessions found and dealt with by the policy,
    /// the USB devices there now.
    func atBegin(_ record: ModeRecord, owner: ProcessMark, now: Double) -> AtBegin {
        reported = []
        suspects = []
        pendingKills = []
        devices = ProcTable.usbDevices()
        // Subscribed before /proc is read: a process started between the two is in both.
        if record.begin.policy.processRule != .ignore { subscribe() }
        let table = ProcTable.all()
        ownerAncestors = Self.ancestors(table, of: owner)
        ancestorPrograms = [:]
        if record.begin.policy.processRule == .end, let why = Self.refusalAtBegin(table, record: record, owner: owner) {
            return AtBegin(refusal: why)
        }
        seed(table, record: record, owner: owner)
        var students: [UInt32: Bool] = [:]
        let others = SessionRule.others(table, owners: [owner]) { uid in
            if let known = students[uid] { return known }
            let student = Accounts.isStudent(uid)
            students[uid] = student
            return student
        }
        var result = AtBegin()
        let rule = record.begin.policy.sessionRule
        for session in others {
            let marks = session.members.map(\.mark)
            let action: String
            switch rule {
            case .report: action = "reported"
            case .lock:
                result.stopped += marks.filter { ProcTable.signal($0, SIGSTOP) }
                action = "stopped"
            case .end:
                for mark in marks where ProcTable.signal(mark, SIGHUP) { _ = ProcTable.signal(mark, SIGTERM) }
                pendingKills += marks.map { ($0, now + 2) }
                action = "ended"
            }
            let account = Accounts.name(session.uid) ?? "uid \(session.uid)"
            let leader = session.members.first { $0.pid == session.session } ?? session.members.first
            let command = leader.map { ProcTable.describe($0.pid) } ?? ""
            let detail = "login session of \(account) on \(Self.terminal(session.tty)): \(session.members.count) process(es), \(Sanitise.text(command, limit: 340))"
            result.incidents.append(Incident(kind: .session, detail: detail, at: now, action: action))
        }
        let word: String = switch rule {
        case .report: "reported"
        case .lock: "stopped until the end"
        case .end: "ended"
        }
        result.steps.append(StepReport(kind: .sessions, applied: true,
                                       detail: others.isEmpty ? "no other login session was open" : "\(others.count) other login session(s) \(word)"))
        result.watching = events >= 0 ? "at its start (the kernel's process events)"
            : "within a quarter of a second (the kernel's process events are not available: \(eventsMissing ?? "unknown"))"
        return result
    }

    /// One look at the machine: the strangers among the account's processes and the new USB
    /// devices, as incidents. `owner` is the Carrel that owns the mode; while the mode is
    /// interrupted, every process of the account running the trusted Carrel (one on its way to
    /// resume it) is allowed instead, with the former owner's ancestors.
    /// While the kernel's events follow a live owner's account, the whole of /proc is read only
    /// every `fullLook` seconds, as a net under the events (a machine full of processes makes
    /// that read long); otherwise at every look.
    func look(_ record: ModeRecord, owner: ProcessMark?, now: Double) -> [Incident] {
        let following = owner != nil && owner == lineageOwner && lineage != nil && !reseed
        var incidents: [Incident] = []
        if !following || now >= nextFullLook {
            incidents = lookAtProcesses(record, owner: owner, now: now)
            nextFullLook = now + Self.fullLook
        }
        if let known = devices, let present = ProcTable.usbDevices() {
            for name in DeviceRule.added(present, since: known) {
                incidents.append(Incident(kind: .device, detail: "USB device plugged in: \(ProcTable.describeDevice(name))", at: now, action: "reported"))
            }
            devices = known.union(present)
        }
        let due = pendingKills.filter { $0.at <= now }
        pendingKills.removeAll { $0.at <= now }
        for kill in due { _ = ProcTable.signal(kill.process, SIGKILL) }
        return incidents + leftOut(record, now: now)
    }

    func lookAtProcesses(_ record: ModeRecord, owner: ProcessMark?, now: Double) -> [Incident] {
        let table = ProcTable.all()
        var owners: [ProcessMark] = []
        if let owner, owner != lineageOwner || reseed {
            seed(table, record: record, owner: owner)
        } else if owner == nil {
            lineage = nil
            lineageOwner = nil
        }
        if let owner {
            // An owner that has just died (its connection not yet seen closed) keeps the
            // ancestors it had: they are what an interrupted mode still allows.
            let ancestors = Self.ancestors(table, of: owner)
            if !ancestors.isEmpty { ownerAncestors = ancestors }
            owners = [owner]
        } else {
            owners = table.filter { $0.uids.contains(record.uid) && !$0.zombie && isCarrel($0.pid) }.map(\.mark)
        }
        reported.formIntersection(table.map(\.mark))
        var incidents: [Incident] = []
        let rule = record.begin.policy.processRule
        if rule != .ignore {
            // Following the events, Carrel's are the processes they saw it fork (even once their
            // parent has gone and /proc names another: a clipboard helper serving in the
            // background), not every descendant /proc shows: a child the program that became
            // Carrel forked before its exec is a stranger. Without them, the descendants in /proc.
            let following = owner != nil && owner == lineageOwner && lineage != nil
            let kept = owner == nil || following ? ownerAncestors : []
            let strangers = ProcessRule.strangers(table, uid: record.uid, owners: following ? [] : owners, kept: kept, reported: reported,
                                                  descendant: { entry in
                // Carrel's child runs a helper (Carrel starts no Carrel); a helper's child only serves a clipboard.
                owners.contains { $0.pid == entry.parent } ? ProcTable.helper(entry.pid) : ProcTable.serves(entry.pid)
            })
                .filter { lineage?.lines[$0.pid] != .owner }
            let (confirmed, next) = ProcessRule.confirm(strangers, suspects: suspects, live: owner != nil)
            suspects = next
            for entry in confirmed.prefix(50) {
                reported.insert(entry.mark)
                // A line the events reported already is acted on without a second incident.
                let known = lineage?.isReported(entry.pid) ?? false
                lineage?.adopt(entry.pid)
                if known {
                    if rule == .end { _ = ProcTable.signal(entry.mark, SIGKILL) }
                    continue
                }
                // Read before the kill; said within the same bound as the events' new lines.
                let command = burst.take(now: now, program: false) ? ProcTable.describe(entry.pid) : nil
                let ended = rule == .end && ProcTable.signal(entry.mark, SIGKILL)
                guard let command else { continue }
                var found = entry
                found.command = command
                incidents.append(ProcessRule.incident(found, account: record.account, action: ended ? "ended" : "reported", at: now))
            }
        }
        if rule != .ignore, let owner { incidents += lookAtAncestors(table, record: record, owner: owner, now: now) }
        return incidents
    }

    func reset() {
        unsubscribe()
        ancestorPrograms = [:]
        frozen = []
        heldShells = []
        continued = [:]
        reported = []
        suspects = []
        ownerAncestors = []
        devices = nil
        pendingKills = []
    }

    /// `owner` and its ancestors.
    static func ancestors(_ table: [ProcessEntry], of owner: ProcessMark) -> Set<ProcessMark> {
        let byPid = Dictionary(table.map { ($0.pid, $0) }, uniquingKeysWith: { first, _ in first })
        var out = Set<ProcessMark>()
        var current = byPid[owner.pid].flatMap { $0.start == owner.start ? $0 : nil }
        while let entry = current, out.insert(entry.mark).inserted {
            current = entry.parent > 0 ? byPid[entry.parent] : nil
        }
        return out
    }

    /// A controlling terminal's name from its device number: tty3, pts/1.
    static func terminal(_ number: Int32) -> String {
        let major = (number >> 8) & 0xfff, minor = (number & 0xff) | ((number >> 12) & 0xfff00)
        if major == 4 && minor < 64 { return "tty\(minor)" }
        if (136...143).contains(major) { return "pts/\(minor + (major - 136) * 256)" }
        return "terminal \(major):\(minor)"
    }
}
