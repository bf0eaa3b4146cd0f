import AssessmentKit

/// One converted question and where it came from.
public struct ImportedQuestion: Sendable, Hashable {
    public var item: Item
    public var file: String
    public var line: Int?
    /// The question's own name (GIFT `::title::`, a QTI identifier), the first choice for its id.
    public var name: String?

    public init(item: Item, file: String, line: Int?, name: String?) {
        self.item = item
        self.file = file
        self.line = line
        self.name = name
    }
}

/// A group of questions: a GIFT category, or one file.
public struct ImportedSection: Sendable, Hashable {
    public var title: String?
    public var instructions: String?
    public var questions: [ImportedQuestion]
    /// How many GIFT descriptions the instructions hold (Moodle counts each as a question).
    public var descriptions: Int

    public init(title: String? = nil, instructions: String? = nil, questions: [ImportedQuestion] = [], descriptions: Int = 0) {
        self.title = title
        self.instructions = instructions
        self.questions = questions
        self.descriptions = descriptions
    }
}

/// What one input file gave: its sections, and a diagnostic for everything left out or odd.
public struct ImportedBank: Sendable, Hashable {
    public var file: String
    public var sections: [ImportedSection]
    public var diagnostics: [ImportDiagnostic]

    public init(file: String, sections: [ImportedSection] = [], diagnostics: [ImportDiagnostic] = []) {
        self.file = file
        self.sections = sections
        self.diagnostics = diagnostics
    }

    public var questions: [ImportedQuestion] { sections.flatMap(\.questions) }

    /// The descriptions kept as section instructions.
    public var descriptions: Int { sections.map(\.descriptions).reduce(0, +) }
}
