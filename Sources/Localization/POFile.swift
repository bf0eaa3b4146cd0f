/// A gettext catalog (`.po`) as Carrel reads it: its header's fields and its messages, each
/// under its template (`⟨context⟩English words`, the key `Localizer` looks up). Carrel's own
/// catalogs are compiled in (`EmbeddedCatalogs`); a translator's file can be opened with
/// `carrel demo --catalog FILE` to review it in place.
///
/// Only what Carrel's catalogs use is read: `msgctxt`, `msgid`, `msgstr`, comments (a
/// `#, fuzzy` entry is left out, as gettext does), strings continued on the next lines. A
/// plural of gettext's own (`msgid_plural`) is not used: plural forms are written inside the
/// message in ICU's syntax, which the translators' tools keep as it is.
public struct POFile: Sendable, Equatable {
    public var header: [String: String]
    /// Translation by template; an empty translation of words (not yet translated) is left out.
    public var messages: [String: String]
    /// Every template in file order, translated or not (the template file's list).
    public var templates: [String]

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public init(parsing text: String) throws(Failure) {
        var reader = Reader()
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            try reader.read(line.last == "\r" ? line.dropLast() : line, number: number)
        }
        reader.finish()
        header = reader.header
        messages = reader.messages
        templates = reader.templates
    }

    /// A header field, as gettext writes it (`Language`, `Plural-Forms`, `X-Carrel-Name`).
    public subscript(field: String) -> String? { header[field] }

    private struct Reader {
        var header: [String: String] = [:]
        var messages: [String: String] = [:]
        var templates: [String] = []
        var context: String?
        var id: String?
        var translation: String?
        var fuzzy = false
        var field: Field?
        var startLine = 0
        enum Field { case context, id, translation }

        mutating func read(_ line: Substring, number: Int) throws(Failure) {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                finish()
                return
            }
            if line.first == "#" {
                if id != nil { finish() }
                if line.hasPrefix("#,") && line.contains("fuzzy") { fuzzy = true }
                return
            }
            if line.first == "\"" {
                guard let field else { throw Failure(line: number, reason: "a string continues no message") }
                let more = try Self.unquote(line, number)
                switch field {
                case .context: context = (context ?? "") + more
                case .id: id = (id ?? "") + more
                case .translation: translation = (translation ?? "") + more
                }
                return
            }
            guard let space = line.firstIndex(of: " ") else {
                throw Failure(line: number, reason: "cannot read \"\(line.prefix(40))\"")
            }
            let keyword = line[..<space]
            let value = try Self.unquote(line[line.index(after: space)...].drop { $0 == " " }, number)
            switch keyword {
            case "msgctxt":
                if id != nil { finish() }
                context = value
                field = .context
            case "msgid":
                if id != nil { finish() }
                id = value
                field = .id
                startLine = number
            case "msgstr":
                guard id != nil else { throw Failure(line: number, reason: "msgstr comes before its msgid") }
                translation = value
                field = .translation
            case "msgid_plural":
                throw Failure(line: number, reason: "msgid_plural is not used: write plural forms inside the message as {0, plural, one {…} other {…}}")
            default:
                throw Failure(line: number, reason: "\(keyword.prefix(20)) is not a keyword of a catalog (msgctxt, msgid, msgstr)")
            }
        }

        mutating func finish() {
            defer {
                context = nil
                id = nil
                translation = nil
                fuzzy = false
                field = nil
            }
            guard let id else { return }
            if id.isEmpty && context == nil {
                for row in (translation ?? "").split(separator: "\n") {
                    guard let colon = row.firstIndex(of: ":") else { continue }
                    header[String(row[..<colon]).trimmed] = String(row[row.index(after: colon)...]).trimmed
                }
                return
            }
            let template = context.map { "⟨" + $0 + "⟩" + id } ?? id
            templates.append(template)
            // An empty translation is not translated yet, as gettext reads it — except of words
            // with no letter (a separator), which a language may leave out ("13分35秒").
            guard !fuzzy, let translation, !translation.isEmpty || !id.contains(where: \.isLetter) else { return }
            messages[template] = translation
        }

        static func unquote(_ text: Substring, _ number: Int) throws(Failure) -> String {
            let trimmed = text.trimmedSubstring
            guard trimmed.count >= 2, trimmed.first == "\"", trimmed.last == "\"" else {
                throw Failure(line: number, reason: "a string is not between double quotes")
            }
            var out = ""
            var escaped = false
            for ch in trimmed.dropFirst().dropLast() {
                if escaped {
                    switch ch {
                    case "n": out.append("\n")
                    case "t": out.append("\t")
                    case "\"", "\\": out.append(ch)
                    default: throw Failure(line: number, reason: "\\\(ch) is not an escape a catalog uses (\\n, \\t, \\\", \\\\)")
                    }
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "\"" {
                    throw Failure(line: number, reason: "a double quote inside a string is written \\\"")
                } else {
                    out.append(ch)
                }
            }
            if escaped { throw Failure(line: number, reason: "a string ends in a lone backslash") }
            return out
        }
    }
}

extension StringProtocol {
    var trimmedSubstring: SubSequence {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }

    var trimmed: String { String(trimmedSubstring) }
}
