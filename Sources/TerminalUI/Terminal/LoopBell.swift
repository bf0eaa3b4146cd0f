#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Wakes an app loop from another thread when the store's feed has news (a reading for the
/// console, the proctor's start or a command for a seat): a byte on a pipe that the loop's
/// `poll` watches beside the terminal. The news reaches the screen at once, as an input
/// (`TerminalInput.store`), instead of being looked for on every turn of the loop.
public final class LoopBell: Sendable {
    private let ends: (read: Int32, write: Int32)?

    public init() {
        var fds: [Int32] = [-1, -1]
        // Non-blocking: a ring never waits on a full pipe (the loop has news waiting anyway),
        // and draining stops when the pipe is empty.
        ends = carrel_pipe_cloexec_nonblocking(&fds) == 0 ? (fds[0], fds[1]) : nil
    }

    deinit {
        if let ends {
            close(ends.read)
            close(ends.write)
        }
    }

    /// False where no pipe could be made: the screen then looks for news on every turn.
    public var works: Bool { ends != nil }

    /// From any thread: the loop's next wait ends, and its screen is handed `.store`.
    public func ring() {
        guard let ends else { return }
        var byte: UInt8 = 1
        _ = write(ends.write, &byte, 1)
    }

    /// The end the loop's `poll` watches.
    var readEnd: Int32? { ends?.read }
    /// The end a signal handler writes into (`ResizeSignal`: a write is all it may do).
    var writeEnd: Int32? { ends?.write }

    /// Empties the pipe; true when it was rung since the last call.
    func drain() -> Bool {
        guard let fd = ends?.read else { return false }
        var rung = false
        var chunk = [UInt8](repeating: 0, count: 64)
        while chunk.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 { rung = true }
        return rung
    }
}
