/// One of the kernel's process events, as the service reads them (the netlink proc connector).
public struct ProcessEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A new process (not a thread) whose parent is `parent`.
        case fork(parent: Int32)
        /// The process's real and effective user ids changed.
        case ids(real: UInt32, effective: UInt32)
        case exec
        /// What the process runs, as read at its exec (its command line, or its short name):
        /// kept when the process is gone. The first word after an exec stands (a program that
        /// renames itself later does not rename what it ran); an empty one is no name.
        case name(String)
        /// The whole process ended.
        case exit
    }

    public var pid: Int32
    public var kind: Kind

    public init(pid: Int32, _ kind: Kind) {
        self.pid = pid
        self.kind = kind
    }
}

/// Who the seat account's processes descend from, kept from the kernel's process events while
/// a Carrel owns the mode, so that a stranger is known at its fork: a program that forks a
/// successor and exits every few milliseconds, never there when /proc is looked at, is still
/// one stranger's line. Pure: `read` is how a process the events cannot place is looked up.
///
/// A process is the owner's (Carrel or one of its descendants: allowed), a stranger's (the
/// line of a stranger, `root` its number), or pending: a child of a process the events do not
/// place. A child inherits the owner's or a stranger's line at once. A pending process's
/// children join its chain; after each batch of events (`settle`) a chain is placed by
/// reading the processes of it that are still alive, the newest first: reading each at its
/// fork would lose the race to a program that forks faster than events are read. A parent a
/// fork names is the child's real parent, which `CLONE_PARENT` makes the forker's own parent:
/// so nothing but the owner's and a stranger's line is inherited, every other child is read.
public struct Lineage: Sendable, Equatable {
    public enum Line: Sendable, Equatable {
        case owner
        /// `root`: the line's number, never used again (a pid is, once its process ends).
        case stranger(root: Int)
        /// Not placed yet: read at the end of the batch, with the other processes of `chain`.
        case pending(chain: Int)
    }

    public let uid: UInt32
    public private(set) var lines: [Int32: Line] = [:]
    /// The roots already reported (an incident each), so a line is reported once.
    public private(set) var reportedRoots: Set<Int> = []
    var nextNumber = 1
    /// A process of a stranger's line, the line's number, and what it ran as the events named
    /// it (a copy: the process's pid may be used again by the time it is taken).
    struct Sighting: Sendable, Equatable {
        var pid: Int32
        var root: Int
        var name: String?

        /// A process of a line, whatever it was named: the same one twice is taken once.
        var key: Key { Key(pid: pid, root: root) }
    }

    struct Key: Sendable, Hashable {
        var pid: Int32
        var root: Int
    }

    /// Strangers made since the last `take()`, in the order they were found, with their line.
    var fresh: [Sighting] = []
    /// Programs a stranger's process ran (an exec) since the last `takePrograms()`, in order.
    var ran: [Sighting] = []
    /// Where each pid's latest sighting is in `fresh` and in `ran`.
    var lastFresh: [Int32: Int] = [:]
    var lastRan: [Int32: Int] = [:]
    /// Pending processes that ran a program before they were placed.
    var ranPending: Set<Int32> = []
    /// The children each stranger's process forked since it last ran a program (at most 64):
    /// when it runs another, they go on running the one it left, and are taken as programs.
    var childrenSinceExec: [Int32: [Int32]] = [:]
    /// Children whose parent ran another program after forking them, since the last take.
    var leftBehind: [Sighting] = []
    /// What each living process of a stranger's or a pending line runs, as the events named it
    /// (the sightings keep their own copy when it ends).
    public private(set) var names: [Int32: String] = [:]
    /// Each pending chain's processes, oldest first (some may have ended since: a process's
    /// own line says whether it is still of the chain), and the process it was forked from.
    var chains: [Int: [Int32]] = [:]
    var chainParents: [Int: Int32] = [:]

    /// Carrel's own process. Any other process of the owner's line that runs a program, and
    /// any process such a process forks, starts a chain of its own (`checked`: true when its
    /// first process ran a program, false when it was forked), placed by what each of its
    /// processes runs: Carrel's child stays the owner's while it runs one of Carrel's helpers,
    /// a process a helper forks only when it serves a clipboard in the background (`serves`:
    /// xclip's); anything else is a stranger's line. A helper can be made to run another
    /// program, or to start a server of its own that reads the student's settings, by what it
    /// talks to (a tmux client obeys the server it connects to, and a student can put one on
    /// the socket Carrel clears).
    var ownerPid: Int32?
    var checked: [Int: Bool] = [:]

    static let mostChains = 4096
    static let mostNames = 8192

    public init(uid: UInt32) {
        self.uid = uid
    }

