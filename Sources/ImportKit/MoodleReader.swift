import AssessmentKit
import Foundation

/// Moodle's own question export, the "Moodle XML format": a `<quiz>` of `<question type="…">`
/// elements, read the way Moodle's `qformat_xml` imports them. A category starts a section; a
/// description becomes the instructions of the questions after it; every other question is
/// converted by `MoodleQuestion`, or reported with its name and line.
public enum MoodleReader {
    /// Moodle XML files larger than this are refused. An export carries its images inside
    /// (base64), so it may be larger than a QTI item; 5 000 questions without images take
    /// about 8 MiB.
    public static let maximumBytes = 64 * 1024 * 1024

    public static func read(bytes: [UInt8], file: String) throws(ImportRefusal) -> ImportedBank {
        let root: XElement
        do {
            root = try XMLTree.parse(bytes, format: "Moodle XML", limit: maximumBytes)
        } catch {
            return ImportedBank(file: file, diagnostics: [try QTIReader.problem(error, file)])
        }
        guard root.name == "quiz" else {
            let why = "this is not a Moodle XML export: its root element is <\(root.shownName.clippedForMessage)>, not <quiz>"
            return ImportedBank(file: file, diagnostics: [.error(file, root.line, why)])
        }
        var bank = BankState(file: file)
        for child in root.children {
            guard case let .element(question) = child, question.name == "question" else { continue }
            bank.read(question)
        }
        return bank.finish()
    }

    /// True when the bytes are XML whose first element is `<quiz>`: after a byte-order mark,
    /// white space, the XML declaration, processing instructions and comments. Only the start
    /// of the file is looked at.
    public static func looksLikeQuiz(_ bytes: [UInt8]) -> Bool {
        let head = bytes.prefix(64 * 1024)
        let text = Importer.utf16Text(head, prefix: bytes.count > head.count) ?? String(decoding: head, as: UTF8.self)
        var rest = Substring(text)
        while true {
            rest = rest.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
            if rest.hasPrefix("<?") {
                guard let end = rest.range(of: "?>") else { return false }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!--") {
                // Searched after the opening: `<!-->` opens a comment, it does not close one.
                guard let end = rest.dropFirst(4).range(of: "-->") else { return false }
                rest = rest[end.upperBound...]
            } else if rest.prefix(9).uppercased() == "<!DOCTYPE" {
                // A document type naming `quiz` is a Moodle XML file's, which its reader refuses.
                let name = rest.dropFirst(9).drop { $0.isWhitespace }.prefix { !$0.isWhitespace && $0 != "[" && $0 != ">" }
                return name == "quiz"
            } else {
                break
            }
        }
        guard rest.hasPrefix("<quiz") else { return false }
        let after = rest.dropFirst(5).first
        return after == nil || after == ">" || after == "/" || after?.isWhitespace == true
    }

    /// The sections read so far and what was reported.
    struct BankState {
        let file: String
        var sections = BankSections()
        var diagnostics: [ImportDiagnostic] = []
        var order = ChoiceOrder()

        init(file: String) { self.file = file }

        mutating func read(_ element: XElement) {
            var question = MoodleQuestion(element)
            switch question.type {
            case "category": category(element)
            case "description": description(&question)
            default: convert(&question)
            }
        }

        /// `$course$/top/Unit 1/Week 2` starts a section titled `Week 2`, with the category's
        /// `<info>` as its instructions.
        mutating func category(_ element: XElement) {
            let path = MoodleQuestion.rawText(element.first("category")) ?? ""
            let cleaner = TextCleaner()
            let title = GIFTReader.categoryPath(path, cleaner).last
            let info = element.first("info")
            var images: [String] = []
            let instructions = cleaner.render(MoodleQuestion.rawText(info) ?? "",
                                              TextFormat(moodleXML: info?.attributes["format"], default: .moodle),
                                              multiLine: true, images: &images)
            sections.start(title: title, instructions: instructions.nonEmpty)
            if let warning = cleaner.warning { diagnostics.append(.warning(file, element.line, warning)) }
        }

        /// A description is shown before the questions after it: the instructions of a section
        /// that starts there (with the same title).
        mutating func description(_ question: inout MoodleQuestion) {
            let text = question.questionText()
            report(question, warnings: question.notes() + [question.cleaner.warning].compactMap { $0 })
            sections.describe(text, line: question.element.line)
        }

        mutating func convert(_ question: inout MoodleQuestion) {
            let line = question.element.line
            do {
                let item = try question.convert()
                report(question, warnings: question.warnings + question.notes() + [question.cleaner.warning].compactMap { $0 })
                reportPlaced(question)
                if let shuffles = question.shuffles {
                    if shuffles { order.shuffled += 1 } else { order.inOrder += 1 }
                }
                sections.add(ImportedQuestion(item: item, file: file, line: line, name: question.name))
            } catch {
                report(question, warnings: question.notes())
                reportPlaced(question)
                if question.placedErrors.isEmpty {
                    let named = question.label + ": " + error.reason
                    diagnostics.append(BuildFailure.same(as: error, named).diagnostic(file, line))
                }
            }
        }

        /// Problems inside the text, each at its own line; an error says the question is left out.
        mutating func reportPlaced(_ question: MoodleQuestion) {
            for (line, message) in question.placedWarnings {
                diagnostics.append(.warning(file, line, question.label + ": " + message))
            }
            for (line, message) in question.placedErrors {
                diagnostics.append(.error(file, line, question.label + ": " + message + " (the question is not imported)"))
            }
        }

        mutating func report(_ question: MoodleQuestion, warnings: [String]) {
            for warning in warnings {
                diagnostics.append(.warning(file, question.element.line, question.label + ": " + warning))
            }
        }

        mutating func finish() -> ImportedBank {
            let kept = sections.finish(file: file, diagnostics: &diagnostics)
            if order.isMixed { diagnostics.append(.warning(file, nil, order.mixedWarning)) }
            var bank = ImportedBank(file: file, sections: kept, diagnostics: diagnostics)
            bank.choiceOrder = order
            return bank
        }
    }
}

extension BuildFailure {
    var reason: String {
        switch self {
        case let .malformed(r), let .unsupported(r): return r
        }
    }

    /// A failure of the same kind with another reason.
    static func same(as failure: BuildFailure, _ reason: String) -> BuildFailure {
        switch failure {
        case .malformed: return .malformed(reason)
        case .unsupported: return .unsupported(reason)
        }
    }
}
