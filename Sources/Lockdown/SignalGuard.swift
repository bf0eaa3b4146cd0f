#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLinux
import SessionKit

/// Turns signals into readable bytes on a pipe, so the session loop handles them like input.
/// SIGINT, SIGTSTP and SIGQUIT never stop the session; SIGHUP, SIGTERM and every other
/// catchable signal whose default is to end the process end it cleanly (saved, marked
/// interrupted, pasteboards cleared, terminal restored) from the loop, never inside a handler.
public final class SignalGuard: SignalSource, @unchecked Sendable {

    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    public let readEnd: Int32
    private let writeFD: Int32
    private var saved: [(Int32, sigaction)] = []

    // Lists, not dictionaries: a dictionary of a key type met for the first time costs the
    // start of every launch a search of the program's conformances (see Benchmarks/README.md).
    static let exitAttempts: [(Int32, String)] = [(SIGINT, "SIGINT"), (SIGTSTP, "SIGTSTP"), (SIGQUIT, "SIGQUIT")]
    /// Catchable signals whose default action ends the process (SIGKILL and SIGSTOP cannot
    /// be caught; SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT mean the process itself broke).
    static let terminating: [(Int32, String)] = {
        var out: [(Int32, String)] = [
            (SIGHUP, "SIGHUP"), (SIGTERM, "SIGTERM"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"),
            (SIGPIPE, "SIGPIPE"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"), (SIGVTALRM, "SIGVTALRM"), (SIGPROF, "SIGPROF"),
            (SIGPOLL, "SIGPOLL"),
        ]
        #if os(Linux)
        out += [(SIGSTKFLT, "SIGSTKFLT"), (SIGPWR, "SIGPWR")]
        // Real-time signals (glibc keeps the first few for itself).
        for n in Int32(34)...Int32(64) { out.append((n, "SIGRTMIN+\(n - 34)")) }
        #endif
        return out
    }()
    static var guarded: [Int32] { exitAttempts.map(\.0) + terminating.map(\.0) }

    /// Unblocks the signals Carrel relies on, whatever mask its parent left it.
    public static func unblockRelied() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in guarded + [SIGTTIN, SIGTTOU] { sigaddset(&set, s) }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether SIGPIPE is ignored instead of guarded: a session that publishes to a shared
    /// store writes to network sockets, where a server that goes away must be an error on the
    /// write, never a signal that ends the test.
    let brokenPipesIgnored: Bool

    public convenience init() throws(FileSystemError) {
        try self.init(brokenPipesIgnored: false)
    }

    public init(brokenPipesIgnored: Bool) throws(FileSystemError) {
        self.brokenPipesIgnored = brokenPipesIgnored
        var fds: [Int32] = [-1, -1]
        // Close-on-exec from the start: a child spawned by another thread never inherits it.
        guard carrel_pipe_cloexec_nonblocking(&fds) == 0 else {
            throw FileSystemError(path: "pipe", reason: String(cString: strerror(errno)))
        }
        readEnd = fds[0]
        writeFD = fds[1]
    }

    /// Installs the handlers; undone by `remove()`.
    public func install() throws {
        Self.unblockRelied()
        Self.writeEnd = writeFD
        if brokenPipesIgnored {
            var ignore = sigaction()
            ignore.__sigaction_handler.sa_handler = SIG_IGN
            sigemptyset(&ignore.sa_mask)
            var old = sigaction()
            sigaction(SIGPIPE, &ignore, &old)
            saved.append((SIGPIPE, old))
        }
        for sig in Self.guarded where !(brokenPipesIgnored && sig == SIGPIPE) {
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
            saved.append((sig, old))
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
    public func drain() -> [SessionSignal] {
        var out: [SessionSignal] = []
        var byte: UInt8 = 0
        while read(readEnd, &byte, 1) == 1 {
            let number = Int32(byte)
            if let name = Self.exitAttempts.first(where: { $0.0 == number })?.1 {
                out.append(.exitAttempt(name))
            } else if let name = Self.terminating.first(where: { $0.0 == number })?.1 {
                out.append(.hangUp(name))
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
