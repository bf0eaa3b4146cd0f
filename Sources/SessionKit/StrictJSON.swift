import AssessmentKit

/// The gate every stored document passes before `JSONDecoder` reads it: strict RFC 8259 JSON
/// in the I-JSON subset (RFC 7493) that every parser reads the same way. It refuses what two
/// parsers could read differently — a key given twice (spelled the same, escaped
/// differently as `"time_used\u005fseconds"`, or canonically equivalent), a raw control
/// character inside a string, an unpaired surrogate escape, anything after the value — and
/// nesting deeper than any result has. It reads no value: `JSONDecoder` is the one parser
/// that gives a document its meaning, and nothing else (SQLite's `json_extract`,
/// PostgreSQL's `->>`) ever reads a document a second time.
public enum StrictJSON {
    /// Why a document is refused, in words that quote none of its text but a key made safe.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Deep enough for any result (document → items → item → response → list).
    public static let maximumDepth = 32

    /// Throws when `text` is not one strict JSON value.
    public static func check(_ text: String) throws(Problem) {
        var scanner = Scanner(bytes: Array(text.utf8))
        try scanner.whitespace()
        try scanner.value(depth: 0)
        try scanner.whitespace()
        if scanner.index < scanner.bytes.count { throw scanner.problem("text after the document's end") }
    }

    struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func problem(_ what: String) -> Problem {
            Problem(description: "\(what) (at byte \(index))")
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func whitespace() throws(Problem) {
            while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(Problem) {
            guard current == byte else { throw problem("\(what) expected") }
            index += 1
        }

        mutating func value(depth: Int) throws(Problem) {
            guard depth < StrictJSON.maximumDepth else { throw problem("nested deeper than \(StrictJSON.maximumDepth) levels") }
            switch current {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string(keeping: false)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case let b? where b == UInt8(ascii: "-") || (0x30...0x39).contains(b): try number()
            case nil: throw problem("the document ends early")
            default: throw problem("a value expected")
            }
        }

        mutating func literal(_ word: String) throws(Problem) {
            let w = Array(word.utf8)
            guard index + w.count <= bytes.count, bytes[index..<index + w.count].elementsEqual(w) else {
                throw problem("a value expected")
            }
            index += w.count
        }

        mutating func digits() -> Int {
            let start = index
            while let b = current, (0x30...0x39).contains(b) { index += 1 }
            return index - start
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        mutating func number() throws(Problem) {
            if current == UInt8(ascii: "-") { index += 1 }
            if current == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                throw problem("a number without digits")
            }
            if current == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { throw problem("a number without digits after its point") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw problem("a number without digits in its exponent") }
            }
        }

        /// Before each element of a list or member of an object: false at its closing
        /// bracket (passed), else true with the comma before any element but the first passed.
        mutating func more(until close: UInt8, first: inout Bool) throws(Problem) -> Bool {
            try whitespace()
            if current == close {
                index += 1
                return false
            }
            if !first {
                try expect(UInt8(ascii: ","), "a comma or \(Character(Unicode.Scalar(close)))")
                try whitespace()
            }
            first = false
            return true
        }

        mutating func array(depth: Int) throws(Problem) {
            index += 1
            var first = true
            while try more(until: UInt8(ascii: "]"), first: &first) {
                try value(depth: depth + 1)
            }
        }

        mutating func object(depth: Int) throws(Problem) {
            index += 1
            var first = true
            // A short list of keys is searched, a long one hashed: a hostile document with
            // many keys in one object costs no more than its length.
            var keys: [String] = []
            var many = Set<String>()
            while try more(until: UInt8(ascii: "}"), first: &first) {
                guard current == UInt8(ascii: "\"") else { throw problem("a key expected") }
                let key = try string(keeping: true)
                // Swift compares strings by canonical equivalence, as `JSONDecoder` matches keys:
                // "é" and "e\u0301" are one key to it, so they are one key here too.
                let repeated: Bool
                if keys.count < 16 {
                    repeated = keys.contains(key)
                    keys.append(key)
                    if keys.count == 16 { many = Set(keys) }
                } else {
                    repeated = !many.insert(key).inserted
                }
                guard !repeated else { throw problem("the key \"\(Self.shown(key))\" appears twice") }
                try whitespace()
                try expect(UInt8(ascii: ":"), "a colon")
                try whitespace()
                try value(depth: depth + 1)
            }
        }

        /// A key as a message shows it: at most 40 characters, anything hostile quoted.
        static func shown(_ key: String) -> String {
            let short = key.count > 40 ? String(key.prefix(40)) + "…" : key
            return TerminalSafety.visible(short, keepLineBreaks: false)
        }

        /// Reads a string; returns its text (escapes resolved) when `keeping`, else "".
        mutating func string(keeping: Bool) throws(Problem) -> String {
            index += 1
            let start = index
            var escaped: String.UnicodeScalarView?
            var runStart = index
            while true {
                // A run of plain bytes first: most strings are nothing else.
                while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
                    index += 1
                }
                guard let b = current else { throw problem("a string that does not end") }
                if b < 0x20 { throw problem("a raw control character inside a string") }
                if keeping, escaped != nil || b == UInt8(ascii: "\\") {
                    escaped = escaped ?? String.UnicodeScalarView()
                    escaped?.appendEach(String(decoding: bytes[runStart..<index], as: UTF8.self).unicodeScalars)
                }
                index += 1
                if b == UInt8(ascii: "\"") {
                    guard keeping else { return "" }
                    return escaped.map(String.init) ?? String(decoding: bytes[start..<index - 1], as: UTF8.self)
                }
                let scalar = try escape()
                if keeping { escaped?.append(scalar) }
                runStart = index
            }
        }

        /// After a backslash: one escape, as the scalar it stands for.
        mutating func escape() throws(Problem) -> Unicode.Scalar {
            guard let b = current else { throw problem("a string that does not end") }
            index += 1
            switch b {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{8}"
            case UInt8(ascii: "f"): return "\u{C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try hex4()
                if (0xD800...0xDBFF).contains(unit) {
                    guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                        throw problem("an unpaired surrogate escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low),
                          let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) else {
                        throw problem("an unpaired surrogate escape")
                    }
                    return scalar
                }
                guard let scalar = Unicode.Scalar(unit) else { throw problem("an unpaired surrogate escape") }
                return scalar
            default:
                throw problem("an unknown escape in a string")
            }
        }

        mutating func hex4() throws(Problem) -> UInt32 {
            guard index + 4 <= bytes.count else { throw problem("a \\u escape without four hex digits") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let digit: UInt32
                switch b {
                case 0x30...0x39: digit = UInt32(b - 0x30)
                case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
                default: throw problem("a \\u escape without four hex digits")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }
    }
}
