#if canImport(Glibc)
import Glibc
#endif
import CNcursesw

/// The ncurses edge: paints a Screen, places the cursor, and reads keys. Nothing else in
/// Carrel calls ncurses.
public final class Canvas: Terminal {
    static let pasteStartCode: Int32 = 0x6F00
    static let pasteEndCode: Int32 = 0x6F01
    static let focusInCode: Int32 = 0x6F02
    static let focusOutCode: Int32 = 0x6F03

    private var previous: Screen?
    private let theme: Theme
    private var colourPairs: [Theme.Colour: Int16] = [:]
    public private(set) var active = false

    public init(theme: Theme) { self.theme = theme }

    /// Starts curses; false when the terminal cannot be used.
    public func start() -> Bool {
        setlocale(LC_ALL, "")
        guard initscr() != nil else { return false }
        active = true
        raw()
        noecho()
        nonl()
        keypad(carrel_stdscr(), true)
        intrflush(carrel_stdscr(), false)
        set_escdelay(25)
        wtimeout(carrel_stdscr(), 200)
        if carrel_has_colors() != 0 && theme.name != "mono" {
            start_color()
            use_default_colors()
            let colours: [(Theme.Colour, Int16)] = [(.red, 1), (.green, 2), (.yellow, 3), (.blue, 4), (.cyan, 6), (.white, 7)]
            for (i, (c, n)) in colours.enumerated() {
                init_pair(Int16(i + 1), n, -1)
                colourPairs[c] = Int16(i + 1)
            }
        }
        define_key("\u{1B}[200~", Self.pasteStartCode)
        define_key("\u{1B}[201~", Self.pasteEndCode)
        define_key("\u{1B}[I", Self.focusInCode)
        define_key("\u{1B}[O", Self.focusOutCode)
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
        if let pair = colourPairs[look.colour] { a |= carrel_color_pair(Int32(pair)) }
        return a
    }

    /// Paints only when something changed, so screen readers hear no churn.
    public func paint(_ screen: Screen) {
        guard active else { return }
        if let previous, previous == screen { return }
        let win = carrel_stdscr()
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

    /// The next key, or nil after the timeout (or at once, again and again, when the
    /// terminal has gone: the caller watches for that).
    public func readKey() -> Key? {
        var ch: wint_t = 0
        let r = wget_wch(carrel_stdscr(), &ch)
        if r == ERR { return nil }
        if r == KEY_CODE_YES { return Self.special(Int32(ch)) }
        return Self.character(UInt32(ch))
    }

    /// Whether more input is already waiting (for the paste-burst heuristic).
    public func readPending() -> Key? {
        wtimeout(carrel_stdscr(), 0)
        defer { wtimeout(carrel_stdscr(), 200) }
        return readKey()
    }

    static func special(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_NPAGE: return .pageDown
        case KEY_PPAGE: return .pageUp
        case KEY_SR: return .shiftUp
        case KEY_SF: return .shiftDown
        case KEY_BTAB: return .backTab
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_ENTER: return .enter
        case KEY_RESIZE: return .resize
        case pasteStartCode: return .pasteStart
        case pasteEndCode: return .pasteEnd
        case focusInCode: return .focusIn
        case focusOutCode: return .focusOut
        default:
            for n in 1...12 where code == carrel_key_f(Int32(n)) { return .function(n) }
            // Shift-arrows in xterm-style terminals.
            return nil
        }
    }

    static func character(_ value: UInt32) -> Key? {
        switch value {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x1B: return .escape
        case 0x7F, 0x08: return .backspace
        case 0x1C: return .control("\\")
        case 0x01...0x1A: return .control(Character(UnicodeScalar(UInt8(value + 96))))
        case 0x00, 0x1D...0x1F: return nil
        case 0x80...0x9F: return nil
        default:
            guard let scalar = UnicodeScalar(value) else { return nil }
            return .character(Character(scalar))
        }
    }
}
