import AssessmentKit

/// A choice or an accepted answer as a bank gives it: cleaned text, credit in percent, feedback.
struct BankOption: Sendable, Hashable {
    var text: String
    var credit: Double
    var feedback: String?

    init(_ text: String, credit: Double, feedback: String? = nil) {
        self.text = text
        self.credit = credit
        self.feedback = feedback
    }
}

/// A question that could not become an item: malformed (an error) or of a kind Carrel has no
/// equivalent for (skipped, a warning).
enum BuildFailure: Error, Sendable, Equatable {
    case malformed(String)
    case unsupported(String)

    func diagnostic(_ file: String, _ line: Int?) -> ImportDiagnostic {
        switch self {
        case let .malformed(reason): return .error(file, line, reason)
        case let .unsupported(reason): return .skip(file, line, reason)
        }
    }
}

/// What a converted question is: its key, its marking, and notes for the teacher.
struct BuiltKind: Sendable {
    var kind: Item.Kind
    var marking: Marking? = nil
    var warnings: [String] = []
}

/// Turns options as banks state them into item kinds the validator accepts: empty options
/// dropped, repeated ones merged, credits kept within −100 % … 100 %.
enum ItemBuilder {
    /// A credit within −100 % … 100 %, without rounding noise.
    static func clamp(_ credit: Double) -> Double { snapped(min(100, max(-100, credit))) }

    /// A computed number as the round value it stands for: within a billionth of a number of
    /// at most six decimals, that number (49.99999999999999 → 50, 0.30000000000000004 → 0.3),
    /// so no rounding noise reaches the file; any other number as it is.
    static func snapped(_ x: Double) -> Double {
        guard x.isFinite, abs(x) < 1e9 else { return x }
        var scale = 1.0
        for _ in 0...6 {
            let round = (x * scale).rounded() / scale
            if abs(x - round) <= 1e-9 * max(1, abs(x)) { return round }
            scale *= 10
        }
        return x
    }

    /// Points computed from a mapping, in hundredths of a point (a third of a point is 0.33),
    /// never below 0.01.
    static func points(_ x: Double) -> Double { max(0.01, (snapped(x) * 100).rounded() / 100) }

    /// Points a test declares (QTI's MAXSCORE), as declared: to four decimals (0.125 stays 0.125).
    static func declared(_ x: Double) -> Double { max(0.0001, snapped((x * 10_000).rounded() / 10_000)) }

    /// Drops empty options and merges repeats (keeping the best credit and the first feedback).
    static func merged(_ options: [BankOption], what: String, warnings: inout [String]) -> [BankOption] {
        var out: [BankOption] = []
        var index: [String: Int] = [:]
        var dropped = 0
        for option in options {
            guard !option.text.isEmpty else { dropped += 1; continue }
            let key = AnswerText.normalise(option.text, caseSensitive: true)
            if let i = index[key] {
                warnings.append("two \(what)s read “\(option.text.clippedForMessage)”; kept one")
                out[i].credit = max(out[i].credit, clamp(option.credit))
                if out[i].feedback == nil { out[i].feedback = option.feedback }
                continue
            }
            index[key] = out.count
            out.append(BankOption(option.text, credit: clamp(option.credit), feedback: option.feedback))
        }
        if dropped > 0 { warnings.append("left out \(dropped) empty \(what)\(dropped == 1 ? "" : "s")") }
        return out
    }

    /// Why choices too few to pick from are refused; when there were several but all read the
    /// same, it says they are identical.
    static func tooFew(_ options: [BankOption], kept: [BankOption], _ question: String) -> BuildFailure {
        let written = options.filter { !$0.text.isEmpty }.count
        if written >= 2, kept.count == 1, let only = kept.first {
            return .malformed("the \(written) choices are identical (each reads “\(only.text.clippedForMessage)”); \(question) needs at least two different choices")
        }
        return .malformed("\(question) needs at least two different choices")
    }

    /// One answer: the first option with the highest credit earns all the points; others keep
    /// their credit (part of the points) and feedback.
    /// `key`, when given, is the answer whatever the credits say (QTI's correct response).
    static func choice(_ options: [BankOption], key: String? = nil) throws(BuildFailure) -> BuiltKind {
        var warnings: [String] = []
        let choices = merged(options, what: "choice", warnings: &warnings)
        guard choices.count >= 2 else { throw tooFew(options, kept: choices, "a question with one answer to pick") }
        let best = choices.map(\.credit).max() ?? 0
        guard let answer = key.flatMap({ k in choices.first { $0.text == k } }) ?? choices.first(where: { $0.credit == best }),
              key != nil || best > 0
        else {
            throw .malformed("none of the choices is marked right")
        }
        if key == nil && best < 100 { warnings.append("the best choice earned \(AssessmentWriter.number(best))%; it now earns all the points") }
        let marks = choices.map { c -> ChoiceMark in
            let credit: Double? = c.text == answer.text || c.credit == 0 ? nil : c.credit
            return ChoiceMark(text: c.text, credit: credit, feedback: c.feedback)
        }
        let marking: Marking? = marks.contains { $0.credit != nil || $0.feedback != nil } ? .choices(marks) : nil
        return BuiltKind(kind: .choice(choices: choices.map(\.text), answer: answer.text), marking: marking, warnings: warnings)
    }

