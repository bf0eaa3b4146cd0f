/// Reads one item: the keys every item has, then the keys of its type.
struct ItemDecoder {
    let fields: FieldReader

    static let commonKeys = ["id", "type", "prompt", "points", "feedback"]
    static let keysByType: [ItemType: [String]] = [
        .choice: ["choices", "answer"],
        .multiple: ["choices", "answer", "scoring"],
        .trueFalse: ["answer"],
        .text: ["accept", "case_sensitive"],
        .numeric: ["answer", "tolerance", "range"],
        .essay: ["min_words", "max_words"],
        .order: ["items"],
        .match: ["pairs", "distractors"],
    ]

    func item(_ node: YNode, ids: inout AssessmentDecoder.ItemIDs) -> Item? {
        guard let map = fields.mapping(node, "an item") else { return nil }
        let idNode = map["id"]
        let id = AssessmentDecoder(fields: fields).identifier(map, "id", what: "an item")
        if let id, let idNode {
            if let first = ids.firstLine[id] {
                fields.error(idNode, "duplicate item id \"\(id)\" (first used at line \(first))")
            } else {
                ids.firstLine[id] = idNode.line
            }
        }
        let what = id.map { "item \"\($0)\"" } ?? "an item"
        let type = itemType(map, what: what)
        if let type {
            let allowed = Self.commonKeys + (Self.keysByType[type] ?? [])
            fields.rejectUnknownKeys(map, allowed: allowed) { key in
                let owners = ItemType.allCases.filter { Self.keysByType[$0]?.contains(key) == true }
                guard !owners.isEmpty else { return nil }
                let names = owners.map { "`\($0.rawValue)`" }.joined(separator: ", ")
                return "`\(key)` does not apply to a `\(type.rawValue)` item (it belongs to \(names))"
            }
        }
        let prompt = AssessmentDecoder(fields: fields).required(map, "prompt", in: what)
            .flatMap { fields.text($0, "prompt", .multiLine) }
        let points = self.points(map)
        let feedback = map["feedback"].flatMap { fields.text($0, "feedback", .multiLine) }
        guard let type else { return nil }
        let kind = self.kind(type, map, what: what)
        guard let id, let prompt, let points, let kind else { return nil }
        return Item(id: id, prompt: prompt, points: points, feedback: feedback, kind: kind)
    }

    func itemType(_ map: Mapping, what: String) -> ItemType? {
        let names = ItemType.allCases.map(\.rawValue)
        guard let node = map["type"] else {
            fields.error(map.node, "\(what) is missing `type`: one of \(names.joined(separator: ", "))")
            return nil
        }
        guard let (value, _) = fields.scalar(node, "type") else { return nil }
        guard let type = ItemType(rawValue: value) else {
            let hint = DidYouMean.hint(for: value, among: names)
            fields.error(node, "unknown item type \"\(value.clippedForMessage)\"; the types are \(names.joined(separator: ", "))\(hint)")
            return nil
        }
        return type
    }

    func points(_ map: Mapping) -> Double? {
        guard let node = map["points"] else { return 1 }
        guard let value = fields.number(node, "points") else { return nil }
        guard value >= 0, value <= 1000 else {
            fields.error(node, "points must be between 0 and 1000")
            return nil
        }
        if value == 0 { fields.warning(node, "this item is worth 0 points") }
        return value
    }

    func kind(_ type: ItemType, _ map: Mapping, what: String) -> Item.Kind? {
        switch type {
        case .choice: return choice(map, what: what)
        case .multiple: return multiple(map, what: what)
        case .trueFalse: return trueFalse(map, what: what)
        case .text: return text(map, what: what)
        case .numeric: return numeric(map, what: what)
        case .essay: return essay(map)
        case .order: return order(map, what: what)
        case .match: return match(map, what: what)
        }
    }

    func need(_ map: Mapping, _ key: String, _ what: String) -> YNode? {
        AssessmentDecoder(fields: fields).required(map, key, in: what)
    }

    func choices(_ map: Mapping, what: String) -> [(text: String, node: YNode)]? {
        guard let node = need(map, "choices", what), let list = fields.textList(node, "choices", entry: "choice") else {
            return nil
        }
        guard list.count >= 2 else {
            fields.error(node, "\(what) needs at least two choices")
            return nil
        }
        return list
    }

    /// Checks that an answer is one of the choices, spelled exactly.
    func among(_ answer: String, _ node: YNode, _ choices: [(text: String, node: YNode)]) -> Bool {
        if choices.contains(where: { $0.text == answer }) { return true }
        let hint = DidYouMean.hint(for: answer, among: choices.map(\.text))
        fields.error(node, "answer \"\(answer.clippedForMessage)\" is not among the choices\(hint)")
        return false
    }

    func choice(_ map: Mapping, what: String) -> Item.Kind? {
        let choices = self.choices(map, what: what)
        guard let node = need(map, "answer", what) else { return nil }
        if case .sequence = node.value {
            fields.error(node, "a `choice` item has one answer; use type `multiple` for several")
            return nil
        }
        guard let answer = fields.text(node, "answer"), let choices else { return nil }
        guard among(answer, node, choices) else { return nil }
        return .choice(choices: choices.map(\.text), answer: answer)
    }

