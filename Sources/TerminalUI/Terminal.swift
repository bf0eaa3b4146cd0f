/// What a front end needs from a terminal: the ncurses canvas for real, an in-memory one in
/// tests, so the whole take flow (keys → frames → journal) runs without a terminal.
public protocol Terminal: AnyObject {
    /// Starts the interface; false when the terminal cannot be used.
    func start() -> Bool
    /// Restores the terminal; safe to call twice.
    func stop()
    var size: (width: Int, height: Int) { get }
    /// Shows `screen`; does nothing when it equals what is shown.
    func paint(_ screen: Screen)
    /// Forgets what is shown, so the next paint redraws everything.
    func invalidate()
    /// The next key, or nil after a short wait (or at once, again and again, when the
    /// terminal has gone: the caller watches for that).
    func readKey() -> Key?
    /// A key that is already waiting, without waiting.
    func readPending() -> Key?
    /// Bracketed paste and focus reports, on while a session is locked.
    func setReports(_ on: Bool)
    func bell()
}

/// A terminal in memory: keys are queued by the test, frames are kept.
public final class MemoryTerminal: Terminal {
    public var width: Int
    public var height: Int
    public private(set) var frames: [Screen] = []
    public private(set) var reports = false
    public private(set) var bells = 0
    public private(set) var started = false
    /// Keys to deliver, in order; `nil` entries are timeouts (nothing arrived).
    public var input: [Key?] = []
    /// What `readKey` does when `input` is empty: wait (nil) or the terminal is gone.
    public var gone = false
    /// Called when the input runs out, so a test can end the run.
    public var onIdle: (() -> Void)?

    public init(width: Int = 80, height: Int = 24) {
        self.width = width
        self.height = height
    }

    public var screen: Screen? { frames.last }

    public func start() -> Bool {
        started = true
        return true
    }

    public func stop() { started = false }
    public var size: (width: Int, height: Int) { (width, height) }

    public func paint(_ screen: Screen) {
        if let last = frames.last, last == screen { return }
        frames.append(screen)
    }

    public func invalidate() {}

    public func readKey() -> Key? {
        if input.isEmpty {
            onIdle?()
            return nil
        }
        return input.removeFirst()
    }

    /// Keys arrive one per read, as a person types, unless `burst` says they arrived at once.
    public var burst = false

    public func readPending() -> Key? {
        guard burst, let first = input.first, first != nil else { return nil }
        return input.removeFirst()
    }

    public func setReports(_ on: Bool) { reports = on }
    public func bell() { bells += 1 }
}
