/// Reads one item: the keys every item has, then the keys of its type.
struct ItemDecoder {
    let fields: FieldReader

    static let commonKeys = ["id", "type", "prompt", "points", "feedback", "proctor_note"]
    /// The keys of each type beyond the common ones. A switch, not a dictionary keyed by
    /// `ItemType`: that dictionary cost every launch a search of the program's conformances.
    static func keys(of type: ItemType) -> [String] {
        switch type {
        case .choice: ["choices", "answer"]
        case .multiple: ["choices", "answer", "scoring"]
        case .trueFalse: ["answer", "feedback_true", "feedback_false"]
        case .text: ["accept", "case_sensitive"]
        case .numeric: ["answer", "tolerance", "range", "answers"]
        case .essay: ["min_words", "max_words"]
        case .order: ["items"]
        case .match: ["pairs", "distractors"]
        case .gaps: ["gaps"]
        }
    }

    /// The keys an item of each type may have, made once rather than for every item (in the
    /// order of `ItemType.allCases`).
    static let allowedByType: [(type: ItemType, keys: [String])] = ItemType.allCases.map { ($0, commonKeys + keys(of: $0)) }
    static let typeNames = ItemType.allCases.map(\.rawValue)

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
            let allowed = Self.allowedByType.first { $0.type == type }?.keys ?? Self.commonKeys
            fields.rejectUnknownKeys(map, allowed: allowed) { key in
                let owners = ItemType.allCases.filter { Self.keys(of: $0).contains(key) }
                guard !owners.isEmpty else { return nil }
                let names = owners.map { "`\($0.rawValue)`" }.joined(separator: ", ")
                return "`\(key)` does not apply to a `\(type.rawValue)` item (it belongs to \(names))"
            }
        }
        let prompt = AssessmentDecoder(fields: fields).required(map, "prompt", in: what)
            .flatMap { fields.text($0, "prompt", .multiLine) }
        let points = self.points(map)
        let feedback = map["feedback"].flatMap { fields.text($0, "feedback", .multiLine) }
        let proctorNote = map["proctor_note"].flatMap { fields.text($0, "proctor_note", .multiLine) }
        guard let type else { return nil }
        let keyed = type == .gaps ? gaps(map, prompt: prompt, what: what) : self.kind(type, map, what: what)
        guard let (kind, marking) = keyed else { return nil }
        guard let id, let prompt, var points else { return nil }
        if map["points"] == nil, case let .gaps(gaps) = kind, gaps.contains(where: { $0.points != nil }) {
            // Gaps with their own points make the item worth their sum (a gap without is worth 1).
            points = gaps.reduce(0) { $0 + ($1.points ?? 1) }
        }
        return Item(id: id, prompt: prompt, points: points, feedback: feedback, kind: kind,
                    proctorNote: proctorNote, marking: marking)
    }

    func itemType(_ map: Mapping, what: String) -> ItemType? {
        let names = Self.typeNames
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

    /// The key, and the per-option marking when the file gives one.
    typealias Keyed = (kind: Item.Kind, marking: Marking?)

    func kind(_ type: ItemType, _ map: Mapping, what: String) -> Keyed? {
        switch type {
        case .choice: return choice(map, what: what)
        case .multiple: return multiple(map, what: what)
        case .trueFalse: return trueFalse(map, what: what)
        case .text: return text(map, what: what)
        case .numeric: return numeric(map, what: what)
        case .essay: return essay(map).map { ($0, nil) }
        case .order: return order(map, what: what).map { ($0, nil) }
        case .match: return match(map, what: what).map { ($0, nil) }
        case .gaps: return gaps(map, prompt: nil, what: what)
        }
    }

    func need(_ map: Mapping, _ key: String, _ what: String) -> YNode? {
        AssessmentDecoder(fields: fields).required(map, key, in: what)
    }

    /// One choice, or one accepted answer: plain text, or `{text, credit, feedback}`.
    struct Option {
        var text: String
        var node: YNode
        var credit: Double?
        var creditNode: YNode?
        var feedback: String?
    }

    /// A list of options with no empty and no repeated text.
    func options(_ node: YNode, _ key: String, entry: String) -> [Option]? {
        guard let nodes = fields.list(node, key) else { return nil }
        var out: [Option] = []
        out.reserveCapacity(nodes.count)
        var seen = SeenTexts(capacity: nodes.count)
        var allNormal = true
        var ok = true
        for child in nodes {
            guard let option = option(child, entry: entry) else { ok = false; continue }
            // Printable ASCII with single spaces is already its own normal form.
            let isNormal = PlainText.isNormal(option.text)
            allNormal = allNormal && isNormal
            let normal = isNormal ? option.text : AnswerText.normalise(option.text, caseSensitive: true)
            if let first = seen.firstLine(of: normal) {
                fields.error(option.node, "duplicate \(entry) \"\(option.text.clippedForMessage)\" (first at line \(first))")
                ok = false
                continue
            }
            seen.add(normal, line: option.node.line)
            out.append(option)
        }
        // Entries a student could not tell apart ("Ottawa" and "Ｏｔｔａｗａ") are refused too.
        // Texts all in normal form are each their own look-alike key: no two look alike.
        if ok, !allNormal, !fields.rejectLookAlikes(out.map { (text: $0.text, node: $0.node) }, entry: entry) {
            ok = false
        }
        return ok ? out : nil
    }

    func option(_ node: YNode, entry: String) -> Option? {
        guard case .mapping = node.value else {
            return fields.text(node, entry).map { Option(text: $0, node: node) }
        }
        guard let map = fields.mapping(node, "a \(entry) written as a mapping") else { return nil }
        fields.rejectUnknownKeys(map, allowed: ["text", "credit", "feedback"])
        guard let textNode = need(map, "text", "a \(entry) written as a mapping"),
              let text = fields.text(textNode, entry) else { return nil }
        var option = Option(text: text, node: textNode)
        if let c = map["credit"] {
            guard let credit = fields.percent(c, "credit", within: Marking.creditRange) else { return nil }
            option.credit = credit
            option.creditNode = c
        }
        if let f = map["feedback"] {
            guard let feedback = fields.text(f, "feedback", .multiLine) else { return nil }
            option.feedback = feedback
        }
        return option
    }

    /// The choices of `map`: at least two, or for a gap's pick (`oneAllowed`) at least one,
    /// with a warning that a single choice gives the answer away (Moodle takes such a gap).
    func choices(_ map: Mapping, what: String, oneAllowed: Bool = false) -> [Option]? {
        guard let node = need(map, "choices", what), let list = options(node, "choices", entry: "choice") else {
            return nil
        }
        if oneAllowed && list.count == 1 {
            fields.warning(node, "\(what) has one choice, so it gives its answer away")
            return list
        }
        guard list.count >= 2 else {
            fields.error(node, "\(what) needs at least two choices")
            return nil
        }
        return list
    }

    /// Checks that an answer is one of the choices, spelled exactly.
    func among(_ answer: String, _ node: YNode, _ choices: [Option]) -> Bool {
        if choices.contains(where: { $0.text == answer }) { return true }
        let hint = DidYouMean.hint(for: answer, among: choices.map(\.text))
        fields.error(node, "answer \"\(answer.clippedForMessage)\" is not among the choices\(hint)")
        return false
    }

    /// Per-choice marks, or nil when no choice carries a credit or feedback.
    func choiceMarking(_ choices: [Option]) -> Marking? {
        guard choices.contains(where: { $0.credit != nil || $0.feedback != nil }) else { return nil }
        let marks = choices.map { ChoiceMark(text: $0.text, credit: $0.credit, feedback: $0.feedback) }
        return marks.contains(where: { $0.credit != nil || $0.feedback != nil }) ? .choices(marks) : nil
    }

    func choice(_ map: Mapping, what: String, oneAllowed: Bool = false) -> Keyed? {
        let choices = self.choices(map, what: what, oneAllowed: oneAllowed)
        guard let node = need(map, "answer", what) else { return nil }
        if case .sequence = node.value {
            fields.error(node, "a `choice` item has one answer; use type `multiple` for several")
            return nil
        }
        guard let answer = fields.text(node, "answer"), var list = choices else { return nil }
        guard among(answer, node, list) else { return nil }
        for i in list.indices {
            guard let credit = list[i].credit, let creditNode = list[i].creditNode else { continue }
            if list[i].text == answer && credit != 100 {
                fields.error(creditNode, "the answer earns all the points; leave out its credit or make it 100%")
                return nil
            }
            // What the key already says is not kept twice, so writing it out keeps the fingerprint.
            if credit == 0 || list[i].text == answer { list[i].credit = nil }
        }
        return (.choice(choices: list.map(\.text), answer: answer), choiceMarking(list))
    }

    func multiple(_ map: Mapping, what: String) -> Keyed? {
        guard var choices = self.choices(map, what: what) else { return nil }
        for i in choices.indices where choices[i].credit == 0 { choices[i].credit = nil }
        if let creditNode = choices.first(where: { $0.credit != nil })?.creditNode {
            return multipleByCredit(map, choices, creditNode: creditNode)
        }
        let scoring = map["scoring"].flatMap { fields.word($0, "scoring", as: MultipleScoring.self) } ?? .allOrNothing
        guard let node = need(map, "answer", what), let answers = fields.textList(node, "answer", entry: "answer") else {
            return nil
        }
        guard !answers.isEmpty else {
            fields.error(node, "answer is empty; a `multiple` item needs at least one correct choice")
            return nil
        }
        let allKnown = answers.map { among($0.text, $0.node, choices) }.allSatisfy { $0 }
        guard allKnown else { return nil }
        return (.multiple(choices: choices.map(\.text), answers: answers.map(\.text), scoring: scoring),
                choiceMarking(choices))
    }

    /// Moodle's multiple-answer questions: each choice's credit counts when it is picked.
    func multipleByCredit(_ map: Mapping, _ choices: [Option], creditNode: YNode) -> Keyed? {
        var ok = true
        if let answer = map.entries.first(where: { $0.key == "answer" }) {
            fields.error(map.keyNode(answer), "the choices carry credits, which already say which are right; remove `answer`")
            ok = false
        }
        if let scoring = map.entries.first(where: { $0.key == "scoring" }) {
            fields.error(map.keyNode(scoring), "`scoring` does not apply when choices carry credits: the credits of the picked choices add up")
            ok = false
        }
        let right = choices.filter { ($0.credit ?? 0) > 0 }
        if right.isEmpty {
            fields.error(creditNode, "no choice has a positive credit, so nobody could earn a point")
            ok = false
        }
        guard ok else { return nil }
        let total = right.reduce(0) { $0 + ($1.credit ?? 0) }
        if abs(total - 100) > 0.5 {
            let consequence = total < 100 ? "nobody can earn all the points" : "the score is capped at the item's points"
            fields.warning(creditNode, "the positive credits add up to \(PointsText.format(total))%, so \(consequence); make them add up to 100%")
        }
        return (.multiple(choices: choices.map(\.text), answers: right.map(\.text), scoring: .partial),
                choiceMarking(choices))
    }

    func trueFalse(_ map: Mapping, what: String) -> Keyed? {
        let ifTrue = map["feedback_true"].flatMap { fields.text($0, "feedback_true", .multiLine) }
        let ifFalse = map["feedback_false"].flatMap { fields.text($0, "feedback_false", .multiLine) }
        guard let node = need(map, "answer", what), let answer = fields.bool(node, "answer") else { return nil }
        let marking: Marking? = ifTrue == nil && ifFalse == nil ? nil : .trueFalse(ifTrue: ifTrue, ifFalse: ifFalse)
        return (.trueFalse(answer: answer), marking)
    }

    func text(_ map: Mapping, what: String) -> Keyed? {
        let caseSensitive = map["case_sensitive"].flatMap { fields.bool($0, "case_sensitive") } ?? false
        guard let node = need(map, "accept", what) else { return nil }
        let accepted: [Option]
        if case .scalar = node.value {
            guard let one = fields.text(node, "accept") else { return nil }
            accepted = [Option(text: one, node: node)]
        } else {
            guard let list = options(node, "accept", entry: "accepted answer") else { return nil }
            guard !list.isEmpty else {
                fields.error(node, "accept is empty; list at least one accepted answer")
                return nil
            }
            accepted = list
        }
        let answers = accepted.map { TextAnswer(text: $0.text, credit: $0.credit ?? 100, feedback: $0.feedback) }
        guard answers.contains(where: { $0.credit != 100 || $0.feedback != nil }) else {
            return (.text(accept: answers.map(\.text), caseSensitive: caseSensitive), nil)
        }
        guard fullCredit(answers.map(\.credit), node) else { return nil }
        return (.text(accept: Marking.key(of: answers), caseSensitive: caseSensitive), .texts(answers))
    }

    /// Refuses answers that earn nothing at best, and warns when none earns all the points.
    func fullCredit(_ credits: [Double], _ node: YNode) -> Bool {
        let best = credits.max() ?? 0
        if best <= 0 {
            fields.error(node, "no accepted answer earns a positive credit, so nobody could earn a point")
            return false
        }
        if best < 100 {
            fields.warning(node, "no accepted answer earns 100%, so nobody can earn all the points")
        }
        return true
    }

    func numeric(_ map: Mapping, what: String) -> Keyed? {
        guard let list = map["answers"] else {
            return numericAnswer(map, what: what).map { (.numeric($0), nil) }
        }
        for key in ["answer", "range", "tolerance"] {
            if let entry = map.entries.first(where: { $0.key == key }) {
                fields.error(map.keyNode(entry), "\(what) has `answers`, so `\(key)` belongs inside one of its entries")
                return nil
            }
        }
        guard let nodes = fields.list(list, "answers") else { return nil }
        guard !nodes.isEmpty else {
            fields.error(list, "answers is empty; list at least one value or range")
            return nil
        }
        let answers = nodes.map(numberAnswer)
        let read = answers.compactMap { $0 }
        guard read.count == answers.count, fullCredit(read.map(\.credit), list), let key = Marking.key(of: read) else {
            return nil
        }
        if read.count == 1 && read[0].credit == 100 && read[0].feedback == nil {
            return (.numeric(key), nil)
        }
        return (.numeric(key), .numbers(read))
    }

    /// One entry of `answers`: a value or range, with an optional credit and feedback.
    func numberAnswer(_ node: YNode) -> NumberAnswer? {
        guard let entry = fields.mapping(node, "an entry of `answers`") else { return nil }
        fields.rejectUnknownKeys(entry, allowed: ["answer", "tolerance", "range", "credit", "feedback"])
        var credit: Double? = 100
        if let c = entry["credit"] { credit = fields.percent(c, "credit", within: Marking.creditRange) }
        var feedback: String? = nil
        var feedbackOK = true
        if let f = entry["feedback"] {
            feedback = fields.text(f, "feedback", .multiLine)
            feedbackOK = feedback != nil
        }
        guard let value = numericAnswer(entry, what: "an entry of `answers`"), let credit, feedbackOK else { return nil }
        return NumberAnswer(answer: value, credit: credit, feedback: feedback)
    }

    /// `answer` with an optional `tolerance`, or `range: [lo, hi]`.
    func numericAnswer(_ map: Mapping, what: String) -> NumericAnswer? {
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
            return .value(answer, tolerance: tolerance)
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
            return .range(lo, hi)
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
            guard fields.safeText(entry.key, pairsMap.keyNode(entry), "a left-hand entry", .singleLine),
                  let right = fields.text(pairsMap.value(entry), "the match for \"\(entry.key.clippedForMessage)\"")
            else { ok = false; continue }
            if entry.key.trimmingSpaces().isEmpty {
                fields.error(pairsMap.keyNode(entry), "a left-hand entry is empty")
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
