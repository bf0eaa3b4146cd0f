#if canImport(Glibc)
import Glibc
#endif
import ModeService
import Synchronization

/// The machine's processes and USB devices as /proc and /sys tell them.
enum ProcTable {
    /// The pauses taken waiting for command lines (20 ms in a second at most).
    static let waits = Mutex(ProcessRule.WaitBudget())

    /// Every process now (those that end while being read are left out).
    static func all() -> [ProcessEntry] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var out: [ProcessEntry] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if let pid = Int32(name), pid > 0, let entry = entry(pid) { out.append(entry) }
        }
        return out
    }

    /// One process: its parent, user ids, start time, session and terminal from stat and status.
    static func entry(_ pid: Int32) -> ProcessEntry? {
        guard let line = text("/proc/\(pid)/stat", limit: 4096), let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let parent = Int32(fields[1]), let session = Int32(fields[3]), let tty = Int32(fields[4]),
              let start = UInt64(fields[19]) else { return nil }
        // A leader that is a zombie while other threads of it run (its main thread called
        // pthread_exit) still runs: it is no zombie to pass over.
        let threads = Int(fields[17]) ?? 1
        if (fields[0] == "Z" || fields[0] == "X") && threads <= 1 {
            // An ended process waiting for its parent: its ids are not needed (nothing is done
            // to one), and a machine can hold thousands of them.
            var st = stat()
            let uid = stat("/proc/\(pid)", &st) == 0 ? st.st_uid : 0
            return ProcessEntry(pid: pid, parent: parent, uids: [uid], start: start, session: session, tty: tty, zombie: true)
        }
        guard let status = text("/proc/\(pid)/status", limit: 65536) else { return nil }
        let uids = field(status, "Uid").prefix(2).compactMap { UInt32($0) }
        guard !uids.isEmpty else { return nil }
        return ProcessEntry(pid: pid, parent: parent, uids: uids, start: start, session: session, tty: tty, zombie: false)
    }

    /// The command line (NUL-separated arguments joined by spaces), or `[name]` for a process without one.
    /// The name of the installed program `pid` runs (`/proc/PID/exe`): nil when that file is
    /// not one of the system's — not root's, writable by others, deleted — or cannot be read. A
    /// copy of python named `bash` in a student's folder is no shell.
    static func program(_ pid: Int32) -> String? {
        guard let path = executable(pid) else { return nil }
        var st = stat()
        // stat follows /proc/PID/exe to the very file the process runs, wherever it was opened.
        guard !path.hasSuffix(" (deleted)"), stat("/proc/\(pid)/exe", &st) == 0, st.st_uid == 0, st.st_mode & 0o022 == 0,
              path.hasPrefix("/usr/") || path.hasPrefix("/bin/") || path.hasPrefix("/sbin/") else { return nil }
        return path.split(separator: "/").last.map(String.init)
    }

    /// The programs Carrel runs in a session (its clipboard helpers): a descendant of Carrel
    /// that runs anything else is a stranger.
    static let helpers: Set<String> = ["tmux", "screen", "xsel", "xclip", "wl-copy", "pbcopy"]

    /// Whether `pid` runs one of Carrel's helpers, installed as the system's (`program`).
    static func helper(_ pid: Int32) -> Bool {
        program(pid).map { helpers.contains($0) } ?? false
    }

    /// Whether `pid` runs the one helper that serves a clipboard from a process of its own
    /// (xclip forks one that holds the emptied selection): the only process a helper's fork
    /// that stays Carrel's.
    static func serves(_ pid: Int32) -> Bool {
        program(pid) == "xclip"
    }

    /// Whether the file at `path` is one of Carrel's helpers as the system installs them:
    /// root's, writable by no one else, in the system's folders.
    static func isHelperFile(_ path: String) -> Bool {
        var st = stat()
        guard path.hasPrefix("/usr/") || path.hasPrefix("/bin/") || path.hasPrefix("/sbin/"),
              let name = path.split(separator: "/").last, helpers.contains(String(name)),
              lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == 0, st.st_mode & 0o022 == 0 else { return false }
        return true
    }

    /// A process for an incident: its command line and, when that does not name it, the file it runs.
    static func describe(_ pid: Int32) -> String {
        let command = command(pid)
        return ProcessRule.describe(command: command, executable: executable(pid), system: program(pid) != nil)
    }

    /// The path of the file `pid` runs (`/proc/PID/exe`), whoever owns it; nil when it cannot be read.
    static func executable(_ pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func command(_ pid: Int32) -> String {
        // A process in the middle of an exec has no command line for a moment: read again.
        let line = ProcessRule.settledCommandLine(read: { commandLine(pid) }, alive: { entry(pid).map { !$0.zombie } ?? false },
                                                  pause: {
            guard waits.withLock({ $0.take(now: Clock.now()) }) else { return false }
            usleep(1000)
            return true
        })
        if let line { return line }
        return shortName(pid) ?? "[]"
    }

    /// The process's command line, its arguments joined by spaces (the first 4 KiB: one read,
    /// whatever the process's arguments weigh); nil while it has none.
    static func commandLine(_ pid: Int32) -> String? {
        let fd = open("/proc/\(pid)/cmdline", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let line = String(decoding: bytes[0..<n].map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self).trimmingCharacters(in: [" "])
        return line.isEmpty ? nil : line
    }

    /// The process's short name as `[name]`; nil when it cannot be read or is blank (a process
    /// on its way out, or one that blanked it).
    static func shortName(_ pid: Int32) -> String? {
        guard let name = text("/proc/\(pid)/comm", limit: 256)?.trimmingCharacters(in: ["\n"]), !name.isEmpty else { return nil }
        return "[\(name)]"
    }

    static func text(_ path: String, limit: Int) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        // A file that cannot be read belongs to a process that has just ended (a caller is then
        // refused; the watcher sees a process that runs no more).
        return (try? Files.readAll(fd, what: path, limit: limit)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Signals `process` if it is still that process (its start time unchanged).
    static func signal(_ process: ProcessMark, _ signal: Int32) -> Bool {
        guard entry(process.pid)?.start == process.start else { return false }
        return kill(process.pid, signal) == 0
    }

    static let usb = "/sys/bus/usb/devices"

    /// The names under /sys/bus/usb/devices; nil when the machine has no USB bus to watch.
    static func usbDevices() -> Set<String>? {
        guard let dir = opendir(usb) else { return nil }
        defer { closedir(dir) }
        var names = Set<String>()
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if !name.hasPrefix(".") { names.insert(name) }
        }
        return names
    }

    /// "1-1.2 (0781:5567 SanDisk Cruzer)".
    static func describeDevice(_ name: String) -> String {
        func field(_ file: String) -> String {
            (text("\(usb)/\(name)/\(file)", limit: 256) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let words = [field("manufacturer"), field("product")].filter { !$0.isEmpty }.joined(separator: " ")
        return Sanitise.text("\(name) (\(field("idVendor")):\(field("idProduct"))\(words.isEmpty ? "" : " " + words))")
    }
}

extension ProcTable {
    /// The values of a line of /proc/PID/status (`Uid:`, `Gid:`, `Groups:`, `TracerPid:`), as
    /// the words after its name; none when the line is not there.
    static func field(_ status: String, _ name: String) -> [Substring] {
        let prefix = name + ":"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return [] }
        return line.dropFirst(prefix.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    /// Whether `pid` is stopped (by a signal or a tracer), as its stat's state says.
    static func stopped(_ pid: Int32) -> Bool {
        guard let line = text("/proc/\(pid)/stat", limit: 4096), let close = line.lastIndex(of: ")") else { return false }
        let state = line[line.index(after: close)...].drop(while: { $0 == " " }).first
        return state == "T" || state == "t"
    }

    /// Whether `pid` waits for a child or a signal (a shell waiting for the program it started),
    /// as /proc/PID/wchan tells it at any of three looks a few milliseconds apart.
    static func waiting(_ pid: Int32) -> Bool {
        for look in 0..<3 {
            if look > 0 { usleep(2000) }
            let state = (text("/proc/\(pid)/wchan", limit: 128) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            // No wchan to read (a kernel that hides it): nothing is said against the shell.
            if state.isEmpty || state == "0" || ["do_wait", "sigsuspend", "do_sigsuspend", "kernel_wait4"].contains(state) { return true }
        }
        return false
    }
}
