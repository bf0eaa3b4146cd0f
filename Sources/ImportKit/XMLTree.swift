import CXMLReader
import Foundation

/// An XML element with local names (QTI 3's `qti-choice-interaction` read as QTI 2's
/// `choiceInteraction`, `max-choices` as `maxChoices`), its text, and the line it starts on.
final class XElement {
    let name: String
    let attributes: [String: String]
    let line: Int
    var children: [XNode] = []

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    /// The name as the file writes it, for a message: an element of another vocabulary is
    /// named `{namespace}prefix:name` so that no reader takes it for its own.
    var shownName: String {
        guard name.hasPrefix("{"), let close = name.firstIndex(of: "}") else { return name }
        return String(name[name.index(after: close)...])
    }

    var elements: [XElement] {
        children.compactMap { if case let .element(e) = $0 { return e } else { return nil } }
    }

    func first(_ name: String) -> XElement? {
        for case let .element(e) in children where e.name == name { return e }
        return nil
    }

    func all(_ name: String) -> [XElement] {
        var out: [XElement] = []
        for case let .element(e) in children where e.name == name { out.append(e) }
        return out
    }

    /// Every element below this one, depth first, in document order.
    var descendants: [XElement] {
        var out: [XElement] = []
        var stack = Array(elements.reversed())
        while let e = stack.popLast() {
            out.append(e)
            stack.append(contentsOf: e.elements.reversed())
        }
        return out
    }

    /// What is inside written back as markup (text and attribute values escaped), for a
    /// Moodle `<text>` that holds XHTML elements instead of CDATA: its `<br/>`, `<pre>` and
    /// `<style>` then lay out as they would in CDATA.
    var innerMarkup: String {
        var out = ""
        func write(_ node: XNode) {
            switch node {
            case let .text(t): out += Self.escaped(t)
            case let .element(e):
                out += "<" + e.shownName
                for (key, value) in e.attributes.sorted(by: { $0.key < $1.key }) { out += " \(key)=\"\(Self.escaped(value))\"" }
                out += ">"
                e.children.forEach(write)
                out += "</" + e.shownName + ">"
            }
        }
        children.forEach(write)
        return out
    }

    static let entities: [Unicode.Scalar: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"]

    static func escaped(_ text: String) -> String {
        text.unicodeScalars.reduce(into: "") { out, c in
            if let entity = entities[c] { out += entity } else { out.unicodeScalars.append(c) }
        }
    }

    /// All the text inside, whitespace as written.
    var text: String {
        var out = ""
        var stack: [XNode] = children.reversed()
        while let node = stack.popLast() {
            switch node {
            case let .text(t): out += t
            case let .element(e): stack.append(contentsOf: e.children.reversed())
            }
        }
        return out
    }
}

enum XNode {
    case element(XElement)
    case text(String)
}

/// Parses XML into an `XElement` tree, refusing what could make parsing unbounded or reach
/// outside the file: any `<!DOCTYPE` or `<!ENTITY` is refused before the parser runs (no
/// external entities, no entity expansion bombs), external entities stay unresolved, and
/// depth and element count are capped.
enum XMLTree {
    static let maximumBytes = 16 * 1024 * 1024
    static let maximumDepth = 256
    static let maximumElements = 500_000
    /// Comments and processing instructions: each splits the text around it into nodes of
    /// its own, which a file of nothing else turns into a million nodes from a few megabytes.
    static let maximumOthers = 100_000
    static let maximumAttributes = 1_000
    /// Namespace declarations in scope at once: libxml2 looks each prefixed name up through all.
    static let maximumNamespaces = 1_000

    enum Problem: Error, Equatable {
        /// A hostile or absurd file: refused as a whole.
        case refused(String)
        /// Not well-formed: the item is reported and left out.
        case malformed(line: Int, String)
    }

