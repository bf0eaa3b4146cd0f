import Crypto
import Foundation

/// SHA-256 of the canonical form: the validated model as JSON with sorted keys, so key
/// order, comments, quoting and whitespace in the file do not change it, and any change to
/// what students see or how they are scored does.
public enum Fingerprint {
    public static func canonicalForm(_ assessment: Assessment) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain value types cannot fail; an empty form would still hash deterministically.
        return (try? encoder.encode(assessment)) ?? Data()
    }

    /// `sha256:` followed by 64 lowercase hex digits.
    public static func of(_ assessment: Assessment) -> String {
        let digest = SHA256.hash(data: canonicalForm(assessment))
        return "sha256:" + hex(digest)
    }

    /// `sha256:` and the hex digest of a file read through `descriptor` (the caller opened it
    /// without following a symlink); nil when it cannot be read.
    public static func ofFile(descriptor fd: Int32) -> String? {
        var hasher = SHA256()
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            hasher.update(data: chunk[0..<n])
        }
        return "sha256:" + hex(hasher.finalize())
    }

    /// Bytes as lowercase hex digits, two a byte. Not `String(format:)`, which goes through
    /// Foundation's formatter for every byte: a seat writes the digest of every record it sends.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
