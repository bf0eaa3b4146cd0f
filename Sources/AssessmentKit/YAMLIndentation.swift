/// Lines indented differently from the keys (or list entries) around them, found by a small
/// scan of the text once the YAML parser has stopped: the parser's own words ("did not find
/// expected key", "did not find expected '-' indicator") name neither the line's column nor
/// the one it should have.
///
/// The scan follows the nesting the way YAML does: every block (a mapping's keys, a list's
/// `-` entries) has one column; a line opens a deeper block only after a key with nothing after
/// its `:` (or a `-` with nothing after it); any other line starts at the column of a block
/// still open. A line that does neither is the one to fix, and the block it is compared with is
/// the nearest of its kind. Quoted and flow values (`"…"`, `[…]`, `{…}`) spanning lines, block
/// scalars (`|`, `>`) and comments are stepped over; lines of plain text that continue a value
/// are left alone.
enum YAMLIndentation {
    /// An open block: the column its keys (or `-` entries) start at, and the last of them.
    struct Block {
        var column: Int
        var isList: Bool
        var name: String
        var line: Int
        var lines = 1
        /// A list written at its key's own column (`items:` then `- …` below the `i`).
        var atParentColumn = false
    }

    struct Scanner {
        var blocks: [Block] = []
        /// The column of a key (or `-`) that ended its line with nothing after it: the next
        /// line may open a block to the right of it.
        var opener: (column: Int, isList: Bool)?
        /// The value of the last line is plain text, which more indented lines may continue.
        var plainValue = false
        /// A block scalar (`|`, `>`) being stepped over: lines indented more than `parent`
        /// belong to it until its first line fixes how far its lines are indented.
        var blockScalar: (parent: Int, content: Int?)?
        var quote: Unicode.Scalar?
        var flowDepth = 0
    }

    /// Where a line's first token goes.
    enum Placement {
        case placed
        /// Plain text going on from the value above, as YAML reads it: nothing to place.
        case continuation
        /// The line to fix (the file's first key may be to blame for the line after it), and
        /// why; `breaking` is the line the parser stops at.
        case broken(breaking: Int, PlainWords.Explanation)
    }

    /// The first line, at or before `lastLine`, whose indentation breaks the file's nesting,
    /// explained at the place to fix; nil when there is none, or the scan cannot follow the text.
    static func explanation(in text: String, breakingAt lastLine: Int) -> PlainWords.Explanation? {
        var scanner = Scanner()
        var number = 0
        var line: [Unicode.Scalar] = []
        var scalars = text.unicodeScalars.makeIterator()
        var ended = false
        while !ended && number < lastLine {
            line.removeAll(keepingCapacity: true)
            ended = true
            while let s = scalars.next() {
                if s == "\n" { ended = false; break }
                line.append(s)
            }
            if line.last == "\r" { line.removeLast() }
            number += 1
            if case let .broken(breaking, explanation) = scanner.read(line, number: number) {
                // The parser stops at the first line that breaks the nesting: a line found
                // anywhere else means the scan read the text differently, so it says nothing.
                return breaking == lastLine ? explanation : nil
            }
        }
        return nil
    }
}

extension YAMLIndentation.Scanner {
    typealias Block = YAMLIndentation.Block
    typealias Explanation = PlainWords.Explanation
    typealias Placement = YAMLIndentation.Placement

    static func isBlank(_ s: Unicode.Scalar?) -> Bool { s == nil || s == " " || s == "\t" }

    static func blankAfter(_ line: [Unicode.Scalar], _ i: Int) -> Bool { isBlank(i + 1 < line.count ? line[i + 1] : nil) }