    /// Several answers, each choice earning (or costing) its credit when picked.
    static func multipleByCredit(_ options: [BankOption]) throws(BuildFailure) -> BuiltKind {
        var warnings: [String] = []
        let choices = merged(options, what: "choice", warnings: &warnings)
        guard choices.count >= 2 else { throw tooFew(options, kept: choices, "a question with several answers to pick") }
        let right = choices.filter { $0.credit > 0 }
        guard !right.isEmpty else { throw .malformed("no choice earns a positive credit, so nobody could earn a point") }
        let total = right.reduce(0) { $0 + $1.credit }
        if abs(total - 100) > 0.5 {
            warnings.append("the positive credits add up to \(AssessmentWriter.number(total))%, not 100%")
        }
        if right.count < choices.count, !choices.contains(where: { $0.credit < 0 }) {
            // Nothing costs anything: whoever ticks every box gets every right one.
            warnings.append("ticking every choice earns full marks, since no wrong choice takes credit away; give the wrong choices negative credits, or make it a question with one answer")
        }
        let marks = choices.map { ChoiceMark(text: $0.text, credit: $0.credit == 0 ? nil : $0.credit, feedback: $0.feedback) }
        return BuiltKind(kind: .multiple(choices: choices.map(\.text), answers: right.map(\.text), scoring: .partial),
                         marking: .choices(marks), warnings: warnings)
    }

    /// Several answers, all of the right ones needed (QTI without a mapping).
    static func multipleByKey(_ options: [BankOption], answers: Set<String>) throws(BuildFailure) -> BuiltKind {
        var warnings: [String] = []
        let choices = merged(options, what: "choice", warnings: &warnings)
        guard choices.count >= 2 else { throw tooFew(options, kept: choices, "a question with several answers to pick") }
        let key = choices.map(\.text).filter { answers.contains($0) }
        guard !key.isEmpty else { throw .malformed("none of the choices is marked right") }
        return BuiltKind(kind: .multiple(choices: choices.map(\.text), answers: key, scoring: .allOrNothing), warnings: warnings)
    }

    static func text(_ options: [BankOption], caseSensitive: Bool) throws(BuildFailure) -> BuiltKind {
        var warnings: [String] = []
        let answers = merged(options, what: "accepted answer", warnings: &warnings)
        guard let best = answers.map(\.credit).max(), best > 0 else {
            throw .malformed(answers.isEmpty ? "there is no accepted answer" : "no accepted answer earns a positive credit")
        }
        let list = answers.map { TextAnswer(text: $0.text, credit: $0.credit, feedback: $0.feedback) }
        let plain = list.allSatisfy { $0.credit == 100 && $0.feedback == nil }
        return BuiltKind(kind: .text(accept: Marking.key(of: list), caseSensitive: caseSensitive),
                         marking: plain ? nil : .texts(list), warnings: warnings)
    }

    /// Short answers as Moodle matches them: `*` in an answer stands for any text, `\*` is a
    /// star. Carrel matches no pattern, so an answer with a wildcard is left out: silently when
    /// it earns nothing and says nothing (anything else earns nothing in Carrel too), with a
    /// warning otherwise; a question whose only right answers are patterns is skipped.
    static func shortAnswer(_ options: [BankOption], caseSensitive: Bool) throws(BuildFailure) -> BuiltKind {
        var kept: [BankOption] = []
        var wildcards = 0
        for option in options {
            guard hasWildcard(option.text) else {
                kept.append(BankOption(option.text.replacingEscapedStars(), credit: option.credit, feedback: option.feedback))
                continue
            }
            if option.credit > 0 || option.feedback != nil { wildcards += 1 }
        }
        if !kept.contains(where: { $0.credit > 0 }) && wildcards > 0 {
            throw .unsupported("its answers use Moodle's * wildcard, which Carrel does not match")
        }
        var built = try text(kept, caseSensitive: caseSensitive)
        if wildcards > 0 {
            built.warnings.append("left out \(wildcards) answer\(wildcards == 1 ? "" : "s") with Moodle's * wildcard, which Carrel does not match")
        }
        return built
    }

