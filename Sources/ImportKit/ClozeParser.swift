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
}
