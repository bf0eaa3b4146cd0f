/// A value put into a sentence.
public enum Arg: Sendable, Equatable {
    /// A whole number: said as digits, and it chooses the plural form.
    case n(Int)
    /// Text as it is: a title, a name, a reason.
    case s(String)
    /// A sentence of its own, said in the same language.
    case phrase(Phrase)
    /// A length of time in words: "13 minutes 35 seconds".
    case time(Int)
    /// Points: "2.5" in English, "2,5" in French.
    case points(Double)
}

/// A sentence before it is said in a language: its English template (the catalogs' key) and
/// its values. The session core speaks in phrases; the screen says them in the student's
/// language.
public struct Phrase: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let template: String
    public let args: [Arg]

    public init(_ template: String, _ args: Arg...) {
        self.template = template
        self.args = args
    }

    public init(template: String, args: [Arg]) {
        self.template = template
        self.args = args
    }

    public init(stringLiteral value: String) {
        self.template = value
        self.args = []
    }

    /// Two phrases are equal when they say the same in English ("5 minutes left" written
    /// as a template with its number, or as it reads).
    public static func == (a: Phrase, b: Phrase) -> Bool {
        (a.template == b.template && a.args == b.args) || a.english == b.english
    }

    /// The sentence in English (logs, tests, messages for the proctor).
    public var description: String { Localizer.english.say(self) }
    public var english: String { description }
}

/// Says templates in one language. A template is the English sentence with its values as
/// `{0}`, `{1}`…; a number chooses a plural form as ICU writes it:
/// `{0, plural, one {# minute} other {# minutes}}` (`#` is the number; `=0 {…}` matches
/// one number exactly). A template may begin with a context in angle brackets,
/// `⟨footer⟩back`, that tells two uses of the same English words apart and is not said.
public struct Localizer: Sendable, Equatable {
    public let language: Language
    /// The language's catalog, read once for every localizer of the language; nil in English.
    let catalog: Catalog.Loaded?

    public init(_ language: Language) {
        self.language = language
        catalog = language == .en || language == .pseudo ? nil : Catalog.loaded(language)
    }

    /// A localizer of a catalog read but not offered (a test of a translator's catalog).
    public init(_ language: Language, catalog: Catalog.Loaded) {
        self.language = language
        self.catalog = catalog
    }

    public static func == (a: Localizer, b: Localizer) -> Bool { a.language == b.language }

    public static let english = Localizer(.en)

    /// `template` said in this language with `args`.
    public func callAsFunction(_ template: String, _ args: Arg...) -> String {
        format(translated(template), args)
    }

    public func say(_ phrase: Phrase) -> String {
        format(translated(phrase.template), phrase.args)
    }

    /// The template in this language: the catalog's, else the English one (a missing
    /// sentence shows in English rather than not at all; a test makes sure none is missing).
    public func translated(_ template: String) -> String {
        switch language {
        case .en: return Catalog.strippingContext(template)
        case .pseudo:
            return Catalog.englishKeys.contains(template) ? Pseudo.lengthen(Catalog.strippingContext(template)) : Catalog.strippingContext(template)
        default:
            return catalog?.messages[template] ?? Catalog.strippingContext(template)
        }
    }

    /// `word` in this language where the catalogs list it under `context` (`⟨seat state⟩active`),
    /// else `word` as it is: for words that come as data (a seat's state, a command's name).
    public func known(_ word: String, context: String) -> String {
        // English says the word as it is: no need to build the set of every template for it.
        if language == .en { return word }
        let template = "⟨" + context + "⟩" + word
        // A catalog has every template (a test makes sure): a word it lacks is said as it is,
        // with no need to read the template list.
        if let catalog { return catalog.messages[template] ?? word }
        return Catalog.englishKeys.contains(template) ? translated(template) : word
    }

    /// A key as the keyboard says it: unchanged, except a yes key ("y" is "o" in French).
    public func keyName(_ key: String) -> String { known(key, context: "key") }

    /// A footer's label ("next", "flag"), said in this language.
    public func footerLabel(_ label: String) -> String {
        translated("⟨footer⟩" + label)
    }

    /// Keys in words ("Enter or Space"): translated where they hold words, else as written.
    public func keyWords(_ words: String) -> String { known(words, context: "keys") }

    /// A length of time in words in this language: "1 hour 2 minutes 3 seconds".
    public func duration(_ seconds: Int) -> String {
        let s = max(0, seconds)
        let h = s / 3600, m = (s % 3600) / 60, sec = s % 60
        var parts: [String] = []
        if h > 0 { parts.append(self("{0, plural, one {# hour} other {# hours}}", .n(h))) }
        if m > 0 { parts.append(self("{0, plural, one {# minute} other {# minutes}}", .n(m))) }
        if sec > 0 || parts.isEmpty { parts.append(self("{0, plural, one {# second} other {# seconds}}", .n(sec))) }
        let separator = translated("⟨between units of time⟩ ")
        return parts.joined(separator: separator == "⟨between units of time⟩ " ? " " : separator)
    }

    /// A list in words: "1, 2 and 3".
    public func list(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        if items.count == 1 { return last }
        return self("{0} and {1}", .s(items.dropLast().joined(separator: translated("⟨list separator⟩, "))), .s(last))
    }

