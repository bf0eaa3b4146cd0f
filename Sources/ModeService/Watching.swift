import AssessmentMode

/// Text from the machine (a command line, a device's name) made safe to show: control,
/// format and line or paragraph separator characters replaced, at most `limit` Unicode
/// scalars (a "character" of combining marks can be any length).
public enum Sanitise {
    public static func text(_ text: String, limit: Int = 200) -> String {
        let scalars = text.unicodeScalars.map { scalar -> Unicode.Scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: "?"
            default: scalar
            }
        }
        guard scalars.count > limit else { return String(String.UnicodeScalarView(scalars)) }
        return String(String.UnicodeScalarView(scalars.prefix(max(0, limit - 1)))) + "…"
    }
}

/// One process as /proc tells it.
public struct ProcessEntry: Sendable, Equatable {
    public var pid: Int32
    public var parent: Int32
    /// Real and effective user ids.
    public var uids: [UInt32]
    public var start: UInt64
    /// Its session id and controlling terminal (0: none).
    public var session: Int32
    public var tty: Int32
    public var zombie: Bool
    public var command: String

    public init(pid: Int32, parent: Int32, uids: [UInt32], start: UInt64, session: Int32 = 0, tty: Int32 = 0,
                zombie: Bool = false, command: String = "") {
        self.pid = pid
        self.parent = parent
        self.uids = uids
        self.start = start
        self.session = session
        self.tty = tty
        self.zombie = zombie
        self.command = command
    }

    public var mark: ProcessMark { ProcessMark(pid: pid, start: start) }

    /// A process of the account `uid`: its real id is the account's, and it does not run with
    /// root's effective id (root's own programs that borrow the account's real or effective id
    /// for a moment, as `runuser` and login programs do, are root's; so is a setuid-root program).
    public func isOf(_ uid: UInt32) -> Bool {
        uids.first == uid && (uids.count < 2 || uids[1] != 0)
    }
}

/// Which processes of the seat's account are not the Carrel that owns the mode: pure, over a
/// table of processes, so the rule is tested without a machine.
public enum ProcessRule {
    /// The processes of `uid` (`ProcessEntry.isOf`) that are neither one of `owners` nor an ancestor
    /// or a descendant of one, nor one of `kept`, nor already `reported`; zombies no longer run
    /// and are skipped.
    public static func strangers(_ table: [ProcessEntry], uid: UInt32, owners: [ProcessMark], kept: Set<ProcessMark> = [],
                                 reported: Set<ProcessMark> = [], descendant: (ProcessEntry) -> Bool = { _ in true }) -> [ProcessEntry] {
        let allowed = family(table, of: owners, descendant: descendant).union(kept)
        return table.filter { entry in
            entry.isOf(uid) && !entry.zombie && !allowed.contains(entry.mark) && !reported.contains(entry.mark)
        }
    }

    /// `owners` (those still running as the same process), their ancestors and their
    /// descendants that `descendant` allows (Carrel's helpers), each through allowed parents.
    public static func family(_ table: [ProcessEntry], of owners: [ProcessMark],
                              descendant: (ProcessEntry) -> Bool = { _ in true }) -> Set<ProcessMark> {
        var byPid: [Int32: ProcessEntry] = [:]
        var children: [Int32: [ProcessEntry]] = [:]
        for entry in table {
            byPid[entry.pid] = entry
            children[entry.parent, default: []].append(entry)
        }
        var family = Set<ProcessMark>()
        for owner in owners {
            guard let entry = byPid[owner.pid], entry.start == owner.start else { continue }
            var up: ProcessEntry? = entry
            var steps = 0
            while let current = up, steps < 4096 {
                family.insert(current.mark)
                up = current.parent > 0 && current.parent != current.pid ? byPid[current.parent] : nil
                steps += 1
            }
            var down = children[entry.pid] ?? []
            while let child = down.popLast(), family.count < 1 << 20 {
                guard descendant(child) else { continue }
                if family.insert(child.mark).inserted { down += children[child.pid] ?? [] }
            }
        }
        return family
    }

    /// While a Carrel owns the mode (`live`), a stranger is acted on at first sight: a program
    /// that forks a successor and exits faster than the service looks is never the same process
    /// twice, and would never be reported. While the mode is interrupted, a stranger is acted on
    /// when a second look finds it still there: a shell's child between its fork and its exec of
    /// Carrel (a resume on the way) is not taken for one. The strangers confirmed now, and those
    /// to look at again.
    public static func confirm(_ strangers: [ProcessEntry], suspects: Set<ProcessMark>,
                               live: Bool = false) -> (confirmed: [ProcessEntry], suspects: Set<ProcessMark>) {
        if live { return (strangers, []) }
        let confirmed = strangers.filter { suspects.contains($0.mark) }
        return (confirmed, Set(strangers.map(\.mark)).subtracting(confirmed.map(\.mark)))
    }

