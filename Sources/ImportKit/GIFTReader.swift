import AssessmentKit
import Foundation

/// Moodle's GIFT format, read the way Moodle's `qformat_gift` reads it: questions are blocks
/// separated by blank lines; `//` lines are comments; `$CATEGORY:` starts a section; the first
/// `{…}` holds the answers and decides the type.
public enum GIFTReader {
    /// The warning for a line right after a `$CATEGORY:` line, which Carrel reads as what it is.
    static let readAsItIs = "imported as what it is, though Moodle would take this line as part of the category's name above it; put a blank line after the `$CATEGORY:` line so that Moodle reads it the same way"

    public static func read(_ text: String, file: String) -> ImportedBank {
        var state = State(file: file)
        for block in blocks(of: text) {
            state.read(block)
        }
        return state.finish()
    }

    /// A question's lines, the number of its first line that is not a comment, and its comments.
    struct Block {
        var text: GIFTText
        var line: Int
        var lineCount: Int
        var comments: String = ""
        /// True when a `$CATEGORY:` line followed the previous block's last line with no blank
        /// line between them: Moodle would read it as part of that question.
        var splitAtCategory = false
        /// True when this block's `$CATEGORY:` line came right after another one: Moodle would
        /// read it as part of that category's name.
        var afterCategoryLine = false

        /// Moodle's `// [id:Q-17]` comment: the question's own id (`\]` for a bracket inside).
        var idnumber: String? {
            guard let start = comments.range(of: "[id:") else { return nil }
            var value = ""
            var escaped = false
            for c in comments[start.upperBound...] {
                if escaped { value.append(c); escaped = false; continue }
                if c == "\\" { escaped = true; continue }
                if c == "]" { return value.trimmedPHP().nonEmpty }
                if c.unicodeScalars.contains(where: { TerminalSafety.isControl($0) }) { return nil }
                value.append(c)
            }
            return nil
        }
    }

    /// Blank lines separate blocks (a line holding only `0` too, as PHP's `empty()` has it);
    /// lines are trimmed, comment lines count as blank text inside a block.
    static func blocks(of source: String) -> [Block] {
        var text = source
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        var blocks: [Block] = []
        var current: [String] = []
        var comments = ""
        var firstLine: Int? = nil
        var split = false, afterCategoryLine = false, lastWasCategory = false
        func close() {
            defer { current.removeAll(); comments = ""; firstLine = nil; split = false; afterCategoryLine = false }
            let joined = current.joined(separator: "\n")
            let block = GIFTText(escaping: joined).trimmed()
            guard !block.isEmpty, let firstLine else { return }
            blocks.append(Block(text: block, line: firstLine, lineCount: current.count, comments: comments, splitAtCategory: split,
                                afterCategoryLine: afterCategoryLine))
        }
        var number = 0
        for raw in lines(of: text) {
            number += 1
            let line = raw.trimmedPHP()
            if line.isEmpty || line == "0" {
                close()
                lastWasCategory = false
                continue
            }
            if line.hasPrefix("//") {
                current.append(" ")
                comments += line + "\n"
            } else {
                // A category line right after a question's last line, or right after another
                // category line, starts a block of its own: the question above is kept whole,
                // and so is each category (one block of many would be read one inside another).
                let isCategory = line.hasPrefix("$CATEGORY:")
                if isCategory, firstLine != nil {
                    close()
                    split = !lastWasCategory
                    afterCategoryLine = lastWasCategory
                }
                lastWasCategory = isCategory
                current.append(line)
                if firstLine == nil { firstLine = number }
            }
        }
        close()
        return blocks
    }

    /// Lines ending in `\n`, `\r\n` or a lone `\r`.
    static func lines(of text: String) -> [Substring] {
        var out: [Substring] = []
        var start = text.unicodeScalars.startIndex
        var i = start
        let scalars = text.unicodeScalars
        while i < scalars.endIndex {
            let c = scalars[i]
            if c == "\n" || c == "\r" {
                out.append(Substring(scalars[start..<i]))
                var next = scalars.index(after: i)
                if c == "\r", next < scalars.endIndex, scalars[next] == "\n" { next = scalars.index(after: next) }
                start = next
                i = next
                continue
            }
            i = scalars.index(after: i)
        }
        out.append(Substring(scalars[start..<scalars.endIndex]))
        return out
    }

