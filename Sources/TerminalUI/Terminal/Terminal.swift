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
    /// The next paint clears the terminal and writes every line again, even unchanged ones.
    func repaintWhole()
    /// Writes one row of what is shown again, now, even though it did not change.
    func repaintLine(_ row: Int)
    /// Blanks one row now, so that the next paint writes it whole: a screen reader that
    /// speaks what changed then says the whole new line, not only the characters that
    /// differ from the old one.
    func clearLine(_ row: Int)
    /// Waits up to `seconds` for input bytes: [] when nothing arrived, nil once the
    /// terminal has gone.
    func readBytes(waiting seconds: Double) -> [UInt8]?
    /// The same, also ending the wait when `bell` (a pipe's read end) becomes readable.
    func readBytes(waiting seconds: Double, wakingOn bell: Int32?) -> [UInt8]?
    /// Follows a change of size; true when it changed since the last call.
    func refreshSize() -> Bool
    /// Bracketed paste and focus reports, on while a session is locked.
    func setReports(_ on: Bool)
    func bell()
}

extension Terminal {
    /// A terminal with nothing to wait on but its input (one in memory) ignores the bell: the
    /// reader drains it after every read.
    public func readBytes(waiting seconds: Double, wakingOn bell: Int32?) -> [UInt8]? { readBytes(waiting: seconds) }
}

/// A terminal in memory: input is queued by the test as byte chunks, frames are kept.
public final class MemoryTerminal: Terminal {
    public var width: Int
    public var height: Int
    public private(set) var frames: [Screen] = []
    public private(set) var reports = false
    public private(set) var bells = 0
    /// How often the whole screen was written again, and which rows were written again.
    public private(set) var wholeRepaints = 0
    public private(set) var repaintedLines: [Int] = []
    /// Rows blanked before a paint, in order.
    public private(set) var clearedLines: [Int] = []
    public private(set) var started = false
    /// What each read returns, in order: bytes, or nil for "nothing arrived this time".
    /// When the queue is empty the terminal is gone.
    public var input: [[UInt8]?] = []
    /// Called before each read, so a test can move its clock as a person would type.
    public var beforeRead: (() -> Void)?
    private var resized = false

    public init(width: Int = 80, height: Int = 24) {
        self.width = width
        self.height = height
    }

    public var screen: Screen? { frames.last }

    /// Queues keys as a terminal sends them, one read each.
    public func type(_ keys: [Key]) {
        for key in keys { input.append(Self.bytes(key)) }
    }

    public func resize(width: Int, height: Int) {
        self.width = width
        self.height = height
        resized = true
    }

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
    public func repaintWhole() { wholeRepaints += 1 }
    public func repaintLine(_ row: Int) { repaintedLines.append(row) }
    public func clearLine(_ row: Int) {
        clearedLines.append(row)
        // The next paint is recorded even when it equals the last frame: it is written.
        if let last = frames.last { frames.append(last.blankingRow(row)) }
    }

    public func readBytes(waiting seconds: Double) -> [UInt8]? {
        beforeRead?()
        guard !input.isEmpty else { return nil }
        return input.removeFirst() ?? []
    }

    public func refreshSize() -> Bool {
        defer { resized = false }
        return resized
    }

    public func setReports(_ on: Bool) { reports = on }
    public func bell() { bells += 1 }

    /// The bytes an xterm sends for a key.
    public static func bytes(_ key: Key) -> [UInt8] {
        switch key {
        case let .character(c): return Array(String(c).utf8)
        case let .control(c):
            guard let v = c.asciiValue else { return [] }
            return [v & 0x1F]
        case .enter: return [0x0D]
        case .tab: return [0x09]
        case .backTab: return Array("\u{1B}[Z".utf8)
        case .escape: return [0x1B]
        case .backspace: return [0x7F]
        case .up: return Array("\u{1B}[A".utf8)
        case .down: return Array("\u{1B}[B".utf8)
        case .right: return Array("\u{1B}[C".utf8)
        case .left: return Array("\u{1B}[D".utf8)
        case .home: return Array("\u{1B}[H".utf8)
        case .end: return Array("\u{1B}[F".utf8)
        case .pageUp: return Array("\u{1B}[5~".utf8)
        case .pageDown: return Array("\u{1B}[6~".utf8)
        case .delete: return Array("\u{1B}[3~".utf8)
        case let .function(n):
            let codes = [1: "\u{1B}OP", 2: "\u{1B}OQ", 3: "\u{1B}OR", 4: "\u{1B}OS", 5: "\u{1B}[15~", 6: "\u{1B}[17~", 7: "\u{1B}[18~",
                         8: "\u{1B}[19~", 9: "\u{1B}[20~", 10: "\u{1B}[21~"]
            return Array((codes[n] ?? "").utf8)
        default: return []
        }
    }
}
