/// Every template Carrel says, in English, by area: a sentence said through `Localizer` that
/// is not listed here shows unmarked in the pseudo-language, and the golden frames fail.
enum English {
    /// Every template once, in area order (two areas may share a sentence).
    static let keys: [String] = {
        var seen = Set<String>()
        return (core + screens + widgets + console).filter { seen.insert($0).inserted }
    }()
}

/// Each language's table, by area, merged once.
enum French { static let table = Catalog.merge(core, screens, widgets, console) }
enum German { static let table = Catalog.merge(core, screens, widgets, console) }
enum Spanish { static let table = Catalog.merge(core, screens, widgets, console) }
enum Japanese { static let table = Catalog.merge(core, screens, widgets, console) }

extension Catalog {
    static func merge(_ tables: [String: String]...) -> [String: String] {
        var out: [String: String] = [:]
        for table in tables { out.merge(table) { first, _ in first } }
        return out
    }
}