    struct State {
        let file: String
        var sections = BankSections()
        var diagnostics: [ImportDiagnostic] = []
        var questionNumber = 0

        /// The line of a question whose `{` had no `}` in its block: said once the next block
        /// shows whether a blank line split the braces.
        var unclosed: Int? = nil
        static let unclosedBrace = "a `{` has no closing `}`; write \\{ for a brace in the text"

        init(file: String) { self.file = file }

        mutating func read(_ block: Block) {
            if let line = unclosed {
                unclosed = nil
                let open = block.text.firstIndex(of: "{"), close = block.text.firstIndex(of: "}")
                if let close, open.map({ $0 > close }) ?? true {
                    // The next block closes the brace: a blank line split one question in two.
                    diagnostics.append(.error(file, line, "a blank line inside `{…}` ends the question before its `}`; remove the blank lines between the braces"))
                    return
                }
                diagnostics.append(.error(file, line, Self.unclosedBrace))
            }
            var text = block.text
            // Every text of the block (its name, prompt, answers, feedback) passes through it.
            let cleaner = TextCleaner()
            if text.hasPrefix("$CATEGORY:") {
                category(text.dropFirst(10), block, cleaner)
                return
            }
            var name: String? = nil
            if text.hasPrefix("::") {
                text = text.dropFirst(2)
                if let end = text.range(of: "::") {
                    name = cleaner.clean(text[0..<end].string, multiLine: false)
                    text = text[(end + 2)..<text.count].trimmed()
                }
            }
            // Embedded answers pasted from Moodle's Cloze: the whole text is one gap-fill item,
            // read before the first `{…}` would be taken for the answers.
            let (body, format) = GIFTReader.formatted(text, default: .moodle)
            let source = GIFTReader.clozeSource(body)
            if ClozeText.mentions(source) {
                questionNumber += 1
                let offset = block.text.chars[0..<(block.text.count - text.count)].filter { $0.scalar == "\n" && !$0.escaped }.count
                cleaner.count(source, markup: format.clozeMarkup)
                let read = ClozeText.read(source, markup: format.clozeMarkup)
                let question = ClozeReader.question(read, file: file, line: block.line + offset, name: block.idnumber ?? name,
                                                    number: questionNumber, diagnostics: &diagnostics)
                if let question {
                    sections.add(question)
                    noteRemovals(cleaner, block)
                }
                return
            }
            let open = text.firstIndex(of: "{"), close = text.firstIndex(of: "}")
            switch (open, close) {
            case (nil, nil):
                description(text, block, cleaner)
            case let (o?, c?) where c > o:
                questionNumber += 1
                question(text, open: o, close: c, name: name, block, cleaner)
            case (nil, _?):
                diagnostics.append(.error(file, block.line, "a `}` has no opening `{`; write \\} for a brace in the text"))
            case (_?, nil):
                unclosed = block.line
            case (_?, _?):
                diagnostics.append(.error(file, block.line, "a `}` comes before the `{` that holds the answers"))
            }
        }

        /// `$CATEGORY: $course$/top/Unit 1/Week 2` → a section titled `Unit 1 / Week 2`.
        /// The warning naming the invisible characters taken out of a block that was kept.
        mutating func noteRemovals(_ cleaner: TextCleaner, _ block: Block) {
            if let warning = cleaner.warning { diagnostics.append(.warning(file, block.line, warning)) }
        }

