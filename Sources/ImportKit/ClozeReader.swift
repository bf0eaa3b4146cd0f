import AssessmentKit

/// Moodle's embedded answers (Cloze) read into a `gaps` item's prompt and gaps.
public struct ClozeText: Sendable {
    /// The text with each embedded answer replaced by its marker `{1}`, `{2}`, …
    public var prompt: String
    public var gaps: [Gap]
    /// Problems, each with the 0-based line within the given text where it stands.
    public var problems: [(line: Int, message: String, isError: Bool)]
    /// The gaps (numbered from 1) whose options Moodle shuffles (`MULTICHOICE_S`, `MRS`, …).
    public var shuffled: [Int]

    /// Reads every `{N:TYPE:answers}` in `text` (plain text: any HTML already made plain).
    public static func read(_ text: String) -> ClozeText {
        read(text, markup: .plain)
    }

    /// True when `text` holds at least one embedded answer `{N:TYPE:…}` or `{:TYPE:…}` of a known type.
    public static func contains(_ text: String) -> Bool {
        let s = Array(text.unicodeScalars)
        var i = 0
        while let open = ClozeSyntax.nextBrace(s, from: i) {
            if let header = ClozeSyntax.header(s, at: open), ClozeSyntax.types[header.type] != nil { return true }
            i = open + 1
        }
        return false
    }

    /// True when any problem is an error: Moodle would refuse the question, and so does Carrel.
    public var hasErrors: Bool { problems.contains { $0.isError } }

    /// The question's points as Moodle counts them: the sum of the gaps' weights.
    public var points: Double { gaps.reduce(0) { $0 + ($1.points ?? 1) } }
}

extension ClozeText {
    /// True when `text` holds something a reader should read as an embedded answer: one of a
    /// known type (in any letter case), or `{1:NAME:` with a type name in capitals.
    static func mentions(_ text: String) -> Bool {
        let s = Array(text.unicodeScalars)
        var i = 0
        while let open = ClozeSyntax.nextBrace(s, from: i) {
            if let header = ClozeSyntax.header(s, at: open), ClozeSyntax.isEmbedded(header) { return true }
            i = open + 1
        }
        return false
    }

    static func read(_ text: String, markup: ClozeMarkup) -> ClozeText {
        var parser = ClozeParser(text, markup: markup)
        return parser.run()
    }
}

/// Moodle's "Embedded answers (Cloze)" import format: a text file that is one question, or
/// several separated by a line `//NEWCLOZEQUESTION` (as the widely used export plugin writes
/// them). The text is Moodle's auto-format: HTML whose line breaks count.
public enum ClozeReader {
    /// The separator line between questions.
    static let separator = "//NEWCLOZEQUESTION"

    public static func read(_ text: String, file: String) -> ImportedBank {
        var source = text
        if source.unicodeScalars.first == "\u{FEFF}" { source.unicodeScalars.removeFirst() }
        var section = ImportedSection()
        var diagnostics: [ImportDiagnostic] = []
        var number = 0
        for block in blocks(of: source) {
            number += 1
            let cleaner = TextCleaner()
            cleaner.count(block.text, markup: .html(keepLineBreaks: true))
            let read = ClozeText.read(block.text, markup: .html(keepLineBreaks: true))
            if let question = question(read, file: file, line: block.line, name: title(block.text), number: number,
                                       diagnostics: &diagnostics) {
                section.questions.append(question)
                if let warning = cleaner.warning { diagnostics.append(.warning(file, block.line, warning)) }
            }
        }
        if number == 0 {
            diagnostics.append(.error(file, nil, "the file holds no text; a Cloze question is a text with embedded answers such as {1:SHORTANSWER:=word}"))
        }
        return ImportedBank(file: file, sections: section.questions.isEmpty ? [] : [section], diagnostics: diagnostics)
    }

    /// The gap-fill item of a read text, or nil when it has errors; every problem is reported
    /// at its line in the file (the text starting at `line`), and an error names the question.
    static func question(_ read: ClozeText, file: String, line: Int, name: String?, number: Int,
                         diagnostics: inout [ImportDiagnostic]) -> ImportedQuestion? {
        let question = name.map { "the question “\($0.clippedForMessage(limit: 60))”" } ?? "the question"
        for problem in read.problems {
            if problem.isError {
                diagnostics.append(.error(file, line + problem.line, "\(problem.message) (\(question) is not imported)"))
            } else {
                diagnostics.append(.warning(file, line + problem.line, problem.message))
            }
        }
        guard !read.hasErrors else { return nil }
        if !read.shuffled.isEmpty {
            let gaps = read.shuffled.map(String.init).joined(separator: ", ")
            let plural = read.shuffled.count == 1 ? "" : "s"
            diagnostics.append(.warning(file, line, "Moodle shuffles the options of gap\(plural) \(gaps); Carrel shows them as written unless the assessment sets `shuffle: {choices: true}`"))
        }
        let item = Item(id: "q\(number)", prompt: read.prompt, points: read.points, kind: .gaps(read.gaps))
        return ImportedQuestion(item: item, file: file, line: line, name: name)
    }

    /// Each question's text and the file line (from 1) where it starts; blank ones left out.
    static func blocks(of text: String) -> [(text: String, line: Int)] {
        var out: [(text: String, line: Int)] = []
        var current: [Substring] = []
        var start = 1
        var number = 0
        func close() {
            // Leading blank lines are left out, so the text's first line is the block's line.
            while let first = current.first, first.trimmedPHP().isEmpty {
                current.removeFirst()
                start += 1
            }
            if !current.isEmpty { out.append((current.joined(separator: "\n"), start)) }
            current = []
        }
        for line in GIFTReader.lines(of: text) {
            number += 1
            if line.trimmedPHP() == separator {
                close()
                start = number + 1
                continue
            }
            current.append(line)
        }
        close()
        return out
    }

    /// A name from the question's first line with text, each embedded answer shown as `…`, at
    /// most 45 characters (Moodle names a Cloze question from its text).
    static func title(_ text: String) -> String? {
        for line in GIFTReader.lines(of: text) {
            var plain = ""
            var depth = 0
            for c in ImportText.fromHTML(String(line), multiLine: false) {
                if c == "{" {
                    if depth == 0 { plain += "…" }
                    depth += 1
                } else if c == "}" && depth > 0 {
                    depth -= 1
                } else if depth == 0 {
                    plain.append(c)
                }
            }
            let name = ImportText.clean(plain, multiLine: false)
            guard name.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
            return name.count > 45 ? String(name.prefix(44)) + "…" : name
        }
        return nil
    }
}

extension TextCleaner {
    /// Counts what cleaning a whole Cloze text takes out, once: the reader cleans it in pieces,
    /// some more than once (a name from the first line, an answer as typed and as shown).
    func count(_ text: String, markup: ClozeMarkup) {
        switch markup {
        case .plain: _ = clean(text, multiLine: true)
        case .html: _ = clean(HTMLText.decodeEntities(text), multiLine: true)
        }
    }
}