    func multiple(_ map: Mapping, what: String) -> Item.Kind? {
        let choices = self.choices(map, what: what)
        let scoring = map["scoring"].flatMap { fields.word($0, "scoring", as: MultipleScoring.self) } ?? .allOrNothing
        guard let node = need(map, "answer", what), let answers = fields.textList(node, "answer", entry: "answer") else {
            return nil
        }
        guard !answers.isEmpty else {
            fields.error(node, "answer is empty; a `multiple` item needs at least one correct choice")
            return nil
        }
        guard let choices else { return nil }
        let allKnown = answers.map { among($0.text, $0.node, choices) }.allSatisfy { $0 }
        guard allKnown else { return nil }
        return .multiple(choices: choices.map(\.text), answers: answers.map(\.text), scoring: scoring)
    }

    func trueFalse(_ map: Mapping, what: String) -> Item.Kind? {
        guard let node = need(map, "answer", what), let answer = fields.bool(node, "answer") else { return nil }
        return .trueFalse(answer: answer)
    }

    func text(_ map: Mapping, what: String) -> Item.Kind? {
        let caseSensitive = map["case_sensitive"].flatMap { fields.bool($0, "case_sensitive") } ?? false
        guard let node = need(map, "accept", what) else { return nil }
        let accepted: [String]
        if case .scalar = node.value {
            guard let one = fields.text(node, "accept") else { return nil }
            accepted = [one]
        } else {
            guard let list = fields.textList(node, "accept", entry: "accepted answer") else { return nil }
            guard !list.isEmpty else {
                fields.error(node, "accept is empty; list at least one accepted answer")
                return nil
            }
            accepted = list.map(\.text)
        }
        return .text(accept: accepted, caseSensitive: caseSensitive)
    }

    func numeric(_ map: Mapping, what: String) -> Item.Kind? {
        let answerNode = map["answer"], rangeNode = map["range"], toleranceNode = map["tolerance"]
        switch (answerNode, rangeNode) {
        case (nil, nil):
            fields.error(map.node, "\(what) needs `answer` (with an optional `tolerance`) or `range: [lo, hi]`")
            return nil
        case let (a?, r?):
            fields.error(r.line < a.line ? a : r, "\(what) has both `answer` and `range`; keep one")
            return nil
        case let (a?, nil):
            guard let answer = fields.number(a, "answer") else { return nil }
            var tolerance = 0.0
            if let t = toleranceNode {
                guard let value = fields.number(t, "tolerance") else { return nil }
                guard value >= 0 else {
                    fields.error(t, "tolerance must not be negative")
                    return nil
                }
                tolerance = value
            }
            return .numeric(.value(answer, tolerance: tolerance))
        case let (nil, r?):
            if let t = toleranceNode {
                fields.error(t, "tolerance goes with `answer`, not with `range`")
                return nil
            }
            guard let bounds = fields.list(r, "range") else { return nil }
            guard bounds.count == 2 else {
                fields.error(r, "range must be two numbers: [lo, hi]")
                return nil
            }
            guard let lo = fields.number(bounds[0], "range lo"), let hi = fields.number(bounds[1], "range hi") else {
                return nil
            }
            guard lo <= hi else {
                fields.error(r, "range [\(PointsText.format(lo)), \(PointsText.format(hi))] has lo greater than hi")
                return nil
            }
            return .numeric(.range(lo, hi))
        }
    }

    func essay(_ map: Mapping) -> Item.Kind? {
        let minNode = map["min_words"], maxNode = map["max_words"]
        let minWords = minNode.flatMap { fields.wholeNumber($0, "min_words") }
        let maxWords = maxNode.flatMap { fields.wholeNumber($0, "max_words", atLeast: 1) }
        if (minNode != nil && minWords == nil) || (maxNode != nil && maxWords == nil) { return nil }
        if let lo = minWords, let hi = maxWords, let node = minNode, lo > hi {
            fields.error(node, "min_words (\(lo)) is greater than max_words (\(hi))")
            return nil
        }
        return .essay(minWords: minWords, maxWords: maxWords)
    }

    func order(_ map: Mapping, what: String) -> Item.Kind? {
        guard let node = need(map, "items", what), let entries = fields.textList(node, "items", entry: "entry") else {
            return nil
        }
        guard entries.count >= 2 else {
            fields.error(node, "\(what) needs at least two entries to put in order")
            return nil
        }
        return .order(items: entries.map(\.text))
    }

    func match(_ map: Mapping, what: String) -> Item.Kind? {
        guard let node = need(map, "pairs", what), let pairsMap = fields.mapping(node, "pairs") else { return nil }
        var pairs: [MatchPair] = []
        var ok = true
        for entry in pairsMap.entries {
            guard fields.safeText(entry.key, entry.keyNode, "a left-hand entry", .singleLine),
                  let right = fields.text(entry.value, "the match for \"\(entry.key.clippedForMessage)\"")
            else { ok = false; continue }
            if entry.key.trimmingSpaces().isEmpty {
                fields.error(entry.keyNode, "a left-hand entry is empty")
                ok = false
                continue
            }
            pairs.append(MatchPair(left: entry.key, right: right))
        }
        guard ok else { return nil }
        guard pairs.count >= 2 else {
            fields.error(node, "a `match` item needs at least two pairs")
            return nil
        }
        var distractors: [String] = []
        if let d = map["distractors"] {
            guard let list = fields.textList(d, "distractors", entry: "distractor") else { return nil }
            let rights = Set(pairs.map(\.right))
            for entry in list where rights.contains(entry.text) {
                fields.error(entry.node, "distractor \"\(entry.text.clippedForMessage)\" is also a correct match")
                ok = false
            }
            distractors = list.map(\.text)
        }
        // Entries a student could not tell apart (TerminalSafety.lookAlikeKey).
        guard ok, fields.rejectLookAlikeMatch(pairsMap, distractors: map["distractors"]) else { return nil }
        return .match(pairs: pairs, distractors: distractors)
    }
}