    /// True when `text` holds a `*` not written `\*`.
    static func hasWildcard(_ text: String) -> Bool {
        var previous: Unicode.Scalar? = nil
        for s in text.unicodeScalars {
            if s == "*" && previous != "\\" { return true }
            previous = s
        }
        return false
    }

    /// A number as a bank writes a key: a point or a lone comma for the decimals; a comma that
    /// could group thousands is an error rather than a guess.
    static func number(_ written: String) throws(BuildFailure) -> Double {
        if NumericText.isAmbiguousGrouping(written) {
            throw .malformed("“\(written.clippedForMessage)” could be a whole number with a thousands separator or a decimal; write it without the comma, or with a point for a decimal")
        }
        guard let v = NumericText.parse(written) else {
            throw .malformed("“\(written.clippedForMessage)” is not a number")
        }
        return v
    }

    static func numeric(_ answers: [NumberAnswer]) throws(BuildFailure) -> BuiltKind {
        let list = answers.map { NumberAnswer(answer: $0.answer, credit: clamp($0.credit), feedback: $0.feedback) }
        guard let best = list.map(\.credit).max(), best > 0, let key = Marking.key(of: list) else {
            throw .malformed(list.isEmpty ? "there is no accepted number" : "no accepted number earns a positive credit")
        }
        let plain = list.count == 1 && list[0].credit == 100 && list[0].feedback == nil
        return BuiltKind(kind: .numeric(key), marking: plain ? nil : .numbers(list))
    }

    /// A built question as one gap of a `gaps` item: a pick with its credits (the answer at
    /// 100), typed text or a number with every accepted answer. A pick with two options at full
    /// credit cannot be a gap, which has one right option.
    static func gap(_ built: BuiltKind) throws(BuildFailure) -> GapKind {
        switch (built.kind, built.marking) {
        case let (.choice(choices, answer), marking):
            var marks = choices.map { ChoiceMark(text: $0) }
            if case let .choices(given)? = marking { marks = given }
            for i in marks.indices where marks[i].text == answer { marks[i].credit = 100 }
            guard marks.filter({ $0.credit == 100 }).count == 1 else {
                throw .unsupported("two choices earn full credit, and a gap's pick has one right choice")
            }
            return .choice(options: marks, multiple: false)
        case let (.text(_, caseSensitive), .texts(answers)?):
            return .text(answers: answers, caseSensitive: caseSensitive)
        case let (.text(accept, caseSensitive), _):
            return .text(answers: accept.map { TextAnswer(text: $0) }, caseSensitive: caseSensitive)
        case let (.numeric(_), .numbers(answers)?):
            return .number(answers: answers)
        case let (.numeric(key), _):
            return .number(answers: [NumberAnswer(answer: key)])
        default:
            throw .unsupported("only a text entry or an inline choice can be a gap")
        }
    }

    /// Longer keys than this cannot be written as YAML mapping keys.
    static let longestLeftEntry = 1000

    /// Pairs left → right; an empty left side makes its right side a distractor, as in Moodle.
    static func match(_ pairs: [(left: String, right: String)]) throws(BuildFailure) -> BuiltKind {
        var warnings: [String] = []
        var kept: [MatchPair] = []
        var lefts: Set<String> = []
        var extra: [String] = []
        for pair in pairs {
            if pair.left.isEmpty {
                if !pair.right.isEmpty { extra.append(pair.right) }
                continue
            }
            guard !pair.right.isEmpty else { throw .malformed("“\(pair.left.clippedForMessage)” has no match") }
            guard pair.left.count <= longestLeftEntry else { throw .malformed("a left-hand entry is longer than \(longestLeftEntry) characters") }
            guard lefts.insert(pair.left).inserted else {
                throw .malformed("two left-hand entries read “\(pair.left.clippedForMessage)”")
            }
            kept.append(MatchPair(left: pair.left, right: pair.right))
        }
        guard kept.count >= 2 else { throw .malformed("a matching question needs at least two pairs") }
        let rights = Set(kept.map(\.right))
        var distractors: [String] = []
        for d in extra where !distractors.contains(d) {
            if rights.contains(d) {
                warnings.append("the extra answer “\(d.clippedForMessage)” is also a right match; left out")
            } else {
                distractors.append(d)
            }
        }
        return BuiltKind(kind: .match(pairs: kept, distractors: distractors), warnings: warnings)
    }

    static func order(_ entries: [String]) throws(BuildFailure) -> BuiltKind {
        guard Set(entries).count == entries.count else { throw .malformed("two entries to put in order read the same") }
        guard entries.count >= 2, !entries.contains("") else { throw .malformed("an ordering question needs at least two entries") }
        return BuiltKind(kind: .order(items: entries))
    }
}