    /// Placed from a table of the machine: the owner, those of its descendants in `keep` (the
    /// owner's line as the events knew it before they were lost), and the strangers already
    /// known (each its own root, reported when `reported` holds it). A child the owner has at
    /// its first placing is not the owner's: Carrel starts none before its mode begins, and a
    /// process forked by the program that then became Carrel (exec keeps the pid) would be its
    /// child. Replaces what the events had built, as after events the kernel dropped.
    public mutating func seed(_ table: [ProcessEntry], owner: ProcessMark, strangers: [ProcessEntry], reported: Set<ProcessMark>,
                              keep: Set<Int32> = []) {
        lines = [:]
        fresh = []
        ran = []
        lastFresh = [:]
        lastRan = [:]
        ranPending = []
        childrenSinceExec = [:]
        leftBehind = []
        names = [:]
        chains = [:]
        chainParents = [:]
        checked = [:]
        ownerPid = owner.pid
        var children: [Int32: [ProcessEntry]] = [:]
        for entry in table { children[entry.parent, default: []].append(entry) }
        if table.contains(where: { $0.mark == owner }) {
            lines[owner.pid] = .owner
            var down = [owner.pid]
            while let pid = down.popLast(), lines.count < 1 << 20 {
                for child in children[pid] ?? [] where keep.contains(child.pid) && lines[child.pid] == nil {
                    lines[child.pid] = .owner
                    down.append(child.pid)
                }
            }
        }
        reportedRoots = []
        for entry in strangers where lines[entry.pid] == nil {
            let root = number()
            lines[entry.pid] = .stranger(root: root)
            if reported.contains(entry.mark) { reportedRoots.insert(root) }
        }
    }

    /// One event. Reads nothing: a process it cannot place waits for `settle`.
    public mutating func apply(_ event: ProcessEvent) {
        switch event.kind {
        case let .fork(parent):
            // A pid used again: nothing of the process that had it is this one's.
            forget(event.pid)
            // A child runs its parent's program until it runs another.
            if names.count < Self.mostNames, lines[parent] != .owner { names[event.pid] = names[parent] }
            switch lines[parent] {
            case .owner? where parent == ownerPid:
                lines[event.pid] = .owner
            case .owner?:
                // Forked by a helper: looked at (a server it starts is not Carrel's).
                check(event.pid, ran: false)
            case let .stranger(root)?:
                lines[event.pid] = .stranger(root: root)
                sight(Sighting(pid: event.pid, root: root, name: names[event.pid]))
                if childrenSinceExec[parent, default: []].count < 64 { childrenSinceExec[parent, default: []].append(event.pid) }
            case let .pending(chain)?:
                lines[event.pid] = .pending(chain: chain)
                chains[chain, default: []].append(event.pid)
            case nil:
                let chain = number()
                lines[event.pid] = .pending(chain: chain)
                chains[chain] = [event.pid]
                chainParents[chain] = parent
            }
        case let .ids(real, effective):
            switch lines[event.pid] {
            case .owner?, .stranger?: break
            case .pending?, nil:
                // Of the account once its real id is the account's and it no longer runs as
                // root (a cron job, `su`): a process of root's that borrows the account's real
                // or effective id for a moment (`runuser`, a login program reading the
                // account's files) is root's, and root is trusted.
                guard real == uid, effective != 0 else { break }
                let name = names[event.pid]
                forget(event.pid)
                let root = number()
                lines[event.pid] = .stranger(root: root)
                names[event.pid] = name
                sight(Sighting(pid: event.pid, root: root, name: name))
            }
        case .exec:
            // A new program: the name it had is not what it runs now.
            names[event.pid] = nil
            switch lines[event.pid] {
            case let .stranger(root)?:
                sightProgram(Sighting(pid: event.pid, root: root, name: nil))
                // Its children still run the program it left: each is a program of the line.
                for child in childrenSinceExec.removeValue(forKey: event.pid) ?? [] where lines[child] == .stranger(root: root) {
                    leftBehind.append(Sighting(pid: child, root: root, name: names[child]))
                }
            case .pending?: ranPending.insert(event.pid)
            case .owner? where event.pid != ownerPid:
                // Looked at again: a helper, or a stranger's program run in Carrel's name.
                check(event.pid, ran: true)
            case .owner?, nil: break
            }
        case let .name(name):
            switch lines[event.pid] {
            case .stranger?, .pending?:
                // The first after an exec stands, and the table of them is bounded.
                guard !name.isEmpty, names[event.pid] == nil, names.count < Self.mostNames else { break }
                let kept = String(name.prefix(200))
                names[event.pid] = kept
                // The sightings of this process (the latest of its pid) are named with it.
                if case let .stranger(root)? = lines[event.pid] {
                    if let i = lastRan[event.pid], ran[i].root == root, ran[i].name == nil { ran[i].name = kept }
                    if let i = lastFresh[event.pid], fresh[i].root == root { fresh[i].name = kept }
                }
            case .owner?, nil: break
            }
        case .exit:
            forget(event.pid)
        }
    }