        mutating func category(_ rest: GIFTText, _ block: Block, _ cleaner: TextCleaner) {
            if block.splitAtCategory {
                diagnostics.append(.warning(file, block.line, "the category starts here, though Moodle would take this line as part of the question above it; put a blank line before the `$CATEGORY:` line so that Moodle reads it the same way"))
            }
            if block.afterCategoryLine {
                diagnostics.append(.warning(file, block.line, GIFTReader.readAsItIs))
            }
            // The category's name is its first line; a line after it in the same block (no
            // blank line between) is read as the start of the next block, so that no question
            // is lost, with a warning since Moodle would read it as part of the name.
            let end = rest.chars.firstIndex { $0.scalar == "\n" && !$0.escaped }
            let title = GIFTReader.categoryTitle(rest[0..<(end ?? rest.count)].string, cleaner)
            sections.start(title: title)
            noteRemovals(cleaner, block)
            guard let end else { return }
            let after = rest[(end + 1)..<rest.count]
            let skipped = after.chars.prefix { !$0.escaped && ($0.scalar == "\n" || $0.scalar == " " || $0.scalar == "\t") }.filter { $0.scalar == "\n" }.count
            let next = after.trimmed()
            guard !next.isEmpty else { return }
            let line = block.line + 1 + skipped
            diagnostics.append(.warning(file, line, GIFTReader.readAsItIs))
            read(Block(text: next, line: line, lineCount: max(1, block.lineCount - (line - block.line)), comments: block.comments))
        }

        /// A block without braces is a description: instructions for the questions after it.
        mutating func description(_ text: GIFTText, _ block: Block, _ cleaner: TextCleaner) {
            let (body, format) = GIFTReader.formatted(text, default: .moodle)
            let rendered = GIFTReader.render(body, format, multiLine: true, cleaner)
            guard !rendered.isEmpty else { return }
            sections.describe(rendered, line: block.line)
            noteRemovals(cleaner, block)
        }

        mutating func question(_ text: GIFTText, open: Int, close: Int, name: String?, _ block: Block, _ cleaner: TextCleaner) {
            var answers = text[(open + 1)..<close].trimmed()
            if text[(close + 1)..<text.count].firstIndex(of: "{") != nil {
                // Moodle reads one answer block and shows the later ones as text: their answers
                // would be on the student's screen. Not imported.
                diagnostics.append(.error(file, block.line, "the text after the answers holds another `{…}`, which would show its answers to the student (GIFT reads one answer block a question); if these are two questions, put a blank line between them; if it is one sentence with several blanks, write it as a Cloze question"))
                return
            }
            // Text after the braces: the answers fill a gap in the sentence ("missing word").
            let stem: GIFTText
            if text.isSyntax("}", at: text.count - 1) {
                stem = text[0..<open] + text[(close + 1)..<text.count]
            } else {
                stem = text[0..<open] + GIFTText(literal: "_____") + text[(close + 1)..<text.count]
            }
            var general: GIFTText? = nil
            if let g = answers.range(of: "####", last: true) {
                general = answers[(g + 4)..<answers.count]
                answers = answers[0..<g].trimmed()
            }
            let (stemBody, format) = GIFTReader.formatted(stem, default: .moodle)
            var prompt = GIFTReader.render(stemBody, format, multiLine: true, cleaner)
            if prompt.isEmpty, let name { prompt = name }
            guard !prompt.isEmpty else {
                diagnostics.append(.error(file, block.line, "the question has no text"))
                return
            }
            let feedback = general.map { GIFTReader.formatted($0, default: format) }
                .map { GIFTReader.render($0.0, $0.1, multiLine: true, cleaner) }.flatMap(\.nonEmpty)
            let question = GIFTQuestion(answers: answers, format: format, cleaner: cleaner)
            do {
                let built = try question.build()
                for warning in built.warnings { diagnostics.append(.warning(file, block.line, warning)) }
                let item = Item(id: "q\(questionNumber)", prompt: prompt, feedback: feedback, kind: built.kind, marking: built.marking)
                // Moodle's idnumber (`// [id:…]`) names the question more precisely than its title.
                let id = block.idnumber ?? name
                sections.add(ImportedQuestion(item: item, file: file, line: block.line, name: id))
                noteRemovals(cleaner, block)
            } catch {
                    diagnostics.append(error.diagnostic(file, block.line))
            }
        }

        mutating func finish() -> ImportedBank {
            if let line = unclosed { diagnostics.append(.error(file, line, Self.unclosedBrace)) }
            let kept = sections.finish(file: file, diagnostics: &diagnostics)
            return ImportedBank(file: file, sections: kept, diagnostics: diagnostics)
        }
    }

