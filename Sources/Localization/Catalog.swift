import Synchronization

/// The message catalogs: every sentence Carrel says, by its English template. The template
/// list is `po/carrel.pot`; each language is a gettext catalog `po/<code>.po`, written as a
/// native speaker would say it. Both are compiled in (`EmbeddedCatalogs`, string literals
/// written by `scripts/catalogs`; a test makes sure they are po/'s), and a language's table is
/// made the first time a sentence is said in it — English makes none.
public enum Catalog {
    /// A language's catalog, read.
    public final class Loaded: Sendable {
        public let language: Language
        public let name: String
        public let plural: PluralRules
        /// Translation by template.
        public let messages: [String: String]

        init(language: Language, name: String, plural: PluralRules, messages: [String: String]) {
            self.language = language
            self.name = name
            self.plural = plural
            self.messages = messages
        }
    }

    /// A catalog: compiled in (read by scripts/catalogs into string literals), or a
    /// translator's text; made into a table the first time its language says something.
    struct Entry {
        enum Source {
            case embedded(EmbeddedCatalogs.Embedded)
            case text(String)
        }
        let language: Language
        let name: String
        let source: Source
        var loaded: Loaded?
    }

    static let entries: Mutex<[Entry]> = Mutex(EmbeddedCatalogs.languages.map {
        Entry(language: Language(code: $0.code), name: $0.name, source: .embedded($0))
    })

    /// The languages of the catalogs, in the order they are offered.
    public static var languages: [Language] { entries.withLock { $0.map(\.language) } }

    static func name(of language: Language) -> String? {
        entries.withLock { $0.first { $0.language == language }?.name }
    }

    /// The language's catalog, made once; nil for English or a language with no catalog. A
    /// compiled-in catalog whose plural rules cannot be read says nothing (English shows); a
    /// test reads every one.
    public static func loaded(_ language: Language) -> Loaded? {
        entries.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.language == language }) else { return nil }
            if let loaded = entries[index].loaded { return loaded }
            let made: Loaded?
            switch entries[index].source {
            case let .embedded(embedded): made = try? table(embedded)
            case let .text(text): made = try? read(text, as: language)
            }
            guard let made else { return nil }
            entries[index].loaded = made
            return made
        }
    }

    /// A compiled-in catalog as a table: its pairs, no parsing.
    static func table(_ embedded: EmbeddedCatalogs.Embedded) throws(PluralRules.Failure) -> Loaded {
        let pairs = embedded.messages()
        var messages: [String: String] = [:]
        messages.reserveCapacity(pairs.count / 2)
        var i = 0
        while i + 1 < pairs.count {
            messages[pairs[i]] = pairs[i + 1]
            i += 2
        }
        return Loaded(language: Language(code: embedded.code), name: embedded.name, plural: try PluralRules(embedded.rules),
                      messages: messages)
    }

    /// The table of a language other than English (tests, the review script).
    public static func table(_ language: Language) -> [String: String] { loaded(language)?.messages ?? [:] }

    /// Every template, in the template file's order.
    public static let templates: [String] = EmbeddedCatalogs.template

    /// Every template, as a set.
    public static let englishKeys: Set<String> = Set(templates)

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unreadable(POFile.Failure)
        case header(String)
        case message(template: String, reason: String)

        public var description: String {
            switch self {
            case let .unreadable(failure): return "the catalog cannot be read: \(failure)"
            case let .header(reason): return "the catalog's header: \(reason)"
            case let .message(template, reason): return "\"\(template)\": \(reason)"
            }
        }
    }

    /// A catalog's text read as `language`: its name, plural rules and messages. Messages
    /// the template does not have are left out; a message that would write a control
    /// character to the terminal is refused.
    static func read(_ text: String, as language: Language) throws(Failure) -> Loaded {
        let file: POFile
        do { file = try POFile(parsing: text) } catch { throw .unreadable(error) }
        let plural: PluralRules
        do { plural = try PluralRules(file["X-Carrel-Plural-Rules"] ?? "") } catch { throw .header("X-Carrel-Plural-Rules: \(error)") }
        for (template, message) in file.messages where message.unicodeScalars.contains(where: isControl) {
            throw .message(template: template, reason: "holds a control character")
        }
        return Loaded(language: language, name: file["X-Carrel-Name"] ?? language.rawValue, plural: plural, messages: file.messages)
    }

    /// C0 (but a line break), DEL, C1 and the bidirectional controls: never in a message.
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return (v < 0x20 && v != 0x0A) || (0x7F..<0xA0).contains(v) || (0x200E...0x200F).contains(v)
            || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// A translator's catalog opened for review (`carrel demo --catalog FILE`): checked as
    /// a compiled-in one is (every value kept, every plural category named, no control
    /// character), then offered after the compiled-in languages for this run. A catalog for a
    /// language already offered takes its place.
    public static func add(_ text: String) throws(Failure) -> Language {
        let loaded = try check(text)
        entries.withLock { entries in
            let entry = Entry(language: loaded.language, name: loaded.name, source: .text(text), loaded: loaded)
            if let index = entries.firstIndex(where: { $0.language == loaded.language }) {
                entries[index] = entry
            } else {
                entries.append(entry)
            }
        }
        return loaded.language
    }

    /// A catalog read and checked, not offered: its language from its `Language` header.
    public static func check(_ text: String) throws(Failure) -> Loaded {
        let file: POFile
        do { file = try POFile(parsing: text) } catch { throw .unreadable(error) }
        let code = Language.canonicalCode(file["Language"] ?? "")
        guard !code.isEmpty else { throw .header("it names no Language (Language: it, Language: pt_BR)") }
        guard code != "en", !code.hasPrefix("x-"), code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw .header("\(code) is not a language a catalog can add")
        }
        if let name = Language.rightToLeft[String(code.lowercased().prefix { $0 != "-" })] {
            throw .header("\(code) (\(name)) is written right to left, which terminals do not shape or order the same way, so Carrel does not offer it")
        }
        let loaded = try read(text, as: Language(code: code))
        if let problem = CatalogCheck.problems(loaded, templates: templates).first {
            throw .message(template: problem.template, reason: problem.reason)
        }
        return loaded
    }

    /// The template without its context: `⟨footer⟩back` → `back`.
    public static func strippingContext(_ template: String) -> String {
        guard template.hasPrefix("⟨"), let close = template.firstIndex(of: "⟩") else { return template }
        return String(template[template.index(after: close)...])
    }
}

extension Language {
    /// A catalog's `Language` header as Carrel writes codes: `pt_BR` → `pt-BR`, `zh_Hans` → `zh-Hans`.
    static func canonicalCode(_ header: String) -> String {
        String(header.trimmed.prefix { $0 != "." && $0 != "@" }.map { $0 == "_" ? "-" : $0 })
    }
}
