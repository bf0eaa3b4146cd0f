import AssessmentKit

/// The answer part of one GIFT question (between the braces, general feedback removed), and
/// the type Moodle gives it: `{}` essay, `{#…}` numerical, a `~` multiple choice, `=` with `->`
/// matching, `T`/`TRUE`/`F`/`FALSE` true-false, anything else short answer.
struct GIFTQuestion {
    let answers: GIFTText
    let format: TextFormat
    /// The question's cleaner, which every answer and feedback text passes through.
    let cleaner: TextCleaner

    func build() throws(BuildFailure) -> BuiltKind {
        if answers.isEmpty { return BuiltKind(kind: .essay(minWords: nil, maxWords: nil)) }
        if answers.chars[0].scalar == "#" && !answers.chars[0].escaped { return try numerical() }
        if answers.contains("~") { return try multipleChoice() }
        if answers.contains("="), answers.range(of: "->") != nil { return try matching() }
        let beforeFeedback = answers.firstIndex(of: "#").map { answers[0..<$0].trimmed() } ?? answers
        if ["T", "TRUE", "F", "FALSE"].contains(beforeFeedback.string) { return trueFalse() }
        return try shortAnswer()
    }

    /// Text, feedback: Moodle's split at the first `#`.
    func textAndFeedback(_ answer: GIFTText, multiLine: Bool) -> (GIFTText, String?) {
        let parts = answer.split("#", maxPieces: 2)
        let feedback = parts.count > 1 ? rendered(parts[1], multiLine: true) : nil
        return (parts[0], feedback.flatMap(\.nonEmpty))
    }

    func rendered(_ text: GIFTText, multiLine: Bool) -> String {
        let (body, f) = GIFTReader.formatted(text.trimmed(), default: format)
        return GIFTReader.render(body, f, multiLine: multiLine, cleaner)
    }

    /// The literal text of an answer a student types: format tag removed, no HTML rendering.
    func literal(_ text: GIFTText) -> String {
        let (body, _) = GIFTReader.formatted(text.trimmed(), default: format)
        return cleaner.clean(body.string.trimmedPHP(), multiLine: false)
    }

    /// Moodle's weight: `%50%`, `%-33.33333%`, `%100%` at the start of an answer
    /// (`^%-*[0-9]{1,2}\.?[0-9]*%`). Returns the percentage and the rest, or nil.
    static func weight(_ answer: GIFTText) throws(BuildFailure) -> (Double, GIFTText)? {
        let c = answer.chars.map(\.scalar)
        guard c.first == "%" else { return nil }
        var i = 1
        while i < c.count, c[i] == "-" { i += 1 }
        let digitsStart = i
        while i < c.count, ("0"..."9").contains(c[i]) { i += 1 }
        let digits = i - digitsStart
        guard digits >= 1, i < c.count else { return nil }
        if c[i] == "." {
            guard digits <= 2 else { return nil }
            i += 1
            while i < c.count, ("0"..."9").contains(c[i]) { i += 1 }
        }
        guard i < c.count, c[i] == "%" else { return nil }
        let written = String(String.UnicodeScalarView(c[1..<i]))
        guard let value = NumericText.parse(written.hasPrefix("-") ? "-" + written.drop { $0 == "-" } : written) else {
            throw .malformed("the weight %\(written)% is not a number")
        }
        return (value, answer[(i + 1)..<answer.count])
    }

    func multipleChoice() throws(BuildFailure) -> BuiltKind {
        let single = answers.contains("=")
        // Moodle splits at `~` after putting one before every `=`.
        var pieces: [GIFTText] = []
        // `~=b` is one answer, `=b`: the `=` opens it, no empty one before it.
        var current: [GIFTText.Char] = []
        var afterTilde = false
        for (i, ch) in answers.chars.enumerated() {
            if answers.isSyntax("~", at: i) {
                pieces.append(GIFTText(current))
                current = []
                afterTilde = true
            } else if answers.isSyntax("=", at: i) {
                if !(afterTilde && GIFTText(current).trimmed().isEmpty) { pieces.append(GIFTText(current)) }
                current = [ch]
                afterTilde = false
            } else {
                current.append(ch)
            }
        }
        pieces.append(GIFTText(current))
        if pieces.first?.trimmed().isEmpty == true { pieces.removeFirst() }
        guard pieces.count >= 2 else { throw .malformed("a multiple-choice question needs at least two answers") }
        var options: [BankOption] = []
        for piece in pieces {
            var answer = piece.trimmed()
            var credit = 0.0
            if answer.isSyntax("=", at: 0) {
                credit = 100
                answer = answer.dropFirst(1)
            } else if let (w, rest) = try Self.weight(answer) {
                credit = w
                answer = rest
            }
            let (text, feedback) = textAndFeedback(answer, multiLine: false)
            options.append(BankOption(rendered(text, multiLine: false), credit: credit, feedback: feedback))
        }
        return single ? try ItemBuilder.choice(options) : try ItemBuilder.multipleByCredit(options)
    }

