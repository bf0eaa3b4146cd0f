import AssessmentKit

/// Moodle's Aiken format, read as `qformat_aiken` reads it: a line of question text, choice
/// lines `A) …` or `A. …`, then `ANSWER: X`. A question that breaks the pattern is reported
/// with its line and left out; the others are imported.
public enum AikenReader {
    public static func read(_ text: String, file: String) -> ImportedBank {
        var source = text
        if source.unicodeScalars.first == "\u{FEFF}" { source.unicodeScalars.removeFirst() }
        var section = ImportedSection()
        var diagnostics: [ImportDiagnostic] = []
        // The question being read; its cleaner takes its prompt and choices.
        var open: (prompt: String, line: Int, choices: [String], cleaner: TextCleaner)? = nil
        var number = 0
        var lineNumber = 0
        for raw in GIFTReader.lines(of: source) {
            lineNumber += 1
            let line = raw.trimmedPHP()
            // Moodle skips lines shorter than two bytes.
            if line.utf8.count < 2 { continue }
            if isChoice(line) {
                guard let cleaner = open?.cleaner else {
                    diagnostics.append(.error(file, lineNumber, "a choice line with no question before it"))
                    continue
                }
                let choice = String(line.unicodeScalars.dropFirst(2).map(Character.init)).trimmedPHP()
                open?.choices.append(cleaner.clean(choice, multiLine: false))
            } else if line.hasPrefix("ANSWER:") {
                guard let question = open else {
                    diagnostics.append(.error(file, lineNumber, "an `ANSWER:` line with no question before it"))
                    continue
                }
                open = nil
                number += 1
                let letter = line.dropFirst("ANSWER:".count).trimmedPHP().unicodeScalars.first
                guard question.choices.count >= 2 else {
                    diagnostics.append(.error(file, question.line, "the question has fewer than two choices"))
                    continue
                }
                let index = letter.map { Int($0.value) - Int(("A" as Unicode.Scalar).value) } ?? -1
                if let letter, ("a"..."z").contains(letter), index - 32 < question.choices.count {
                    let capital = Character(Unicode.Scalar(letter.value - 32) ?? letter)
                    diagnostics.append(.error(file, lineNumber, "`ANSWER:` names “\(Character(letter))”; write the letter as a capital: ANSWER: \(capital)"))
                    continue
                }
                guard index >= 0, index < question.choices.count else {
                    let last = Unicode.Scalar(UInt8(64 + min(question.choices.count, 26)))
                    let given = letter.map { "“\(String(Character($0)).clippedForMessage)”" } ?? "nothing"
                    diagnostics.append(.error(file, lineNumber, "`ANSWER:` names \(given), not one of the choices A–\(Character(last))"))
                    continue
                }
                let options = question.choices.enumerated().map { BankOption($0.element, credit: $0.offset == index ? 100 : 0) }
                do {
                    let built = try ItemBuilder.choice(options)
                    for w in built.warnings { diagnostics.append(.warning(file, question.line, w)) }
                    let item = Item(id: "q\(number)", prompt: question.prompt, kind: built.kind, marking: built.marking)
                    section.questions.append(ImportedQuestion(item: item, file: file, line: question.line, name: nil))
                    if let warning = question.cleaner.warning { diagnostics.append(.warning(file, question.line, warning)) }
                } catch {
                    diagnostics.append(error.diagnostic(file, question.line))
                }
            } else {
                if let unfinished = open {
                    diagnostics.append(.error(file, unfinished.line, "the question has no `ANSWER:` line before the next question (line \(lineNumber)); question text is one line"))
                }
                let cleaner = TextCleaner()
                open = (cleaner.clean(line, multiLine: false), lineNumber, [], cleaner)
            }
        }
        if let unfinished = open {
            diagnostics.append(.error(file, unfinished.line, "the question has no `ANSWER:` line"))
        }
        return ImportedBank(file: file, sections: section.questions.isEmpty ? [] : [section], diagnostics: diagnostics)
    }

    /// `A) text`, `B. text`: a capital letter, `)` or `.`, then (optionally) a space.
    static func isChoice(_ line: String) -> Bool {
        let s = Array(line.unicodeScalars.prefix(2))
        return s.count == 2 && ("A"..."Z").contains(s[0]) && (s[1] == ")" || s[1] == ".")
    }
}
