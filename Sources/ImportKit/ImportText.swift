import AssessmentKit

/// Text from an imported file made fit for a terminal and for the validator: line breaks of
/// every kind become `\n` (or a space), controls, bidirectional controls and invisible marks are
/// dropped, invisible characters used for typography (soft hyphens, stray joiners…) are taken
/// out, tabs become spaces, runs of blank lines shrink to one.
public enum ImportText {
    /// For text that does not come from a bank (a title given on the command line): cleaned
    /// as bank text is, with nothing to report. A bank's texts go through a `TextCleaner`.
    public static func clean(_ text: String, multiLine: Bool) -> String {
        TextCleaner().clean(text, multiLine: multiLine)
    }

    /// HTML as plain text, cleaned like `clean` (the characters taken out are not counted).
    public static func fromHTML(_ html: String, keepLineBreaks: Bool = false, multiLine: Bool = true) -> String {
        TextCleaner().fromHTML(html, keepLineBreaks: keepLineBreaks, multiLine: multiLine)
    }

    /// Line breaks made `\n` (or a space), tabs and no-break spaces spaces; controls,
    /// bidirectional controls and invisible marks dropped.
    static func withoutControls(_ text: String, multiLine: Bool) -> String {
        var out = String.UnicodeScalarView()
        var previousWasCR = false
        for s in text.unicodeScalars {
            defer { previousWasCR = s == "\r" }
            switch s.value {
            case 0x0A where previousWasCR:
                continue
            case 0x0A, 0x0D, 0x85, 0x2028, 0x2029, 0x0B, 0x0C:
                out.append(multiLine ? "\n" : " ")
            case 0x09, 0xA0:
                out.append(" ")
            default:
                if TerminalSafety.isControl(s) || TerminalSafety.isBidiControl(s) || isInvisibleMark(s) { continue }
                out.append(s)
            }
        }
        return String(out)
    }

    /// Marks that change how text around them reads without showing themselves.
    static func isInvisibleMark(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x200B, 0x200E, 0x200F, 0x061C, 0xFEFF, 0x2060...0x2064, 0xFFF9...0xFFFB, 0xFFFE, 0xFFFF: return true
        default: return false
        }
    }

    /// Trailing spaces off every line, at most one blank line in a row, nothing around the whole.
    static func tidy(_ text: String, multiLine: Bool) -> String {
        // One line with nothing around it (and, on one line, no run of spaces) is tidy already.
        let bytes = text.utf8
        if bytes.first != 0x20, bytes.last != 0x20, !bytes.contains(0x0A),
           multiLine || !zip(bytes, bytes.dropFirst()).contains(where: { $0 == 0x20 && $1 == 0x20 }) {
            return text
        }
        var lines: [Substring] = []
        var blank = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = raw
            // Counted in bytes: stepping back a Character at a time re-checks the substring's
            // boundaries each step (seconds for a line ending in 100 000 spaces).
            let spaces = line.utf8.reversed().prefix { $0 == 0x20 }.count
            if spaces > 0 { line = Substring(line.utf8.dropLast(spaces)) }
            if !multiLine {
                lines.append(line)
                continue
            }
            if line.allSatisfy({ $0 == " " }) {
                blank += 1
                if blank > 1 || lines.isEmpty { continue }
                lines.append("")
                continue
            }
            blank = 0
            lines.append(line)
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        let joined = lines.joined(separator: multiLine ? "\n" : " ")
        if multiLine { return String(joined.drop { $0 == " " }) }
        return joined.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

/// The one way a bank's texts are imported: each question (or section heading) has a cleaner,
/// and every text of it (prompt, choices, answers, feedback, names, titles) passes through
/// `clean` or `fromHTML`. Besides cleaning (`ImportText`), it counts the invisible characters
/// it took out for typography, which the validator would refuse, so that the question gets one
/// warning naming them. Used by one reader at a time, never shared.
final class TextCleaner {
    private(set) var removed: [TypographyMark: Int] = [:]

    init() {}

    func clean(_ text: String, multiLine: Bool) -> String {
        // Printable ASCII and line feeds have nothing to drop or change: only the tidying.
        if text.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }) { return ImportText.tidy(text, multiLine: multiLine) }
        let (visible, taken) = TerminalSafety.removingUnneededInvisibles(ImportText.withoutControls(text, multiLine: multiLine))
        for s in taken { removed[TypographyMark(s), default: 0] += 1 }
        return ImportText.tidy(visible, multiLine: multiLine)
    }

    /// HTML (or Moodle's auto-format, which is HTML whose line breaks count) as plain text.
    func fromHTML(_ html: String, keepLineBreaks: Bool = false, multiLine: Bool = true) -> String {
        var images: [String] = []
        return fromHTML(html, keepLineBreaks: keepLineBreaks, multiLine: multiLine, images: &images)
    }

    /// The same, adding the source of every image the HTML shows to `images`.
    func fromHTML(_ html: String, keepLineBreaks: Bool, multiLine: Bool, images: inout [String]) -> String {
        var builder = TextBuilder(keepLineBreaks: keepLineBreaks)
        if html.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) {
            HTMLText.render(html, into: &builder)
        } else {
            // Without a tag or an entity, HTML is its text with white space folded.
            builder.add(html)
        }
        images += builder.images
        return clean(builder.text, multiLine: multiLine)
    }

    /// `removed 2 soft hyphens and 1 zero-width joiner used for typography`; nil when nothing was.
    var warning: String? {
        let counts = TypographyMark.allCases.compactMap { mark in removed[mark].map { "\($0) \(mark.name(count: $0))" } }
        guard let last = counts.last else { return nil }
        let list = counts.count == 1 ? last : counts.dropLast().joined(separator: ", ") + " and " + last
        return "removed \(list) used for typography"
    }

    /// Text in one of Moodle's formats as a student should read it; the sources of the images
    /// it shows are added to `images`.
    func render(_ raw: String, _ format: TextFormat, multiLine: Bool, images: inout [String]) -> String {
        switch format {
        case .html: return fromHTML(raw, keepLineBreaks: false, multiLine: multiLine, images: &images)
        case .moodle: return fromHTML(raw, keepLineBreaks: true, multiLine: multiLine, images: &images)
        case .plain, .markdown: return clean(raw, multiLine: multiLine)
        }
    }
}

