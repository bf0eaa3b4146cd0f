#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit

/// Reads passphrases from standard input. At a terminal, echo is off from the first prompt
/// until `finish()` — waits between tries included — and whatever was typed ahead is thrown
/// away before each prompt, so nothing typed is ever shown. A line must be UTF-8 and at most
/// `PassphraseHash.maximumBytes` long: anything else is refused, never repaired or cut.
final class SecretReader {
    let interactive = isatty(0) == 1
    /// False for `--passphrase-stdin`: the line is read as it comes, with no prompt.
    let prompting: Bool
    private var restore: termios?

    init(prompting: Bool = true) {
        self.prompting = prompting
        if interactive { restore = EchoGuard.disable() }
    }

    deinit { finish() }

    /// Turns echo back on; safe to call twice.
    func finish() {
        if let restore { EchoGuard.restore(restore) }
        restore = nil
    }

    func read(prompt: String) throws(CarrelFailure) -> String {
        guard let line = try readIfAny(prompt: prompt) else {
            throw CarrelFailure(status: .usage, message: "no passphrase was given on standard input; type it at a terminal or pipe it, one per line")
        }
        return line
    }

    /// One passphrase, or nil at the end of the input.
    func readIfAny(prompt: String) throws(CarrelFailure) -> String? {
        if interactive {
            // Keys pressed while Carrel was busy (or waiting) are not part of this answer.
            if prompting {
                tcflush(0, TCIFLUSH)
                FileOutput.standardError.write(prompt)
            }
        }
        let bytes: [UInt8]
        switch Self.readLine(fd: 0) {
        case .endOfInput:
            if interactive && prompting { FileOutput.standardError.write("\n") }
            return nil
        case .tooLong:
            throw CarrelFailure(status: .usage, message: PassphraseHash.InputProblem.tooLong.description)
        case let .line(line):
            bytes = line
        }
        // Echo (newline included) is off: end the prompt's line ourselves.
        if interactive && prompting { FileOutput.standardError.write("\n") }
        do {
            return try PassphraseHash.passphrase(bytes: bytes)
        } catch {
            throw CarrelFailure(status: .usage, message: error.description)
        }
    }

    /// Says something on the terminal (stderr) without touching the echo setting.
    func say(_ text: String) {
        FileOutput.standardError.write(text)
    }

    /// Waits with echo still off; what is typed meanwhile is discarded by the next `read`.
    func pause(_ seconds: Double) {
        guard seconds > 0 else { return }
        var left = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var rest = timespec()
        while nanosleep(&left, &rest) != 0 && errno == EINTR { left = rest }
    }

    enum Line: Equatable {
        case line([UInt8])
        case tooLong
        case endOfInput
    }

    /// One line without its terminator (LF, or CR LF), byte by byte so nothing past it is
    /// consumed. A line longer than the limit is read to its end and refused as a whole.
    static func readLine(fd: Int32, limit: Int = PassphraseHash.maximumBytes) -> Line {
        var bytes: [UInt8] = []
        var over = false
        var byte: UInt8 = 0
        var sawAny = false
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if !sawAny { return .endOfInput }
                break
            }
            sawAny = true
            if byte == 0x0A { break }
            if bytes.count <= limit { bytes.append(byte) } else { over = true }
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return over || bytes.count > limit ? .tooLong : .line(bytes)
    }
}

/// Turns terminal echo off and back on; a signal that ends the process while it is off
/// restores it first.
enum EchoGuard {
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var active = false
    static let fatalSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func disable() -> termios? {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return nil }
        saved = settings
        active = true
        for sig in fatalSignals {
            signal(sig) { number in
                if EchoGuard.active { _ = tcsetattr(0, TCSANOW, &EchoGuard.saved) }
                _exit(128 + number)
            }
        }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        _ = tcsetattr(0, TCSAFLUSH, &quiet)
        return settings
    }

    static func restore(_ settings: termios) {
        var s = settings
        _ = tcsetattr(0, TCSANOW, &s)
        active = false
        for sig in fatalSignals { signal(sig, SIG_DFL) }
    }
}
