#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A UNIX socket file left at a path (bound, then closed: nothing listens behind it), as a
/// stale socket or a display's socket a test plants.
public enum UnixSocketFile {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func make(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw Failure(description: "socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw Failure(description: "bind \(path): \(String(cString: strerror(errno)))") }
    }
}