    /// `format` names what the file should be, for the refusal of a document type; `limit`
    /// is its largest size in bytes.
    static func parse(_ bytes: [UInt8], format: String = "QTI", limit: Int = maximumBytes) throws(Problem) -> XElement {
        guard bytes.count <= limit else { throw .refused("the XML file is larger than \(limit / 1024 / 1024) MiB") }
        let text = try decode(bytes)
        if let found = declaration(in: text) {
            throw .refused("the XML declares \(found); \(format) needs none, and document types can read other files or expand without end")
        }
        let prepared = numericEntities(unixLineEnds(text))
        let markup = XMLMarkup(prepared)
        if markup.elements > maximumElements { throw .refused("the XML has more than \(maximumElements) elements") }
        if markup.mostAttributes > maximumAttributes {
            throw .refused("an element of the XML has more than \(maximumAttributes) attributes")
        }
        if markup.attributes > maximumElements {
            throw .refused("the XML has more than \(maximumElements) attributes in all")
        }
        if markup.namespaces > maximumNamespaces {
            throw .refused("the XML has more than \(maximumNamespaces) namespace declarations in scope at once")
        }
        if markup.others > maximumOthers {
            throw .refused("the XML has more than \(maximumOthers) comments and processing instructions")
        }
        if markup.depth > maximumDepth { throw .refused("the XML nests deeper than \(maximumDepth) levels") }
        if let line = markup.nul { throw .malformed(line: line, "the XML cannot be read: it holds a NUL character, which XML allows nowhere") }
        return try read(prepared, lines: markup.lines, qti: format != "Moodle XML")
    }

    /// `<!DOCTYPE` or `<!ENTITY`, in any case, anywhere.
    static func declaration(in text: String) -> String? {
        var entity = false
        let bang: [UInt8] = Array("<!".utf8), doctype: [UInt8] = Array("DOCTYPE".utf8), entityName: [UInt8] = Array("ENTITY".utf8)
        let found: Bool = withBytes(text) { bytes in
            var i = 0
            while let at = find(bang, in: bytes, from: i) {
                let rest = bytes[(at + 2)...]
                if startsCaseInsensitively(rest, with: doctype) { return true }
                if startsCaseInsensitively(rest, with: entityName) { entity = true }
                i = at + 2
            }
            return false
        }
        if found { return "a document type (<!DOCTYPE)" }
        return entity ? "an entity (<!ENTITY)" : nil
    }

    /// The UTF-8 bytes of a string, without a copy when it is stored contiguously. Searches
    /// here compare bytes: Foundation's search goes through UTF-16, seconds on a large export.
    static func withBytes<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        if let done = text.utf8.withContiguousStorageIfAvailable(body) { return done }
        return Array(text.utf8).withUnsafeBufferPointer(body)
    }

