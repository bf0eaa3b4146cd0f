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
        var scanner = Scanner(scalars: Array(text.unicodeScalars), maximumDepth: maximumDepth)
        return scanner.run()
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        let maximumDepth: Int
        var i = 0
        var line = 1
        var lineStart = 0
        /// One entry per open flow collection: did an alias occur inside it?
        var flowAliases: [Bool] = []
        var quote: Unicode.Scalar? = nil
        /// Indentation of the line that opened a block scalar still being skipped.
        var blockScalarParentIndent: Int? = nil

        init(scalars: [Unicode.Scalar], maximumDepth: Int) {
            self.scalars = scalars
            self.maximumDepth = maximumDepth
        }

        var column: Int { i - lineStart + 1 }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            let k = i + offset
            return k < scalars.count ? scalars[k] : nil
        }

        static func isBlank(_ s: Unicode.Scalar?) -> Bool {
            guard let s else { return true }
            return s == " " || s == "\t" || s == "\n" || s == "\r"
        }

        static func isFlowIndicator(_ s: Unicode.Scalar) -> Bool {
            s == "," || s == "[" || s == "]" || s == "{" || s == "}"
        }

        func refusal(_ message: String) -> Refusal {
            Refusal(line: line, column: column, message: message)
        }

        /// Next character on this line after spaces.
        func nextSignificant(from k: Int) -> Unicode.Scalar? {
            var j = k
            while j < scalars.count, scalars[j] == " " || scalars[j] == "\t" { j += 1 }
            return j < scalars.count ? scalars[j] : nil
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
            var indent = 0
            while let s = peek(), s == " " { indent += 1; i += 1 }
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
                    if q == "'" && s == "'" && peek(1) == "'" { i += 2; continue }
                    if q == "\"" && s == "\\" { i += 2; continue }
                    if s == q { quote = nil; tokenStart = false }
                    i += 1
                    continue
                }
                if firstToken && column > YAMLPrescan.maximumContentColumn {
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
                    flowAliases.append(false)
                    if flowAliases.count > maximumDepth {
                        return refusal("nesting is deeper than \(maximumDepth) levels; this is not an assessment")
                    }
                    i += 1; tokenStart = true; firstToken = false
                    continue
                }
                if s == "]" || s == "}" {
                    let hadAlias = flowAliases.popLast() ?? false
                    i += 1
                    if hadAlias {
                        if nextSignificant(from: i) == ":" {
                            return refusal("an alias (`*name`) inside a mapping key is not allowed")
                        }
                        if !flowAliases.isEmpty { flowAliases[flowAliases.count - 1] = true }
                    }
                    tokenStart = false
                    continue
                }
                if s == "," { tokenStart = true; i += 1; continue }
                tokenStart = false
                firstToken = false
                i += 1
            }
            if peek() == "\n" { i += 1 }
            line += 1
            return nil
        }

        mutating func scanAlias() -> Refusal? {
            let start = column
            i += 1
            // libyaml's anchor names are [A-Za-z0-9_-]; the name ends at anything else.
            while let s = peek(), s.isASCII,
                  s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "-" || s == "_" { i += 1 }
            if nextSignificant(from: i) == ":" {
                return Refusal(line: line, column: start,
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
