import Foundation

/// What a student answered to one item.
public enum Response: Sendable, Hashable, Codable {
    case choice(String)
    /// The selected choices of a `multiple` item.
    case multiple([String])
    case trueFalse(Bool)
    case text(String)
    /// As typed; parsed with `NumericText` when scored.
    case numeric(String)
    case essay(String)
    /// The entries in the order the student arranged them.
    case order([String])
    /// Left-hand entry → the right-hand entry the student picked.
    case match([String: String])
    /// One entry per gap of a `gaps` item: what was typed or picked (several picks for a gap
    /// that takes more than one); an empty entry is a gap left open.
    case gaps([[String]])

    /// True when the student has given nothing that could earn a point.
    public var isEmpty: Bool {
        switch self {
        case .choice(let s), .text(let s), .numeric(let s), .essay(let s):
            return s.trimmingSpaces().isEmpty
        case .multiple(let picks): return picks.isEmpty
        case .trueFalse: return false
        case .order(let entries): return entries.isEmpty
        case .match(let picks): return picks.isEmpty
        case .gaps(let entries): return entries.allSatisfy { $0.allSatisfy { $0.trimmingSpaces().isEmpty } }
        }
    }
}

/// Numbers as students type them: `3.14`, `3,14`, `-2e3`, `+0.5`.
public enum NumericText {
    /// `1,000` or `-12,500`: one comma after one to three digits (not starting with 0) and
    /// before exactly three may group thousands or mark a decimal, so where the meaning
    /// matters (a key, a mark) it is asked, not guessed. `0,500` and `1234,567` can only be
    /// decimals.
    public static func isAmbiguousGrouping(_ text: String) -> Bool {
        let parts = text.trimmingSpaces().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = parts.first, let fraction = parts.last else { return false }
        let whole = first.drop { $0 == "+" || $0 == "-" }
        let digits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        return fraction.count == 3 && digits(fraction) && digits(whole) && whole.count <= 3 && whole.first != "0"
    }

    public static func parse(_ text: String) -> Double? {
        var s = String(text.trimmingSpaces())
        guard !s.isEmpty, s.count <= 64 else { return nil }
        let commas = s.filter { $0 == "," }.count
        if commas == 1 && !s.contains(".") { s = s.replacingOccurrences(of: ",", with: ".") }
        // Only sign, digits, one point and an exponent: no hex, inf, nan or grouping.
        var sawDigit = false, sawPoint = false, sawExponent = false, digitsAfterExponent = false
        var previous: Character? = nil
        for ch in s {
            switch ch {
            case "0"..."9":
                sawDigit = true
                if sawExponent { digitsAfterExponent = true }
            case ".":
                if sawPoint || sawExponent { return nil }
                sawPoint = true
            case "e", "E":
                if sawExponent || !sawDigit { return nil }
                sawExponent = true
            case "+", "-":
                if !(previous == nil || previous == "e" || previous == "E") { return nil }
            default:
                return nil
            }
            previous = ch
        }
        guard sawDigit, !sawExponent || digitsAfterExponent, let value = Double(s), value.isFinite else { return nil }
        return value
    }
}

extension Unicode.GeneralCategory {
    var isPunctuationOrSymbol: Bool {
        switch self {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }
}

/// Text comparison for short answers: NFC, folded whitespace, optional case folding.
public enum AnswerText {
    public static func normalise(_ text: String, caseSensitive: Bool) -> String {
        // Printable ASCII is its own NFC and its only white space is the space (the short
        // way; the long way gives the same text).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            let joined = text.split(separator: " ").joined(separator: " ")
            return caseSensitive ? joined : joined.lowercased()
        }
        return normaliseAnyText(text, caseSensitive: caseSensitive)
    }

    /// `normalise` the long way, for any text.
    static func normaliseAnyText(_ text: String, caseSensitive: Bool) -> String {
        let nfc = text.precomposedStringWithCanonicalMapping
        let words = nfc.split(whereSeparator: { $0.isWhitespace })
        let joined = words.joined(separator: " ")
        return caseSensitive ? joined : joined.lowercased()
    }

    /// Words as a reader counts them: runs between spaces, and in Chinese, Japanese and
    /// Korean (written without spaces) each ideograph, kana or hangul syllable on its own, as
    /// word processors count East Asian text. Punctuation alone is no word.
    public static func wordCount(_ text: String) -> Int {
        var count = 0
        var inWord = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                inWord = false
            } else if (0x3099...0x309C).contains(scalar.value) || scalar.value == 0x30FC {
                // Sound marks and the long-vowel mark belong to the kana before them.
                continue
            } else if isEastAsianWord(scalar) {
                count += 1
                inWord = false
            } else if scalar.properties.generalCategory.isPunctuationOrSymbol && !inWord {
                continue
            } else if !inWord {
                count += 1
                inWord = true
            }
        }
        return count
    }

    /// A character that is a word by itself in East Asian text.
    static func isEastAsianWord(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, // hiragana, katakana
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2FA1F, // ideographs
             0xAC00...0xD7AF, 0xFF66...0xFF9D: // hangul syllables, half-width katakana
            return scalar.value != 0x30FB // the middle dot is punctuation
        default:
            return false
        }
    }
}