    /// Reads one line: `.broken` when its indentation breaks the nesting.
    mutating func read(_ line: [Unicode.Scalar], number: Int) -> Placement {
        if quote != nil || flowDepth > 0 {
            scanValue(line, from: 0)
            return .placed
        }
        let indent = line.prefix { $0 == " " }.count
        if let (parent, content) = blockScalar {
            if indent == line.count { return .placed }
            if let content, indent >= content { return .placed }
            if content == nil, indent > parent {
                blockScalar = (parent, indent)
                return .placed
            }
            blockScalar = nil
        }
        // Blank lines, comments, and tabs (which have their own message) tell nothing.
        guard indent < line.count, line[indent] != "#", line[indent] != "\t" else { return .placed }
        if indent == 0, line.starts(with: ["-", "-", "-"]) || line.starts(with: [".", ".", "."]) {
            self = Self()
            return .placed
        }
        if indent == 0, line[0] == "%" { return .placed }
        var i = indent
        var dashes = 0
        var lastDash = indent
        // `- ` entries, perhaps several on a line (`- - a`).
        while i < line.count, line[i] == "-", Self.blankAfter(line, i) {
            let column = i + 1
            if dashes == 0 {
                let placement = place(isList: true, name: "-", at: column, line: number)
                guard case .placed = placement else { return placement }
            } else {
                blocks.append(Block(column: column, isList: true, name: "-", line: number))
            }
            dashes += 1
            lastDash = i
            i += 1
            while i < line.count, line[i] == " " { i += 1 }
            i = Self.afterProperties(line, i)
            if i >= line.count || line[i] == "#" {
                opener = (column, true)
                return .placed
            }
        }
        guard let (name, afterColon) = Self.key(line, from: i) else {
            // After a `-`, the entry's value; else text that goes on from a value above, or a
            // mistake that the parser's own message names.
            if dashes > 0 {
                readValue(line, from: i, blockIndent: lastDash)
            } else if let parent = opener {
                readValue(line, from: i, blockIndent: parent.column - 1)
            }
            return .placed
        }
        let column = i + 1
        if dashes == 0 {
            let placement = place(isList: false, name: name, at: column, line: number)
            guard case .placed = placement else { return placement }
        } else {
            blocks.append(Block(column: column, isList: false, name: name, line: number))
        }
        let value = Self.afterProperties(line, line[afterColon...].prefix { $0 == " " }.count + afterColon)
        if value >= line.count || line[value] == "#" {
            opener = (column, false)
            return .placed
        }
        readValue(line, from: value, blockIndent: column - 1)
        return .placed
    }

    /// The value starting at `i`: a block scalar, quoted text or a flow collection is followed
    /// to its end (over lines); plain text may go on below.
    mutating func readValue(_ line: [Unicode.Scalar], from i: Int, blockIndent: Int) {
        opener = nil
        plainValue = false
        guard i < line.count else { return }
        switch line[i] {
        case "|", ">":
            // `|2`: the lines are indented 2 more than the block they are in.
            let digit = line[(i + 1)...].prefix { $0 != " " && $0 != "#" }.first { ("1"..."9").contains($0) }
            blockScalar = (blockIndent, digit.map { blockIndent + Int($0.value - 48) })
        case "'", "\"", "[", "{": scanValue(line, from: i)
        default: plainValue = true
        }
    }

    /// Follows quotes and brackets from `start` until the value that opened them ends, or
    /// the line does.
    mutating func scanValue(_ line: [Unicode.Scalar], from start: Int) {
        var i = start
        // At a value's start, at a line's start inside a flow, after `[`, `{`, `,` or `:`.
        var tokenStart = true
        while i < line.count {
            let s = line[i]
            i += 1
            if let q = quote {
                if q == "\"" && s == "\\" { i += 1; continue }
                guard s == q else { continue }
                if q == "'" && i < line.count && line[i] == "'" { i += 1; continue }
                quote = nil
                tokenStart = false
                if flowDepth == 0 { return }
                continue
            }
            switch s {
            case "'", "\"":
                if tokenStart { quote = s }
                tokenStart = false
            case "[", "{":
                flowDepth += 1
                tokenStart = true
            case "]", "}":
                flowDepth = max(0, flowDepth - 1)
                if flowDepth == 0 { return }
                tokenStart = false
            case ",", ":":
                tokenStart = true
            case " ":
                break
            case "#" where i > 1 && line[i - 2] == " ":
                return
            default:
                tokenStart = false
            }
        }
    }

    /// After an anchor (`&a`) or a tag (`!!str`) and the spaces behind them.
    static func afterProperties(_ line: [Unicode.Scalar], _ start: Int) -> Int {
        var i = start
        while i < line.count, line[i] == "&" || line[i] == "!" {
            while i < line.count, line[i] != " " { i += 1 }
            while i < line.count, line[i] == " " { i += 1 }
        }
        return i
    }

