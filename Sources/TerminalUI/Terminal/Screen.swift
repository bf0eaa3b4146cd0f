/// What a piece of text means on screen; themes decide how each looks.
public enum Role: Sendable, Equatable {
    case plain, title, dim, focus, selected, warning, error, success, key
}

/// A grid of cells, a cursor and nothing else: views build it, the canvas paints it, and
/// golden tests read it as text.
public struct Screen: Sendable, Equatable {
    public struct Cell: Sendable, Equatable {
        /// One grapheme; "" for the right half of a wide character.
        public var text: String
        public var role: Role
    }

    public let width: Int
    public let height: Int
    public private(set) var cells: [[Cell]]
    /// Where the hardware cursor goes: the focused element.
    public var cursor: (row: Int, column: Int)
    /// Some text ran past the right edge and was cut there (a layout fault the language
    /// tests look for; clipping on purpose uses `TextWidth.clip`, which fits).
    public private(set) var overflowed = false

    public init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        cells = Array(repeating: Array(repeating: Cell(text: " ", role: .plain), count: max(1, width)), count: max(1, height))
        cursor = (0, 0)
    }

    public static func == (a: Screen, b: Screen) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells && a.cursor == b.cursor
    }

    /// Writes sanitised text at a row and column, clipped at the right edge. Returns the
    /// column after the last cell written.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, role: Role = .plain) -> Int {
        guard row >= 0, row < height else { return column }
        var col = column
        for original in TextWidth.sanitise(text) {
            let ch = Self.cellForm(original)
            let w = TextWidth.of(ch)
            if w == 0 {
                // A combining mark joins the character before it.
                if col > 0, col - 1 < width { cells[row][col - 1].text.append(ch) }
                continue
            }
            guard col >= 0, col + w <= width else {
                if col >= 0 { overflowed = true }
                break
            }
            cells[row][col] = Cell(text: String(ch), role: role)
            if w == 2 { cells[row][col + 1] = Cell(text: "", role: role) }
            col += w
        }
        return col
    }

    /// A character as one cell holds it: its first scalar and the combining marks after it.
    /// The terminal library gives every scalar its own width (`wcwidth`), so a skin-tone
    /// modifier, a joined emoji or a variation selector after the first would take columns
    /// the layout never counted, and shift everything after it on the line ("E👍🏽" drew four
    /// columns where two were kept). A cluster of one scalar, or a base with marks, is kept as
    /// it is.
    static func cellForm(_ ch: Character) -> Character {
        let scalars = ch.unicodeScalars
        guard scalars.count > 1, let first = scalars.first else { return ch }
        var kept = String.UnicodeScalarView([first])
        for s in scalars.dropFirst() {
            switch s.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: kept.append(s)
            default: continue
            }
        }
        return String(kept).first ?? ch
    }

    /// Paints a role over cells without changing their text (for highlighted lines).
    public mutating func paint(row: Int, from: Int, to: Int, role: Role) {
        guard row >= 0, row < height else { return }
        for c in max(0, from)..<min(width, max(from, to)) { cells[row][c].role = role }
    }

    /// The text of each row, right-trimmed, for golden tests and screen dumps.
    public var lines: [String] {
        cells.map { row in
            var s = row.map(\.text).joined()
            while s.hasSuffix(" ") { s.removeLast() }
            return s
        }
    }

    public var text: String { lines.joined(separator: "\n") }

    /// One character per cell saying how the theme draws it: `.` plain, `b` bold, `r` reverse,
    /// `u` underline, `d` dim, `c` colour, in that order of precedence.
    public func styleMap(_ theme: Theme) -> String {
        cells.map { row in
            var s = row.map { cell -> String in
                guard !cell.text.isEmpty else { return "" }
                return theme.look(cell.role).mapCharacter
            }.joined()
            while s.hasSuffix(".") { s.removeLast() }
            return s
        }.joined(separator: "\n")
    }
}

/// How each role is drawn. `mono` uses only bold, reverse, underline and dim, so meaning is
/// never carried by colour alone in any theme: every role also has a symbol or a word.
public struct Theme: Sendable, Equatable {
    public enum Colour: Sendable, Equatable { case none, red, green, yellow, blue, cyan, white }

    public struct Look: Sendable, Equatable {
        public var bold = false
        public var reverse = false
        public var underline = false
        public var dim = false
        public var colour: Colour = .none

        var mapCharacter: String {
            if reverse { return "r" }
            if bold { return "b" }
            if underline { return "u" }
            if dim { return "d" }
            return colour == .none ? "." : "c"
        }
    }

    struct Entry: Sendable, Equatable {
        let role: Role
        let look: Look
    }

    public let name: String
    /// A list, not a dictionary: a dictionary keyed by `Role` would cost every launch a search
    /// of the program's conformances before the first frame (Benchmarks/README.md, the launch).
    let looks: [Entry]

    init(name: String, looks: KeyValuePairs<Role, Look>) {
        self.name = name
        self.looks = looks.map { Entry(role: $0.key, look: $0.value) }
    }

    public func look(_ role: Role) -> Look { looks.first { $0.role == role }?.look ?? Look() }

    public static let mono = Theme(name: "mono", looks: [
        .title: Look(bold: true), .dim: Look(dim: true), .focus: Look(reverse: true), .selected: Look(bold: true),
        .warning: Look(bold: true), .error: Look(bold: true, underline: true), .success: Look(bold: true), .key: Look(underline: true),
    ])

    public static let standard = Theme(name: "default", looks: [
        .title: Look(bold: true, colour: .cyan), .dim: Look(dim: true), .focus: Look(reverse: true),
        .selected: Look(bold: true, colour: .green), .warning: Look(bold: true, colour: .yellow),
        .error: Look(bold: true, colour: .red), .success: Look(bold: true, colour: .green), .key: Look(bold: true, colour: .cyan),
    ])

    public static let contrast = Theme(name: "contrast", looks: [
        .title: Look(bold: true, colour: .white), .dim: Look(), .focus: Look(bold: true, reverse: true),
        .selected: Look(bold: true, underline: true, colour: .yellow), .warning: Look(bold: true, reverse: true, colour: .yellow),
        .error: Look(bold: true, reverse: true, colour: .red), .success: Look(bold: true, colour: .green), .key: Look(bold: true, underline: true),
    ])

    /// `NO_COLOR` (any non-empty value, as the convention says) chooses mono unless a theme
    /// was named.
    public static func named(_ name: String?, environment: [String: String]) -> Theme? {
        switch name {
        case nil: return (environment["NO_COLOR"] ?? "").isEmpty ? standard : mono
        case "default": return standard
        case "mono": return mono
        case "contrast": return contrast
        default: return nil
        }
    }
}

extension Screen {
    /// The same screen with one row blank (what a terminal shows after `clearLine`).
    public func blankingRow(_ row: Int) -> Screen {
        var copy = self
        guard copy.cells.indices.contains(row) else { return copy }
        copy.cells[row] = Array(repeating: Cell(text: " ", role: .plain), count: copy.cells[row].count)
        return copy
    }
}
