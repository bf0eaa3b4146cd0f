/// What a seat started by the proctor holds of a sealed test (format 2's student part): the
/// questions, choices, timing and policy, and nothing that scores them. Every accepted answer,
/// correct choice, true/false key, number, credit, weight, feedback and proctor note is gone;
/// what stays is ordered so that its order says nothing either:
///
/// - choices (and a choice gap's options) keep the written order only when students see that
///   order anyway; when the test shuffles them, they are sorted, since a bank's written order
///   (Moodle, GIFT and Aiken put the right answer first) is part of the key;
/// - an order item's entries are sorted (the written order *is* the answer);
/// - a match item's right-hand entries, distractors among them, are one sorted list, each
///   left-hand entry paired with the first of it (the seat shows them all, shuffled, as before);
/// - item points are 0 (students are not shown them; the weights are part of the key).
///
/// Responses name what the student picked by its text, so the full test, opened with the
/// passphrase, scores a keyless session's responses exactly as a scored session's.
extension Assessment {
    /// This test without its answer key, as a seat's student part holds it.
    public var withoutKey: Assessment {
        var copy = self
        copy.sections = sections.map { section in
            var s = section
            s.proctorNote = nil
            s.items = section.items.map { Self.keyless($0, sortChoices: shuffle.choices) }
            return s
        }
        copy.keyless = true
        return copy
    }

    static func keyless(_ item: Item, sortChoices: Bool) -> Item {
        func shown(_ choices: [String]) -> [String] { sortChoices ? choices.sorted() : choices }
        let kind: Item.Kind
        switch item.kind {
        case let .choice(choices, _):
            kind = .choice(choices: shown(choices), answer: "")
        case let .multiple(choices, _, scoring):
            kind = .multiple(choices: shown(choices), answers: [], scoring: scoring)
        case .trueFalse:
            kind = .trueFalse(answer: false)
        case .text:
            kind = .text(accept: [], caseSensitive: false)
        case .numeric:
            kind = .numeric(.value(0, tolerance: 0))
        case let .essay(minWords, maxWords):
            kind = .essay(minWords: minWords, maxWords: maxWords)
        case let .order(entries):
            kind = .order(items: entries.sorted())
        case let .match(pairs, distractors):
            var rights: [String] = []
            for right in (pairs.map(\.right) + distractors).sorted() where rights.last != right { rights.append(right) }
            let first = rights.first ?? ""
            kind = .match(pairs: pairs.map { MatchPair(left: $0.left, right: first) }, distractors: rights)
        case let .gaps(gaps):
            kind = .gaps(gaps.map { Gap(kind: keyless($0.kind, sortChoices: sortChoices)) })
        }
        return Item(id: item.id, prompt: item.prompt, points: 0, feedback: nil, kind: kind, proctorNote: nil, marking: nil)
    }

    static func keyless(_ gap: GapKind, sortChoices: Bool) -> GapKind {
        switch gap {
        case .text: return .text(answers: [], caseSensitive: false)
        case .number: return .number(answers: [])
        case let .choice(options, multiple):
            let texts = options.map(\.text)
            return .choice(options: (sortChoices ? texts.sorted() : texts).map { ChoiceMark(text: $0) }, multiple: multiple)
        }
    }
}
