import SessionKit

/// Reads the terminal's raw bytes with their arrival times and lets `InputDecoder` turn them
/// into what a screen acts on: keys, paste attempts (bracketed, or faster than typing, with
/// their true length), focus changes; plus resizes and a terminal that went away.
public final class InputReader {
    public typealias Input = TerminalInput

    let canvas: any Terminal
    let monotonic: @Sendable () -> Double
    var decoder = InputDecoder()
    private var gone = false
    /// Rung by the store's feed: its news is handed over as `.store`.
    public var bell: LoopBell?

    /// Set while the proctor types a passphrase: that line is a secret, never a paste. It
    /// clears itself at Enter or Escape (keys after the line are judged as usual).
    public var secretLine: Bool {
        get { decoder.mode == .secret }
        set { decoder.mode = newValue ? .secret : .answer }
    }

    /// Typed keys still being judged (typing or a paste?), for the screen to show at once.
    public var tentative: [Key] { decoder.tentative }

    /// The longest wait for input before `next()` returns (the screen's clock keeps going).
    public static let idleWait = 0.2

    public init(canvas: any Terminal, monotonic: @escaping @Sendable () -> Double = SessionClock.system.monotonic) {
        self.canvas = canvas
        self.monotonic = monotonic
    }

    /// What arrived within `idleWait` (often nothing), in order.
    public func next() -> [Input] { next(waitingAtMost: Self.idleWait) }

    /// What arrived within `limit` seconds (often nothing), in order; keys held for judgement
    /// are let through on time whatever the limit.
    public func next(waitingAtMost limit: Double) -> [Input] {
        if gone { return [.lost] }
        var out = decoder.advance(to: monotonic())
        if out.isEmpty {
            let now = monotonic()
            let wait = decoder.nextDeadline.map { min(limit, max(0, $0 - now)) } ?? limit
            if let bytes = canvas.readBytes(waiting: wait, wakingOn: bell?.readEnd) {
                if !bytes.isEmpty { out += decoder.feed(bytes, at: monotonic()) }
            } else {
                gone = true
            }
            out += decoder.advance(to: monotonic())
        }
        if bell?.drain() == true { out.append(.store) }
        if canvas.refreshSize() { out.append(.resize) }
        if gone { out.append(.lost) }
        return out
    }
}
