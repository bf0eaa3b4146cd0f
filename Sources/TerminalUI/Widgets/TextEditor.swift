/// A plain editor over grapheme clusters: cursor keys, Home/End, Backspace/Delete that remove
/// a whole accented or wide character. No completion, no suggestion, no history.
public struct TextEditor: Sendable, Equatable {
    public private(set) var characters: [Character]
    /// Index into `characters` where the next character goes.
    public private(set) var cursor: Int
    public let multiline: Bool
    public static let maximumLength = 20_000

    public init(text: String = "", multiline: Bool = false) {
        characters = Array(text)
        cursor = characters.count
        self.multiline = multiline
    }

    public var text: String { String(characters) }

    /// Applies an editing key; returns false for keys the editor does not use. With a wrap
    /// width (an essay), ↑ ↓ Home End move by the lines as shown, wrapped at word boundaries.
    public mutating func apply(_ key: Key, wrapWidth: Int? = nil) -> Bool {
        if multiline, let width = wrapWidth {
            switch key {
            case .up, .down:
                moveVisually(key == .up ? -1 : 1, width: width)
                return true
            case .home, .end:
                let rows = visualLines(width: width)
                let row = Self.row(of: cursor, in: rows)
                cursor = key == .home ? rows[row].start : rows[row].end
                return true
            default:
                break
            }
        }
        switch key {
        case let .character(c):
            guard characters.count < Self.maximumLength else { return true }
            characters.insert(c, at: cursor)
            cursor += 1
        case .enter:
            guard multiline else { return false }
            characters.insert("\n", at: cursor)
            cursor += 1
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home: cursor = multiline ? lineStart(cursor) : 0
        case .end: cursor = multiline ? lineEnd(cursor) : characters.count
        case .backspace:
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .delete:
            guard cursor < characters.count else { return true }
            characters.remove(at: cursor)
        case .up:
            guard multiline else { return false }
            moveVertically(-1)
        case .down:
            guard multiline else { return false }
            moveVertically(1)
        default:
            return false
        }
        return true
    }

    func lineStart(_ i: Int) -> Int {
        var j = i
        while j > 0 && characters[j - 1] != "\n" { j -= 1 }
        return j
    }

    func lineEnd(_ i: Int) -> Int {
        var j = i
        while j < characters.count && characters[j] != "\n" { j += 1 }
        return j
    }

    mutating func moveVertically(_ direction: Int) {
        let start = lineStart(cursor)
        let offset = cursor - start
        if direction < 0 {
            guard start > 0 else { cursor = 0; return }
            let previousStart = lineStart(start - 1)
            cursor = min(previousStart + offset, start - 1)
        } else {
            let end = lineEnd(cursor)
            guard end < characters.count else { cursor = characters.count; return }
            let nextStart = end + 1
            cursor = min(nextStart + offset, lineEnd(nextStart))
        }
    }

    /// One line as shown: characters `start..<end` of the text, not counting the line break
    /// that ends a paragraph.
    public struct VisualLine: Sendable, Equatable {
        public var start: Int
        public var end: Int
    }

    /// The text as shown at `width` columns: each paragraph wrapped at word boundaries (the
    /// space stays at the end of its line), a word longer than a line broken, an empty
    /// paragraph one empty line. Every character belongs to exactly one line.
    public func visualLines(width: Int) -> [VisualLine] {
        let w = max(2, width)
        var lines: [VisualLine] = []
        var paragraphStart = 0
        var i = 0
        while i <= characters.count {
            if i == characters.count || characters[i] == "\n" {
                wrapParagraph(paragraphStart, i, width: w, into: &lines)
                paragraphStart = i + 1
            }
            i += 1
        }
        return lines
    }

    private func wrapParagraph(_ from: Int, _ to: Int, width: Int, into lines: inout [VisualLine]) {
        var start = from
        guard from < to else {
            lines.append(VisualLine(start: from, end: from))
            return
        }
        while start < to {
            var used = 0
            var i = start
            var lastBreak: Int? = nil   // index after the last space that fits
            while i < to {
                let cw = TextWidth.of(characters[i])
                // A space may hang past the edge; anything else that does not fit ends the line.
                if characters[i] == " " {
                    used += cw
                    i += 1
                    lastBreak = i
                    continue
                }
                if used + cw > width - 1 { break }
                used += cw
                i += 1
            }
            if i >= to {
                lines.append(VisualLine(start: start, end: to))
                return
            }
            let end = (lastBreak.map { $0 > start ? $0 : nil } ?? nil) ?? max(i, start + 1)
            lines.append(VisualLine(start: start, end: end))
            start = end
        }
    }

    /// The visual line holding index `i`: at a wrap point the cursor belongs to the next line.
    public static func row(of i: Int, in lines: [VisualLine]) -> Int {
        for (n, line) in lines.enumerated() {
            let isLast = n + 1 == lines.count || lines[n + 1].start > line.end
            if i >= line.start && (i < line.end || (i == line.end && isLast)) { return n }
        }
        return max(0, lines.count - 1)
    }

    /// The cursor's line and column as shown at `width`.
    public func visualCursor(width: Int) -> (row: Int, column: Int, lines: [VisualLine]) {
        let lines = visualLines(width: width)
        let row = Self.row(of: cursor, in: lines)
        let start = lines.isEmpty ? 0 : lines[row].start
        return (row, TextWidth.of(String(characters[start..<max(start, cursor)])), lines)
    }

    mutating func moveVisually(_ direction: Int, width: Int) {
        let (row, column, lines) = visualCursor(width: width)
        let target = row + direction
        guard lines.indices.contains(target) else {
            cursor = direction < 0 ? 0 : characters.count
            return
        }
        let line = lines[target]
        var i = line.start, used = 0
        let isLast = target + 1 == lines.count || lines[target + 1].start > line.end
        let limit = isLast ? line.end : max(line.start, line.end - 1)
        while i < limit {
            let cw = TextWidth.of(characters[i])
            if used + cw > column { break }
            used += cw
            i += 1
        }
        cursor = i
    }

    /// Display column of the cursor within its own line.
    public var cursorColumn: Int {
        TextWidth.of(String(characters[lineStart(cursor)..<cursor]))
    }

    /// Index of the cursor's line.
    public var cursorLine: Int {
        characters[..<cursor].filter { $0 == "\n" }.count
    }
}
