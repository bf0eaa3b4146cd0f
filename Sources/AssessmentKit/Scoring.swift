/// How one response fared.
public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
    case correct, incorrect, partial, unanswered, pending
    /// A pool left the item out of this session: the student was never given it.
    case notDrawn = "not_drawn"
}

public struct ItemScore: Sendable, Hashable, Codable {
    public var points: Double
    public var max: Double
    public var outcome: Outcome
    public init(points: Double, max: Double, outcome: Outcome) {
        self.points = points
        self.max = max
        self.outcome = outcome
    }
}

/// Totals for a whole attempt; `pending` is the points still to be marked by a person.
public struct ScoreSummary: Sendable, Hashable, Codable {
    public var points: Double
    public var max: Double
    public var pending: Double
    public init(points: Double, max: Double, pending: Double) {
        self.points = points
        self.max = max
        self.pending = pending
    }
}

/// Scoring as pure functions of an item and a response.
public enum Scoring {
    public static func score(_ item: Item, _ response: Response?) -> ItemScore {
        let max = item.points
        guard let response, !response.isEmpty else {
            return ItemScore(points: 0, max: max, outcome: .unanswered)
        }
        guard let fraction = markedCredit(item, response) ?? credit(item.kind, response) else {
            return ItemScore(points: 0, max: max, outcome: .pending)
        }
        var clamped = Swift.min(1, Swift.max(0, fraction))
        // Credits such as 3 × 33.33333% are meant as the whole.
        if 1 - clamped < 1e-6 { clamped = 1 }
        return ItemScore(points: rounded(clamped * max), max: max, outcome: outcome(fraction: clamped))
    }

    /// A person's mark of `points` out of `max` (already checked to lie between them): it
    /// reads as right, wrong or part right exactly as an automatic score would.
    public static func marked(_ points: Double, max: Double) -> ItemScore {
        let fraction = max > 0 ? points / max : 0
        return ItemScore(points: rounded(points), max: max, outcome: outcome(fraction: fraction))
    }

    static func outcome(fraction: Double) -> Outcome {
        fraction >= 1 ? .correct : (fraction <= 0 ? .incorrect : .partial)
    }

    public static func summary(_ assessment: Assessment, responses: [String: Response]) -> ScoreSummary {
        summary(assessment.items.map { score($0, responses[$0.id]) })
    }

    /// Totals of item scores; a pending item counts its points as still to be marked.
    public static func summary(_ scores: [ItemScore]) -> ScoreSummary {
        var total = ScoreSummary(points: 0, max: 0, pending: 0)
        for s in scores {
            total.points += s.points
            total.max += s.max
            if s.outcome == .pending { total.pending += s.max }
        }
        total.points = rounded(total.points)
        return total
    }

    /// Fraction of the points earned, or nil when a person must mark it.
    static func credit(_ kind: Item.Kind, _ response: Response) -> Double? {
        switch (kind, response) {
        case let (.choice(_, answer), .choice(pick)):
            return pick == answer ? 1 : 0
        case let (.multiple(_, answers, scoring), .multiple(picks)):
            return multipleCredit(answers: answers, picks: picks, scoring: scoring)
        case let (.trueFalse(answer), .trueFalse(pick)):
            return pick == answer ? 1 : 0
        case let (.text(accept, caseSensitive), .text(typed)):
            let given = AnswerText.normalise(typed, caseSensitive: caseSensitive)
            return accept.contains { AnswerText.normalise($0, caseSensitive: caseSensitive) == given } ? 1 : 0
        case let (.numeric(answer), .numeric(typed)):
            guard let value = NumericText.parse(typed) else { return 0 }
            return answer.accepts(value) ? 1 : 0
        case (.essay, .essay):
            return nil
        case let (.order(correct), .order(given)):
            return orderCredit(correct: correct, given: given)
        case let (.match(pairs, _), .match(picks)):
            guard !pairs.isEmpty else { return 0 }
            let right = pairs.filter { picks[$0.left] == $0.right }.count
            return Double(right) / Double(pairs.count)
        case let (.gaps(gaps), .gaps(entries)):
            let weights = Gap.shares(gaps, of: 1)
            var sum = 0.0
            for (i, gap) in gaps.enumerated() where i < entries.count {
                sum += weights[i] * gapCredit(gap.kind, entries[i])
            }
            return sum
        default:
            // A response of another item type cannot earn points.
            return 0
        }
    }

