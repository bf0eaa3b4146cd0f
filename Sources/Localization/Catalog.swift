/// The message catalogs: every sentence a student sees or hears, by its English template.
/// `English.keys` lists them all; each language's table says every one of them (a test
/// makes sure), written as a native speaker would say it, not word for word.
public enum Catalog {
    /// Every template, as a set.
    public static let englishKeys: Set<String> = Set(English.keys)

    /// The table of a language other than English.
    public static func table(_ language: Language) -> [String: String] {
        switch language {
        case .fr: return French.table
        case .de: return German.table
        case .es: return Spanish.table
        case .ja: return Japanese.table
        case .en, .pseudo: return [:]
        }
    }

    /// The template without its context: `⟨footer⟩back` → `back`.
    public static func strippingContext(_ template: String) -> String {
        guard template.hasPrefix("⟨"), let close = template.firstIndex(of: "⟩") else { return template }
        return String(template[template.index(after: close)...])
    }
}
