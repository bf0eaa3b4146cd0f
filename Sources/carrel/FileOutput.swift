#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered writes to a descriptor, so messages are never lost when the process exits.
struct FileOutput: Sendable {
    let descriptor: Int32
    static let standardOutput = FileOutput(descriptor: 1)
    static let standardError = FileOutput(descriptor: 2)

    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }
}