    // MARK: formatting

    func text(_ arg: Arg) -> String {
        switch arg {
        case let .n(n): return String(n)
        case let .s(s): return s
        case let .phrase(p): return say(p)
        case let .time(t): return duration(t)
        case let .points(p): return Localizer.points(p, comma: translated("⟨decimal separator⟩.") == ",")
        }
    }

    static func points(_ value: Double, comma: Bool) -> String {
        let text: String
        if value == value.rounded() && abs(value) < 1e15 {
            text = String(Int(value))
        } else {
            text = String((value * 100).rounded() / 100)
        }
        return comma ? String(text.map { $0 == "." ? "," : $0 }) : text
    }

    func format(_ template: String, _ args: [Arg]) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var out = ""
        var scalars = Substring(template)
        while let open = scalars.firstIndex(of: "{") {
            out += scalars[..<open]
            guard let close = Localizer.matchingBrace(scalars, from: open) else {
                out += scalars[open...]
                return out
            }
            out += placeholder(scalars[scalars.index(after: open)..<close], args)
            scalars = scalars[scalars.index(after: close)...]
        }
        out += scalars
        return out
    }

    static func matchingBrace(_ text: Substring, from open: Substring.Index) -> Substring.Index? {
        var depth = 0
        var i = open
        while i < text.endIndex {
            if text[i] == "{" { depth += 1 }
            if text[i] == "}" {
                depth -= 1
                if depth == 0 { return i }
            }
            i = text.index(after: i)
        }
        return nil
    }

    /// `0` or `0, plural, one {…} other {…}`.
    func placeholder(_ body: Substring, _ args: [Arg]) -> String {
        let parts = body.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard let index = Int(parts[0].trimmingCharacters()), args.indices.contains(index) else { return "{" + body + "}" }
        let arg = args[index]
        guard parts.count == 3, parts[1].trimmingCharacters() == "plural" else { return text(arg) }
        let number: Int
        switch arg {
        case let .n(n): number = n
        default: return text(arg)
        }
        let forms = Localizer.forms(parts[2])
        let category = catalog?.plural.category(number) ?? language.pluralCategory(number)
        let chosen = forms["=\(number)"] ?? forms[category] ?? forms["other"] ?? ""
        let digits = String(number)
        var filled = ""
        for ch in chosen { if ch == "#" { filled += digits } else { filled.append(ch) } }
        return format(filled, args)
    }

    /// `one {# minute} other {# minutes}` as a table.
    static func forms(_ text: Substring) -> [String: String] {
        var forms: [String: String] = [:]
        var rest = text
        while let open = rest.firstIndex(of: "{"), let close = matchingBrace(rest, from: open) {
            let selector = rest[..<open].trimmingCharacters()
            forms[selector] = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
        }
        return forms
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while let f = s.first, f == " " { s = s.dropFirst() }
        while let l = s.last, l == " " { s = s.dropLast() }
        return String(s)
    }
}

/// The pseudo-language: every letter of the English sentence swapped for an accented one,
/// lengthened by a third and marked with ⟦ ⟧, values and plural syntax left alone.
public enum Pseudo {
    static let swaps: [Character: Character] = [
        "a": "á", "b": "ƀ", "c": "ç", "d": "ď", "e": "é", "f": "ƒ", "g": "ĝ", "h": "ĥ", "i": "í", "j": "ĵ",
        "k": "ķ", "l": "ĺ", "m": "ɱ", "n": "ñ", "o": "ó", "p": "þ", "q": "ǫ", "r": "ŕ", "s": "š", "t": "ţ",
        "u": "ú", "v": "ṽ", "w": "ŵ", "x": "ẋ", "y": "ý", "z": "ž",
        "A": "Á", "B": "Ɓ", "C": "Ç", "D": "Ď", "E": "É", "F": "Ƒ", "G": "Ĝ", "H": "Ĥ", "I": "Í", "J": "Ĵ",
        "K": "Ķ", "L": "Ĺ", "M": "Ṁ", "N": "Ñ", "O": "Ó", "P": "Þ", "Q": "Ǫ", "R": "Ŕ", "S": "Š", "T": "Ţ",
        "U": "Ú", "V": "Ṽ", "W": "Ŵ", "X": "Ẋ", "Y": "Ý", "Z": "Ž",
    ]

    /// The template in the pseudo-language. Text at depth 0 and inside plural forms
    /// (depth 2) is swapped; the braces' own words (`0, plural, one`) and `#` are kept.
    /// A template of spaces or punctuation only (a separator) is kept as it is.
    public static func lengthen(_ template: String) -> String {
        guard template.contains(where: { $0.isLetter }) else { return template }
        var out = ""
        var depth = 0
        var letters = 0
        for ch in template {
            if ch == "{" { depth += 1; out.append(ch); continue }
            if ch == "}" { depth -= 1; out.append(ch); continue }
            if depth % 2 == 0, let swapped = swaps[ch] {
                out.append(swapped)
                letters += 1
            } else {
                out.append(ch)
                if depth % 2 == 0 && ch != " " && ch != "#" { letters += 1 }
            }
        }
        let padding = String(repeating: "~", count: max(1, (letters + 2) / 3))
        return "⟦" + out + padding + "⟧"
    }
}
