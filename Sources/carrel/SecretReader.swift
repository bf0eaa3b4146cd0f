#if canImport(Glibc)
import Glibc
#endif

/// Reads a line from standard input; at a terminal, with echo off for that line only.
struct SecretReader {
    let interactive = isatty(0) == 1

    func read(prompt: String) throws(CarrelFailure) -> String {
        if interactive { FileOutput.standardError.write(prompt) }
        let restore = interactive ? EchoGuard.disable() : nil
        defer {
            // ECHONL already echoed the newline the proctor typed.
            if let restore { EchoGuard.restore(restore) }
        }
        guard let line = Self.readLine(fd: 0) else {
            throw CarrelFailure(status: .usage, message: "no passphrase was given on standard input; type it at a terminal or pipe it twice, one per line")
        }
        return line
    }

    /// One line without its terminator, byte by byte so nothing past it is consumed.
    static func readLine(fd: Int32, limit: Int = 4096) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < limit {
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 0x0A { break }
            bytes.append(byte)
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Turns terminal echo off and back on; a SIGINT while it is off restores it before exiting.
enum EchoGuard {
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var active = false

    static func disable() -> termios? {
        var settings = termios()
        guard tcgetattr(0, &settings) == 0 else { return nil }
        saved = settings
        active = true
        signal(SIGINT) { _ in
            if EchoGuard.active { _ = tcsetattr(0, TCSANOW, &EchoGuard.saved) }
            _exit(130)
        }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        _ = tcsetattr(0, TCSAFLUSH, &quiet)
        return settings
    }

    static func restore(_ settings: termios) {
        var s = settings
        _ = tcsetattr(0, TCSANOW, &s)
        active = false
        signal(SIGINT, SIG_DFL)
    }
}