    /// What may stand between a login and Carrel and run as the student: shells, the terminal
    /// or multiplexer that shows the exam, the account's own login pieces. By the name of the
    /// file the process runs (`/proc/PID/exe`), which a program cannot change as it can its
    /// command line.
    public static let knownAncestors: Set<String> = [
        "bash", "sh", "dash", "zsh", "fish", "ksh", "ksh93", "mksh", "tcsh", "csh",
        "sshd", "sshd-session", "mosh-server", "login", "su", "sudo", "runuser", "setpriv", "systemd", "tmux", "screen",
        "xterm", "uxterm", "gnome-terminal-server", "kgx", "ptyxis-agent", "konsole", "kitty", "alacritty", "foot", "wezterm-gui",
        "xfce4-terminal", "mate-terminal", "lxterminal", "qterminal", "terminator", "tilix", "urxvt", "rxvt", "st", "sakura",
        "terminology", "guake", "yakuake", "gnome-session-binary", "xfce4-session", "startplasma-x11", "startplasma-wayland",
        "lxsession", "dbus-run-session", "xinit", "startx", "Xorg", "gnome-shell", "plasmashell", "kwin_x11", "kwin_wayland",
    ]

    /// The owner's ancestors of the student's account that are none of `knownAncestors` (a
    /// program of theirs that holds the exam's terminal could read every screen and type into
    /// it), not yet reported. `program` names the installed program a process runs, nil when it
    /// runs none (a file of the student's, a deleted one): reported too.
    public static func strangeAncestors(_ table: [ProcessEntry], uid: UInt32, owner: ProcessMark, reported: Set<ProcessMark>,
                                        program: (Int32) -> String?) -> [ProcessEntry] {
        let byPid = Dictionary(table.map { ($0.pid, $0) }, uniquingKeysWith: { first, _ in first })
        var out: [ProcessEntry] = []
        var seen = Set<Int32>()
        var current = byPid[owner.pid].flatMap { $0.start == owner.start ? byPid[$0.parent] : nil }
        while let entry = current, seen.insert(entry.pid).inserted {
            if entry.uids.contains(uid), !reported.contains(entry.mark), !(program(entry.pid).map(knownAncestors.contains) ?? false) {
                out.append(entry)
            }
            current = entry.parent > 0 ? byPid[entry.parent] : nil
        }
        return out
    }

    public static func incident(_ entry: ProcessEntry, account: String, action: String, at: Double) -> Incident {
        Incident(kind: .process, detail: "process \(entry.pid) of \(account): \(Sanitise.text(entry.command, limit: 340))", at: at, action: action)
    }

    /// A process gone before it could be read: what was read of it at its exec (`name`), and
    /// the files the kernel said it last opened to run (`files`, oldest first), when either is
    /// known: the last file, with the one before it when the last is an interpreter (a script
    /// run by its `#!` line: "/home/s1/x.sh then /usr/bin/dash").
    public static func gone(name: String?, files: [String]) -> String {
        var ran = files.suffix(1).map { $0 }
        if let last = files.last, files.count > 1, isInterpreter(last) { ran = Array(files.suffix(2)) }
        ran = ran.map { Sanitise.text($0, limit: 160) }
        guard let name else {
            return ran.isEmpty ? "[it ended before it could be read]" : ran.joined(separator: " then ") + " (it ended at once)"
        }
        let said = Sanitise.text(name, limit: 200)
        // A short name in brackets names its file too: `[true]` for /usr/bin/true.
        let first = said.split(separator: " ", maxSplits: 1).first.map { baseName(String($0)).trimmingCharacters(in: ["[", "]"]) } ?? ""
        let named = ran.contains { baseName($0) == first }
        return said + (ran.isEmpty || named ? "" : " (ran " + ran.joined(separator: " then ") + ")") + " (it ended at once)"
    }

    static func baseName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    /// A program that runs scripts: a shell, python, perl…
    static func isInterpreter(_ path: String) -> Bool {
        let name = baseName(path)
        return ["sh", "bash", "dash", "zsh", "ksh", "fish", "busybox"].contains(name)
            || ["python", "perl", "ruby", "node", "php", "lua", "tclsh", "awk", "gawk", "mawk"].contains { name.hasPrefix($0) }
    }

    /// A program a process of a line already reported went on to run (`processes: report`).
    public static func ran(_ entry: ProcessEntry, account: String, at: Double) -> Incident {
        Incident(kind: .process, detail: "process \(entry.pid) of \(account) ran: \(Sanitise.text(entry.command, limit: 340))",
                 at: at, action: "reported")
    }

