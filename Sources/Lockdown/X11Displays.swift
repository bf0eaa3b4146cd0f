#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where X11's displays and cut buffers are found.
extension X11Pasteboard {
    /// The displays to clear: the session's DISPLAY first, then each local display by number:
    /// those with a socket in the socket folder (a link to a socket too, as clients follow
    /// it), and, in the machine's own folder, those listening on the abstract socket only (a
    /// server whose socket file was moved away still answers there).
    func displays() -> [String] {
        var out: [String] = []
        if let display = environment["DISPLAY"], !display.isEmpty { out.append(display) }
        var numbers = Set((TerminalMultiplexer.entries(socketDirectory) ?? []).compactMap { entry -> Int? in
            guard entry.hasPrefix("X"), let n = Int(entry.dropFirst()), n >= 0 else { return nil }
            var info = stat()
            guard stat("\(socketDirectory)/\(entry)", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
            return n
        })
        if socketDirectory == "/tmp/.X11-unix" { numbers.formUnion(Self.abstractDisplays()) }
        for n in numbers.sorted() where !out.contains(where: { Self.localNumber($0) == n }) { out.append(":\(n)") }
        // A server listening on TCP (`-listen tcp`) is asked there too, even when a socket of
        // the same number is here: that socket may be anyone's.
        if socketDirectory == "/tmp/.X11-unix" {
            for (n, _) in Self.tcpDisplays().sorted(by: { $0.key < $1.key }) where !out.contains("localhost:\(n)") {
                out.append("localhost:\(n)")
            }
        }
        return out
    }

    /// Display numbers with a server listening on TCP port 6000 + n of this machine, and the
    /// user each listens as (/proc/net/tcp and tcp6: state 0A is LISTEN).
    static func tcpDisplays() -> [Int: uid_t] {
        var out: [Int: uid_t] = [:]
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let data = SecureFiles.readSmallFile(table, limit: 16 << 20) else { continue }
            out.merge(listeningDisplays(String(decoding: data, as: UTF8.self))) { first, _ in first }
        }
        return out
    }

    /// `/proc/net/tcp`'s listening sockets on ports 6000–6999, as display numbers and users.
    public static func listeningDisplays(_ table: String) -> [Int: uid_t] {
        var out: [Int: uid_t] = [:]
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[3] == "0A", let colon = fields[1].lastIndex(of: ":"),
                  let port = Int(fields[1][fields[1].index(after: colon)...], radix: 16), (6000..<7000).contains(port),
                  let uid = uid_t(fields[7]) else { continue }
            out[port - 6000] = uid
        }
        return out
    }

    /// Whether `display`'s server runs as this (non-root) user, by its local socket's listener.
    /// A TCP port is not taken for a display of the user's when it does not open: anything of
    /// theirs may listen in that range (a notebook's server, a database).
    static func ownedByThisUser(_ display: String) -> Bool {
        localNumber(display).map(servedByThisUser) ?? false
    }

    /// Display numbers listening on `@/tmp/.X11-unix/X<n>` (/proc/net/unix, listening: flag 0x10000).
    static func abstractDisplays() -> [Int] {
        let prefix = "@/tmp/.X11-unix/X"
        return TerminalMultiplexer.listeningUnixSockets("/proc/net/unix").compactMap { socket in
            socket.path.hasPrefix(prefix) ? Int(socket.path.dropFirst(prefix.count)) : nil
        }
    }

    /// The local display number `display` names (":1", ":1.0", "unix:1"); nil for one reached
    /// over the network (an SSH session's forwarded display is asked as it is named).
    static func localNumber(_ display: String) -> Int? {
        guard let colon = display.lastIndex(of: ":") else { return nil }
        let host = display[..<colon]
        guard host.isEmpty || host == "unix" else { return nil }
        return Int(display[display.index(after: colon)...].prefix { $0 != "." })
    }

    /// `display` on its first screen (":54.1" is ":54"): xterm reads the cut buffers of screen
    /// 0's root window, whichever screen it runs on.
    static func firstScreen(_ display: String) -> String {
        guard let colon = display.lastIndex(of: ":") else { return display }
        return String(display[...colon]) + display[display.index(after: colon)...].prefix { $0 != "." }
    }

    /// Whether the server of local display `number` runs as this user (the kernel says who
    /// listened on its socket, even when that process has gone). Never for root, as whom every
    /// server of a machine may run.
    static func servedByThisUser(_ number: Int) -> Bool {
        guard getuid() != 0 else { return false }
        for path in ["/tmp/.X11-unix/X\(number)", "\0/tmp/.X11-unix/X\(number)"] {
            if let peer = UnixPeer.listener(path) { return peer.uid == getuid() }
        }
        return false
    }

    static let cutBuffers = (0...7).map { "CUT_BUFFER\($0)" }

    /// The cut buffers set on the first screen's root window, each read at most a few bytes
    /// long (a huge one must not push another out of what is read); nil when xprop failed.
    static func cutBuffersSet(_ xprop: String, _ environment: [String: String]) -> [String]? {
        var environment = environment
        environment["DISPLAY"] = environment["DISPLAY"].map(firstScreen)
        let r = ProcessRunner.run(xprop, ["-len", "4", "-root"] + cutBuffers, environment: environment, timeout: deadline)
        guard r.status == 0 else { return nil }
        return r.output.split(separator: "\n").compactMap { line in
            let name = String(line.prefix { $0 != "(" && $0 != ":" })
            return cutBuffers.contains(name) && line.dropFirst(name.count).hasPrefix("(") ? name : nil
        }
    }

    /// Removes the first screen's cut buffers (CUT_BUFFER0 to 7); why not, or nil.
    static func removeCutBuffers(_ xprop: String, _ environment: [String: String], until deadline: Date) -> String? {
        var environment = environment
        environment["DISPLAY"] = environment["DISPLAY"].map(firstScreen)
        guard let set = cutBuffersSet(xprop, environment) else {
            return "xprop could not read the cut buffers of display \(environment["DISPLAY"] ?? "")"
        }
        for name in set {
            if Date() > deadline { return "the cut buffers of display \(environment["DISPLAY"] ?? "") were not removed within \(Int(budget)) s" }
            let r = ProcessRunner.run(xprop, ["-root", "-remove", name], environment: environment, timeout: X11Pasteboard.deadline)
            if r.status != 0 { return ProcessRunner.Output.why("xprop", r, display: environment["DISPLAY"] ?? "") }
        }
        return nil
    }
}
