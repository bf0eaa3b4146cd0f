import AssessmentKit
import Foundation

extension ResultDocument {
    /// This result scored with the whole test (opened with the proctor's passphrase): each
    /// item's response, as the seat recorded it, goes through the same `Scoring` as a scored
    /// session's, and the marks a person gave follow. Nil when the test is not this result's
    /// (another id, or items the result does not have). A result already scored is returned
    /// as it is.
    public func scored(with assessment: Assessment) -> ResultDocument? {
        guard unscored == true else { return self }
        guard !assessment.keyless, assessment.id == self.assessment.id else { return nil }
        var byID: [String: Item] = [:]
        for item in assessment.items { byID[item.id] = item }
        guard items.count == byID.count else { return nil }
        var copy = self
        for (i, result) in items.enumerated() {
            guard let item = byID[result.id], item.type.rawValue == result.type else { return nil }
            if result.outcome == .notDrawn { continue }
            let response = Response(result.response, type: item.type)
            let score = Scoring.score(item, response)
            copy.items[i].points = score.points
            copy.items[i].max = score.max
            copy.items[i].outcome = score.outcome
            copy.items[i].gaps = Self.gapResults(item, response)
            if let mark = result.mark, mark.points <= score.max {
                let marked = Scoring.marked(mark.points, max: score.max)
                copy.items[i].points = marked.points
                copy.items[i].outcome = marked.outcome
            }
        }
        copy.score = Scoring.summary(copy.items.map { ItemScore(points: $0.points, max: $0.max, outcome: $0.outcome) })
        copy.unscored = nil
        return copy
    }
}

extension Response {
    /// The response a result's JSON holds, read back for an item of `type` (the reverse of
    /// `JSONValue(response)`); nil when there is none or its shape is not the type's.
    public init?(_ value: JSONValue, type: ItemType) {
        func strings(_ values: [JSONValue]) -> [String]? {
            let out = values.compactMap { if case let .string(s) = $0 { return s } else { return nil } }
            return out.count == values.count ? out : nil
        }
        switch (type, value) {
        case let (.choice, .string(s)): self = .choice(s)
        case let (.text, .string(s)): self = .text(s)
        case let (.numeric, .string(s)): self = .numeric(s)
        case let (.essay, .string(s)): self = .essay(s)
        case let (.trueFalse, .bool(b)): self = .trueFalse(b)
        case let (.multiple, .array(a)):
            guard let picks = strings(a) else { return nil }
            self = .multiple(picks)
        case let (.order, .array(a)):
            guard let entries = strings(a) else { return nil }
            self = .order(entries)
        case let (.match, .object(o)):
            var pairs: [String: String] = [:]
            for (left, right) in o {
                guard case let .string(r) = right else { return nil }
                pairs[left] = r
            }
            self = .match(pairs)
        case let (.gaps, .array(a)):
            var entries: [[String]] = []
            for entry in a {
                switch entry {
                case .null: entries.append([])
                case let .string(s): entries.append([s])
                case let .array(picks):
                    guard let picks = strings(picks) else { return nil }
                    entries.append(picks)
                default: return nil
                }
            }
            self = .gaps(entries)
        default:
            return nil
        }
    }
}