    /// A process told by its command line and by the file it runs (`/proc/PID/exe`, which a
    /// process cannot change as it can its command line and its name), unless the line's
    /// first word already names that file: its whole path, or its name when it is one of the
    /// system's (`system`: `/bin/sleep` for `/usr/bin/sleep`). "carrel 900 (runs /home/ada/hide)": a program that calls itself
    /// Carrel, or blanks its line, is still named by what it runs. Each part made safe to show.
    public static func describe(command: String, executable: String?, system: Bool) -> String {
        let line = Sanitise.text(command, limit: 200)
        // No line, no name and no file: a process on its way out (a living one still has its file).
        if command == "[]" && (executable ?? "").isEmpty { return "[it ended before it could be read]" }
        guard let executable, !executable.isEmpty else { return line }
        var first = command.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        // A login shell's first word is its name after a dash (`-bash`).
        if first.hasPrefix("-") { first.removeFirst() }
        if first == executable || (system && baseName(first) == baseName(executable)) { return line }
        return line + " (runs " + Sanitise.text(executable, limit: 120) + ")"
    }
}

/// A login session other than the owner's: its processes, found by session id among the
/// processes that have a controlling terminal (a console login, an SSH session).
public struct OtherSession: Sendable, Equatable {
    public var session: Int32
    public var uid: UInt32
    public var tty: Int32
    public var members: [ProcessEntry]
}

extension ProcessRule {
    /// A process's command line for an incident, read again for a few milliseconds while it
    /// has none: between an exec's new memory and its arguments the kernel shows an empty
    /// line, so a program read at that moment (a shell's `sleep 31 &` on its way) was reported
    /// by its short name alone, and its line, reported once, never said what it ran. Nil when
    /// it still has none (a process that blanked its own, or one that ended): the caller says
    /// its short name. At most `tries` reads; `pause` waits between them, and says false when
    /// the service may wait no more (its budget of waiting, which processes that blank their
    /// own command line on purpose cannot make it spend on them without end).
    public static func settledCommandLine(tries: Int = 8, read: () -> String?, alive: () -> Bool, pause: () -> Bool) -> String? {
        for attempt in 0..<max(1, tries) {
            if let line = read() { return line }
            if attempt + 1 >= tries || !alive() || !pause() { break }
        }
        return nil
    }

    /// Waiting for command lines: at most `limit` pauses in each second.
    public struct WaitBudget: Sendable {
        public let limit: Int
        var second = -1
        var spent = 0
        public init(limit: Int = 20) { self.limit = limit }

        /// Whether one more pause may be taken at `now` (seconds); counts it when so.
        public mutating func take(now: Double) -> Bool {
            let current = Int(now)
            if current != second {
                second = current
                spent = 0
            }
            guard spent < limit else { return false }
            spent += 1
            return true
        }
    }
}

extension ProcessRule {
    /// Incidents for processes in ten seconds: at most `limit` for new lines and as many for
    /// programs of lines already reported (a loop of `true` in a reported shell cannot hide a
    /// new line); those past them are counted, and said in one incident once the ten seconds
    /// are over.
    public struct Burst: Sendable {
        public let limit: Int
        var window = Int.min
        var lines = 0
        var programs = 0
        var left = 0
        public init(limit: Int = 20) { self.limit = limit }

        /// Whether one more incident fits at `now` (seconds); one that does not is counted.
        public mutating func take(now: Double, program: Bool) -> Bool {
            let current = Int((now / 10).rounded(.down))
            if current != window {
                window = current
                lines = 0
                programs = 0
            }
            guard (program ? programs : lines) < limit else {
                left += 1
                return false
            }
            if program { programs += 1 } else { lines += 1 }
            return true
        }

        /// The count left out, once at most for ten seconds, after they are over.
        public mutating func leftOut(now: Double) -> Int? {
            guard left > 0, Int((now / 10).rounded(.down)) != window else { return nil }
            defer { left = 0 }
            return left
        }
    }
}

public enum SessionRule {
    /// Sessions with a terminal of accounts `counts` says are students', other than the
    /// sessions of the owners and their ancestors.
    public static func others(_ table: [ProcessEntry], owners: [ProcessMark], counts: (UInt32) -> Bool) -> [OtherSession] {
        let family = ProcessRule.family(table, of: owners)
        let ownSessions = Set(table.filter { family.contains($0.mark) }.map(\.session))
        var found: [Int32: OtherSession] = [:]
        for entry in table where entry.tty != 0 && entry.session > 0 && !ownSessions.contains(entry.session) && !entry.zombie {
            guard let uid = entry.uids.first, counts(uid), found[entry.session] == nil else { continue }
            found[entry.session] = OtherSession(session: entry.session, uid: uid, tty: entry.tty, members: [])
        }
        // Every process of the session's account in it, with a terminal or without.
        for entry in table where !entry.zombie {
            if let uid = found[entry.session]?.uid, entry.uids.contains(uid) { found[entry.session]?.members.append(entry) }
        }
        return found.values.sorted { $0.session < $1.session }
    }
}

/// USB devices that were not there when the mode began.
public enum DeviceRule {
    public static func added(_ now: Set<String>, since known: Set<String>) -> [String] {
        now.subtracting(known).filter { !$0.hasPrefix("usb") && !$0.contains(":") }.sorted()
    }
}
