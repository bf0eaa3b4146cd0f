/// A language a student can read Carrel in: English, or one of the catalogs (`po/*.po`,
/// compiled in), by its code (`fr`, `pt-BR`, `zh-Hans`). Its name, plural rules and words come
/// from its catalog; adding a language is adding a catalog (docs/translating.md).
public struct Language: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code as Carrel writes it: `en`, `fr`, `pt-BR`, `zh-Hans`, `x-pseudo`.
    public let rawValue: String

    init(code: String) { rawValue = code }

    /// A language Carrel knows by its exact code (what a journal or a roster recorded).
    public init?(rawValue: String) {
        guard rawValue == Language.pseudo.rawValue || Language.offered.contains(Language(code: rawValue)) else { return nil }
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        let code = try decoder.singleValueContainer().decode(String.self)
        guard let known = Language(rawValue: code) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: Language.unknown(code)))
        }
        self = known
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static let en = Language(code: "en")
    public static let fr = Language(code: "fr")
    public static let de = Language(code: "de")
    public static let es = Language(code: "es")
    public static let ja = Language(code: "ja")
    public static let it = Language(code: "it")
    public static let ptBR = Language(code: "pt-BR")
    public static let nl = Language(code: "nl")
    public static let pl = Language(code: "pl")
    public static let sv = Language(code: "sv")
    public static let fi = Language(code: "fi")
    public static let zhHans = Language(code: "zh-Hans")
    public static let ko = Language(code: "ko")
    /// For tests only: every sentence lengthened by a third and marked, so that a sentence
    /// missing from the catalogs, or a screen that overflows, shows.
    public static let pseudo = Language(code: "x-pseudo")

    /// The languages offered to people (the pseudo-language is not one): English, then every
    /// catalog compiled in, then any a translator opened (`carrel demo --catalog`).
    public static var offered: [Language] { [.en] + Catalog.languages }

    /// The language's own name for itself.
    public var name: String {
        switch rawValue {
        case "en": return "English"
        case Language.pseudo.rawValue: return "Pseudo"
        default: return Catalog.name(of: self) ?? rawValue
        }
    }

    /// "en (English), fr (Français), de (Deutsch), …".
    public static var offeredList: String {
        offered.map { "\($0.rawValue) (\($0.name))" }.joined(separator: ", ")
    }

    /// The language of a tag as people write it: `fr`, `FR`, `fr-CA`, `fr_FR.UTF-8`,
    /// `de_DE@euro`, `pt_BR`, `zh_CN`; nil for a language Carrel does not speak.
    public init?(tag: String) {
        // The pseudo-language is for tests, which name it in code: no tag, option, roster,
        // assessment or environment chooses it.
        let wanted = Language.normalised(tag)
        let primary = String(wanted.prefix { $0 != "-" })
        guard !primary.isEmpty, !wanted.hasPrefix("x-") else { return nil }
        let offered = Language.offered
        if let exact = offered.first(where: { $0.rawValue.lowercased() == wanted }) {
            self = exact
            return
        }
        // Chinese written in traditional characters is another script, not a variant.
        if primary == "zh", Language.traditionalChinese.contains(where: { wanted.hasPrefix($0) }) { return nil }
        guard let language = offered.first(where: { $0.rawValue.lowercased().prefix { $0 != "-" } == primary }) else { return nil }
        self = language
    }

    static let traditionalChinese = ["zh-hant", "zh-tw", "zh-hk", "zh-mo"]

    /// `pt_BR.UTF-8` → `pt-br`; `de_DE@euro` → `de-de`.
    static func normalised(_ tag: String) -> String {
        var out = ""
        for ch in tag.lowercased() {
            if ch == "." || ch == "@" { break }
            out.append(ch == "_" ? "-" : ch)
        }
        return out
    }

    /// Languages written right to left, by code: not offered, and refused by name.
    static let rightToLeft: [String: String] = [
        "ar": "Arabic", "he": "Hebrew", "iw": "Hebrew", "fa": "Persian", "ur": "Urdu", "yi": "Yiddish",
        "ps": "Pashto", "sd": "Sindhi", "ug": "Uyghur", "dv": "Dhivehi", "ckb": "Central Kurdish", "syr": "Syriac",
    ]

    /// Why a tag cannot be used, in words naming the languages there are.
    public static func unknown(_ tag: String) -> String {
        let wanted = normalised(tag)
        let primary = String(wanted.prefix { $0 != "-" })
        if let name = rightToLeft[primary] {
            return "\"\(tag)\" (\(name)) is written right to left, which terminals do not shape or order the same way, "
                + "so Carrel does not offer it; the languages are \(offeredList)"
        }
        if primary == "zh", traditionalChinese.contains(where: { wanted.hasPrefix($0) }) {
            return "\"\(tag)\" (Chinese in traditional characters) has no catalog yet; the languages are \(offeredList)"
        }
        return "\"\(tag)\" is not a language Carrel speaks; the languages are \(offeredList)"
    }

    /// The language the environment asks for: the first of `LC_ALL`, `LC_MESSAGES` and
    /// `LANG` that is set and not empty, as POSIX reads them; English when that one is `C`,
    /// `POSIX` or a language Carrel does not speak, or when none is set.
    public static func fromEnvironment(_ environment: [String: String]) -> Language {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            return Language(tag: value) ?? .en
        }
        return .en
    }

    /// CLDR's plural category of a whole number in this language (from its catalog's
    /// `X-Carrel-Plural-Rules`).
    public func pluralCategory(_ n: Int) -> String {
        switch rawValue {
        case "en", Language.pseudo.rawValue: return abs(n) == 1 ? "one" : "other"
        default: return Catalog.loaded(self)?.plural.category(n) ?? (abs(n) == 1 ? "one" : "other")
        }
    }
}

/// Where a session's language came from, for `carrel inspect` and the journal.
public enum LanguageSource: String, Sendable, Codable {
    case roster, option = "--language", assessment, environment, fallback = "default"
}

/// The language a session speaks: the roster's `language` column, else `--language`, else
/// the assessment's `language:` key, else the environment, else English. A named language
/// Carrel does not speak is an error (`Language.unknown`), not a quiet fallback.
public struct LanguageChoice: Sendable, Equatable {
    public let language: Language
    public let source: LanguageSource

    public init(language: Language, source: LanguageSource) {
        self.language = language
        self.source = source
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unknown(tag: String, source: LanguageSource)
        public var description: String {
            switch self {
            case let .unknown(tag, source):
                let from: String
                switch source {
                case .roster: from = "the roster's language column"
                case .option: from = "--language"
                case .assessment: from = "the assessment's language key"
                case .environment, .fallback: from = "the environment"
                }
                return "\(from): " + Language.unknown(tag)
            }
        }
    }

    public static func resolve(roster: String?, option: String?, assessment: String?,
                               environment: [String: String]) -> Result<LanguageChoice, Failure> {
        for (tag, source) in [(roster, LanguageSource.roster), (option, .option), (assessment, .assessment)] {
            // An empty roster cell or assessment key says nothing; `--language ""` is a mistake.
            guard let tag, !tag.isEmpty || source == .option else { continue }
            guard let language = Language(tag: tag) else { return .failure(.unknown(tag: tag, source: source)) }
            return .success(LanguageChoice(language: language, source: source))
        }
        let set = ["LC_ALL", "LC_MESSAGES", "LANG"].contains { environment[$0].map { !$0.isEmpty } ?? false }
        return .success(LanguageChoice(language: Language.fromEnvironment(environment), source: set ? .environment : .fallback))
    }
}