/// The kinds of invisible character a bank uses for typography, as a warning names them.
enum TypographyMark: CaseIterable, Hashable {
    case softHyphen, zeroWidthJoiner, zeroWidthNonJoiner, variationSelector, combiningGraphemeJoiner
    case hangulFiller, mongolianVowelSeparator, mongolianVariationSelector, tag, other

    init(_ s: Unicode.Scalar) {
        switch s.value {
        case 0xAD: self = .softHyphen
        case 0x200D: self = .zeroWidthJoiner
        case 0x200C: self = .zeroWidthNonJoiner
        case 0xFE00...0xFE0F, 0xE0100...0xE01EF: self = .variationSelector
        case 0x034F: self = .combiningGraphemeJoiner
        case 0x115F, 0x1160, 0x3164, 0xFFA0: self = .hangulFiller
        case 0x180E: self = .mongolianVowelSeparator
        case 0x180B...0x180D, 0x180F: self = .mongolianVariationSelector
        case 0xE0000...0xE007F: self = .tag
        default: self = .other
        }
    }

    func name(count: Int) -> String {
        let singular: String
        switch self {
        case .softHyphen: singular = "soft hyphen"
        case .zeroWidthJoiner: singular = "zero-width joiner"
        case .zeroWidthNonJoiner: singular = "zero-width non-joiner"
        case .variationSelector: singular = "variation selector"
        case .combiningGraphemeJoiner: singular = "combining grapheme joiner"
        case .hangulFiller: singular = "Hangul filler"
        case .mongolianVowelSeparator: singular = "Mongolian vowel separator"
        case .mongolianVariationSelector: singular = "Mongolian variation selector"
        case .tag: singular = "tag character"
        case .other: singular = "other invisible character"
        }
        return count == 1 ? singular : singular + "s"
    }
}

/// Moodle's text formats. `html` is HTML; `moodle` (Moodle's auto-format) is HTML whose line
/// breaks count; `plain` and `markdown` read well as they are written. The raw values are
/// GIFT's names (`[html]`, `[moodle]`, `[plain]`, `[markdown]`).
enum TextFormat: String, Sendable {
    case moodle, html, plain, markdown

    /// A Moodle XML `format="…"` attribute: `html`, `moodle_auto_format`, `plain_text`,
    /// `markdown`, `wiki_like` (read as plain text); anything else is HTML, as Moodle assumes.
    init(moodleXML name: String?, default fallback: TextFormat) {
        switch name?.trimmedPHP() {
        case nil: self = fallback
        case "moodle_auto_format": self = .moodle
        case "plain_text", "wiki_like": self = .plain
        case "markdown": self = .markdown
        default: self = .html
        }
    }
}

/// Collects text as a browser would lay it out: whitespace folded, blocks on their own lines.
struct TextBuilder {
    private(set) var text = ""
    /// The sources of the images met, in order (`src` as written).
    var images: [String] = []
    private var pendingSpace = false
    private var pendingBreaks = 0
    private var atLineStart = true
    let keepLineBreaks: Bool

