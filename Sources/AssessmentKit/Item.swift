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

    /// The nine item types and what each needs to be scored.
    public enum Kind: Sendable, Hashable, Codable {
        case choice(choices: [String], answer: String)
        case multiple(choices: [String], answers: [String], scoring: MultipleScoring)
        case trueFalse(answer: Bool)
        case text(accept: [String], caseSensitive: Bool)
        case numeric(NumericAnswer)
        case essay(minWords: Int?, maxWords: Int?)
        case order(items: [String])
        case match(pairs: [MatchPair], distractors: [String])
        /// A text with numbered gaps (`{1}`, `{2}`, … in the prompt, in order), one entry per gap.
        case gaps([Gap])
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
        case .gaps: return .gaps
        }
    }
}

/// The `type:` names of the file format.
public enum ItemType: String, Sendable, Hashable, Codable, CaseIterable {
    case choice, multiple
    case trueFalse = "true_false"
    case text, numeric, essay, order, match, gaps
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

/// One gap of a `gaps` item: what fills it, and its weight.
public struct Gap: Sendable, Hashable, Codable {
    public var kind: GapKind
    /// The gap's own points; nil gives it an equal share. When some gaps have points, each gap
    /// without is worth 1 and the item's points are split in proportion (`Gap.shares`).
    public var points: Double?
    public init(kind: GapKind, points: Double? = nil) {
        self.kind = kind
        self.points = points
    }

    /// What each gap is worth, out of an item's points, in gap order.
    public static func shares(_ gaps: [Gap], of points: Double) -> [Double] {
        let weights = gaps.map { $0.points ?? 1 }
        let total = weights.reduce(0, +)
        guard total > 0 else { return gaps.map { _ in 0 } }
        return weights.map { points * $0 / total }
    }
}

/// What a gap accepts. Credits are percentages of the gap's share, as for whole items.
public enum GapKind: Sendable, Hashable, Codable {
    /// Typed text: every accepted answer with its credit, and whether case matters.
    case text(answers: [TextAnswer], caseSensitive: Bool)
    /// One pick among options (or several when `multiple`: the picked credits add up, Moodle's
    /// rule). An option without a credit earns nothing.
    case choice(options: [ChoiceMark], multiple: Bool)
    /// A typed number: every accepted value or range with its credit.
    case number(answers: [NumberAnswer])

    public var isChoice: Bool {
        if case .choice = self { return true }
        return false
    }

    /// The options, for a choice gap.
    public var options: [String] {
        if case let .choice(options, _) = self { return options.map(\.text) }
        return []
    }
}

extension Item {
    /// The prompt as a line of a list (the review): a gap-fill item's markers become `___`.
    public var listedPrompt: String {
        guard case .gaps = kind else { return prompt }
        var out = String.UnicodeScalarView()
        let scalars = Array(prompt.unicodeScalars)
        var at = 0
        for marker in Self.gapMarkers(in: prompt) {
            out.appendEach(scalars[at..<marker.range.lowerBound])
            out.appendEach("___".unicodeScalars)
            at = marker.range.upperBound
        }
        out.appendEach(scalars[at...])
        return String(out)
    }

    /// The places of the gaps of a `gaps` prompt: `{1}`, `{2}`, … as written (the number is
    /// the gap's; anything else in braces is text). Offsets are in Unicode scalars.
    public static func gapMarkers(in prompt: String) -> [(number: Int, range: Range<Int>)] {
        var out: [(number: Int, range: Range<Int>)] = []
        let scalars = Array(prompt.unicodeScalars)
        var i = 0
        while i < scalars.count {
            guard scalars[i] == "{" else { i += 1; continue }
            var j = i + 1
            var value = 0
            while j < scalars.count, j - i <= 4, ("0"..."9").contains(scalars[j]) {
                value = value * 10 + Int(scalars[j].value - 48)
                j += 1
            }
            if j > i + 1, j < scalars.count, scalars[j] == "}", value >= 1 {
                out.append((value, i..<(j + 1)))
                i = j + 1
            } else {
                i += 1
            }
        }
        return out
    }
}
