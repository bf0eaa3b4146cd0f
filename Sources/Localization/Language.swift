/// The languages a student can read Carrel in.
public enum Language: String, CaseIterable, Sendable, Codable {
    case en, fr, de, es, ja
    /// For tests only: every sentence lengthened by a third and marked, so that a sentence
    /// missing from the catalogs, or a screen that overflows, shows.
    case pseudo = "x-pseudo"

    /// The languages offered to people (the pseudo-language is not one).
    public static var offered: [Language] { [.en, .fr, .de, .es, .ja] }

    /// The language's own name for itself.
    public var name: String {
        switch self {
        case .en: return "English"
        case .fr: return "Français"
        case .de: return "Deutsch"
        case .es: return "Español"
        case .ja: return "日本語"
        case .pseudo: return "Pseudo"
        }
    }

    /// "en (English), fr (Français), de (Deutsch), es (Español), ja (日本語)".
    public static var offeredList: String {
        offered.map { "\($0.rawValue) (\($0.name))" }.joined(separator: ", ")
    }

    /// The language of a tag as people write it: `fr`, `FR`, `fr-CA`, `fr_FR.UTF-8`,
    /// `de_DE@euro`; nil for a language Carrel does not speak.
    public init?(tag: String) {
        // The pseudo-language is for tests, which name it in code: no tag, option, roster,
        // assessment or environment chooses it.
        let lowered = tag.lowercased()
        var primary = ""
        for ch in lowered {
            if ch == "-" || ch == "_" || ch == "." || ch == "@" { break }
            primary.append(ch)
        }
        guard let language = Language.offered.first(where: { $0.rawValue == primary }) else { return nil }
        self = language
    }

    /// Why a tag cannot be used, in words naming the languages there are.
    public static func unknown(_ tag: String) -> String {
        "\"\(tag)\" is not a language Carrel speaks; the languages are \(offeredList)"
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

    /// CLDR's plural category of a whole number in this language.
    public func pluralCategory(_ n: Int) -> String {
        let n = abs(n)
        switch self {
        case .en, .de, .pseudo: return n == 1 ? "one" : "other"
        case .fr:
            if n == 0 || n == 1 { return "one" }
            return n % 1_000_000 == 0 ? "many" : "other"
        case .es:
            if n == 1 { return "one" }
            return n % 1_000_000 == 0 ? "many" : "other"
        case .ja: return "other"
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
