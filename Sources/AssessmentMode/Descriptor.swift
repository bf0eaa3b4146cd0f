#if canImport(Glibc)
import Glibc
#endif

/// Whole writes to a descriptor, for the service, its record on disk and its test client.
public enum Descriptor {
    /// Writes every byte (again after EINTR); false when the descriptor refuses.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var rest = bytes[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            rest = rest.dropFirst(n)
        }
        return true
    }
}
