#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AssessmentKit

/// Unbuffered writes to a descriptor, so messages are never lost when the process exits.
/// Everything any command writes goes through here and through one sanitiser
/// (`safe`, which is `TerminalSafety.visible`; files written with `--out` too): a control, bidirectional or invisible character from a file,
/// a name or an answer reaches the terminal quoted (`\u{1B}]52;…`), never as itself.
struct FileOutput: Sendable {
    let descriptor: Int32
    static let standardOutput = FileOutput(descriptor: 1)
    static let standardError = FileOutput(descriptor: 2)

    /// Text as Carrel writes it anywhere, to a terminal or a file (`--out`): the one sanitiser.
    static func safe(_ text: String) -> String {
        TerminalSafety.visible(text, keepLineBreaks: true)
    }

    func write(_ text: String) {
        var bytes = Array(Self.safe(text).utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }
}
