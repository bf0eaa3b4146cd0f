import AssessmentKit

/// Display width of text in terminal columns, independent of the locale (so views render the
/// same in tests and at the console): wide East Asian characters take two columns,
/// combining marks and format characters none.
public enum TextWidth {
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    public static func of(_ character: Character) -> Int {
        // ASCII (CR LF included) is one column, with no Unicode property to look up: most of
        // a frame, drawn again each second for the clock.
        if character.isASCII { return 1 }
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.allSatisfy({ isZeroWidth($0) }) { return 0 }
        return isWide(first) || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) && isEmojiBase(first) ? 2 : 1
    }

    static func isZeroWidth(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return s.value == 0x200B
        }
    }

    static func isEmojiBase(_ s: Unicode.Scalar) -> Bool { s.properties.isEmojiPresentation || s.properties.isEmoji }

    static func isWide(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        if s.properties.isEmojiPresentation { return true }
        return (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }

    /// Text safe to draw: control characters (C0, DEL, C1) and bidirectional controls become
    /// U+FFFD, tabs become spaces. Nothing from content or answers reaches the terminal as a
    /// control or escape sequence.
    public static func sanitise(_ text: String) -> String {
        // Printable ASCII has no tab, control or bidirectional control to replace.
        if text.utf8.allSatisfy({ $0 &- 0x20 < 0x5F }) { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if s == "\t" {
                out.appendEach("    ".unicodeScalars)
            } else if TerminalSafety.isControl(s) || TerminalSafety.isBidiControl(s) {
                out.append("\u{FFFD}")
            } else {
                out.append(s)
            }
        }
        return String(out)
    }

    /// Word-wraps each paragraph of `text` to `width` columns; words longer than a line are
    /// broken. Blank lines between paragraphs are kept, and so is what a teacher lined up with
    /// spaces: a paragraph's indentation (continued on its wrapped lines, up to half the
    /// width) and runs of spaces inside a line. Spaces at a wrap point are dropped.
    public static func wrap(_ text: String, width: Int) -> [String] {
        let w = max(1, width)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let leading = paragraph.prefix { $0 == " " }.count
            let lead = String(repeating: " ", count: min(leading, w / 2))
            var line = lead
            var lineWidth = lead.count
            var hasWord = false
            var spaces = 0
            var word = ""
            func place() {
                guard !word.isEmpty else { return }
                var piece = word
                var pieceWidth = of(piece)
                if hasWord && lineWidth + spaces + pieceWidth <= w {
                    line += String(repeating: " ", count: spaces) + piece
                    lineWidth += spaces + pieceWidth
                } else {
                    if hasWord {
                        lines.append(line)
                        line = lead
                        lineWidth = lead.count
                    }
                    while lineWidth + pieceWidth > w {
                        let (head, rest) = split(piece, at: max(1, w - lineWidth))
                        lines.append(line + head)
                        line = lead
                        lineWidth = lead.count
                        piece = rest
                        pieceWidth = of(piece)
                    }
                    line += piece
                    lineWidth += pieceWidth
                }
                hasWord = true
                word = ""
                spaces = 0
            }
            for ch in paragraph.dropFirst(leading) {
                if ch == " " {
                    if !word.isEmpty { place() }
                    spaces += 1
                } else {
                    // Japanese and Chinese break between any two wide characters, except
                    // before closing punctuation (。、）」) and after opening (（「). Korean
                    // puts spaces between its words and breaks there, never inside a word.
                    if !word.isEmpty, of(ch) == 2, let last = word.last, of(last) == 2,
                       !closesLine(ch), !opensLine(last), !(isHangul(ch) && isHangul(last)) {
                        place()
                    }
                    word.append(ch)
                }
            }
            place()
            lines.append(line)
        }
        while lines.count > 1 && lines.last == "" { lines.removeLast() }
        return lines
    }

    /// A Hangul syllable or letter.
    static func isHangul(_ ch: Character) -> Bool {
        guard let v = ch.unicodeScalars.first?.value else { return false }
        return (0xAC00...0xD7A3).contains(v) || (0x1100...0x11FF).contains(v) || (0x3130...0x318F).contains(v)
    }

    /// Wide punctuation that never begins a line (kinsoku).
    static func closesLine(_ ch: Character) -> Bool { "。、，．）」』】〕〉》！？：；ー・…".contains(ch) }
    /// Wide punctuation that never ends a line.
    static func opensLine(_ ch: Character) -> Bool { "（「『【〔〈《".contains(ch) }

    /// The longest prefix that fits `columns`, and the rest.
    public static func split(_ text: String, at columns: Int) -> (String, String) {
        var used = 0
        var index = text.startIndex
        while index < text.endIndex {
            let cw = of(text[index])
            if used + cw > columns { break }
            used += cw
            index = text.index(after: index)
        }
        if index == text.startIndex && index < text.endIndex { index = text.index(after: index) }
        return (String(text[..<index]), String(text[index...]))
    }

    /// Cuts to `columns`, ending with "…" when something was cut.
    public static func clip(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        guard columns > 1 else { return columns == 1 ? "…" : "" }
        return split(text, at: columns - 1).0 + "…"
    }
}
