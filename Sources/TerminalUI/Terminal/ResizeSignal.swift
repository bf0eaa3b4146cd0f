#if canImport(Glibc)
import Glibc
#endif

/// SIGWINCH as a byte on a pipe, which the loop's `poll` watches beside the terminal.
///
/// The kernel hands a process's signal to any one of its threads that does not block it — the
/// main thread or a store task's more often than the loop's — so the signal alone seldom ended
/// the loop's wait, and a resize was drawn only when that wait ran out: up to a second later
/// while the test's clock waits for its next second. The byte wakes the loop at once, so a
/// resize is read, handled and drawn like a key.
enum ResizeSignal {
    /// Where the handler writes; set before the handler is first installed, never changed.
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Made once for the process and never closed: a handler may still run while a canvas
    /// stops (the demo hands the terminal to the workshop test and back), and must always
    /// write into this pipe, never into a descriptor reused for something else.
    private static let pipe = LoopBell()

    /// The end to watch with the terminal; nil when no pipe could be made (a resize then waits
    /// for the loop's next turn, as it did before).
    static var readEnd: Int32? { pipe.readEnd }

    /// Installs the handler; returns the action it replaced (ncurses' own, which only marks a
    /// resize for `wgetch`, not used here), for `restore`.
    static func install() -> sigaction? {
        guard let end = pipe.writeEnd else { return nil }
        writeEnd = end
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = { _ in
            // The thread interrupted may be about to read errno: it must find its own.
            let saved = errno
            var byte: UInt8 = 1
            _ = write(ResizeSignal.writeEnd, &byte, 1)
            errno = saved
        }
        #endif
        sigemptyset(&action.sa_mask)
        // The calls the handler interrupts on other threads (the journal's, the store's) go on.
        action.sa_flags = SA_RESTART
        var old = sigaction()
        guard sigaction(SIGWINCH, &action, &old) == 0 else { return nil }
        return old
    }

    /// Puts back the action `install` replaced.
    static func restore(_ old: sigaction) {
        var action = old
        sigaction(SIGWINCH, &action, nil)
    }

    /// Empties the pipe; true when a resize was signalled since the last call.
    static func drain() -> Bool { pipe.drain() }
}
