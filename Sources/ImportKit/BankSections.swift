/// The sections a bank's categories and descriptions make (GIFT, Moodle XML): a category starts
/// a section; a description becomes the instructions of the questions after it, in a section of
/// its own (same title) when questions came before it.
struct BankSections {
    private(set) var sections: [ImportedSection] = [ImportedSection()]
    /// The line of the first description in each section, to point at one left without a question.
    private var descriptionLines: [Int?] = [nil]

    /// A category: a new section. One with nothing in it yet (a parent category, or one
    /// emptied by skips) goes.
    mutating func start(title: String?, instructions: String? = nil) {
        if let last = sections.last, last.questions.isEmpty && last.descriptions == 0 {
            sections.removeLast()
            descriptionLines.removeLast()
        }
        sections.append(ImportedSection(title: title, instructions: instructions))
        descriptionLines.append(nil)
    }

    mutating func describe(_ text: String, line: Int?) {
        guard !text.isEmpty else { return }
        if let last = sections.last, !last.questions.isEmpty {
            sections.append(ImportedSection(title: last.title))
            descriptionLines.append(nil)
        }
        let i = sections.count - 1
        sections[i].instructions = sections[i].instructions.map { $0 + "\n\n" + text } ?? text
        sections[i].descriptions += 1
        if descriptionLines[i] == nil { descriptionLines[i] = line }
    }

    mutating func add(_ question: ImportedQuestion) {
        sections[sections.count - 1].questions.append(question)
    }

    /// The sections that hold questions; a description with no question after it is reported.
    func finish(file: String, diagnostics: inout [ImportDiagnostic]) -> [ImportedSection] {
        var kept: [ImportedSection] = []
        for (i, section) in sections.enumerated() {
            if section.questions.isEmpty {
                if section.descriptions > 0 {
                    diagnostics.append(.warning(file, descriptionLines[i], "a description with no question after it was left out"))
                }
                continue
            }
            kept.append(section)
        }
        return kept
    }
}
