#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLinux
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
        return out
    }

    /// Display numbers listening on `@/tmp/.X11-unix/X<n>` (/proc/net/unix, listening: flag 0x10000).
    static func abstractDisplays() -> [Int] {
        guard let data = SecureFiles.readSmallFile("/proc/net/unix", limit: 16 << 20) else { return [] }
        let prefix = "@/tmp/.X11-unix/X"
        return String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, let flags = UInt32(fields[3], radix: 16), flags & 0x10000 != 0,
                  fields[7].hasPrefix(prefix) else { return nil }
            return Int(fields[7].dropFirst(prefix.count))
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
    /// listens on its socket). Never for root, as whom every server of a machine may run.
    static func servedByThisUser(_ number: Int) -> Bool {
        guard getuid() != 0 else { return false }
        for path in ["/tmp/.X11-unix/X\(number)", "\0/tmp/.X11-unix/X\(number)"] {
            guard let pid = listener(path) else { continue }
            var info = stat()
            return stat("/proc/\(pid)", &info) == 0 && info.st_uid == getuid()
        }
        return false
    }

    /// The process listening on UNIX socket `path` (a leading NUL: the abstract namespace).
    static func listener(_ path: String) -> Int32? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (path.hasPrefix("\0") ? 0 : 1))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        var pid: Int32 = 0
        guard connected == 0, carrel_peer_pid(fd, &pid) == 0, pid > 0 else { return nil }
        return pid
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
    static func removeCutBuffers(_ xprop: String, _ environment: [String: String]) -> String? {
        var environment = environment
        environment["DISPLAY"] = environment["DISPLAY"].map(firstScreen)
        guard let set = cutBuffersSet(xprop, environment) else {
            return "xprop could not read the cut buffers of display \(environment["DISPLAY"] ?? "")"
        }
        for name in set {
            let r = ProcessRunner.run(xprop, ["-root", "-remove", name], environment: environment, timeout: deadline)
            if r.status != 0 { return ProcessRunner.Output.why("xprop", r, display: environment["DISPLAY"] ?? "") }
        }
        return nil
    }
}
