#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Recognises a terminal multiplexer by what it does, not by its name: it finds the process
/// holding the master side of our pseudo-terminal and looks at it.
///
/// That process is a multiplexer (tmux, screen, dtach, abduco, zellij, a renamed copy of any
/// of them…) when
/// - it keeps a control channel other programs can connect to: a listening UNIX socket or a
///   named FIFO (how `tmux send-keys`, `screen -X stuff` and their kin type into a pane and
///   read it back from elsewhere), or
/// - its own terminal is a terminal: it relays one terminal inside another (`script`,
///   `expect`, a terminal emulator started from a shell).
/// A terminal emulator (xterm, GNOME Terminal with several tabs, Konsole) or sshd holds
/// masters but has neither. Holders whose /proc entries cannot be read (another user's,
/// or a non-dumpable process such as sshd's) are not judged.
public enum TerminalMultiplexer {
    /// What the master holder of our terminal is and does.
    public struct Holder: Sendable, Equatable {
        public var pid: Int32
        public var name: String
        /// How many pseudo-terminal masters it holds.
        public var masters: Int
        /// Listening UNIX sockets (their paths, `@name` when abstract) and named FIFOs.
        public var controlChannels: [String]
        /// Its own controlling terminal or standard input, when it is a terminal.
        public var ownTerminal: String?

        /// Whether it runs `program` (the very file, not a copy or another of that name).
        public func runs(_ program: String) -> Bool { TerminalMultiplexer.process(pid, runs: program) }

        /// Why it is a multiplexer, or nil when it behaves like a terminal.
        public var verdict: String? {
            if let channel = controlChannels.first {
                let path = channel.isEmpty ? "an unnamed socket" : channel
                return "\(name) (pid \(pid)) holds this terminal and listens on \(path), so other programs can type into it"
            }
            if let ownTerminal {
                return "\(name) (pid \(pid)) holds this terminal and runs inside another terminal (\(ownTerminal))"
            }
            return nil
        }
    }

    /// Whether process `pid` runs `program`: the very file (its device and inode), not a copy
    /// or another program of that name.
    public static func process(_ pid: Int32, runs program: String) -> Bool {
        var running = stat(), installed = stat()
        return stat("/proc/\(pid)/exe", &running) == 0 && stat(program, &installed) == 0
            && running.st_dev == installed.st_dev && running.st_ino == installed.st_ino
    }

    /// The verdict for the terminal of `pid` (nil when it is not inside a multiplexer, or when
    /// its terminal is not a pseudo-terminal at all: a console cannot be multiplexed).
    public static func detect(pid: Int32 = getpid()) -> String? {
        for index in ptyIndexes(pid: pid) {
            for holder in holders(ofPty: index, excluding: pid) {
                if let verdict = holder.verdict { return verdict }
            }
        }
        return nil
    }

    /// The pseudo-terminals (`/dev/pts/N` numbers) of `pid`: its standard descriptors and its
    /// controlling terminal.
    static func ptyIndexes(pid: Int32) -> [Int] {
        var found: [Int] = []
        for fd in 0...2 {
            if let link = readLink("/proc/\(pid)/fd/\(fd)"), let n = ptsNumber(link), !found.contains(n) { found.append(n) }
        }
        if let tty = controllingTerminal(pid), let n = ptyIndex(device: tty), !found.contains(n) { found.append(n) }
        return found
    }

    static func ptsNumber(_ path: String) -> Int? {
        guard path.hasPrefix("/dev/pts/") else { return nil }
        return Int(path.dropFirst("/dev/pts/".count))
    }

    /// The controlling terminal of `pid` as the kernel encodes it (tty_nr, field 7 of stat).
    static func controllingTerminal(_ pid: Int32) -> UInt32? {
        guard let data = SecureFiles.readSmallFile("/proc/\(pid)/stat", limit: 4096) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state, ppid, pgrp, session, tty_nr.
        guard fields.count > 4, let tty = UInt32(fields[4]), tty != 0 else { return nil }
        return tty
    }

    /// The pts number of an encoded device, nil when it is not a pseudo-terminal slave
    /// (Unix98 pty slaves have major 136 to 143).
    static func ptyIndex(device: UInt32) -> Int? {
        let major = (device >> 8) & 0xFFF
        let minor = (device & 0xFF) | ((device >> 12) & 0xFFF00)
        guard (136...143).contains(major) else { return nil }
        return Int(major - 136) * 256 + Int(minor)
    }

    static func readLink(_ path: String) -> String? {
        // Read into uninitialised space (the machine's every descriptor is read at launch:
        // zeroing 4 KiB for each was a quarter of the multiplexer check).
        let target = [UInt8](unsafeUninitializedCapacity: 4096) { buffer, count in
            let n = buffer.baseAddress.map { readlink(path, $0, 4095) } ?? -1
            count = max(0, n)
        }
        guard !target.isEmpty else { return nil }
        return String(decoding: target, as: UTF8.self)
    }