    /// Each pending chain placed by the first of its living processes that can be read, the
    /// newest first: all of it becomes the owner's (a child of the owner's line by /proc's
    /// word), one new stranger's line (a process of the account), or is dropped (another
    /// account's, or ended). A chain none of whose processes could be read while the events
    /// say some live is kept for the next time.
    public mutating func settle(read: (Int32) -> ProcessEntry?, helper: (Int32) -> Bool = { _ in false },
                                serves: (Int32) -> Bool = { _ in false }, ranOther: (Int32) -> Bool = { _ in false }) {
        // Chains kept unread this long are the events' loss, not a program's: the oldest go.
        if chains.count > Self.mostChains {
            for chain in chains.keys.sorted().prefix(chains.count - Self.mostChains) {
                for pid in chains[chain] ?? [] where lines[pid] == .pending(chain: chain) { lines[pid] = nil }
                chains[chain] = nil
            }
        }
        for (chain, members) in chains.sorted(by: { $0.key < $1.key }) {
            let alive = members.filter { lines[$0] == .pending(chain: chain) }
            if let ran = checked[chain] {
                placeChecked(chain, members: members, alive: alive, ran: ran, read: read,
                             allowed: { ran && $0 == members.first ? helper($0) : serves($0) }, ranOther: ranOther)
                continue
            }
            var placed: Line??
            for pid in alive.reversed() {
                guard let entry = read(pid), !entry.zombie else { continue }
                placed = .some(line(of: entry, read: read))
                break
            }
            guard let line = placed else {
                if alive.isEmpty, let first = members.first, let parent = chainParents[chain], let forker = read(parent),
                   forker.isOf(uid) {
                    // All of it ended before it could be read, forked by a process of the account
                    // the lines do not place (a user service manager, a terminal): a line of the
                    // account's all the same, told by what little is known.
                    sight(Sighting(pid: first, root: number(), name: nil))
                }
                chains[chain] = alive.isEmpty ? nil : alive
                if alive.isEmpty { chainParents[chain] = nil }
                continue
            }
            chains[chain] = nil
            chainParents[chain] = nil
            for pid in alive {
                lines[pid] = line
                guard case let .stranger(root)? = line else {
                    names[pid] = nil
                    continue
                }
                sight(Sighting(pid: pid, root: root, name: names[pid]))
                if ranPending.contains(pid) { sightProgram(Sighting(pid: pid, root: root, name: names[pid])) }
            }
        }
    }

    /// A process of the owner's line to look at again, in a checked chain of its own.
    mutating func check(_ pid: Int32, ran: Bool) {
        let chain = number()
        lines[pid] = .pending(chain: chain)
        chains[chain] = [pid]
        checked[chain] = ran
    }

    /// A chain a process of the owner's line began (`ran`: by running a program, else by being
    /// forked by a helper): each of its processes still running is judged by what it runs now
    /// (`allowed`: kept the owner's), the others of the account are one new stranger's line;
    /// another account's (a setuid helper) has none. None of it read (all ended): a stranger's
    /// line all the same when the kernel said its first process ran a file that is no helper
    /// (`ranOther`).
    mutating func placeChecked(_ chain: Int, members: [Int32], alive: [Int32], ran: Bool, read: (Int32) -> ProcessEntry?,
                               allowed: (Int32) -> Bool, ranOther: (Int32) -> Bool) {
        chains[chain] = nil
        chainParents[chain] = nil
        checked[chain] = nil
        var root: Int?
        var judged = false
        for pid in alive {
            guard let entry = read(pid), !entry.zombie, entry.isOf(uid) else {
                forget(pid)
                continue
            }
            judged = true
            ranPending.remove(pid)
            if allowed(pid) {
                lines[pid] = .owner
                names[pid] = nil
                continue
            }
            let line = root ?? number()
            root = line
            lines[pid] = .stranger(root: line)
            sight(Sighting(pid: pid, root: line, name: names[pid]))
        }
        if !judged, ran, let first = members.first, ranOther(first) {
            sight(Sighting(pid: first, root: number(), name: nil))
        }
    }

