import AssessmentKit

// What each kind of gap makes of its alternatives.
extension ClozeParser {
    // MARK: - Gaps

    /// Texts are cleaned in pieces, some more than once, so nothing is counted here: a reader
    /// counts what the whole text loses once (`TextCleaner.count`).
    func render(_ text: String, multiLine: Bool) -> String {
        switch markup {
        case .plain: return ImportText.clean(text, multiLine: multiLine)
        case let .html(keepLineBreaks): return ImportText.fromHTML(text, keepLineBreaks: keepLineBreaks, multiLine: multiLine)
        }
    }

    /// What a student types: entities decoded, no other HTML reading.
    func literal(_ text: String) -> String {
        switch markup {
        case .plain: return ImportText.clean(text, multiLine: false).trimmed()
        case .html: return ImportText.clean(HTMLText.decodeEntities(text), multiLine: false).trimmed()
        }
    }

    func feedback(_ alt: ClozeAlternative) -> String? {
        alt.feedback.map { render($0, multiLine: true) }.flatMap(\.nonEmpty)
    }

    /// Options from alternatives and their texts; empty ones left out, repeats merged, each
    /// with a warning.
    mutating func options(_ texts: [(text: String, alt: ClozeAlternative)], _ shown: String, _ open: Int) -> [BankOption] {
        var out: [BankOption] = []
        var empty = 0
        for (text, alt) in texts {
            if text.isEmpty { empty += 1; continue }
            out.append(BankOption(text, credit: alt.credit ?? 0, feedback: feedback(alt)))
        }
        var notes: [String] = []
        let merged = ItemBuilder.merged(out, what: "option", warnings: &notes)
        if empty > 0 { notes.append("left out \(empty) empty answer\(empty == 1 ? "" : "s")") }
        for note in notes { warning(open, "\(shown): \(note)") }
        return merged
    }

    /// Why a pick with fewer than two options is refused; identical options are named so.
    static func tooFewOptions(_ written: Int, _ kept: [BankOption]) -> String {
        if written >= 2, kept.count == 1, let only = kept.first {
            return "its \(written) options are identical (each reads “\(only.text.clippedForMessage)”); a pick needs at least two different options"
        }
        return "a pick needs at least two options; it has \(kept.count)"
    }

    /// The alternatives as options a student picks: their text as shown.
    mutating func shownOptions(_ alternatives: [ClozeAlternative], _ shown: String, _ open: Int) -> [BankOption] {
        options(alternatives.map { (render($0.answer, multiLine: false), $0) }, shown, open)
    }

    /// MULTICHOICE: one pick; exactly one option earns full credit.
    mutating func onePick(_ alternatives: [ClozeAlternative], _ shown: String, _ open: Int) -> GapKind? {
        let list = shownOptions(alternatives, shown, open)
        guard list.count >= 2 else {
            error(open, "\(shown): " + Self.tooFewOptions(alternatives.count, list))
            return nil
        }
        let full = list.filter { $0.credit == 100 }
        guard full.count == 1 else {
            if full.isEmpty {
                error(open, "\(shown): no option earns full credit; mark the right one with = or %100%")
            } else {
                error(open, "\(shown): \(full.count) options earn full credit, and a pick in Carrel has one right option; use MULTIRESPONSE for several")
            }
            return nil
        }
        let marks = list.map { ChoiceMark(text: $0.text, credit: $0.credit == 0 ? nil : $0.credit, feedback: $0.feedback) }
        return .choice(options: marks, multiple: false)
    }