    static func entries(_ directory: String) -> [String]? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Bytes without the spaces, tabs and line ends around them. Not Foundation's character
    /// sets: their first use costs a launch more than the whole of this check.
    static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else { return [] }
        return bytes[first...last]
    }

    /// The pty a master descriptor belongs to, from `tty-index:` in /proc/PID/fdinfo/FD.
    static func masterIndex(pid: String, fd: String) -> Int? {
        guard let data = SecureFiles.readSmallFile("/proc/\(pid)/fdinfo/\(fd)", limit: 4096) else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("tty-index:") {
            return Int(String(decoding: trimmed(Array(line.dropFirst("tty-index:".count).utf8)), as: UTF8.self))
        }
        return nil
    }

    /// Every process (other than `excluding`) that holds the master of pts `index`, as far as
    /// /proc lets us see.
    static func holders(ofPty index: Int, excluding: Int32) -> [Holder] {
        var out: [Holder] = []
        for pid in entries("/proc") ?? [] where Int32(pid) != nil && Int32(pid) != excluding {
            guard let fds = entries("/proc/\(pid)/fd") else { continue }
            var masters = 0
            var holds = false
            for fd in fds {
                guard let link = readLink("/proc/\(pid)/fd/\(fd)"), link == "/dev/ptmx" || link == "/dev/pts/ptmx" else { continue }
                masters += 1
                if masterIndex(pid: pid, fd: fd) == index { holds = true }
            }
            guard holds, let number = Int32(pid) else { continue }
            out.append(describe(number, fds: fds, masters: masters))
        }
        return out
    }

    static func describe(_ pid: Int32, fds: [String], masters: Int) -> Holder {
        let name = SecureFiles.readSmallFile("/proc/\(pid)/comm", limit: 256)
            .map { String(decoding: trimmed([UInt8]($0)), as: UTF8.self) } ?? "?"
        var sockets = Set<String>()
        var channels: [String] = []
        for fd in fds {
            guard let link = readLink("/proc/\(pid)/fd/\(fd)") else { continue }
            if link.hasPrefix("socket:[") {
                sockets.insert(String(link.dropFirst("socket:[".count).dropLast()))
            } else if link.hasPrefix("/") {
                var info = stat()
                if stat("/proc/\(pid)/fd/\(fd)", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO { channels.append(link) }
            }
        }
        if !sockets.isEmpty { channels = listeningSockets(pid: pid, inodes: sockets) + channels }
        var own: String?
        if let stdin = readLink("/proc/\(pid)/fd/0"), stdin.hasPrefix("/dev/pts/") || stdin.hasPrefix("/dev/tty") {
            own = stdin
        } else if let tty = controllingTerminal(pid) {
            own = ptyIndex(device: tty).map { "/dev/pts/\($0)" } ?? "a terminal"
        } else {
            // A relay may keep the terminal it works in on any descriptor, with no controlling
            // terminal: a terminal of which it holds no master is another terminal it is in.
            let mastered = Set(fds.compactMap { fd -> Int? in
                guard let link = readLink("/proc/\(pid)/fd/\(fd)"), link == "/dev/ptmx" || link == "/dev/pts/ptmx" else { return nil }
                return masterIndex(pid: String(pid), fd: fd)
            })
            own = fds.lazy.compactMap { readLink("/proc/\(pid)/fd/\($0)") }
                .first { ptsNumber($0).map { !mastered.contains($0) } ?? false }
        }
        return Holder(pid: pid, name: name, masters: masters, controlChannels: channels, ownTerminal: own)
    }

    /// The paths of the listening UNIX sockets among `inodes`, from the holder's view of
    /// /proc/net/unix (`Num RefCount Protocol Flags Type St Inode Path`; flag 0x10000 is
    /// __SO_ACCEPTCON, a listening socket).
    static func listeningSockets(pid: Int32, inodes: Set<String>) -> [String] {
        listeningUnixSockets("/proc/\(pid)/net/unix").filter { inodes.contains($0.inode) }.map(\.path)
    }

    /// Every listening UNIX socket in a /proc/…/net/unix table: its inode and its path
    /// (`@name` when abstract, empty when it has none).
    static func listeningUnixSockets(_ table: String) -> [(inode: String, path: String)] {
        guard let data = SecureFiles.readSmallFile(table, limit: 16 << 20) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 7, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0 else { return nil }
            return (String(fields[6]), fields.count > 7 ? String(fields[7]) : "")
        }
    }
}