    /// A process of the account read from /proc: of the line of its nearest ancestor that has
    /// one (the events may have missed a fork: the kernel drops them when they come faster than
    /// they are read), else a new stranger's. Another account's process has no line.
    mutating func line(of entry: ProcessEntry, read: (Int32) -> ProcessEntry?) -> Line? {
        guard entry.isOf(uid) else { return nil }
        var parent = entry.parent
        for _ in 0..<32 where parent > 1 {
            switch lines[parent] {
            case .owner?: return .owner
            case let .stranger(root)?: return .stranger(root: root)
            case .pending?, nil: break
            }
            guard let up = read(parent) else { break }
            parent = up.parent
        }
        return .stranger(root: number())
    }

    /// `pid` no longer runs (or is used again): out of its line, and so of its chain; its name
    /// goes too (its sightings keep their own copy).
    mutating func forget(_ pid: Int32) {
        lines[pid] = nil
        names[pid] = nil
        ranPending.remove(pid)
        childrenSinceExec[pid] = nil
    }

    mutating func number() -> Int {
        defer { nextNumber += 1 }
        return nextNumber
    }

    /// A stranger's process found by the events, or a program one of them ran.
    public struct Found: Sendable, Equatable {
        public var pid: Int32
        /// Its line's number.
        public var root: Int
        /// The first of a line not reported before (the line counts as reported from now on).
        public var new: Bool
        /// It ended before it was taken: nothing of it can be read, only its name.
        public var ended: Bool
        /// What it ran, as read at its exec (or the short name it gave itself), when known.
        public var name: String?
        /// A child whose parent ran another program after forking it: it runs the one left.
        public var leftBehind = false
    }

    /// The strangers found since the last call, those that ended since too (a program that
    /// lives a millisecond is still a stranger, and its line may be new), each once.
    public mutating func take() -> [Found] {
        var out: [Found] = []
        var seen = Set<Key>()
        for sighting in fresh where seen.insert(sighting.key).inserted {
            out.append(found(sighting, new: reportedRoots.insert(sighting.root).inserted))
        }
        fresh = []
        lastFresh = [:]
        return out
    }

    /// The programs strangers' processes ran since the last call: each process once, the last
    /// program it ran (a chain of execs is told by where it got to), ended ones too. A program
    /// of a line not reported yet (one placed at the begin, not yet looked at) is its line's
    /// first incident, `new`.
    public mutating func takePrograms() -> [Found] {
        var last: [Key: Int] = [:]
        for (i, run) in ran.enumerated() { last[run.key] = i }
        var out = ran.enumerated().filter { last[$0.element.key] == $0.offset }
            .map { found($0.element, new: reportedRoots.insert($0.element.root).inserted) }
        // Children whose parent went on to another program: what they run is a program too
        // (a program that forks and at once execs something harmless leaves its work to them).
        var seen = Set(out.map(\.pid))
        for child in leftBehind where seen.insert(child.pid).inserted {
            var taken = found(child, new: reportedRoots.insert(child.root).inserted)
            taken.leftBehind = true
            out.append(taken)
        }
        ran = []
        lastRan = [:]
        leftBehind = []
        return out
    }

    mutating func sight(_ sighting: Sighting) {
        lastFresh[sighting.pid] = fresh.count
        fresh.append(sighting)
    }

    mutating func sightProgram(_ sighting: Sighting) {
        lastRan[sighting.pid] = ran.count
        ran.append(sighting)
    }

    func found(_ sighting: Sighting, new: Bool) -> Found {
        let living = lines[sighting.pid] == .stranger(root: sighting.root)
        return Found(pid: sighting.pid, root: sighting.root, new: new, ended: !living,
                     name: sighting.name ?? (living ? names[sighting.pid] : nil))
    }

    /// The positions of the execs in `batch` worth reading at once: the last of each process,
    /// and none whose process ends, or whose pid is forked again, later in the batch (nothing
    /// of it is left to read, or it would be another process's).
    public static func readableExecs(_ batch: [ProcessEvent]) -> Set<Int> {
        var gone = Set<Int32>(), read = Set<Int32>(), out = Set<Int>()
        for (i, event) in batch.enumerated().reversed() {
            switch event.kind {
            case .exit, .fork: gone.insert(event.pid)
            case .exec: if !gone.contains(event.pid), read.insert(event.pid).inserted { out.insert(i) }
            case .ids, .name: break
            }
        }
        return out
    }

    /// Whether `pid` belongs to a line already reported (a look at /proc need not report it again).
    public func isReported(_ pid: Int32) -> Bool {
        if case let .stranger(root)? = lines[pid] { return reportedRoots.contains(root) }
        return false
    }

    /// A stranger found by a look at /proc: its own line, reported.
    public mutating func adopt(_ pid: Int32) {
        switch lines[pid] {
        case .owner?: return
        case let .stranger(root)?: reportedRoots.insert(root)
        case .pending?, nil:
            forget(pid)
            let root = number()
            lines[pid] = .stranger(root: root)
            reportedRoots.insert(root)
        }
    }
}
