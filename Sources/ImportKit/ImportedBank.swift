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

/// A group of questions: a GIFT category, one file, or a section of a QTI test.
public struct ImportedSection: Sendable, Hashable {
    public var title: String?
    public var instructions: String?
    public var questions: [ImportedQuestion]
    /// How many GIFT descriptions the instructions hold (Moodle counts each as a question).
    public var descriptions: Int
    /// For the proctor only (a QTI section's rubric for the scorer, proctor or tutor).
    public var proctorNote: String?
    /// A pool: each session is given this many of the questions (a QTI `selection`).
    public var draw: Int?
    /// Where the section was written, for diagnostics about it as a whole.
    public var file: String?
    public var line: Int?

    public init(title: String? = nil, instructions: String? = nil, questions: [ImportedQuestion] = [], descriptions: Int = 0,
                proctorNote: String? = nil, draw: Int? = nil, file: String? = nil, line: Int? = nil) {
        self.title = title
        self.instructions = instructions
        self.questions = questions
        self.descriptions = descriptions
        self.proctorNote = proctorNote
        self.draw = draw
        self.file = file
        self.line = line
    }
}

/// What one input file gave: its sections, and a diagnostic for everything left out or odd.
public struct ImportedBank: Sendable, Hashable {
    public var file: String
    public var sections: [ImportedSection]
    public var diagnostics: [ImportDiagnostic]
    /// How many questions with choices the bank says to shuffle, and how many to keep in order
    /// (Moodle XML's `<shuffleanswers>`); both 0 when the format does not say.
    public var choiceOrder = ChoiceOrder()
    /// What a QTI test says of the whole assessment: its title, time limit (seconds),
    /// navigation and whether items are shuffled within their sections.
    public var title: String?
    public var timeLimit: Int?
    public var navigation: Navigation?
    public var shuffleItems = false

    public init(file: String, sections: [ImportedSection] = [], diagnostics: [ImportDiagnostic] = []) {
        self.file = file
        self.sections = sections
        self.diagnostics = diagnostics
    }

    public var questions: [ImportedQuestion] { sections.flatMap(\.questions) }

    /// The descriptions kept as section instructions.
    public var descriptions: Int { sections.map(\.descriptions).reduce(0, +) }
}

/// Questions whose choices a bank shuffles, and questions whose choices it keeps in order.
public struct ChoiceOrder: Sendable, Hashable {
    public var shuffled = 0
    public var inOrder = 0
    public init(shuffled: Int = 0, inOrder: Int = 0) {
        self.shuffled = shuffled
        self.inOrder = inOrder
    }

    /// A Carrel assessment shuffles every question's choices or none: all, when every
    /// question that says shuffles them; none as soon as one keeps its order (its choices may
    /// read "all of the above").
    public var shufflesAll: Bool { shuffled > 0 && inOrder == 0 }

    public var isMixed: Bool { shuffled > 0 && inOrder > 0 }

    public static func + (a: ChoiceOrder, b: ChoiceOrder) -> ChoiceOrder {
        ChoiceOrder(shuffled: a.shuffled + b.shuffled, inOrder: a.inOrder + b.inOrder)
    }

    /// Why choices stay in order although some questions shuffle them.
    public var mixedWarning: String {
        "\(shuffled) question\(shuffled == 1 ? "" : "s") shuffle their choices in Moodle and \(inOrder) keep\(inOrder == 1 ? "s" : "") them in order; "
            + "an assessment shuffles every question's choices or none, so they stay in order (write `shuffle: {choices: true}` to shuffle them all)"
    }
}