    func matching() throws(BuildFailure) -> BuiltKind {
        var pieces = answers.split("=")
        if pieces.first?.trimmed().isEmpty == true { pieces.removeFirst() }
        guard pieces.count >= 2 else { throw .malformed("a matching question needs at least two pairs") }
        var pairs: [(left: String, right: String)] = []
        var feedbacks: [String] = []
        for piece in pieces {
            let pair = piece.trimmed()
            guard let arrow = pair.range(of: "->") else {
                throw .malformed("matching pairs are written `=left -> right`; “\(pair.string.clippedForMessage)” has no `->`")
            }
            // `#feedback` has no place in a pair: Moodle shows it as part of the text.
            var (leftText, rightText) = (pair[0..<arrow], pair[(arrow + 2)..<pair.count])
            for side in [0, 1] {
                let text = side == 0 ? leftText : rightText
                guard let hash = text.firstIndex(of: "#") else { continue }
                feedbacks.append(text[(hash + 1)..<text.count].trimmed().string)
                if side == 0 { leftText = text[0..<hash] } else { rightText = text[0..<hash] }
            }
            let left = rendered(leftText, multiLine: false)
            let right = cleaner.clean(rightText.string.trimmedPHP(), multiLine: false)
            pairs.append((left, right))
        }
        var built = try ItemBuilder.match(pairs)
        if let first = feedbacks.first {
            let count = feedbacks.count == 1 ? "the feedback" : "\(feedbacks.count) feedbacks"
            built.warnings.insert("left out \(count) after `#` in the pairs (“\(cleaner.clean(first, multiLine: false).clippedForMessage)”): a matching question has no feedback per pair, and Moodle would show it as part of the answer; write it as the question's general feedback (`####…`) or write \\# for a # in the text", at: 0)
        }
        return built
    }

    /// `{T#shown when wrong#shown when right}`, Moodle's order of the two feedbacks.
    func trueFalse() -> BuiltKind {
        let parts = answers.split("#", maxPieces: 3)
        let answer = ["T", "TRUE"].contains(parts[0].trimmed().string)
        let wrong = parts.count > 1 ? rendered(parts[1], multiLine: true).nonEmpty : nil
        let right = parts.count > 2 ? rendered(parts[2], multiLine: true).nonEmpty : nil
        let ifTrue = answer ? right : wrong, ifFalse = answer ? wrong : right
        let marking: Marking? = ifTrue == nil && ifFalse == nil ? nil : .trueFalse(ifTrue: ifTrue, ifFalse: ifFalse)
        return BuiltKind(kind: .trueFalse(answer: answer), marking: marking)
    }

    /// Short-answer and numerical answers: `=` before each, an optional `%weight%` (else full
    /// credit) and an optional `#feedback`.
    func weightedAnswers(_ body: GIFTText) throws(BuildFailure) -> [(credit: Double, text: GIFTText, feedback: String?)] {
        var pieces = body.split("=")
        if pieces.first?.trimmed().isEmpty == true { pieces.removeFirst() }
        var out: [(credit: Double, text: GIFTText, feedback: String?)] = []
        for piece in pieces {
            var answer = piece.trimmed()
            var credit = 100.0
            if let (w, rest) = try Self.weight(answer) {
                credit = w
                answer = rest
            }
            let (text, feedback) = textAndFeedback(answer, multiLine: false)
            out.append((credit, text, feedback))
        }
        return out
    }

    func shortAnswer() throws(BuildFailure) -> BuiltKind {
        let answers = try weightedAnswers(self.answers)
        guard !answers.isEmpty else { throw .malformed("a short-answer question needs at least one answer") }
        let options = answers.map { BankOption(literal($0.text), credit: $0.credit, feedback: $0.feedback) }
        return try ItemBuilder.shortAnswer(options, caseSensitive: false)
    }

    func numerical() throws(BuildFailure) -> BuiltKind {
        var body = answers.dropFirst(1)
        var warnings: [String] = []
        if let tilde = body.firstIndex(of: "~") {
            warnings.append("the feedback for any other number is left out; Carrel keeps feedback per accepted number")
            body = body[0..<tilde]
        }
        let answers = try weightedAnswers(body)
        guard !answers.isEmpty else { throw .malformed("a numerical question needs at least one answer after `#`") }
        var list: [NumberAnswer] = []
        for answer in answers {
            let written = literal(answer.text)
            if written == "*" {
                warnings.append("left out the answer * (any number); Carrel keeps feedback per accepted number")
                continue
            }
            list.append(NumberAnswer(answer: try Self.number(written), credit: answer.credit, feedback: answer.feedback))
        }
        var built = try ItemBuilder.numeric(list)
        built.warnings = warnings + built.warnings
        return built
    }

    /// `3.14`, `3.14:0.01` (answer and margin), `1..5` (a range).
    static func number(_ written: String) throws(BuildFailure) -> NumericAnswer {
        func parse(_ s: Substring) throws(BuildFailure) -> Double { try ItemBuilder.number(String(s)) }
        if let dots = written.range(of: ".."), dots.lowerBound > written.startIndex {
            let a = try parse(written[..<dots.lowerBound]), b = try parse(written[dots.upperBound...])
            return .range(min(a, b), max(a, b))
        }
        if let colon = written.firstIndex(of: ":"), colon > written.startIndex {
            let value = try parse(written[..<colon])
            let margin = try parse(written[written.index(after: colon)...])
            return .value(value, tolerance: abs(margin))
        }
        return .value(try parse(Substring(written)), tolerance: 0)
    }
}

extension String {
    /// `\*` (a star that is not a wildcard) as `*`.
    func replacingEscapedStars() -> String {
        var out = String.UnicodeScalarView()
        var pendingBackslash = false
        for s in unicodeScalars {
            if pendingBackslash {
                if s != "*" { out.append("\\") }
                pendingBackslash = false
            }
            if s == "\\" { pendingBackslash = true; continue }
            out.append(s)
        }
        if pendingBackslash { out.append("\\") }
        return String(out)
    }
}