    /// Moodle's `[html]`, `[moodle]`, `[plain]`, `[markdown]` at the start of a text.
    static func formatted(_ text: GIFTText, default format: TextFormat) -> (GIFTText, TextFormat) {
        guard let first = text.chars.first, first.scalar == "[", !first.escaped,
              let end = text.chars.firstIndex(where: { $0.scalar == "]" }),
              let named = TextFormat(rawValue: text[1..<end].string)
        else { return (text, format) }
        return (text[(end + 1)..<text.count], named)
    }

    /// A GIFT text as Cloze reads it. GIFT's escapes come first. Inside an embedded answer,
    /// `\}`, `\~`, `\#` and `\\` stay Cloze's escapes (a brace, tilde, hash or backslash in
    /// an answer); elsewhere they are the characters. When the text escapes the embedded
    /// answers' own syntax (`\{1\:SA\:…\}`, as a writer that escapes every GIFT character
    /// does), every escape is resolved. A GIFT `\n` becomes a line break that is no line of
    /// the file.
    static func clozeSource(_ text: GIFTText) -> String {
        let resolved = text.chars.map(\.scalar)
        var escapedSyntax = false
        for (i, c) in text.chars.enumerated() where c.scalar == "{" {
            if let header = ClozeSyntax.header(resolved, at: i), ClozeSyntax.isEmbedded(header),
               text.chars[i..<header.body].contains(where: \.escaped) {
                escapedSyntax = true
                break
            }
        }
        var out = String.UnicodeScalarView()
        var inside = false
        for (i, c) in text.chars.enumerated() {
            if c.escaped && c.scalar == "\n" {
                out.append("\u{2028}")
                continue
            }
            if !escapedSyntax && !c.escaped {
                if c.scalar == "{", let header = ClozeSyntax.header(resolved, at: i), ClozeSyntax.isEmbedded(header) {
                    inside = true
                } else if c.scalar == "}" {
                    inside = false
                }
            }
            if inside && c.escaped && ["}", "~", "#", "\\"].contains(c.scalar) { out.append("\\") }
            out.append(c.scalar)
        }
        return String(out)
    }

    /// The text as a student should read it, whatever its format.
    static func render(_ text: GIFTText, _ format: TextFormat, multiLine: Bool, _ cleaner: TextCleaner) -> String {
        var images: [String] = []
        return cleaner.render(text.string.trimmedPHP(), format, multiLine: multiLine, images: &images)
    }

    static func categoryTitle(_ path: String, _ cleaner: TextCleaner) -> String? {
        let named = categoryPath(path, cleaner)
        return named.isEmpty ? nil : named.joined(separator: " / ")
    }

    /// `$course$/top/Unit 1/Week 2` → `["Unit 1", "Week 2"]`: the context prefix and `top`
    /// dropped, `//` read as a slash inside a name, as Moodle splits category paths.
    static func categoryPath(_ path: String, _ cleaner: TextCleaner) -> [String] {
        var rest = Substring(path.trimmedPHP())
        // A context prefix such as `$course$/` or `$system$/`.
        if rest.hasPrefix("$"), let close = rest.dropFirst().firstIndex(of: "$") {
            rest = rest[rest.index(after: close)...]
            if rest.hasPrefix("/") { rest = rest.dropFirst() }
        }
        let parts = rest.replacingOccurrences(of: "//", with: "\u{0}").split(separator: "/")
            .map { $0.replacingOccurrences(of: "\u{0}", with: "/") }
            .map { cleaner.clean($0, multiLine: false) }.filter { !$0.isEmpty }
        return parts.first?.lowercased() == "top" ? Array(parts.dropFirst()) : parts
    }
}

extension StringProtocol {
    /// PHP's trim(): spaces, tabs, line breaks, NUL and vertical tab at both ends.
    func trimmedPHP() -> String {
        // Every blank is one ASCII byte, so the ends are found in the UTF-8 view and the
        // middle is copied as it is (not scalar by scalar: a large bank trims every text).
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x00 || b == 0x0B }
        let text = Substring(self)
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(text[first...last])
    }
}

extension TextFormat {
    /// How Cloze reads a text in this format: HTML (its line breaks counting in Moodle's
    /// auto-format), or plain text.
    var clozeMarkup: ClozeMarkup {
        switch self {
        case .moodle: return .html(keepLineBreaks: true)
        case .html: return .html(keepLineBreaks: false)
        case .plain, .markdown: return .plain
        }
    }
}
