#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns signals into readable bytes on a pipe, so the session loop handles them like input.
/// SIGINT, SIGTSTP and SIGQUIT never stop the session; SIGHUP and SIGTERM end it cleanly
/// (saved, marked interrupted) from the loop, never from inside a handler.
public final class SignalGuard: @unchecked Sendable {
    public enum Signal: Sendable, Equatable {
        /// Ctrl-C, Ctrl-Z, Ctrl-\ sent as signals: the student tried to leave.
        case exitAttempt(String)
        /// SIGHUP or SIGTERM: save and stop.
        case hangUp(String)
    }

    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    public let readEnd: Int32
    private let writeFD: Int32
    private var saved: [Int32: sigaction] = [:]

    static let guarded: [Int32] = [SIGINT, SIGTSTP, SIGQUIT, SIGHUP, SIGTERM]

    /// Unblocks the signals Carrel relies on, whatever mask its parent left it.
    public static func unblockRelied() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in guarded + [SIGTTIN, SIGTTOU] { sigaddset(&set, s) }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    public init() throws(FileSystemError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw FileSystemError(path: "pipe", reason: String(cString: strerror(errno))) }
        readEnd = fds[0]
        writeFD = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Installs the handlers; undone by `remove()`.
    public func install() {
        Self.unblockRelied()
        Self.writeEnd = writeFD
        for sig in Self.guarded {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalGuard.writeEnd, &byte, 1)
            }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            sigaction(sig, &action, &old)
            saved[sig] = old
        }
        // Background reads and writes must not stop the process either.
        signal(SIGTTIN, SIG_IGN)
        signal(SIGTTOU, SIG_IGN)
    }

    /// Restores the previous handlers.
    public func remove() {
        for (sig, old) in saved {
            var action = old
            sigaction(sig, &action, nil)
        }
        saved.removeAll()
        Self.writeEnd = -1
    }

    /// Signals received since the last call, oldest first.
    public func drain() -> [Signal] {
        var out: [Signal] = []
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) == 1 {
            switch Int32(byte) {
            case SIGINT: out.append(.exitAttempt("SIGINT"))
            case SIGTSTP: out.append(.exitAttempt("SIGTSTP"))
            case SIGQUIT: out.append(.exitAttempt("SIGQUIT"))
            case SIGHUP: out.append(.hangUp("SIGHUP"))
            case SIGTERM: out.append(.hangUp("SIGTERM"))
            default: break
            }
        }
        return out
    }

    deinit {
        remove()
        close(readEnd)
        close(writeFD)
    }
}
