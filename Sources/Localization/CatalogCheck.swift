/// What a catalog must hold to be said: each translation keeps its template's values
/// (`{0}`, `{1}`…), names every plural category of its language and no other, balances its
/// braces and keeps no context mark. Run on every compiled-in catalog by the tests and on a
/// translator's catalog when it is opened; `scripts/check-catalogs` checks the same.
public enum CatalogCheck {
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public let template: String
        public let reason: String
        public var description: String { "\"\(template)\": \(reason)" }
    }

    public static func problems(_ catalog: Catalog.Loaded, templates: [String]) -> [Problem] {
        let known = Set(templates)
        let categories = catalog.plural.wholeNumberCategories
        var out: [Problem] = []
        for template in templates {
            guard let message = catalog.messages[template] else { continue }
            out += problems(message, template: template, categories: categories)
        }
        for template in catalog.messages.keys.sorted() where !known.contains(template) {
            out.append(Problem(template: template, reason: "is not a message of the template (po/carrel.pot)"))
        }
        return out
    }

    /// The templates a catalog does not translate (they show in English).
    public static func missing(_ catalog: Catalog.Loaded, templates: [String]) -> [String] {
        templates.filter { catalog.messages[$0] == nil && Catalog.strippingContext($0).contains(where: \.isLetter) }
    }

    static func problems(_ message: String, template: String, categories: Set<String>) -> [Problem] {
        var out: [Problem] = []
        func say(_ reason: String) { out.append(Problem(template: template, reason: reason)) }
        guard balanced(message) else {
            say("the braces of the translation do not balance")
            return out
        }
        if message.contains("⟨") || message.contains("⟩") { say("the translation keeps a context mark ⟨⟩") }
        let wanted = placeholders(Catalog.strippingContext(template)), said = placeholders(message)
        if wanted != said {
            say("values \(wanted.sorted()) became \(said.sorted())")
        }
        for selectors in pluralBlocks(message) {
            let named = Set(selectors.filter { !$0.hasPrefix("=") })
            let missing = categories.subtracting(named), extra = named.subtracting(categories)
            if !missing.isEmpty { say("a plural block lacks \(missing.sorted().joined(separator: ", "))") }
            if !extra.isEmpty { say("a plural block has \(extra.sorted().joined(separator: ", ")), which this language's rules never choose") }
        }
        return out
    }

    static func balanced(_ text: String) -> Bool {
        var depth = 0
        for ch in text {
            if ch == "{" { depth += 1 }
            if ch == "}" { depth -= 1 }
            if depth < 0 { return false }
        }
        return depth == 0
    }

    /// `{0}`, `{1}` … and plural blocks' numbers, as a set.
    public static func placeholders(_ template: String) -> Set<String> {
        var out = Set<String>()
        var current = ""
        var reading = false
        for ch in template {
            if ch == "{" {
                current = ""
                reading = true
                continue
            }
            if reading {
                if ch.isASCII, ch.isNumber { current.append(ch); continue }
                if !current.isEmpty { out.insert(current) }
                reading = false
                current = ""
            }
        }
        return out
    }

    /// The selectors (`one`, `other`, `=0`) of every `{N, plural, …}` block, outermost first.
    public static func pluralBlocks(_ text: String) -> [[String]] {
        var blocks: [[String]] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = Localizer.matchingBrace(rest, from: open) {
            let body = rest[rest.index(after: open)..<close]
            let parts = body.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 3, parts[1].trimmed == "plural" {
                blocks.append(Localizer.forms(parts[2]).keys.sorted())
                for form in Localizer.forms(parts[2]).values { blocks += pluralBlocks(form) }
            }
            rest = rest[rest.index(after: close)...]
        }
        return blocks
    }
}
