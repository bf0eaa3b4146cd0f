/// GIFT text after Moodle's escape step: every character knows whether a backslash escaped it,
/// so `\~ \= \# \{ \} \:` never act as syntax and `\n` is a line break inside a text.
struct GIFTText: Sendable, Hashable {
    struct Char: Sendable, Hashable {
        var scalar: Unicode.Scalar
        var escaped: Bool
    }

    var chars: [Char]

    init(_ chars: [Char]) { self.chars = chars }
    init<S: Sequence>(_ chars: S) where S.Element == Char { self.chars = Array(chars) }

    /// Applies Moodle's escapes: `\\` is a backslash, `\:` `\#` `\=` `\{` `\}` `\~` are those
    /// characters as text, `\n` is a line break; any other backslash stays as it is.
    init(escaping text: String) {
        let s = Array(text.unicodeScalars)
        var out: [Char] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            if s[i] == "\\", i + 1 < s.count {
                let next = s[i + 1]
                switch next {
                case "\\", ":", "#", "=", "{", "}", "~":
                    out.append(Char(scalar: next, escaped: true))
                    i += 2
                    continue
                case "n":
                    out.append(Char(scalar: "\n", escaped: true))
                    i += 2
                    continue
                default:
                    break
                }
            }
            out.append(Char(scalar: s[i], escaped: false))
            i += 1
        }
        chars = out
    }

    var isEmpty: Bool { chars.isEmpty }
    var count: Int { chars.count }

    /// The text as written, escapes resolved.
    var string: String {
        var view = String.UnicodeScalarView()
        view.appendEach(chars.map(\.scalar))
        return String(view)
    }

    /// True when the unescaped syntax character `c` is at `i`.
    func isSyntax(_ c: Unicode.Scalar, at i: Int) -> Bool {
        i >= 0 && i < chars.count && chars[i].scalar == c && !chars[i].escaped
    }

    func firstIndex(of c: Unicode.Scalar, from start: Int = 0) -> Int? {
        var i = start
        while i < chars.count {
            if isSyntax(c, at: i) { return i }
            i += 1
        }
        return nil
    }

    func contains(_ c: Unicode.Scalar) -> Bool { firstIndex(of: c) != nil }

    /// Where an unescaped `needle` starts, first or last.
    func range(of needle: String, last: Bool = false, from start: Int = 0) -> Int? {
        let n = Array(needle.unicodeScalars)
        guard !n.isEmpty, chars.count >= n.count else { return nil }
        let positions = Array(start...(chars.count - n.count))
        for i in last ? positions.reversed() : positions {
            var match = true
            for k in 0..<n.count where !isSyntax(n[k], at: i + k) {
                match = false
                break
            }
            if match { return i }
        }
        return nil
    }

    func hasPrefix(_ prefix: String) -> Bool {
        let p = Array(prefix.unicodeScalars)
        guard p.count <= chars.count else { return false }
        for k in 0..<p.count where !isSyntax(p[k], at: k) { return false }
        return true
    }

    subscript(_ r: Range<Int>) -> GIFTText { GIFTText(chars[r]) }

    func dropFirst(_ n: Int) -> GIFTText { GIFTText(chars.dropFirst(n)) }

    /// PHP's trim: spaces, tabs, line breaks, NUL and vertical tab at both ends, escaped or not.
    func trimmed() -> GIFTText {
        func blank(_ c: Char) -> Bool {
            !c.escaped && (c.scalar == " " || c.scalar == "\t" || c.scalar == "\n" || c.scalar == "\r"
                || c.scalar == "\0" || c.scalar == "\u{0B}")
        }
        var lo = 0, hi = chars.count
        while lo < hi, blank(chars[lo]) { lo += 1 }
        while hi > lo, blank(chars[hi - 1]) { hi -= 1 }
        return GIFTText(chars[lo..<hi])
    }

    /// Pieces between unescaped `separator`s, like PHP's explode.
    func split(_ separator: Unicode.Scalar, maxPieces: Int = .max) -> [GIFTText] {
        var pieces: [GIFTText] = []
        var start = 0
        var i = 0
        while i < chars.count, pieces.count < maxPieces - 1 {
            if isSyntax(separator, at: i) {
                pieces.append(self[start..<i])
                start = i + 1
            }
            i += 1
        }
        pieces.append(self[start..<chars.count])
        return pieces
    }

    static func + (a: GIFTText, b: GIFTText) -> GIFTText { GIFTText(a.chars + b.chars) }

    init(literal: String) {
        chars = literal.unicodeScalars.map { Char(scalar: $0, escaped: true) }
    }
}
