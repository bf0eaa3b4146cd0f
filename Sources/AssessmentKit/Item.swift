/// One question.
public struct Item: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    public var prompt: String
    public var points: Double
    public var feedback: String?
    public var kind: Kind
    /// For the proctor only (`inspect`, the proctor guide, the console); never shown to the student.
    public var proctorNote: String?
    /// Credit and feedback per choice or accepted answer; nil when the key in `kind` says it all.
    public var marking: Marking?

    public init(
        id: String, prompt: String, points: Double = 1, feedback: String? = nil, kind: Kind,
        proctorNote: String? = nil, marking: Marking? = nil
    ) {
        self.id = id
        self.prompt = prompt
        self.points = points
        self.feedback = feedback
        self.kind = kind
        self.proctorNote = proctorNote
        self.marking = marking
    }

    /// The eight item types and what each needs to be scored.
    public enum Kind: Sendable, Hashable, Codable {
        case choice(choices: [String], answer: String)
        case multiple(choices: [String], answers: [String], scoring: MultipleScoring)
        case trueFalse(answer: Bool)
        case text(accept: [String], caseSensitive: Bool)
        case numeric(NumericAnswer)
        case essay(minWords: Int?, maxWords: Int?)
        case order(items: [String])
        case match(pairs: [MatchPair], distractors: [String])
    }

    public var type: ItemType {
        switch kind {
        case .choice: return .choice
        case .multiple: return .multiple
        case .trueFalse: return .trueFalse
        case .text: return .text
        case .numeric: return .numeric
        case .essay: return .essay
        case .order: return .order
        case .match: return .match
        }
    }
}

/// The `type:` names of the file format.
public enum ItemType: String, Sendable, Hashable, Codable, CaseIterable {
    case choice, multiple
    case trueFalse = "true_false"
    case text, numeric, essay, order, match
}

public enum MultipleScoring: String, Sendable, Hashable, Codable, CaseIterable {
    case allOrNothing = "all_or_nothing"
    case partial
}

/// A numeric item accepts a value within a tolerance, or any value in a closed range.
public enum NumericAnswer: Sendable, Hashable, Codable {
    case value(Double, tolerance: Double)
    case range(Double, Double)

    public func accepts(_ x: Double) -> Bool {
        switch self {
        case let .value(answer, tolerance):
            // Decimal answers such as 3.145 against 3.14 ± 0.005 must not fail on binary rounding.
            let slack = 1e-9 * max(1, abs(answer))
            return abs(x - answer) <= tolerance + slack
        case let .range(lo, hi):
            let slack = 1e-9 * max(1, abs(lo), abs(hi))
            return x >= lo - slack && x <= hi + slack
        }
    }
}

/// One left-hand entry of a match item and the right-hand entry it belongs to.
public struct MatchPair: Sendable, Hashable, Codable {
    public var left: String
    public var right: String
    public init(left: String, right: String) {
        self.left = left
        self.right = right
    }
}
