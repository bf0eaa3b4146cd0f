import AssessmentKit
import Localization
import SessionKit

/// An answer begun but not finished, in words: said on the question, in the review and in
/// the submit box, so that "answered" never hides a match with rows left empty.
public enum PartDone {
    /// "2 of 3 matched", "1 of 3 gaps filled", "45 words of at least 100"; nil when the
    /// answer is whole or when there is none. A multiple-answer question is never "part
    /// done": how many of its choices are right is the question's to say, not the screen's.
    public static func phrase(_ item: Item, _ response: Response?) -> Phrase? {
        guard let response, !response.isEmpty else { return nil }
        switch (item.kind, response) {
        case let (.match(pairs, _), .match(picks)):
            let matched = pairs.filter { picks[$0.left].map { !$0.isEmpty } ?? false }.count
            guard matched < pairs.count else { return nil }
            return Phrase("{0} of {1} matched", .n(matched), .n(pairs.count))
        case let (.gaps(gaps), .gaps(entries)):
            let filled = entries.prefix(gaps.count).filter { $0.contains { !$0.allSatisfy(\.isWhitespace) } }.count
            guard filled < gaps.count else { return nil }
            return Phrase("{0} of {1} gaps filled", .n(filled), .n(gaps.count))
        case let (.essay(minWords?, _), .essay(text)):
            let words = AnswerText.wordCount(text)
            guard words < minWords else { return nil }
            return Phrase("{0, plural, one {# word of at least {1}} other {# words of at least {1}}}", .n(words), .n(minWords))
        default:
            return nil
        }
    }
}

extension SessionState {
    /// `id`'s answer begun but not finished, in words (`PartDone`).
    public func partDone(_ id: String, item: Item?) -> Phrase? {
        guard let item else { return nil }
        return PartDone.phrase(item, answer(id))
    }
}
