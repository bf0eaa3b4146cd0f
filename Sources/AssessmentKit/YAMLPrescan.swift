/// A linear scan that refuses, before the YAML parser runs, constructs no assessment needs and
/// that make keys or nesting unbounded: an alias used as a mapping key (or inside one) would make
/// a key as large as the structure it names, an explicit `? ` key may be any structure, and
/// libyaml keeps state for every open nesting level.
enum YAMLPrescan {
    struct Refusal: Equatable {
        var line: Int
        var column: Int
        var message: String
    }

    /// Lines whose content starts further right than this are refused as absurd nesting.
    static let maximumContentColumn = 256

    static func refusal(in text: String, maximumDepth: Int) -> Refusal? {
        var text = text
        return text.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes, maximumDepth: maximumDepth)
            return scanner.run()
        }
    }

    /// Works on UTF-8 bytes, each seen as the scalar of the same number: every character it looks
    /// for is ASCII, and a byte of a longer character (0x80 and above) is never one of them, so
    /// each such byte does what the whole character would. Columns are counted in characters
    /// only when one is reported.
    private struct Scanner {
        let scalars: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        var i = 0
        var line = 1
        var lineStart = 0
        /// One entry per open flow collection: did an alias occur inside it?
        var flowAliases: [Bool] = []
        var quote: Unicode.Scalar? = nil
        /// Indentation of the line that opened a block scalar still being skipped.
        var blockScalarParentIndent: Int? = nil

        init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
            self.scalars = bytes
            self.maximumDepth = maximumDepth
        }

        /// The column of byte `k` on the current line, in characters.
        func column(at k: Int) -> Int {
            var column = 1
            for j in lineStart..<k where scalars[j] & 0xC0 != 0x80 { column += 1 }
            return column
        }

        var column: Int { column(at: i) }

        /// The column of the current byte when all before it on the line is ASCII, as it is
        /// while the line's first token is still ahead: only ASCII keeps `firstToken` true.
        var asciiColumn: Int { i - lineStart + 1 }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            let k = i + offset
            return k < scalars.count ? Unicode.Scalar(scalars[k]) : nil
        }

        /// The bytes the line scanner acts on outside quotes: blanks, the line's end, and the
        /// indicators `- # ' " ? * | > [ ] { } ,`. Any other byte (a letter, a digit, `:`, a
        /// byte of a longer character) only ends a token's start, so a run of them is skipped.
        static func mayMatter(_ byte: UInt8) -> Bool {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "-"), UInt8(ascii: "#"), UInt8(ascii: "'"), UInt8(ascii: "\""),
                 UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "["),
                 UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ","):
                return true
            default:
                return false
            }
        }

        static func mattersInQuotes(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x0A
        }

        static func isBlank(_ s: Unicode.Scalar?) -> Bool {
            guard let s else { return true }
            return s == " " || s == "\t" || s == "\n" || s == "\r"
        }

        func refusal(_ message: String) -> Refusal {
            Refusal(line: line, column: column, message: message)
        }

        /// Next character on this line after spaces.
        func nextSignificant(from k: Int) -> Unicode.Scalar? {
            var j = k
            while j < scalars.count, scalars[j] == UInt8(ascii: " ") || scalars[j] == UInt8(ascii: "\t") { j += 1 }
            return j < scalars.count ? Unicode.Scalar(scalars[j]) : nil
        }

        mutating func run() -> Refusal? {
            while i < scalars.count {
                if let refusal = scanLine() { return refusal }
            }
            return nil
        }

        /// Scans from the start of a line to the start of the next one.
        mutating func scanLine() -> Refusal? {
            lineStart = i
            while i < scalars.count, scalars[i] == 0x20 { i += 1 }
            let indent = i - lineStart
            if let parent = blockScalarParentIndent, quote == nil {
                let blankLine = peek() == nil || peek() == "\n" || peek() == "\r"
                if blankLine || indent > parent {
                    skipToNextLine()
                    return nil
                }
                blockScalarParentIndent = nil
            }
            var tokenStart = true
            var firstToken = quote == nil && flowAliases.isEmpty
            while let s = peek(), s != "\n" {
                if let q = quote {
                    if scanQuoted(q, s) { tokenStart = false }
                    continue
                }
                if firstToken && asciiColumn > YAMLPrescan.maximumContentColumn {
                    return refusal("content starts beyond column \(YAMLPrescan.maximumContentColumn); nesting this deep is not an assessment")
                }
                if s == " " || s == "\t" { tokenStart = true; i += 1; continue }
                if firstToken && s == "-" && Self.isBlank(peek(1)) { i += 1; continue }
                if tokenStart {
                    if s == "#" { skipToNextLine(); return nil }
                    if s == "'" || s == "\"" { quote = s; i += 1; firstToken = false; continue }
                    if s == "?" && Self.isBlank(peek(1)) && (firstToken || !flowAliases.isEmpty) {
                        return refusal("explicit `? ` mapping keys are not part of the assessment format")
                    }
                    if s == "*" {
                        if let refusal = scanAlias() { return refusal }
                        tokenStart = false; firstToken = false
                        continue
                    }
                    if (s == "|" || s == ">") && flowAliases.isEmpty {
                        blockScalarParentIndent = indent
                        skipToNextLine()
                        return nil
                    }
                }
                if s == "[" || s == "{" {
                    if let refusal = openFlow() { return refusal }
                    tokenStart = true; firstToken = false
                    continue
                }
                if s == "]" || s == "}" {
                    if let refusal = closeFlow() { return refusal }
                    tokenStart = false
                    continue
                }
                if s == "," { tokenStart = true; i += 1; continue }
                tokenStart = false
                firstToken = false
                i += 1
                skipWords()
            }
            if peek() == "\n" { i += 1 }
            line += 1
            return nil
        }

        /// One step inside quotes, from `s`, the byte at `i`; true when it closed them.
        mutating func scanQuoted(_ q: Unicode.Scalar, _ s: Unicode.Scalar) -> Bool {
            if q == "'" && s == "'" && peek(1) == "'" { i += 2; return false }
            if q == "\"" && s == "\\" { i += 2; return false }
            i += 1
            if s == q {
                quote = nil
                return true
            }
            // Still inside the quotes, where only the quote, a backslash and the line's
            // end matter.
            while i < scalars.count, !Self.mattersInQuotes(scalars[i]) { i += 1 }
            return false
        }

        /// At `[` or `{`.
        mutating func openFlow() -> Refusal? {
            flowAliases.append(false)
            if flowAliases.count > maximumDepth {
                return refusal("nesting is deeper than \(maximumDepth) levels; this is not an assessment")
            }
            i += 1
            return nil
        }

        /// At `]` or `}`.
        mutating func closeFlow() -> Refusal? {
            let hadAlias = flowAliases.popLast() ?? false
            i += 1
            if hadAlias {
                if nextSignificant(from: i) == ":" {
                    return refusal("an alias (`*name`) inside a mapping key is not allowed")
                }
                if !flowAliases.isEmpty { flowAliases[flowAliases.count - 1] = true }
            }
            return nil
        }

        /// The rest of the text: a byte that cannot matter changes nothing above, and
        /// neither does a blank followed by one (the blank starts a token, the byte ends
        /// it), so runs of words are passed in one tight loop (most of a file is words).
        mutating func skipWords() {
            while i < scalars.count {
                let byte = scalars[i]
                if !Self.mayMatter(byte) { i += 1; continue }
                if byte == 0x20 || byte == 0x09, i + 1 < scalars.count, !Self.mayMatter(scalars[i + 1]) {
                    i += 2
                    continue
                }
                break
            }
        }

        mutating func scanAlias() -> Refusal? {
            // Counted only when refused: a long line of aliases must not count its start each time.
            let start = i
            i += 1
            // libyaml's anchor names are [A-Za-z0-9_-]; the name ends at anything else.
            while let s = peek(), ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
                    || s == "-" || s == "_" { i += 1 }
            if nextSignificant(from: i) == ":" {
                return Refusal(line: line, column: column(at: start),
                               message: "an alias (`*name`) used as a mapping key is not allowed")
            }
            if !flowAliases.isEmpty { flowAliases[flowAliases.count - 1] = true }
            return nil
        }

        mutating func skipToNextLine() {
            while let s = peek(), s != "\n" { i += 1 }
            if peek() == "\n" { i += 1 }
            line += 1
        }
    }
}
