#if canImport(Glibc)
import Glibc
#endif
import CNcursesw

/// The ncurses edge: paints a Screen, places the cursor, and follows the terminal's size.
/// Nothing else in Carrel calls ncurses. Keys are not read through ncurses: the raw bytes
/// go to `InputDecoder`, which sees every paste marker and when each byte arrived.
public final class Canvas: Terminal {
    private var previous: Screen?
    private var knownSize: (rows: Int32, cols: Int32) = (0, 0)
    private let theme: Theme
    private var colourPairs: [(colour: Theme.Colour, pair: Int16)] = []
    public private(set) var active = false
    /// The SIGWINCH action replaced while this canvas runs, put back when it stops.
    private var replacedResizeAction: sigaction?
    /// A resize was signalled since the last `refreshSize`.
    private var resizeSignalled = false

    public init(theme: Theme) { self.theme = theme }

    /// The environment's locale, with UTF-8 characters whatever it names. Carrel's text is
    /// UTF-8 in every language; a student's `LANG=ja_JP.UTF-8` on a machine where that locale
    /// was never generated (or `LANG=C`) would otherwise leave curses reading every byte as a
    /// character, and a French or Japanese screen would come out as mojibake.
    /// Only the character category is taken from the environment: curses needs nothing
    /// else, and loading every category (a dozen files where locales are not archived) was
    /// paid before the first frame.
    static func useUTF8Characters() {
        let chosen = setlocale(LC_CTYPE, "")
        if chosen != nil, let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) == "UTF-8" { return }
        for name in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where setlocale(LC_CTYPE, name) != nil {
            return
        }
    }

    /// Starts curses; false when the terminal cannot be used.
    public func start() -> Bool {
        Self.useUTF8Characters()
        guard initscr() != nil else { return false }
        active = true
        // Started again (the demo after the workshop test): nothing of the old frame is shown.
        previous = nil
        raw()
        noecho()
        nonl()
        keypad(carrel_stdscr(), true)
        intrflush(carrel_stdscr(), false)
        // Input is read by the caller; ncurses must not peek at it while painting.
        typeahead(-1)
        knownSize = (carrel_lines(), carrel_cols())
        // A resize wakes the loop's wait like a key (see ResizeSignal); a byte left from
        // before this start is stale: the size was just read.
        if replacedResizeAction == nil { replacedResizeAction = ResizeSignal.install() }
        _ = ResizeSignal.drain()
        resizeSignalled = false
        if carrel_has_colors() != 0 && theme.name != "mono" {
            start_color()
            use_default_colors()
            let colours: [(Theme.Colour, Int16)] = [(.red, 1), (.green, 2), (.yellow, 3), (.blue, 4), (.cyan, 6), (.white, 7)]
            colourPairs = []
            for (i, (c, n)) in colours.enumerated() {
                init_pair(Int16(i + 1), n, -1)
                colourPairs.append((c, Int16(i + 1)))
            }
        }
        return true
    }

    /// Bracketed paste and focus reports: on while the session is locked.
    public func setReports(_ on: Bool) {
        let sequence = on ? "\u{1B}[?2004h\u{1B}[?1004h" : "\u{1B}[?2004l\u{1B}[?1004l"
        // Written straight to the terminal: these are fixed mode switches, never content.
        _ = sequence.withCString { write(1, $0, strlen($0)) }
    }

    /// Restores the terminal; safe to call twice.
    public func stop() {
        guard active else { return }
        if let replaced = replacedResizeAction {
            ResizeSignal.restore(replaced)
            replacedResizeAction = nil
        }
        setReports(false)
        endwin()
        active = false
    }

    public var size: (width: Int, height: Int) {
        (Int(carrel_cols()), Int(carrel_lines()))
    }

    func attributes(_ role: Role) -> attr_t {
        let look = theme.look(role)
        var a: attr_t = 0
        if look.bold { a |= carrel_a_bold() }
        if look.reverse { a |= carrel_a_reverse() }
        if look.underline { a |= carrel_a_underline() }
        if look.dim { a |= carrel_a_dim() }
        if let pair = colourPairs.first(where: { $0.colour == look.colour })?.pair { a |= carrel_color_pair(Int32(pair)) }
        return a
    }

    private var wholeNext = false

    public func repaintWhole() { wholeNext = true }

    public func repaintLine(_ row: Int) {
        guard active, row >= 0, row < Int(carrel_lines()) else { return }
        let win = carrel_stdscr()
        wredrawln(win, Int32(row), 1)
        wrefresh(win)
    }

    public func clearLine(_ row: Int) {
        guard active, row >= 0, row < Int(carrel_lines()) else { return }
        let win = carrel_stdscr()
        wmove(win, Int32(row), 0)
        wclrtoeol(win)
        wrefresh(win)
        // The row shown is blank now: the next paint writes it whatever it holds.
        previous = nil
    }

    /// Paints only when something changed, so screen readers hear no churn.
    public func paint(_ screen: Screen) {
        guard active else { return }
        if let previous, previous == screen, !wholeNext { return }
        let win = carrel_stdscr()
        if wholeNext {
            wholeNext = false
            clearok(win, true)
        }
        werase(win)
        for (r, row) in screen.cells.enumerated() {
            var c = 0
            while c < row.count {
                // Runs of one role are written together; text is already sanitised.
                let role = row[c].role
                var run = ""
                let startColumn = c
                while c < row.count && row[c].role == role {
                    run += row[c].text
                    c += 1
                }
                wattrset(win, Int32(bitPattern: attributes(role)))
                _ = mvwaddstr(win, Int32(r), Int32(startColumn), run)
            }
        }
        wattrset(win, 0)
        wmove(win, Int32(screen.cursor.row), Int32(screen.cursor.column))
        wrefresh(win)
        previous = screen
    }

    public func invalidate() { previous = nil }

    public func bell() {
        guard active else { return }
        beep()
    }

    /// Waits up to `seconds` for bytes on standard input, or for a resize (which ends the wait
    /// with no bytes, for `refreshSize` to report); nil once the terminal has gone.
    public func readBytes(waiting seconds: Double) -> [UInt8]? { readBytes(waiting: seconds, wakingOn: nil) }

    public func readBytes(waiting seconds: Double, wakingOn bell: Int32?) -> [UInt8]? {
        var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
        let resizes = ResizeSignal.readEnd
        for fd in [resizes, bell].compactMap({ $0 }) { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&fds, nfds_t(fds.count), Int32((seconds * 1000).rounded(.up)))
        guard ready > 0 else { return [] }
        // The bell is drained by the reader, which hands the screen `.store`.
        if resizes != nil, fds[1].revents & Int16(POLLIN) != 0, ResizeSignal.drain() { resizeSignalled = true }
        if fds[0].revents & Int16(POLLIN) == 0 {
            // Hung up, or an error, with nothing left to read: the terminal has gone.
            if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return nil }
            return []
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress, $0.count) }
        if n > 0 { return Array(chunk[0..<n]) }
        if n == 0 || (errno != EINTR && errno != EAGAIN) { return nil }
        return []
    }

    /// Follows a change of the terminal's size (SIGWINCH, or a resize while Carrel was busy);
    /// true when the size changed since the last call.
    public func refreshSize() -> Bool {
        guard active else { return false }
        let signalled = resizeSignalled
        resizeSignalled = false
        var rows: Int32 = 0, cols: Int32 = 0
        guard carrel_window_size(1, &rows, &cols) == 0 || carrel_window_size(0, &rows, &cols) == 0, rows > 0, cols > 0 else {
            return false
        }
        guard (rows, cols) != knownSize else {
            // Resized and back before this turn (tmux does it on purpose to ask for a redraw):
            // the terminal may have cut or moved what it showed, so the same frame is written
            // whole again; the size did not change, so there is nothing to report.
            if signalled, let shown = previous {
                wholeNext = true
                paint(shown)
            }
            return false
        }
        knownSize = (rows, cols)
        resizeterm(rows, cols)
        invalidate()
        // What the terminal shows after a resize is its own guess (cut, rewrapped, lines pulled
        // back from its history), not what curses remembers: the next frame is written whole.
        wholeNext = true
        return true
    }
}
