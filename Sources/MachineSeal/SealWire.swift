#if canImport(Glibc)
import Glibc
#endif

/// The helper's socket to the Carrel it launched: messages of text lines, each ended by an
/// empty line. Carrel sends `ready` once it is non-dumpable, then `SealRequest`s; the helper
/// answers `ready` (or `refused WHY`), then `signed SIGNATURE` with the statement on the lines
/// after it, or `refused WHY`; to `store login` it answers `login ROLE` and the password on
/// the next line (`StoreLogin`), or `refused WHY`. A statement has no empty line, so it cannot end a message early.
public enum SealWire {
    /// The variable that tells a launched Carrel its end of the socket (always descriptor 3).
    public static let variable = "CARREL_KEYSIGN_FD"
    public static let descriptor: Int32 = 3

    /// The next message on `fd` without its final empty line; nil at the end, on an error, or
    /// past `limit` bytes. Reads one byte at a time, so nothing after the message is taken.
    public static func read(_ fd: Int32, limit: Int = 4096) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while !(bytes.count >= 2 && bytes[bytes.count - 2] == 10 && bytes[bytes.count - 1] == 10) {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1, bytes.count < limit else { return nil }
            bytes.append(byte)
        }
        return String(decoding: bytes.dropLast(2), as: UTF8.self)
    }

    /// Writes `message` whole on `fd`, with its final empty line.
    public static func write(_ fd: Int32, _ message: String) -> Bool {
        var bytes = Array((message + "\n\n").utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            bytes = bytes.dropFirst(n)
        }
        return true
    }
}