    /// Where `needle` starts in `bytes` at or after `from`.
    static func find(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var i = from
        while i + needle.count <= bytes.count {
            if bytes[i] == first {
                var k = 1
                while k < needle.count && bytes[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    static func contains(_ text: String, _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        return withBytes(text) { find(n, in: $0, from: 0) != nil }
    }

    static func startsCaseInsensitively(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, with upper: [UInt8]) -> Bool {
        guard bytes.count >= upper.count else { return false }
        for (byte, letter) in zip(bytes, upper) where byte != letter && byte & 0xDF != letter { return false }
        return true
    }

    /// UTF-8 (with or without a byte-order mark), UTF-16 with a mark, or Latin-1, Windows-1252
    /// or Windows-1251 (Cyrillic, as older Russian Moodle exports are) when the declaration says so.
    static func decode(_ bytes: [UInt8]) throws(Problem) -> String {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let little = bytes[0] == 0xFF
            guard let s = String(bytes: bytes.dropFirst(2), encoding: little ? .utf16LittleEndian : .utf16BigEndian) else {
                throw .malformed(line: 1, "the file says it is UTF-16 but is not")
            }
            return s
        }
        // A byte-order mark says UTF-8 whatever a declaration says. The declaration is the
        // file's very start, read as XML's grammar reads it (what libxml2 is then given, and
        // checks, is the same declaration): its encoding's name exactly.
        let marked = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        let body = marked ? Array(bytes.dropFirst(3)) : bytes
        let named = marked ? nil : declaredEncoding(body)
        if let named, let encoding = Self.encodings[named] {
            guard let text = String(bytes: body, encoding: encoding) else {
                throw .malformed(line: 1, "the file says it is \(named) but holds bytes that \(named) does not have; save it as UTF-8")
            }
            return text
        }
        guard let s = String(validating: body, as: UTF8.self) else {
            let says = named.map { "the file says it is \($0), which Carrel does not read, and it is not UTF-8" }
            throw .malformed(line: 1, (says ?? "the file is not UTF-8") + "; save it as UTF-8")
        }
        return s
    }

    /// The 8-bit encodings a declaration may name, by their names in XML (lowercased).
    static let encodings: [String: String.Encoding] = [
        "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252, "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251,
        "iso-8859-1": .isoLatin1, "iso_8859-1": .isoLatin1, "latin1": .isoLatin1, "latin-1": .isoLatin1, "l1": .isoLatin1,
    ]

    /// The encoding an XML declaration at the start of `bytes` names (lowercased), read by
    /// the grammar: `<?xml` S `version` Eq 'v' [S `encoding` Eq 'name']; nil when there is no
    /// declaration, no encoding in it, or it is malformed (libxml2 then says so).
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        guard isDeclaration(bytes) else { return nil }
        var i = 5
        func space() -> Bool {
            let start = i
            while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
            return i > start
        }
        func word(_ w: String) -> Bool {
            guard bytes[i...].starts(with: w.utf8) else { return false }
            i += w.utf8.count
            return true
        }
        func quoted() -> [UInt8]? {
            _ = space()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { return nil }
            i += 1
            _ = space()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { return nil }
            let quote = bytes[i], start = i + 1
            guard let end = bytes[start...].prefix(256).firstIndex(of: quote) else { return nil }
            i = end + 1
            return Array(bytes[start..<end])
        }
        func letter(_ b: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b | 0x20) }
        func digit(_ b: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) }
        // EncName: a letter, then letters, digits, '.', '_' and '-'.
        guard space(), word("version"), quoted() != nil, space(), word("encoding"), let name = quoted(),
              let first = name.first, letter(first),
              name.allSatisfy({ letter($0) || digit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { return nil }
        let lower = String(decoding: name, as: UTF8.self).lowercased()
        return lower == "utf-8" || lower == "utf8" ? nil : lower
    }

    /// Line ends as XML reads them (CRLF and a CR alone are LF), so that libxml2's lines,
    /// which count LF, are the file's.
    static func unixLineEnds(_ text: String) -> String {
        guard text.utf8.contains(0x0D) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var afterCR = false
        for byte in text.utf8 {
            if byte == 0x0A && afterCR { afterCR = false; continue }
            afterCR = byte == 0x0D
            out.append(afterCR ? 0x0A : byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `<?xml` and white space: an XML declaration, not an instruction such as `<?xml-model`.
    static func isDeclaration<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        guard bytes.starts(with: "<?xml".utf8) else { return false }
        let next = bytes.dropFirst(5).first
        return next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D
    }

    /// HTML's named references (`&nbsp;`, `&eacute;`) as numeric ones: without a DTD an XML
    /// parser knows only the five of XML itself. CDATA sections, comments and instructions are
    /// left alone.
    static func numericEntities(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let s = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            // A CDATA section, a comment or an instruction is copied whole: its `&` are not
            // references, and a CDATA marker inside a comment starts nothing.
            if s[i] == "<", let (open, close) = [("<![CDATA[", "]]>"), ("<!--", "-->"), ("<?", "?>")]
                .first(where: { s[i...].starts(with: $0.0.unicodeScalars) }) {
                var search = HTMLText.Search(s)
                let end = search.end(of: close, from: i + open.unicodeScalars.count) ?? s.count
                out.appendEach(s[i..<end])
                i = end
                continue
            }
            if s[i] == "&" {
                var j = i + 1
                var name = String.UnicodeScalarView()
                while j < s.count, j - i <= 12, s[j].properties.isAlphabetic || ("0"..."9").contains(s[j]) {
                    name.append(s[j])
                    j += 1
                }
                let word = String(name)
                if j < s.count, s[j] == ";", !word.isEmpty, !Entities.xmlPredefined.contains(word),
                   let code = Entities.named[word] {
                    out.appendEach("&#\(code);".unicodeScalars)
                    i = j + 1
                    continue
                }
            }
            out.append(s[i])
            i += 1
        }
        return String(out)
    }

    /// A QTI 3 name as QTI 2 writes it: `qti-choice-interaction` is `choiceInteraction`,
    /// `max-choices` is `maxChoices`; nil for a name QTI 3 would not write (`qti-correctResponse`,
    /// `response--identifier`, `response-Identifier`): lower-case words joined by single hyphens.
    static func qti2Name(_ name: String, element: Bool) -> String? {
        var words = name.split(separator: "-", omittingEmptySubsequences: false)
        if element {
            guard words.first == "qti" else { return nil }
            words.removeFirst()
        }
        guard words.count >= (element ? 1 : 2), words.allSatisfy({ word in
            guard let first = word.first, first.isASCII, first.isLowercase else { return false }
            return word.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
        }) else { return nil }
        return words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
    }
}
