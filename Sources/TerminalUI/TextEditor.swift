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

    /// Applies an editing key; returns false for keys the editor does not use.
    public mutating func apply(_ key: Key) -> Bool {
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

    /// Display column of the cursor within its own line.
    public var cursorColumn: Int {
        TextWidth.of(String(characters[lineStart(cursor)..<cursor]))
    }

    /// Index of the cursor's line.
    public var cursorLine: Int {
        characters[..<cursor].filter { $0 == "\n" }.count
    }
}
