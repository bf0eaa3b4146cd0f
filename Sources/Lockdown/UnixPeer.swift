#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Foundation

/// Who listens on a UNIX socket, as the kernel says (`SO_PEERCRED`: the listener's process and
/// user when it called `listen`; the user stays true after that process has gone).
public enum UnixPeer {
    public struct Listener: Sendable, Equatable {
        public var pid: Int32
        public var uid: uid_t
    }

    /// The listener on `path` (a leading NUL: the abstract namespace); nil when nothing
    /// accepts a connection within a second (a listener whose backlog is full would hold a
    /// blocking connect for ever).
    public static func listener(_ path: String) -> Listener? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else { return nil }
        var pid: Int32 = 0
        var uid: UInt32 = .max
        guard carrel_peer_pid(fd, &pid) == 0, carrel_peer_uid(fd, &uid) == 0 else { return Listener(pid: 0, uid: .max) }
        return Listener(pid: pid, uid: uid_t(uid))
    }
}