    /// MULTIRESPONSE: several picks; the positive credits are scaled to add up to 100%, and
    /// when only `=` marks the right ones, each wrong pick takes one right pick's share away
    /// (Moodle's rule).
    mutating func severalPicks(_ alternatives: [ClozeAlternative], _ shown: String, _ open: Int) -> GapKind? {
        let list = shownOptions(alternatives, shown, open)
        guard list.count >= 2 else {
            error(open, "\(shown): " + Self.tooFewOptions(alternatives.count, list))
            return nil
        }
        let total = list.filter { $0.credit > 0 }.reduce(0) { $0 + $1.credit }
        guard total > 0 else {
            error(open, "\(shown): no option earns credit; mark the right ones with = or a positive %credit%")
            return nil
        }
        let specific = alternatives.contains(where: \.percent)
        let right = list.filter { $0.credit > 0 }.count
        if specific && abs(total - 100) > 1e-9 {
            warning(open, "\(shown): the positive credits add up to \(AssessmentWriter.number(total))%; Moodle scales them to 100%, and so does Carrel")
        }
        let marks = list.map { option -> ChoiceMark in
            var credit: Double
            if option.credit > 0 {
                credit = option.credit * 100 / total
            } else {
                credit = specific ? option.credit : -100 / Double(right)
            }
            credit = ItemBuilder.snapped(credit)
            return ChoiceMark(text: option.text, credit: credit == 0 ? nil : credit, feedback: option.feedback)
        }
        return .choice(options: marks, multiple: true)
    }

    /// SHORTANSWER: typed text; one answer earns full credit. Moodle's `*` matches any text,
    /// which Carrel does not: such answers are left out and named.
    mutating func typed(_ alternatives: [ClozeAlternative], caseSensitive: Bool, _ shown: String, _ open: Int) -> GapKind? {
        var kept: [ClozeAlternative] = []
        for alt in alternatives {
            let text = literal(alt.answer)
            guard ItemBuilder.hasWildcard(text) else { kept.append(alt); continue }
            let at = alt.start
            let credit = AssessmentWriter.number(alt.credit ?? 0)
            if text == "*" {
                warning(at, "\(shown): left out the answer * (any other text, \(credit)%); Carrel gives other answers nothing\(alt.feedback == nil ? "" : " and no feedback")")
            } else {
                warning(at, "\(shown): left out the answer “\(text.clippedForMessage)” (\(credit)%): Moodle's * matches any text there, Carrel does not")
            }
        }
        let list = options(kept.map { (literal($0.answer).replacingEscapedStars(), $0) }, shown, open)
        guard acceptable(list.map(\.credit), "answer", shown, open) else { return nil }
        return .text(answers: list.map { TextAnswer(text: $0.text, credit: $0.credit, feedback: $0.feedback) },
                     caseSensitive: caseSensitive)
    }

    /// Typed answers and numbers as Moodle accepts them: at least one, one earning full
    /// credit; and none taking points away, which Carrel's typed gaps cannot.
    mutating func acceptable(_ credits: [Double], _ what: String, _ shown: String, _ open: Int) -> Bool {
        if credits.isEmpty {
            error(open, "\(shown): there is no \(what) left to accept")
        } else if !credits.contains(100) {
            error(open, "\(shown): no \(what) earns full credit; mark one with = or %100%")
        } else if credits.contains(where: { $0 < 0 }) {
            error(open, "\(shown): a \(what) with a negative credit cannot be kept; a typed gap earns 0% to 100%")
        } else {
            return true
        }
        return false
    }

    /// NUMERICAL: `=3.14:0.01` (a value and its margin); `*` (any other number) is left out.
    mutating func numbers(_ alternatives: [ClozeAlternative], _ shown: String, _ open: Int) -> GapKind? {
        var list: [NumberAnswer] = []
        var ok = true
        for alt in alternatives {
            let written = literal(alt.answer)
            if written.isEmpty { continue }
            if written == "*" {
                warning(alt.start, "\(shown): left out the answer * (any other number, \(AssessmentWriter.number(alt.credit ?? 0))%); Carrel gives other numbers nothing\(alt.feedback == nil ? "" : " and no feedback")")
                continue
            }
            switch ClozeNumber.answer(written) {
            case let .success(answer):
                list.append(NumberAnswer(answer: answer, credit: alt.credit ?? 0, feedback: feedback(alt)))
            case let .failure(failure):
                error(alt.start, "\(shown): \(failure.reason)")
                ok = false
            }
        }
        guard ok else { return nil }
        guard acceptable(list.map(\.credit), "number", shown, open) else { return nil }
        return .number(answers: list)
    }
}
