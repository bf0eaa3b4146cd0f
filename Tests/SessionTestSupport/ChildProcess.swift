#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Lockdown

/// A real child process (the session driver or `carrel`) with a pipe to its stdin and one from
/// its stdout. Spawned with an empty signal mask: the test runner's threads block signals and
/// children would inherit that.
public final class ChildProcess {
    public let pid: pid_t
    private var stdinFD: Int32
    private let stdoutFD: Int32
    private var buffer = [UInt8]()
    public private(set) var lines: [String] = []
    private var exitStatus: Int32?

    public static let buildFolder: URL = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("carrel").path),
              folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        return folder
    }()

    public static var driver: String { buildFolder.appendingPathComponent("carrel-session-driver").path }
    public static var carrel: String { buildFolder.appendingPathComponent("carrel").path }

    public init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        // A line sent to a child that has already exited must fail the test, not kill it.
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        // Socket pairs are created close-on-exec atomically, so a child spawned by another test
        // at the same moment cannot inherit them (a pipe would need a separate fcntl).
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &toChild) == 0, socketpair(AF_UNIX, kind, 0, &fromChild) == 0 else { throw POSIXError(.EMFILE) }
        let spawned = ChildSpawn.spawn(executable, arguments, environment: environment,
                                          stdin: toChild[0], stdout: fromChild[1], stderr: 2)
        close(toChild[0])
        close(fromChild[1])
        let child: pid_t
        switch spawned {
        case let .success(pid): child = pid
        case let .failure(error):
            close(toChild[1])
            close(fromChild[0])
            throw error
        }
        pid = child
        stdinFD = toChild[1]
        stdoutFD = fromChild[0]
        _ = fcntl(stdoutFD, F_SETFD, FD_CLOEXEC)
        _ = fcntl(stdinFD, F_SETFD, FD_CLOEXEC)
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitStatus()
        }
        closeInput()
        close(stdoutFD)
    }

    public func send(_ line: String) {
        guard stdinFD >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
    }

    /// Closes the child's stdin once; a second close could hit a descriptor number another
    /// test has been given since.
    public func closeInput() {
        guard stdinFD >= 0 else { return }
        close(stdinFD)
        stdinFD = -1
    }

    /// The next line of output, waiting at most `timeout` seconds.
    public func readLine(timeout: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                lines.append(line)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, Int32(min(left, 1) * 1000))
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(stdoutFD, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Reads lines until one starts with `prefix`; nil if output ends or time runs out first.
    public func expect(_ prefix: String, timeout: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while let line = readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            if line.hasPrefix(prefix) { return line }
        }
        return nil
    }

    /// Every remaining line until the child closes its output.
    public func readToEnd(timeout: Double = 30) -> [String] {
        var out: [String] = []
        while let line = readLine(timeout: timeout) { out.append(line) }
        return out
    }

    public func signal(_ sig: Int32) { kill(pid, sig) }

    /// Waits for the child and returns its exit code (128 + signal when killed).
    @discardableResult
    public func waitStatus() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = code
        return code
    }

    public var isAlive: Bool { exitStatus == nil && kill(pid, 0) == 0 && !hasExited() }

    private func hasExited() -> Bool {
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return true
        }
        return false
    }
}