    init(keepLineBreaks: Bool = false) { self.keepLineBreaks = keepLineBreaks }

    mutating func add(_ s: String) {
        // Runs of text between white space are copied whole.
        let scalars = s.unicodeScalars
        var run: String.Index? = nil
        var i = scalars.startIndex
        while i < scalars.endIndex {
            let scalar = scalars[i]
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}" {
                if let start = run { append(s[start..<i]) }
                run = nil
                if scalar == "\n" && keepLineBreaks { lineBreak() } else { pendingSpace = true }
            } else if run == nil {
                run = i
            }
            i = scalars.index(after: i)
        }
        if let start = run { append(s[start..<s.endIndex]) }
    }

    private mutating func append(_ run: Substring) {
        flush()
        text += run
        atLineStart = false
    }

    /// Text inside `<pre>`: spaces and line breaks as written.
    mutating func addPreformatted(_ s: String) {
        var first = true
        for line in s.split(separator: "\n", omittingEmptySubsequences: false) {
            if !first { text += "\n"; atLineStart = true }
            first = false
            guard !line.isEmpty else { continue }
            flush()
            text += line
            atLineStart = false
        }
    }

    private mutating func flush() {
        if pendingBreaks > 0 {
            if !text.isEmpty { text += String(repeating: "\n", count: pendingBreaks) }
            atLineStart = true
        } else if pendingSpace && !atLineStart {
            text += " "
        }
        pendingBreaks = 0
        pendingSpace = false
    }

    /// Table cells open around the text: a `<br>` inside one is a space, so that a cell's line
    /// break (often the editor's trailing one) does not break the table's row.
    var openCells = 0

    /// `<br>`: each one counts, up to one blank line.
    mutating func lineBreak() {
        if openCells > 0 { pendingSpace = true } else { pendingBreaks = min(2, pendingBreaks + 1) }
    }

    /// The edge of a block such as `<div>` or `<li>`: the next text starts a line.
    mutating func block() { pendingBreaks = max(pendingBreaks, 1) }

    /// The edge of a paragraph: a blank line before the next text.
    mutating func paragraph() { pendingBreaks = 2 }

    /// The lists open around the text, innermost last: the next number of an ordered one
    /// (nil for a bulleted one), and whether it counts in letters (`type="a"` or `"A"`).
    private var lists: [(next: Int?, letters: Character?)] = []

    /// `<ol start="3" type="a">` or `<ul>` opens; its items are numbered from `start`. A list
    /// has a blank line around it, a list inside another's item a line break.
    mutating func openList(ordered: Bool, start: String? = nil, type: String? = nil) {
        if lists.isEmpty { paragraph() } else { block() }
        let first = start.flatMap(Self.listNumber(_:)) ?? 1
        let letters: Character? = type == "a" ? "a" : type == "A" ? "A" : nil
        lists.append((ordered ? first : nil, ordered ? letters : nil))
    }

    /// A list's `start` or an item's `value` as a number a list can count on from (a number
    /// past a million is no list a question holds: it is not taken).
    static func listNumber(_ text: String) -> Int? {
        Int(text.trimmed(of: " \t\n")).flatMap { (-1_000_000...1_000_000).contains($0) ? $0 : nil }
    }

    mutating func closeList() {
        _ = lists.popLast()
        if lists.isEmpty { paragraph() } else { block() }
    }

    /// `<li>` (`value` renumbers it): on a line of its own, `1. ` in an ordered list (`a. ` when
    /// it counts in letters), `- ` otherwise, a nested list's items indented.
    mutating func listItem(value: String? = nil) {
        block()
        var mark = "-"
        if let open = lists.last, var number = open.next {
            if let v = value.flatMap(Self.listNumber(_:)) { number = v }
            lists[lists.count - 1].next = number + 1
            mark = Self.listNumber(number, letters: open.letters) + "."
        }
        if lists.count > 1 {
            flush()
            text += String(repeating: "   ", count: lists.count - 1)
            atLineStart = false
        }
        add(mark + " ")
    }

    /// 1, 2 … or a, b … z, aa, ab … (the number itself when it is not above zero).
    static func listNumber(_ number: Int, letters: Character?) -> String {
        guard let base = letters?.unicodeScalars.first?.value, number > 0 else { return String(number) }
        var n = number, out = ""
        while n > 0 {
            n -= 1
            out = String(Character(Unicode.Scalar(base + UInt32(n % 26)) ?? "a")) + out
            n /= 26
        }
        return out
    }

    /// Where each open `<sup>` or `<sub>` began, after its mark.
    private var scripts: [(mark: String, start: Int)] = []

    /// `<sup>` and `<sub>` on a terminal: `2<sup>10</sup>` is 2^10 and `10<sup>-3</sup>` 10^-3,
    /// never "210" (which would make the choices 2<sup>7</sup> and 27 the same text). A script
    /// of more than one word or number is put in parentheses when it ends (`e^(i π)`); a
    /// subscript of digits is written with subscript digits (H₂O).
    /// A script after a space or at a line's start has nothing to raise or lower: it is text.
    mutating func beginScript(superscript: Bool) {
        guard !(pendingSpace || pendingBreaks > 0 || atLineStart) else {
            scripts.append(("", -1))
            return
        }
        let mark = superscript ? "^" : "_"
        append(Substring(mark))
        scripts.append((mark, text.utf8.count))
    }

    mutating func endScript() {
        guard let (mark, start) = scripts.popLast(), !mark.isEmpty, start <= text.utf8.count else { return }
        let at = text.utf8.index(text.utf8.startIndex, offsetBy: start)
        let body = String(text[at...])
        let markStart = text.utf8.index(at, offsetBy: -mark.utf8.count)
        if body.isEmpty {
            text.removeSubrange(markStart..<at)
        } else if mark == "_", let digits = Self.subscriptDigits(body) {
            text.replaceSubrange(markStart..<text.endIndex, with: digits)
        } else if !Self.isOneTerm(body) {
            text.insert("(", at: at)
            text += ")"
        }
    }

    /// A number or a word, with a sign before it at most: written after ^ or _ as it is.
    static func isOneTerm(_ body: String) -> Bool {
        var scalars = Substring(body).unicodeScalars[...]
        if let first = scalars.first, "+-−".unicodeScalars.contains(first) { scalars = scalars.dropFirst() }
        return !scalars.isEmpty && scalars.allSatisfy { $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "." }
    }

    static func subscriptDigits(_ body: String) -> String? {
        let digits = Array("₀₁₂₃₄₅₆₇₈₉".unicodeScalars)
        var out = String.UnicodeScalarView()
        for scalar in body.unicodeScalars {
            guard let value = scalar.properties.numericType == .decimal ? scalar.value : nil,
                  (0x30...0x39).contains(value) else { return nil }
            out.append(digits[Int(value - 0x30)])
        }
        return out.isEmpty ? nil : String(out)
    }
}

