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
        reader.messages.reserveCapacity(1024)
        reader.templates.reserveCapacity(1024)
        // Read as bytes: a catalog is read at the first sentence said in its language, on the
        // way to the first frame, so it costs a fraction of a millisecond, not a character walk.
        var bytes = Array(text.utf8)
        bytes.append(0x0A)
        var number = 0
        var start = 0
        for index in bytes.indices where bytes[index] == 0x0A {
            number += 1
            var line = bytes[start..<index]
            if line.last == 0x0D { line = line.dropLast() }
            try reader.read(line, number: number)
            start = index + 1
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
        var context: [UInt8]?
        var id: [UInt8]?
        var translation: [UInt8]?
        var fuzzy = false
        var field: Field?
        enum Field { case context, id, translation }

        static let msgctxt = Array("msgctxt".utf8), msgid = Array("msgid".utf8), msgstr = Array("msgstr".utf8)
        static let msgidPlural = Array("msgid_plural".utf8)
        static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

        mutating func read(_ line: ArraySlice<UInt8>, number: Int) throws(Failure) {
            guard let first = line.first(where: { $0 != Self.space && $0 != Self.tab }) else {
                finish()
                return
            }
            if first == UInt8(ascii: "#") {
                if id != nil { finish() }
                if line.dropFirst().first == UInt8(ascii: ","), String(decoding: line, as: UTF8.self).contains("fuzzy") { fuzzy = true }
                return
            }
            if first == Self.quote {
                guard let field else { throw Failure(line: number, reason: "a string continues no message") }
                let more = try Self.unquote(line, number)
                switch field {
                case .context: context = (context ?? []) + more
                case .id: id = (id ?? []) + more
                case .translation: translation = (translation ?? []) + more
                }
                return
            }
            guard let space = line.firstIndex(of: Self.space) else {
                throw Failure(line: number, reason: "cannot read \"\(String(decoding: line.prefix(40), as: UTF8.self))\"")
            }
            let keyword = line[..<space]
            let value = try Self.unquote(line[space...], number)
            switch keyword {
            case _ where keyword.elementsEqual(Self.msgctxt):
                if id != nil { finish() }
                context = value
                field = .context
            case _ where keyword.elementsEqual(Self.msgid):
                if id != nil { finish() }
                id = value
                field = .id
            case _ where keyword.elementsEqual(Self.msgstr):
                guard id != nil else { throw Failure(line: number, reason: "msgstr comes before its msgid") }
                translation = value
                field = .translation
            case _ where keyword.elementsEqual(Self.msgidPlural):
                throw Failure(line: number, reason: "msgid_plural is not used: write plural forms inside the message as {0, plural, one {…} other {…}}")
            default:
                throw Failure(line: number, reason: "\(String(decoding: keyword.prefix(20), as: UTF8.self)) is not a keyword of a catalog (msgctxt, msgid, msgstr)")
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
            guard let idBytes = id else { return }
            let id = String(decoding: idBytes, as: UTF8.self)
            let translation = translation.map { String(decoding: $0, as: UTF8.self) }
            if id.isEmpty && context == nil {
                for row in (translation ?? "").split(separator: "\n") {
                    guard let colon = row.firstIndex(of: ":") else { continue }
                    header[String(row[..<colon]).trimmed] = String(row[row.index(after: colon)...]).trimmed
                }
                return
            }
            let template = context.map { "⟨" + String(decoding: $0, as: UTF8.self) + "⟩" + id } ?? id
            templates.append(template)
            // An empty translation is not translated yet, as gettext reads it — except of words
            // with no letter (a separator), which a language may leave out ("13分35秒").
            guard !fuzzy, let translation, !translation.isEmpty || !id.contains(where: \.isLetter) else { return }
            messages[template] = translation
        }

        static func unquote(_ text: ArraySlice<UInt8>, _ number: Int) throws(Failure) -> [UInt8] {
            var trimmed = text
            while let f = trimmed.first, f == space || f == tab { trimmed = trimmed.dropFirst() }
            while let l = trimmed.last, l == space || l == tab { trimmed = trimmed.dropLast() }
            guard trimmed.count >= 2, trimmed.first == quote, trimmed.last == quote else {
                throw Failure(line: number, reason: "a string is not between double quotes")
            }
            let inner = trimmed.dropFirst().dropLast()
            // Most strings have no escape and no stray quote: taken as they are.
            if !inner.contains(where: { $0 == backslash || $0 == quote }) { return Array(inner) }
            var out: [UInt8] = []
            out.reserveCapacity(trimmed.count)
            var escaped = false
            for byte in trimmed.dropFirst().dropLast() {
                if escaped {
                    switch byte {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case quote, backslash: out.append(byte)
                    default:
                        throw Failure(line: number, reason: "\\\(String(decoding: [byte], as: UTF8.self)) is not an escape a catalog uses (\\n, \\t, \\\", \\\\)")
                    }
                    escaped = false
                } else if byte == backslash {
                    escaped = true
                } else if byte == quote {
                    throw Failure(line: number, reason: "a double quote inside a string is written \\\"")
                } else {
                    out.append(byte)
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
