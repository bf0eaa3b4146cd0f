import AssessmentKit

/// How the text around and inside the embedded answers is written.
enum ClozeMarkup: Sendable {
    /// Already plain text.
    case plain
    /// HTML (Moodle's question text); with `keepLineBreaks`, line breaks count (Moodle's auto-format).
    case html(keepLineBreaks: Bool)
}

/// The embedded-answer types Moodle knows, and the syntax around them.
enum ClozeSyntax {
    enum Kind: Sendable, Equatable {
        case pick(multiple: Bool, shuffled: Bool)
        case text(caseSensitive: Bool)
        case number
    }

    /// Every type name and short name of Moodle's `qtype_multianswer`.
    static let types: [String: Kind] = {
        var t: [String: Kind] = [:]
        for name in ["MULTICHOICE", "MC", "MULTICHOICE_V", "MCV", "MULTICHOICE_H", "MCH"] {
            t[name] = .pick(multiple: false, shuffled: false)
        }
        for name in ["MULTICHOICE_S", "MCS", "MULTICHOICE_VS", "MCVS", "MULTICHOICE_HS", "MCHS"] {
            t[name] = .pick(multiple: false, shuffled: true)
        }
        for name in ["MULTIRESPONSE", "MR", "MULTIRESPONSE_H", "MRH"] { t[name] = .pick(multiple: true, shuffled: false) }
        for name in ["MULTIRESPONSE_S", "MRS", "MULTIRESPONSE_HS", "MRHS"] { t[name] = .pick(multiple: true, shuffled: true) }
        for name in ["SHORTANSWER", "SA", "MW"] { t[name] = .text(caseSensitive: false) }
        for name in ["SHORTANSWER_C", "SAC", "MWC"] { t[name] = .text(caseSensitive: true) }
        for name in ["NUMERICAL", "NM"] { t[name] = .number }
        return t
    }()

    /// Types of Moodle plugins, named so the message can say where they come from.
    static let pluginTypes: Set<String> = ["REGEXP", "RX", "REGEXP_C", "RXC"]

    /// The start of an embedded answer: `{`, the weight's digits, `:`, the type, `:`.
    struct Header: Sendable {
        var weight: String
        var type: String
        /// Where the answers start, just after the second `:`.
        var body: Int
    }

    static func nextBrace(_ s: [Unicode.Scalar], from start: Int) -> Int? {
        var i = start
        while i < s.count {
            if s[i] == "{" { return i }
            i += 1
        }
        return nil
    }

    /// The header at `open` when it has the shape of one, whatever its type.
    static func header(_ s: [Unicode.Scalar], at open: Int) -> Header? {
        guard open < s.count, s[open] == "{" else { return nil }
        var i = open + 1
        var weight = String.UnicodeScalarView()
        while i < s.count, ("0"..."9").contains(s[i]), weight.count < 12 {
            weight.append(s[i])
            i += 1
        }
        guard i < s.count, s[i] == ":" else { return nil }
        i += 1
        var type = String.UnicodeScalarView()
        while i < s.count, isTypeScalar(s[i]), type.count < 24 {
            type.append(s[i])
            i += 1
        }
        guard !type.isEmpty, i < s.count, s[i] == ":" else { return nil }
        return Header(weight: String(weight), type: String(type), body: i + 1)
    }

    static func isTypeScalar(_ c: Unicode.Scalar) -> Bool {
        ("A"..."Z").contains(c) || ("a"..."z").contains(c) || c == "_"
    }

    /// A header a reader should treat as an embedded answer: a known type in any case, or a
    /// name in capitals (an unknown type, reported).
    static func isEmbedded(_ header: Header) -> Bool {
        if types[header.type.uppercased()] != nil || pluginTypes.contains(header.type.uppercased()) { return true }
        return header.type.unicodeScalars.count >= 2
            && header.type.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || $0 == "_" }
    }

    /// The characters a backslash makes literal inside an embedded answer.
    static let escapable: Set<Unicode.Scalar> = ["}", "#", "~", "/", "\"", "\\"]
}

/// One alternative of an embedded answer as written: its credit, text and feedback.
struct ClozeAlternative {
    /// nil when none is written (0 for Moodle).
    var credit: Double?
    /// True when the credit was written as a percentage (Moodle's "specific" fraction).
    var percent = false
    var answer: String
    var feedback: String?
    /// Where it starts in the text.
    var start: Int
}

/// Reads a text's embedded answers one by one, keeping the text between them.
struct ClozeParser {
    let s: [Unicode.Scalar]
    let markup: ClozeMarkup
    /// Where each line starts, for the line of any position.
    let lineStarts: [Int]
    var problems: [(line: Int, message: String, isError: Bool)] = []
    var gaps: [Gap] = []
    var shuffled: [Int] = []

