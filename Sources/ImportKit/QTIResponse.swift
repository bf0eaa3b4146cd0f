import AssessmentKit

/// A `responseDeclaration`: its correct values and its mapping (value → score).
struct QTIResponse {
    struct Mapping {
        var entries: [(key: String, value: Double, caseSensitive: Bool)]
        var lowerBound: Double?
        var upperBound: Double?
        var defaultValue: Double

        func value(of key: String) -> Double { entries.first { $0.key == key }?.value ?? defaultValue }
    }

    let identifier: String
    let baseType: String
    let cardinality: String
    let correct: [String]
    let mapping: Mapping?

    init(_ e: XElement) {
        identifier = e.attributes["identifier"] ?? ""
        baseType = e.attributes["baseType"] ?? "identifier"
        cardinality = e.attributes["cardinality"] ?? "single"
        correct = e.first("correctResponse")?.all("value").map { $0.text.trimmedPHP() } ?? []
        mapping = e.first("mapping").map { m in
            Mapping(
                entries: m.all("mapEntry").compactMap { entry in
                    guard let key = entry.attributes["mapKey"], let value = entry.attributes["mappedValue"].flatMap(Self.number) else {
                        return nil
                    }
                    return (key, value, entry.attributes["caseSensitive"] != "false")
                },
                lowerBound: m.attributes["lowerBound"].flatMap(Self.number),
                upperBound: m.attributes["upperBound"].flatMap(Self.number),
                defaultValue: m.attributes["defaultValue"].flatMap(Self.number) ?? 0)
        }
    }

    static func number(_ text: String) -> Double? { NumericText.parse(text) }

    /// True when the declaration names a correct response or maps some answer to a score.
    var hasKey: Bool { !correct.isEmpty || scale(addingUp: true) != nil }

    /// A survey item (a Likert scale) or one a person scores has no key to score by.
    static let noKey = BuildFailure.unsupported("the item names no correct response (a survey, or an item a person scores), so Carrel cannot score it")

    /// What a full score is worth in the mapping's units: its upper bound, else the best a
    /// student can collect (the sum of the positive values when several may be picked).
    func scale(addingUp: Bool) -> Double? {
        guard let mapping else { return nil }
        let positive = mapping.entries.map(\.value).filter { $0 > 0 }
        let best = addingUp ? positive.reduce(0, +) : (positive.max() ?? 0)
        let scale = min(mapping.upperBound ?? best, best)
        return scale > 0 ? scale : nil
    }

    func credit(_ value: Double, scale: Double) -> Double { ItemBuilder.clamp(100 * value / scale) }

    /// One answer: the correct value earns all the points; a mapping gives the others theirs.
    func single(_ choices: QTIChoices) throws(BuildFailure) -> BuiltKind {
        let key = try correct.first.map { id throws(BuildFailure) in try choices.text(of: id) }
        guard key != nil || mapping != nil else { throw QTIResponse.noKey }
        let scale = self.scale(addingUp: false)
        let options = try choices.ids.map { id throws(BuildFailure) -> BankOption in
            let text = try choices.text(of: id)
            guard let mapping, let scale else { return BankOption(text, credit: 0) }
            return BankOption(text, credit: credit(mapping.value(of: id), scale: scale))
        }
        return try ItemBuilder.choice(options, key: key)
    }

    /// Several answers: a mapping scores each pick; without one, the exact correct set counts.
    func multiple(_ choices: QTIChoices) throws(BuildFailure) -> BuiltKind {
        if let mapping, let scale = scale(addingUp: true) {
            let options = try choices.ids.map { id throws(BuildFailure) in
                BankOption(try choices.text(of: id), credit: credit(mapping.value(of: id), scale: scale))
            }
            return try ItemBuilder.multipleByCredit(options)
        }
        guard !correct.isEmpty else { throw QTIResponse.noKey }
        let texts = try correct.map { id throws(BuildFailure) in try choices.text(of: id) }
        let options = try choices.ids.map { id throws(BuildFailure) in BankOption(try choices.text(of: id), credit: 0) }
        return try ItemBuilder.multipleByKey(options, answers: Set(texts))
    }

    /// Accepted strings: the correct ones, and mapped ones with their share of the score.
    func text(root: XElement, _ cleaner: TextCleaner) throws(BuildFailure) -> BuiltKind {
        var options = correct.map { BankOption(cleaner.clean($0, multiLine: false), credit: 100) }
        var caseSensitive = !Self.matchesIgnoringCase(root, identifier)
        if let mapping, let scale = scale(addingUp: false) {
            let correctTexts = Set(options.map { AnswerText.normalise($0.text, caseSensitive: true) })
            for entry in mapping.entries {
                let option = BankOption(cleaner.clean(entry.key, multiLine: false), credit: credit(entry.value, scale: scale))
                // The correct response mapped again at full credit is the usual way to write
                // it, not a repeat.
                if option.credit >= 100, correctTexts.contains(AnswerText.normalise(option.text, caseSensitive: true)) { continue }
                options.append(option)
            }
            if mapping.entries.contains(where: { !$0.caseSensitive }) { caseSensitive = false }
        }
        return try ItemBuilder.text(options, caseSensitive: caseSensitive)
    }