/// How HTML elements lay out as text; shared by the GIFT reader (HTML strings) and QTI (XHTML).
enum HTMLLayout {
    enum Role { case paragraph, block, lineBreak, listItem, cell, image, hidden, raised, lowered, inline }

    /// The local name, whatever the namespace (`{http://www.w3.org/2000/svg}svg`, `svg:svg`),
    /// in small letters.
    static func localName(_ name: String) -> String {
        var local = Substring(name)
        if let close = local.lastIndex(of: "}") { local = local[local.index(after: close)...] }
        if let colon = local.lastIndex(of: ":") { local = local[local.index(after: colon)...] }
        return local.lowercased()
    }

    static func role(of name: String) -> Role {
        // By the local name: an SVG drawing or a script stays hidden in any vocabulary.
        switch localName(name) {
        case "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol", "dl", "figure", "hr":
            return .paragraph
        case "div", "tr", "dt", "dd", "caption", "figcaption", "section", "article", "header", "footer", "address":
            return .block
        case "br": return .lineBreak
        case "li": return .listItem
        case "td", "th": return .cell
        case "img": return .image
        case "sup": return .raised
        case "sub": return .lowered
        case "script", "style", "head", "title", "template", "noscript", "iframe", "svg", "object", "embed":
            return .hidden
        default: return .inline
        }
    }

    /// What stands in for an image: its description (else its file name), since a terminal cannot show it.
    static func image(alt: String?, source: String?) -> String {
        if let alt, !alt.trimmed(of: " \n\t").isEmpty { return "[image: \(alt)]" }
        let name = source.flatMap { $0.split(separator: "/").last.map(String.init) }?.split(separator: "?").first.map(String.init)
        guard let name, !name.isEmpty else { return "[image]" }
        return "[image: \(PackagePath.percentDecoded(name))]"
    }
}

extension String {
    /// Without the given characters at either end.
    func trimmed(of set: String = " \t\n\r\0\u{0B}") -> String {
        let drop = Set(set.unicodeScalars)
        var scalars = unicodeScalars[...]
        while let f = scalars.first, drop.contains(f) { scalars = scalars.dropFirst() }
        while let l = scalars.last, drop.contains(l) { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
