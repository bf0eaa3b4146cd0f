/// Reads a `gaps` item: a prompt with numbered gaps `{1}`, `{2}`, … and one `gaps` entry per
/// gap, each typed text (`accept`), a pick (`choices`), or a number (`answer`, `range`,
/// `answers`), with optional `points`.
extension ItemDecoder {
    static let gapKeys = ["accept", "case_sensitive", "choices", "answer", "multiple", "tolerance", "range",
                          "answers", "points"]

    func gaps(_ map: Mapping, prompt: String?, what: String) -> Keyed? {
        guard let node = need(map, "gaps", what), let nodes = fields.list(node, "gaps") else { return nil }
        guard !nodes.isEmpty else {
            fields.error(node, "gaps is empty; a `gaps` item needs at least one gap")
            return nil
        }
        var gaps: [Gap] = []
        var ok = true
        for (i, child) in nodes.enumerated() {
            if let gap = gap(child, what: "gap \(i + 1) of \(what)") { gaps.append(gap) } else { ok = false }
        }
        if let prompt, let promptNode = map["prompt"] {
            ok = markersMatch(prompt, count: nodes.count, promptNode, what: what) && ok
        }
        guard ok else { return nil }
        return (.gaps(gaps), nil)
    }

    /// Every gap is marked once in the prompt, numbered 1, 2, … in reading order.
    func markersMatch(_ prompt: String, count: Int, _ node: YNode, what: String) -> Bool {
        let numbers = Item.gapMarkers(in: prompt).map(\.number)
        if numbers == Array(1...count) { return true }
        if numbers.isEmpty {
            fields.error(node, "the prompt of \(what) marks no gap; write `{1}` where the first gap goes")
        } else if let repeated = numbers.first(where: { n in numbers.filter { $0 == n }.count > 1 }) {
            fields.error(node, "the prompt marks gap `{\(repeated)}` more than once; each gap goes in one place")
        } else if let extra = numbers.first(where: { $0 > count }) {
            fields.error(node, "the prompt marks gap `{\(extra)}` but `gaps` lists \(count) \(count == 1 ? "gap" : "gaps")")
        } else if numbers.count < count {
            let missing = (1...count).filter { !numbers.contains($0) }.map { "`{\($0)}`" }
            fields.error(node, "the prompt does not mark \(missing.joined(separator: ", ")); every gap in `gaps` goes in the text")
        } else {
            let written = numbers.map { "{\($0)}" }.joined(separator: " ")
            fields.error(node, "the prompt marks its gaps in the order \(written); number them 1, 2, … as they are read")
        }
        return false
    }

    func gap(_ node: YNode, what: String) -> Gap? {
        guard let map = fields.mapping(node, what) else { return nil }
        fields.rejectUnknownKeys(map, allowed: Self.gapKeys)
        var points: Double? = nil
        if let p = map["points"] {
            guard let value = fields.number(p, "points"), value > 0, value <= 1000 else {
                if fields.number(p, "points") != nil { fields.error(p, "a gap's points must be above 0 and at most 1000") }
                return nil
            }
            points = value
        }
        let kind: GapKind?
        if map.has("accept") {
            kind = textGap(map, what: what)
        } else if map.has("choices") {
            kind = choiceGap(map, what: what)
        } else if map.has("answer") || map.has("range") || map.has("answers") {
            kind = numberGap(map, what: what)
        } else {
            fields.error(map.node, "\(what) needs `accept` (typed text), `choices` (a pick) or `answer` (a number)")
            return nil
        }
        return kind.map { Gap(kind: $0, points: points) }
    }

    func textGap(_ map: Mapping, what: String) -> GapKind? {
        for key in ["choices", "multiple", "tolerance", "range", "answers", "answer"] { refuse(key, in: map, kind: "typed text") }
        guard let (kind, marking) = text(map, what: what), case let .text(accept, caseSensitive) = kind else { return nil }
        if case let .texts(answers)? = marking { return .text(answers: answers, caseSensitive: caseSensitive) }
        return .text(answers: accept.map { TextAnswer(text: $0) }, caseSensitive: caseSensitive)
    }

    func numberGap(_ map: Mapping, what: String) -> GapKind? {
        for key in ["case_sensitive", "multiple"] { refuse(key, in: map, kind: "number") }
        guard let (kind, marking) = numeric(map, what: what), case let .numeric(key) = kind else { return nil }
        if case let .numbers(answers)? = marking { return .number(answers: answers) }
        return .number(answers: [NumberAnswer(answer: key)])
    }

    func choiceGap(_ map: Mapping, what: String) -> GapKind? {
        for key in ["case_sensitive", "tolerance", "range", "answers"] { refuse(key, in: map, kind: "pick") }
        var several = false
        if let m = map["multiple"] {
            guard let value = fields.bool(m, "multiple") else { return nil }
            several = value
        }
        if case .sequence? = map["answer"]?.value { several = true }
        guard several else {
            guard let (kind, marking) = choice(map, what: what, oneAllowed: true), case let .choice(choices, answer) = kind else { return nil }
            var marks = choices.map { ChoiceMark(text: $0) }
            if case let .choices(given)? = marking { marks = given }
            for i in marks.indices where marks[i].text == answer { marks[i].credit = 100 }
            return .choice(options: marks, multiple: false)
        }
        guard let (kind, marking) = multiple(map, what: what),
              case let .multiple(choices, answers, _) = kind else { return nil }
        if case let .choices(given)? = marking, marking?.scoresByChoiceCredit == true {
            return .choice(options: given, multiple: true)
        }
        // Without credits, each right pick earns its share and each wrong pick takes one away.
        let share = 100 / Double(answers.count)
        var marks = choices.map { ChoiceMark(text: $0, credit: answers.contains($0) ? share : -share) }
        if case let .choices(given)? = marking {
            for i in marks.indices { marks[i].feedback = given[i].feedback }
        }
        return .choice(options: marks, multiple: true)
    }

    func refuse(_ key: String, in map: Mapping, kind: String) {
        guard let entry = map.entries.first(where: { $0.key == key }) else { return }
        fields.error(map.keyNode(entry), "`\(key)` does not apply to a gap for a \(kind)")
    }
}