    /// A warning when the item's own response processing compares this response with values
    /// it writes out (`<match><variable/><baseValue>…`), not with the declared correct
    /// response or mapping: Carrel scores by those, so the key may differ from the item's.
    static func customScoring(_ root: XElement, _ identifier: String) -> String? {
        guard let processing = root.first("responseProcessing"), processing.attributes["template"] == nil else { return nil }
        let tests: Set<String> = ["match", "member", "stringMatch", "equal", "equalRounded", "substring", "contains", "lt", "gt", "lte", "gte"]
        let custom = processing.descendants.contains { e in
            tests.contains(e.name)
                && e.elements.contains { $0.name == "variable" && $0.attributes["identifier"] == identifier }
                && e.elements.contains { $0.name == "baseValue" }
        }
        guard custom else { return nil }
        return "the item's response processing scores the answer against values of its own; Carrel scores by the declared correct response and mapping, so check the key"
    }

    /// `<stringMatch caseSensitive="false">` on this response in the response processing.
    static func matchesIgnoringCase(_ root: XElement, _ identifier: String) -> Bool {
        guard let processing = root.first("responseProcessing") else { return false }
        return processing.descendants.contains { e in
            e.name == "stringMatch" && e.attributes["caseSensitive"] == "false"
                && e.descendants.contains { $0.name == "variable" && $0.attributes["identifier"] == identifier }
        }
    }

    /// The correct number with the tolerance the response processing allows, and mapped numbers.
    func numeric(root: XElement) throws(BuildFailure) -> BuiltKind {
        var answers: [NumberAnswer] = []
        for written in correct {
            guard let value = Self.number(written) else { throw .malformed("the correct response “\(written.clippedForMessage)” is not a number") }
            answers.append(NumberAnswer(answer: Self.tolerance(root, identifier, around: value)))
        }
        if let mapping, let scale = scale(addingUp: false) {
            for entry in mapping.entries {
                guard let value = Self.number(entry.key) else { throw .malformed("the mapped answer “\(entry.key.clippedForMessage)” is not a number") }
                if answers.contains(where: { $0.answer.accepts(value) && $0.credit == 100 }) { continue }
                answers.append(NumberAnswer(answer: .value(value, tolerance: 0), credit: credit(entry.value, scale: scale)))
            }
        }
        guard !answers.isEmpty else { throw QTIResponse.noKey }
        return try ItemBuilder.numeric(answers)
    }

    /// `<equal toleranceMode="absolute|relative" tolerance="t0 t1">` or `<equalRounded>` around
    /// this response; exact otherwise.
    static func tolerance(_ root: XElement, _ identifier: String, around value: Double) -> NumericAnswer {
        let tests = root.first("responseProcessing")?.descendants.filter { e in
            (e.name == "equal" || e.name == "equalRounded")
                && e.descendants.contains { $0.name == "variable" && $0.attributes["identifier"] == identifier }
        } ?? []
        guard let test = tests.first else { return .value(value, tolerance: 0) }
        if test.name == "equalRounded" {
            let figures = Int(test.attributes["figures"] ?? "") ?? 0
            let decimals = test.attributes["roundingMode"] == "decimalPlaces"
                ? figures
                : figures - 1 - Int((value == 0 ? 0 : log10Floor(abs(value))))
            return .value(value, tolerance: 0.5 * pow10(-decimals))
        }
        let bounds = (test.attributes["tolerance"] ?? "").split(separator: " ").compactMap { number(String($0)) }.map(abs)
        guard let low = bounds.first else { return .value(value, tolerance: 0) }
        let high = bounds.count > 1 ? bounds[1] : low
        switch test.attributes["toleranceMode"] {
        case "absolute":
            return low == high ? .value(value, tolerance: low) : .range(value - low, value + high)
        case "relative":
            return .range(value - abs(value) * low / 100, value + abs(value) * high / 100)
        default:
            return .value(value, tolerance: 0)
        }
    }

    static func log10Floor(_ x: Double) -> Int {
        var n = 0, v = x
        while v >= 10 && n < 400 { v /= 10; n += 1 }
        while v < 1 && n > -400 { v *= 10; n -= 1 }
        return n
    }

    static func pow10(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<min(abs(n), 400) { r = n < 0 ? r / 10 : r * 10 }
        return r
    }

    /// The item's MAXSCORE outcome, when it declares one.
    static func maxScore(_ root: XElement) -> Double? {
        root.all("outcomeDeclaration").first { $0.attributes["identifier"] == "MAXSCORE" }?
            .first("defaultValue")?.first("value").flatMap { number($0.text.trimmedPHP()) }
    }

    /// The item's worth: its MAXSCORE, else what its mapping adds up to, else 1.
    static func points(root: XElement, response: QTIResponse?) -> Double {
        let declared = maxScore(root)
        let mapped = response?.scale(addingUp: response?.cardinality == "multiple")
        guard let points = declared ?? mapped, points > 0, points <= 1000 else { return 1 }
        return declared != nil ? ItemBuilder.declared(points) : ItemBuilder.points(points)
    }
}
