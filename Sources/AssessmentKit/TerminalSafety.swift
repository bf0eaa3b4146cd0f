import Foundation

/// Characters that could drive a terminal or make text read differently from how it is
/// stored: the validator refuses them in assessment text, the screen never draws them, and
/// every command quotes them visibly before writing anything to a terminal.
public enum TerminalSafety {
    /// C0 controls, DEL and C1 controls (ESC and CSI among them).
    public static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value)
    }

    /// Bidirectional embeddings, overrides and isolates, and the invisible direction marks
    /// (LRM, RLM, ALM): each changes how the text around it is ordered on screen.
    public static func isBidiControl(_ s: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
            || s.value == 0x200E || s.value == 0x200F || s.value == 0x061C
    }

    /// Characters that draw nothing: Unicode's default-ignorable code points (ZWSP, ZWJ,
    /// ZWNJ, word joiner, U+FEFF, soft hyphen, Hangul fillers, variation selectors, tag
    /// characters…), the interlinear annotation controls and the line/paragraph separators.
    /// Some of them are needed by a script; `servesScript` says when.
    public static func isInvisible(_ s: Unicode.Scalar) -> Bool {
        s.properties.isDefaultIgnorableCodePoint || (0xFFF9...0xFFFB).contains(s.value)
            || s.value == 0x2028 || s.value == 0x2029
    }

    /// What makes a character unsafe to show.
    public enum Hazard: Sendable, Equatable {
        case control, bidi, invisible

        public var rule: String {
            switch self {
            case .control: return "control characters and escape sequences"
            case .bidi: return "bidirectional override characters and direction marks"
            case .invisible: return "invisible characters that no script needs (zero width spaces, joiners, BOMs, tags…)"
            }
        }
    }

    /// The first unsafe character of a text, for messages.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public let scalar: Unicode.Scalar
        public let hazard: Hazard

        /// "U+001B (escape)", "U+200B (zero width space)", "U+0007".
        public var description: String {
            let names: [UInt32: String] = [
                0x1B: "escape", 0x09: "tab", 0x0A: "line break", 0x0D: "carriage return", 0x200B: "zero width space",
                0xFEFF: "zero width no-break space", 0x2060: "word joiner", 0x00AD: "soft hyphen",
                0x200C: "zero width non-joiner", 0x200D: "zero width joiner", 0x202E: "right-to-left override",
                0x200E: "left-to-right mark", 0x200F: "right-to-left mark", 0x3164: "Hangul filler",
            ]
            return TerminalSafety.codePoint(scalar) + (names[scalar.value].map { " (\($0))" } ?? "")
        }
    }

    /// "U+1B" style: at least four hex digits.
    public static func codePoint(_ s: Unicode.Scalar) -> String {
        let hex = String(s.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Why the scalar at `index` must not be shown, or nil when it is safe there. `allowed`
    /// lists controls that the caller accepts (line breaks in multi-line text).
    static func hazard(_ scalars: [Unicode.Scalar], at index: Int, allowed: Set<Unicode.Scalar>) -> Hazard? {
        let s = scalars[index]
        // Printable ASCII is never a control, a bidirectional control or invisible.
        if s.value >= 0x20 && s.value < 0x7F { return nil }
        if allowed.contains(s) { return nil }
        if isControl(s) { return .control }
        if isBidiControl(s) { return .bidi }
        if isInvisible(s) && !servesScript(scalars, at: index) { return .invisible }
        return nil
    }

    /// The first character of `text` that must not be shown; nil when all are safe.
    public static func firstUnsafe(in text: String, allowing allowed: Set<Unicode.Scalar> = []) -> Finding? {
        let scalars = Array(text.unicodeScalars)
        for i in scalars.indices {
            if let hazard = hazard(scalars, at: i, allowed: allowed) { return Finding(scalar: scalars[i], hazard: hazard) }
        }
        return nil
    }

    /// The text without the invisible characters `firstUnsafe` refuses where they stand (a soft
    /// hyphen, a zero width joiner between Latin letters, a variation selector after a letter
    /// that has no variants, a tag outside a flag…), and those characters in the order they
    /// were met. The ones a script or an emoji sequence needs stay. Controls and bidirectional
    /// controls are the caller's to remove first. Taking one character out gives another new
    /// neighbours, so the text is looked at again until nothing more goes: what comes back
    /// holds no invisible character the validator refuses.
    public static func removingUnneededInvisibles(_ text: String) -> (text: String, removed: [Unicode.Scalar]) {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return (text, []) }
        var scalars = Array(text.unicodeScalars)
        var removed: [Unicode.Scalar] = []
        while true {
            var kept: [Unicode.Scalar] = []
            kept.reserveCapacity(scalars.count)
            for i in scalars.indices {
                if isInvisible(scalars[i]) && !servesScript(scalars, at: i) {
                    removed.append(scalars[i])
                } else {
                    kept.append(scalars[i])
                }
            }
            if kept.count == scalars.count { break }
            scalars = kept
        }
        return (String(String.UnicodeScalarView(scalars)), removed)
    }

    // MARK: invisible characters that a script needs

    /// Letters of scripts whose shaping uses ZWJ/ZWNJ: Arabic, Syriac, N'Ko, the Indic
    /// scripts, Sinhala, Myanmar, Khmer, Mongolian, and the Arabic presentation forms.
    static let joiningScripts: [ClosedRange<UInt32>] = [
        0x0600...0x074F, 0x0750...0x077F, 0x07C0...0x07FF, 0x0860...0x08FF, 0x0900...0x0DFF, 0x0F00...0x0FFF,
        0x1000...0x109F, 0x1780...0x17FF, 0x1800...0x18AF, 0xA8E0...0xA8FF, 0xFB50...0xFDFF, 0xFE70...0xFEFF,
    ]

    /// Scripts with standardized or ideographic variation sequences.
    static let variationBases: [ClosedRange<UInt32>] = [
        0x1000...0x109F, 0x1800...0x18AF, 0x2200...0x22FF, 0x2E80...0x2FDF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA840...0xA87F, 0xF900...0xFAFF, 0x20000...0x3FFFF,
    ]

    static func inRanges(_ s: Unicode.Scalar, _ ranges: [ClosedRange<UInt32>]) -> Bool {
        ranges.contains { $0.contains(s.value) }
    }

    static func isLetterOrMark(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// Emoji that take part in ZWJ sequences (not the ASCII digits, `#` and `*`).
    static func isPictographic(_ s: Unicode.Scalar) -> Bool {
        s.value > 0xFF && (s.properties.isEmoji || s.properties.isEmojiPresentation)
    }

    /// Whether the invisible character at `index` does a job for the visible text around
    /// it: ZWJ/ZWNJ between letters of a script that shapes with them, ZWJ inside an emoji
    /// sequence, a variation selector after a base that has variants, Mongolian free
    /// variation selectors, and the tag characters of a subdivision flag (🏴 + tags).
    static func servesScript(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        let s = scalars[index].value
        let previous = index > 0 ? scalars[index - 1] : nil
        let next = index + 1 < scalars.count ? scalars[index + 1] : nil
        switch s {
        case 0x200C, 0x200D:
            guard let previous, let next else { return false }
            if isLetterOrMark(previous) && isLetterOrMark(next)
                && (inRanges(previous, joiningScripts) || inRanges(next, joiningScripts)) {
                return true
            }
            guard s == 0x200D, isPictographic(next) else { return false }
            // Look back over an emoji presentation selector or a skin-tone modifier.
            var back = index - 1
            while back > 0, scalars[back].value == 0xFE0F || (0x1F3FB...0x1F3FF).contains(scalars[back].value) { back -= 1 }
            return isPictographic(scalars[back])
        case 0xFE0E, 0xFE0F:
            guard let previous else { return false }
            return previous.properties.isEmoji
        case 0xFE00...0xFE0D, 0xE0100...0xE01EF:
            guard let previous else { return false }
            return inRanges(previous, variationBases)
        case 0x180B...0x180F:
            guard let previous else { return false }
            return (0x1800...0x18AF).contains(previous.value)
        case 0xE0020...0xE007F:
            var back = index - 1
            while back >= 0, (0xE0020...0xE007E).contains(scalars[back].value) { back -= 1 }
            return back >= 0 && scalars[back].value == 0x1F3F4
        default:
            return false
        }
    }

    // MARK: one sanitiser for output

    /// Text safe to write to a terminal, with every hostile character quoted visibly as
    /// `\u{1B}`: controls (an ESC becomes `\u{1B}]52;…` on screen instead of a clipboard
    /// write), bidirectional controls and invisible characters. With `keepLineBreaks`, line
    /// breaks, tabs and CR LF pairs stay as they are.
    public static func visible(_ text: String, keepLineBreaks: Bool = true) -> String {
        // Printable ASCII (with line breaks and tabs when kept) holds nothing to quote: such
        // text, most of what students type, is returned as it is without a look at each
        // character's Unicode properties. A lone CR is a control, so it takes the long way.
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) || (keepLineBreaks && ($0 == 0x0A || $0 == 0x09)) }) {
            return text
        }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        let kept: Set<Unicode.Scalar> = keepLineBreaks ? ["\n", "\t"] : []
        for i in scalars.indices {
            let s = scalars[i]
            let crlf = keepLineBreaks && s == "\r" && i + 1 < scalars.count && scalars[i + 1] == "\n"
            if !crlf, hazard(scalars, at: i, allowed: kept) != nil {
                out.appendEach("\\u{\(String(s.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(s)
            }
        }
        return String(out)
    }

    /// Encoded JSON with every control, bidirectional control and invisible character left
    /// by the encoder written as a `\uXXXX` escape (surrogate pairs above U+FFFF). Such
    /// characters only occur inside JSON strings, so the document means exactly the same.
    public static func escapingJSON(_ encoded: String) -> String {
        // Printable ASCII and line breaks are never escaped: a document made only of them (a
        // console's listing of a room, most results) is returned as it is, without asking the
        // Unicode properties of every character (most of `proctor --json`'s time for 1 000 seats).
        if encoded.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A }) { return encoded }
        var out = ""
        out.unicodeScalars.reserveCapacity(encoded.unicodeScalars.count)
        for s in encoded.unicodeScalars {
            if (s.value >= 0x20 && s.value < 0x7F) || s == "\n" {
                out.unicodeScalars.append(s)
                continue
            }
            let hostile = isControl(s) || isBidiControl(s) || isInvisible(s)
            guard hostile else {
                out.unicodeScalars.append(s)
                continue
            }
            for unit in String(s).utf16 {
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    // MARK: look-alike texts

    /// What a text looks like: NFKC, without bidirectional controls and invisible
    /// characters, runs of white space as one space. Two choices with the same key look the
    /// same to a student even when their characters differ.
    public static func lookAlikeKey(_ text: String) -> String {
        // Printable ASCII is its own NFKC and holds no invisible or bidirectional character:
        // only runs of spaces change (the short way; the long way gives the same key).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return text.split(separator: " ").joined(separator: " ")
        }
        return lookAlikeKeyOfAnyText(text)
    }

    /// `lookAlikeKey` the long way, for any text.
    static func lookAlikeKeyOfAnyText(_ text: String) -> String {
        let visibleScalars = text.unicodeScalars.filter { !isInvisible($0) && !isBidiControl($0) }
        let folded = String(String.UnicodeScalarView(visibleScalars)).precomposedStringWithCompatibilityMapping
        return folded.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// The first pair of different texts that look the same (indices into `texts`); texts
    /// that are exactly equal are duplicates, reported elsewhere, and are not paired here.
    public static func firstLookAlike(_ texts: [String]) -> (first: Int, second: Int)? {
        var seen: [String: Int] = [:]
        for (i, text) in texts.enumerated() {
            let key = lookAlikeKey(text)
            if let j = seen[key] {
                if texts[j] != text { return (j, i) }
            } else {
                seen[key] = i
            }
        }
        return nil
    }

    // MARK: names given on the command line

    public static let candidateMaximumCharacters = 100
    public static let candidateMaximumScalars = 400

    /// Why a `--candidate` name cannot be used (nil when it can): it is validated like
    /// assessment text, because it is shown on screen, in `status` and in results.
    public static func candidateNameProblem(_ name: String) -> String? {
        commandLineTextProblem(name, option: "--candidate", in: "a name",
                               maximumCharacters: candidateMaximumCharacters, maximumScalars: candidateMaximumScalars)
    }

    public static let commentMaximumCharacters = 500
    public static let commentMaximumScalars = 2000

    /// Why a marker's `--comment` cannot be kept (nil when it can): it is printed by
    /// `results show` and exported with the result, so it follows the rules of a name.
    public static func commentProblem(_ comment: String) -> String? {
        commandLineTextProblem(comment, option: "--comment", in: "a comment",
                               maximumCharacters: commentMaximumCharacters, maximumScalars: commentMaximumScalars)
    }

    /// Text typed on the command line that Carrel keeps and shows again: not blank, not
    /// longer than the limit (counted in characters, and in scalars so that combining marks
    /// cannot make it huge), and without a character that could act on a terminal.
    static func commandLineTextProblem(_ text: String, option: String, in what: String,
                                       maximumCharacters: Int, maximumScalars: Int) -> String? {
        // Blank as `CharacterSet.whitespaces` has it (spaces and tabs), asked of the scalars
        // themselves: the character set's first use cost a launch over a million instructions.
        if text.unicodeScalars.allSatisfy({ $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }) {
            return "\(option) is empty"
        }
        if text.count > maximumCharacters || text.unicodeScalars.count > maximumScalars {
            return "\(option) is longer than \(maximumCharacters) characters"
        }
        if let finding = firstUnsafe(in: text) {
            return "\(option) contains \(finding); \(finding.hazard.rule) are not allowed in \(what)"
        }
        return nil
    }

    // MARK: spreadsheets

    /// A CSV cell that a spreadsheet will not run as a formula (OWASP's rule: a cell that
    /// starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`).
    public static func spreadsheetCell(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) else { return text }
        return "'" + text
    }
}
