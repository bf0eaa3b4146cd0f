#if canImport(Glibc)
import Glibc
#endif
import SessionKit
import TerminalUI

/// Reads the terminal's raw bytes with their arrival times and lets `InputDecoder` turn them
/// into what a screen acts on: keys, paste attempts (bracketed, or faster than typing, with
/// their true length), focus changes; plus resizes and a terminal that went away.
final class InputReader {
    typealias Input = TerminalInput

    let canvas: Canvas
    let monotonic = SessionClock.system.monotonic
    var decoder = InputDecoder()
    private var gone = false

    /// Set while the proctor types a passphrase: that line is a secret, never a paste. It
    /// clears itself at Enter or Escape (keys after the line are judged as usual).
    var secretLine: Bool {
        get { decoder.mode == .secret }
        set { decoder.mode = newValue ? .secret : .answer }
    }

    /// The longest wait for input before `next()` returns (the screen's clock keeps going).
    static let idleWait = 0.2

    init(canvas: Canvas) { self.canvas = canvas }

    /// What arrived within `idleWait` (often nothing), in order.
    func next() -> [Input] {
        if gone { return [.lost] }
        var out = decoder.advance(to: monotonic())
        if out.isEmpty {
            let now = monotonic()
            let wait = decoder.nextDeadline.map { min(Self.idleWait, max(0, $0 - now)) } ?? Self.idleWait
            out += read(waiting: wait)
            out += decoder.advance(to: monotonic())
        }
        if canvas.refreshSize() { out.append(.resize) }
        if gone { out.append(.lost) }
        return out
    }

    /// Waits up to `seconds` for bytes and feeds what one read returns to the decoder.
    func read(waiting seconds: Double) -> [Input] {
        var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, 1, Int32((seconds * 1000).rounded(.up)))
        guard ready > 0 else { return [] }
        if fds[0].revents & Int16(POLLIN) == 0 {
            // Hung up, or an error, with nothing left to read: the terminal has gone.
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { gone = true }
            return []
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
        if n > 0 { return decoder.feed(Array(chunk[0..<n]), at: monotonic()) }
        if n == 0 || (errno != EINTR && errno != EAGAIN) { gone = true }
        return []
    }
}