    init(_ text: String, markup: ClozeMarkup) {
        s = Array(text.unicodeScalars)
        self.markup = markup
        var starts = [0]
        var i = 0
        while i < s.count {
            if s[i] == "\n" || (s[i] == "\r" && (i + 1 >= s.count || s[i + 1] != "\n")) { starts.append(i + 1) }
            i += 1
        }
        lineStarts = starts
    }

    func line(of position: Int) -> Int {
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= position { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    mutating func error(_ position: Int, _ message: String) {
        problems.append((line(of: position), message, true))
    }

    mutating func warning(_ position: Int, _ message: String) {
        problems.append((line(of: position), message, false))
    }

    /// Marks a gap's place while the text is rendered: private-use characters no text keeps
    /// (they are taken out of the text first), so no `{1}` the text makes can pass for a gap.
    static let openMark: Unicode.Scalar = "\u{E000}", closeMark: Unicode.Scalar = "\u{E001}"

    mutating func run() -> ClozeText {
        // Collected as scalars and made a string once: appending to a string's scalar view
        // copies it each time, which made a text of many gaps quadratic.
        var raw: [Unicode.Scalar] = []
        var number = 0
        var i = 0
        var textStart = 0
        while let open = ClozeSyntax.nextBrace(s, from: i) {
            guard let header = ClozeSyntax.header(s, at: open), ClozeSyntax.isEmbedded(header) else {
                i = open + 1
                continue
            }
            appendText(textStart..<open, to: &raw)
            number += 1
            let end = gap(number, header, open: open)
            raw.append(Self.openMark)
            raw.append(contentsOf: String(number).unicodeScalars)
            raw.append(Self.closeMark)
            i = end
            textStart = end
        }
        appendText(textStart..<s.count, to: &raw)
        if number == 0 {
            error(0, "the text holds no embedded answer such as {1:SHORTANSWER:=word}")
        } else if points > 1000 {
            error(0, "the gaps' weights add up to \(AssessmentWriter.number(points)); a question is worth at most 1000 points")
        }
        var prompt = ""
        if !problems.contains(where: \.isError) {
            let (text, numbers) = markGaps(render(String(String.UnicodeScalarView(raw)), multiLine: true))
            if numbers == Array(1...number) {
                prompt = text
            } else {
                error(0, "not every embedded answer stands in the text as it is shown (one inside an HTML comment, tag or script is lost); move it into the text")
            }
        }
        return ClozeText(prompt: prompt, gaps: gaps, problems: problems, shuffled: shuffled)
    }

    /// The gaps' weights added up, as Moodle counts the question's points.
    var points: Double { gaps.reduce(0) { $0 + ($1.points ?? 1) } }

    /// Text between embedded answers, with `{5}` (which would read as a gap) kept as text.
    mutating func appendText(_ range: Range<Int>, to raw: inout [Unicode.Scalar]) {
        let (text, found) = Self.keepingBraces(s[range].filter { $0 != Self.openMark && $0 != Self.closeMark })
        raw.append(contentsOf: text)
        for (offset, n) in found {
            warning(range.lowerBound + offset, "the text “{\(n)}” would read as a gap; it is written “{ \(n)}”")
        }
    }

    /// `{5}` written `{ 5}`, with where each stood and its number.
    static func keepingBraces(_ scalars: [Unicode.Scalar]) -> ([Unicode.Scalar], [(offset: Int, number: Int)]) {
        let markers = Item.gapMarkers(in: String(String.UnicodeScalarView(scalars)))
        var out: [Unicode.Scalar] = []
        var at = 0
        for marker in markers {
            out.append(contentsOf: scalars[at...marker.range.lowerBound])
            out.append(" ")
            at = marker.range.lowerBound + 1
        }
        out.append(contentsOf: scalars[at...])
        return (out, markers.map { ($0.range.lowerBound, $0.number) })
    }

    /// The rendered text with each gap's mark made its marker `{n}` (and any `{5}` that
    /// rendering made, from `&#123;5}` say, kept as text), and the gap numbers in text order.
    mutating func markGaps(_ rendered: String) -> (String, [Int]) {
        let (text, found) = Self.keepingBraces(Array(rendered.unicodeScalars))
        for (_, n) in found { warning(0, "the text “{\(n)}” would read as a gap; it is written “{ \(n)}”") }
        var out = String.UnicodeScalarView()
        var numbers: [Int] = []
        var digits: String? = nil
        for c in text {
            if c == Self.openMark {
                digits = ""
            } else if c == Self.closeMark, let d = digits {
                numbers.append(Int(d) ?? 0)
                out.appendEach("{\(d)}".unicodeScalars)
                digits = nil
            } else if digits != nil {
                digits?.unicodeScalars.append(c)
            } else {
                out.append(c)
            }
        }
        return (String(out), numbers)
    }

    /// Reads embedded answer `number` whose header starts at `open`; returns where the text
    /// after it starts.
    mutating func gap(_ number: Int, _ header: ClozeSyntax.Header, open: Int) -> Int {
        let shown = "gap \(number) ({\(header.weight):\(header.type):…})"
        let reported = problems.count
        let (alternatives, end, closed) = alternatives(from: header.body, gap: shown)
        guard closed else {
            error(open, "\(shown) has no closing `}`; write \\} for a brace inside an answer")
            return end
        }
        // A credit that is no number has been reported; the gap goes no further.
        guard problems.count == reported else { return end }
        guard let kind = ClozeSyntax.types[header.type] else {
            let upper = header.type.uppercased()
            if ClozeSyntax.types[upper] != nil {
                error(open, "\(shown): Moodle reads types in capitals only; write \(upper)")
            } else if ClozeSyntax.pluginTypes.contains(upper) {
                error(open, "\(shown): \(header.type) comes from Moodle's regular-expression plugin, which Carrel cannot mark; use SHORTANSWER with every accepted answer")
            } else {
                error(open, "\(shown): “\(header.type)” is not an embedded-answer type; use MULTICHOICE, MULTIRESPONSE, SHORTANSWER or NUMERICAL (or their short names)")
            }
            return end
        }
        var points: Double? = nil
        if !header.weight.isEmpty {
            guard let w = Int(header.weight), w >= 1, w <= 1000 else {
                error(open, "\(shown): the weight \(header.weight) is not a whole number from 1 to 1000")
                return end
            }
            if w != 1 { points = Double(w) }
        }
        let built: GapKind?
        switch kind {
        case let .pick(multiple, shuffledOptions):
            built = multiple ? severalPicks(alternatives, shown, open) : onePick(alternatives, shown, open)
            if shuffledOptions { shuffled.append(number) }
        case let .text(caseSensitive):
            built = typed(alternatives, caseSensitive: caseSensitive, shown, open)
        case .number:
            built = numbers(alternatives, shown, open)
        }
        if let built { gaps.append(Gap(kind: built, points: points)) }
        return end
    }

    /// The alternatives from `start` to the closing `}`: where the text after it starts, and
    /// whether the `}` was found.
    mutating func alternatives(from start: Int, gap shown: String) -> ([ClozeAlternative], Int, Bool) {
        var out: [ClozeAlternative] = []
        var i = start
        if i < s.count, s[i] == "~" { i += 1 }
        while true {
            var alt = ClozeAlternative(answer: "", start: i)
            if i < s.count, s[i] == "=" {
                alt.credit = 100
                i += 1
            } else if i < s.count, s[i] == "%", let (credit, after) = percent(at: i, gap: shown) {
                alt.credit = credit
                alt.percent = true
                i = after
            }
            let (answer, afterAnswer, stop) = piece(from: i, endingAt: ["~", "#", "}"])
            alt.answer = answer
            i = afterAnswer
            if stop == "#" {
                let (feedback, afterFeedback, end) = piece(from: i + 1, endingAt: ["~", "}"])
                alt.feedback = feedback
                i = afterFeedback
                out.append(alt)
                guard let end else { return (out, i, false) }
                if end == "}" { return (out, i + 1, true) }
                if end == "{" { return (out, i, false) }
                i += 1
                continue
            }
            out.append(alt)
            guard let stop else { return (out, i, false) }
            if stop == "}" { return (out, i + 1, true) }
            if stop == "{" { return (out, i, false) }
            i += 1
        }
    }

    /// `%50%`, `%-33.3%`, `%12,5%` at `i` (Moodle: `%-?[0-9]+([.,][0-9]*)?%`): the credit and
    /// where the answer starts; nil when `%` starts the answer's own text. A `%…%` that is
    /// not a number is reported.
    mutating func percent(at i: Int, gap shown: String) -> (Double, Int)? {
        var j = i + 1
        var written = String.UnicodeScalarView()
        while j < s.count, j - i <= 16, s[j] != "%", s[j] != "~", s[j] != "}", s[j] != "#", s[j] != "\n" {
            written.append(s[j])
            j += 1
        }
        guard j < s.count, s[j] == "%" else { return nil }
        let text = String(written)
        guard ClozeNumber.isCredit(text), let value = ClozeNumber.value(text) else {
            error(i, "\(shown): the credit %\(text.clippedForMessage)% is not a number; write %50% or %-25%")
            return (0, j + 1)
        }
        guard Marking.creditRange.contains(value) else {
            error(i, "\(shown): the credit %\(text)% is beyond ±100%")
            return (0, j + 1)
        }
        return (value, j + 1)
    }

    /// Text up to the first unescaped stop character, escapes resolved; also stops at `{`
    /// when an embedded answer starts there (this one was not closed). Returns the text,
    /// where it stopped and what it stopped at (nil at the end of the text).
    func piece(from start: Int, endingAt stops: Set<Unicode.Scalar>) -> (String, Int, Unicode.Scalar?) {
        var out = String.UnicodeScalarView()
        var i = start
        while i < s.count {
            let c = s[i]
            if c == "\\", i + 1 < s.count, ClozeSyntax.escapable.contains(s[i + 1]) {
                // `\*` stays as written: the short-answer reader tells a star from a wildcard.
                out.append(s[i + 1])
                i += 2
                continue
            }
            if c == "#", stops.contains("#"), case .html = markup, i > start, s[i - 1] == "&" {
                // `&#39;`: an HTML character reference, not feedback (Moodle's rule).
                out.append(c)
                i += 1
                continue
            }
            if stops.contains(c) { return (String(out), i, c) }
            if c == "{", let header = ClozeSyntax.header(s, at: i), ClozeSyntax.isEmbedded(header) {
                return (String(out), i, "{")
            }
            out.append(c)
            i += 1
        }
        return (String(out), i, nil)
    }

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

    /// The alternatives as options a student picks: their text as shown.
    mutating func shownOptions(_ alternatives: [ClozeAlternative], _ shown: String, _ open: Int) -> [BankOption] {
        options(alternatives.map { (render($0.answer, multiLine: false), $0) }, shown, open)
    }

    /// MULTICHOICE: one pick; exactly one option earns full credit.
    mutating func onePick(_ alternatives: [ClozeAlternative], _ shown: String, _ open: Int) -> GapKind? {
        let list = shownOptions(alternatives, shown, open)
        guard list.count >= 2 else {
            error(open, "\(shown): a pick needs at least two options; it has \(list.count)")
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
            error(open, "\(shown): a pick needs at least two options; it has \(list.count)")
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

/// Numbers as Moodle's Cloze reads them: `-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)`,
/// a comma standing for the decimal point.
enum ClozeNumber {
    struct Failure: Error, Sendable {
        var reason: String
    }

    /// `%…%` contents: `-?[0-9]+([.,][0-9]*)?`.
    static func isCredit(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "-" { scalars = scalars.dropFirst() }
        let digits = scalars.prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty else { return false }
        scalars = scalars.dropFirst(digits.count)
        guard let mark = scalars.first else { return true }
        guard mark == "." || mark == "," else { return false }
        return scalars.dropFirst().allSatisfy { ("0"..."9").contains($0) }
    }

    /// True for a number Moodle's pattern accepts.
    static func isNumber(_ text: String) -> Bool {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "-" { scalars.removeFirst() }
        var i = 0
        var digitsBefore = 0
        while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; digitsBefore += 1 }
        var digitsAfter = 0
        if i < scalars.count, scalars[i] == "." || scalars[i] == "," {
            i += 1
            while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; digitsAfter += 1 }
        }
        guard digitsBefore + digitsAfter > 0 else { return false }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            i += 1
            if i < scalars.count, scalars[i] == "-" || scalars[i] == "+" { i += 1 }
            var exponent = 0
            while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1; exponent += 1 }
            guard exponent > 0 else { return false }
        }
        return i == scalars.count
    }

    /// The value of a number Moodle's pattern accepts (its comma a decimal point).
    static func value(_ text: String) -> Double? {
        let point = String(text.map { $0 == "," ? "." : $0 })
        guard let v = Double(point), v.isFinite else { return nil }
        return v
    }

    /// `3.14`, `3,14`, `3.14:0.01`.
    static func answer(_ written: String) -> Result<NumericAnswer, Failure> {
        let parts = written.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            .map { String($0).trimmed() }
        for (n, part) in parts.enumerated() {
            guard isNumber(part), value(part) != nil else {
                if n == 1 {
                    return .failure(Failure(reason: "the margin in “\(written.clippedForMessage)” is not a number; write =3.14:0.01"))
                }
                return .failure(Failure(reason: "“\(written.clippedForMessage)” is not a number; a NUMERICAL answer is written =3.14 or =3.14:0.01"))
            }
            if NumericText.isAmbiguousGrouping(part) {
                return .failure(Failure(reason: "“\(part.clippedForMessage)” could be a whole number with a thousands separator or a decimal; write it without the comma, or with a point for a decimal"))
            }
        }
        let value = ClozeNumber.value(parts[0]) ?? 0
        let margin = parts.count == 2 ? abs(ClozeNumber.value(parts[1]) ?? 0) : 0
        return .success(.value(value, tolerance: margin))
    }
}
