/// What question banks say beyond a plain key: part credit (or a penalty) for a choice or an
/// answer, and what a student who gave it is told. `Item.kind` still holds the full-credit key,
/// so everything that only needs the key (display, shuffling) reads it as before.
///
/// Credits are percentages of the item's points, from −100 to 100, kept exactly as written.
public enum Marking: Sendable, Hashable, Codable {
    /// `choice` and `multiple`: one entry per choice, in the order of the choices.
    case choices([ChoiceMark])
    /// `true_false`: what a student who answered true, or false, is told.
    case trueFalse(ifTrue: String?, ifFalse: String?)
    /// `text`: every accepted answer, in file order.
    case texts([TextAnswer])
    /// `numeric`: every accepted value or range, in file order.
    case numbers([NumberAnswer])
}

/// One choice's credit and feedback.
public struct ChoiceMark: Sendable, Hashable, Codable {
    public var text: String
    /// Percent of the points; nil leaves it to the key (100 for the answer of a `choice`, else 0).
    public var credit: Double?
    public var feedback: String?
    public init(text: String, credit: Double? = nil, feedback: String? = nil) {
        self.text = text
        self.credit = credit
        self.feedback = feedback
    }
}

/// One accepted answer of a `text` item.
public struct TextAnswer: Sendable, Hashable, Codable {
    public var text: String
    /// Percent of the points earned by this answer.
    public var credit: Double
    public var feedback: String?
    public init(text: String, credit: Double = 100, feedback: String? = nil) {
        self.text = text
        self.credit = credit
        self.feedback = feedback
    }
}

/// One accepted value or range of a `numeric` item.
public struct NumberAnswer: Sendable, Hashable, Codable {
    public var answer: NumericAnswer
    /// Percent of the points earned by a number this answer accepts.
    public var credit: Double
    public var feedback: String?
    public init(answer: NumericAnswer, credit: Double = 100, feedback: String? = nil) {
        self.answer = answer
        self.credit = credit
        self.feedback = feedback
    }
}

extension Marking {
    /// Credit limits: a choice may take away at most all the points, or give at most all of them.
    public static let creditRange: ClosedRange<Double> = -100...100

    /// True when some choice of a `multiple` item carries a credit: the score is then the sum of
    /// the credits of the picked choices (Moodle's rule), not the key with `scoring`.
    public var scoresByChoiceCredit: Bool {
        if case let .choices(marks) = self { return marks.contains { $0.credit != nil } }
        return false
    }

    /// The key of a `text` item whose answers carry credits: the answers with the highest credit.
    public static func key(of answers: [TextAnswer]) -> [String] {
        let best = answers.map(\.credit).max() ?? 100
        return answers.filter { $0.credit == best }.map(\.text)
    }

    /// The key of a `numeric` item whose answers carry credits: the first with the highest credit.
    public static func key(of answers: [NumberAnswer]) -> NumericAnswer? {
        let best = answers.map(\.credit).max() ?? 100
        return answers.first { $0.credit == best }?.answer
    }
}