    /// The key starting at `i` (plain or quoted, as written) and the index after its `:`, or
    /// nil when the line does not hold `key:` there.
    static func key(_ line: [Unicode.Scalar], from i: Int) -> (String, Int)? {
        guard i < line.count else { return nil }
        var end = i
        switch line[i] {
        case "'", "\"":
            let q = line[i]
            end = i + 1
            while end < line.count {
                if q == "\"" && line[end] == "\\" { end += 2; continue }
                if line[end] == q {
                    if q == "'" && end + 1 < line.count && line[end + 1] == "'" { end += 2; continue }
                    break
                }
                end += 1
            }
            guard end < line.count else { return nil }
            end += 1
            var colon = end
            while colon < line.count, line[colon] == " " { colon += 1 }
            guard colon < line.count, line[colon] == ":", blankAfter(line, colon) else { return nil }
            return (PlainWords.string(line[i..<end]), colon + 1)
        case "[", "{", "]", "}", ",", "#", "&", "*", "!", "|", ">", "%", "@", "`", "?":
            return nil
        default:
            while end < line.count, !(line[end] == ":" && blankAfter(line, end)) {
                if line[end] == "#" && line[end - 1] == " " { return nil }
                end += 1
            }
            guard end < line.count else { return nil }
            var name = line[i..<end]
            while name.last == " " { name = name.dropLast() }
            return (PlainWords.string(name), end + 1)
        }
    }

    /// Puts the line's first token, at `column`, in the nesting, or says why it fits nowhere.
    mutating func place(isList: Bool, name: String, at column: Int, line: Int) -> Placement {
        let continuesText = plainValue
        plainValue = false
        if let parent = opener {
            opener = nil
            // A block opened by the line above: anywhere to the right of its key, and a list
            // also at the key's own column.
            if column > parent.column || (isList && !parent.isList && column == parent.column) {
                blocks.append(Block(column: column, isList: isList, name: name, line: line,
                                    atParentColumn: column == parent.column))
                return .placed
            }
        }
        guard let top = blocks.last else {
            blocks.append(Block(column: column, isList: isList, name: name, line: line))
            return .placed
        }
        if column > top.column {
            // Plain text above goes on here, as YAML reads it, unless the line holds `key:`.
            if continuesText && isList {
                plainValue = true
                return .continuation
            }
            return .broken(breaking: line, Self.explain(line: line, column: column, against: top))
        }
        var closed: [Block] = []
        while let last = blocks.last, last.column > column { closed.append(blocks.removeLast()) }
        if !isList, let last = blocks.last, last.column == column, last.isList, last.atParentColumn {
            closed.append(blocks.removeLast())
        }
        if let last = blocks.last, last.column == column, last.isList == isList {
            blocks[blocks.count - 1].name = name
            blocks[blocks.count - 1].line = line
            blocks[blocks.count - 1].lines += 1
            return .placed
        }
        if blocks.isEmpty, let outermost = closed.last {
            // Left of the document's first block: when that block is one line (the file's
            // first key), that line is the one out of step.
            guard outermost.lines == 1 else {
                return .broken(breaking: line, Self.explain(line: line, column: column, against: outermost))
            }
            return .broken(breaking: line, Explanation(line: outermost.line, column: outermost.column, message:
                "this line starts at column \(outermost.column) but the \(Self.what(isList)) after it (\(Self.named(name, isList)) at line \(line)) start at column \(column); line it up with them"))
        }
        // Between two levels, or at a level of the other kind: the nearest block of its kind,
        // the inner one when two are as near.
        let candidates = closed + blocks.reversed()
        let sameKind = candidates.filter { $0.isList == isList }
        let pool = sameKind.isEmpty ? candidates : sameKind
        guard let nearest = pool.min(by: { abs($0.column - column) < abs($1.column - column) }) else { return .placed }
        return .broken(breaking: line, Self.explain(line: line, column: column, against: nearest))
    }

    static func what(_ isList: Bool) -> String { isList ? "list entries" : "keys" }

    static func named(_ name: String, _ isList: Bool) -> String {
        isList ? "`-`" : "`\(name.clippedForMessage)`"
    }

    static func explain(line: Int, column: Int, against block: Block) -> Explanation {
        Explanation(line: line, column: column, message:
            "this line starts at column \(column) but the \(what(block.isList)) around it (\(named(block.name, block.isList)) at line \(block.line)) start at column \(block.column); line it up with them")
    }
}