    /// Fraction earned under per-option credits, or nil when there are none and the key decides.
    static func markedCredit(_ item: Item, _ response: Response) -> Double? {
        guard let marking = item.marking else { return nil }
        switch (marking, item.kind, response) {
        case let (.choices(marks), .choice(_, answer), .choice(pick)):
            guard let mark = marks.first(where: { $0.text == pick }) else { return 0 }
            return (mark.credit ?? (pick == answer ? 100 : 0)) / 100
        case let (.choices(marks), .multiple, .multiple(picks)) where marking.scoresByChoiceCredit:
            // Moodle's multiple-answer rule: the credits of the picked choices add up.
            let chosen = Set(picks)
            let sum = marks.filter { chosen.contains($0.text) }.reduce(0) { $0 + ($1.credit ?? 0) }
            return sum / 100
        case let (.texts(answers), .text(_, caseSensitive), .text(typed)):
            let given = AnswerText.normalise(typed, caseSensitive: caseSensitive)
            let matching = answers.filter { AnswerText.normalise($0.text, caseSensitive: caseSensitive) == given }
            return (matching.map(\.credit).max() ?? 0) / 100
        case let (.numbers(answers), .numeric, .numeric(typed)):
            guard let value = NumericText.parse(typed) else { return 0 }
            return (answers.filter { $0.answer.accepts(value) }.map(\.credit).max() ?? 0) / 100
        default:
            return nil
        }
    }

    /// Each gap's score, in gap order: its share of the item's points and what the entry earned.
    public static func gapScores(_ item: Item, _ response: Response?) -> [ItemScore] {
        guard case let .gaps(gaps) = item.kind else { return [] }
        let shares = Gap.shares(gaps, of: item.points)
        var entries: [[String]] = []
        if case let .gaps(given)? = response { entries = given }
        return gaps.enumerated().map { i, gap in
            let entry = i < entries.count ? entries[i] : []
            guard entry.contains(where: { !$0.trimmingSpaces().isEmpty }) else {
                return ItemScore(points: 0, max: shares[i], outcome: .unanswered)
            }
            var fraction = gapCredit(gap.kind, entry)
            if 1 - fraction < 1e-6 { fraction = 1 }
            return ItemScore(points: rounded(fraction * shares[i]), max: shares[i], outcome: outcome(fraction: fraction))
        }
    }

    /// What one gap's entry earns, from 0 to 1: a gap's penalty never takes from another gap.
    static func gapCredit(_ kind: GapKind, _ entry: [String]) -> Double {
        let credit: Double
        switch kind {
        case let .text(answers, caseSensitive):
            guard let typed = entry.first else { return 0 }
            let given = AnswerText.normalise(typed, caseSensitive: caseSensitive)
            let matching = answers.filter { AnswerText.normalise($0.text, caseSensitive: caseSensitive) == given }
            credit = matching.map(\.credit).max() ?? 0
        case let .choice(options, multiple):
            let picked = multiple ? Set(entry) : Set(entry.prefix(1))
            credit = options.filter { picked.contains($0.text) }.reduce(0) { $0 + ($1.credit ?? 0) }
        case let .number(answers):
            guard let typed = entry.first, let value = NumericText.parse(typed) else { return 0 }
            credit = answers.filter { $0.answer.accepts(value) }.map(\.credit).max() ?? 0
        }
        return Swift.min(1, Swift.max(0, credit / 100))
    }

    /// Partial: +1/k per correct pick, −1/k per wrong pick, floor 0 (k = number of answers).
    static func multipleCredit(answers: [String], picks: [String], scoring: MultipleScoring) -> Double {
        let key = Set(answers), chosen = Set(picks)
        switch scoring {
        case .allOrNothing:
            return key == chosen ? 1 : 0
        case .partial:
            guard !key.isEmpty else { return 0 }
            let right = chosen.intersection(key).count
            let wrong = chosen.subtracting(key).count
            return Swift.max(0, Double(right - wrong) / Double(key.count))
        }
    }

    /// Each of the n−1 neighbouring pairs of the correct order that stands next to each other,
    /// in the right order, in the response earns 1/(n−1).
    static func orderCredit(correct: [String], given: [String]) -> Double {
        guard correct.count >= 2, given.count == correct.count, Set(given) == Set(correct) else {
            return given == correct ? 1 : 0
        }
        var position: [String: Int] = [:]
        for (i, entry) in given.enumerated() { position[entry] = i }
        var kept = 0
        for i in 0..<(correct.count - 1) {
            if let a = position[correct[i]], let b = position[correct[i + 1]], b == a + 1 { kept += 1 }
        }
        return Double(kept) / Double(correct.count - 1)
    }

    /// Points are kept to 1/10000 so sums of thirds print cleanly.
    static func rounded(_ x: Double) -> Double {
        (x * 10_000).rounded() / 10_000
    }
}
