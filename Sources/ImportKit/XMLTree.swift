import CXMLReader
import Foundation

/// An XML element with local names (QTI 3's `qti-choice-interaction` read as QTI 2's
/// `choiceInteraction`, `max-choices` as `maxChoices`), its text, and the line it starts on.
final class XElement {
    let name: String
    let attributes: [String: String]
    let line: Int
    fileprivate(set) var children: [XNode] = []

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
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
                out += "<" + e.name
                for (key, value) in e.attributes.sorted(by: { $0.key < $1.key }) { out += " \(key)=\"\(Self.escaped(value))\"" }
                out += ">"
                e.children.forEach(write)
                out += "</" + e.name + ">"
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
        let prepared = numericEntities(withoutXMLDeclaration(text))
        return try read(prepared)
    }

    /// Builds the tree with libxml2's pull parser, the limits checked as each element starts
    /// (a refusal stops the parse there).
    static func read(_ text: String) throws(Problem) -> XElement {
        var why = [CChar](repeating: 0, count: 256)
        guard carrel_xml_load(&why, why.count) == 0 else {
            throw .refused(String(decoding: why.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(Problem) -> XElement in
            // An empty array has no address; libxml2 then reports the empty document.
            let base = buffer.baseAddress.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1)
            guard let base, let reader = carrel_xml_open(base.assumingMemoryBound(to: CChar.self), Int32(clamping: buffer.count)) else {
                throw .refused("the XML parser could not be started")
            }
            defer { carrel_xml_close(reader) }
            return try build(reader)
        }
    }

    /// The elements and text the reader gives, as a tree.
    static func build(_ reader: OpaquePointer) throws(Problem) -> XElement {
        var root: XElement?
        var stack: [XElement] = []
        var count = 0
        func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        while true {
            let status = carrel_xml_next(reader)
            if status < 0 {
                var line = 0
                let message = carrel_xml_error(reader, &line).map { String(cString: $0) } ?? "it is not well-formed XML"
                if message.hasPrefix("Excessive depth in document") {
                    throw .refused("the XML nests deeper than \(maximumDepth) levels")
                }
                throw .malformed(line: max(1, line), "the XML cannot be read: \(message.clippedForMessage(limit: 200))")
            }
            if status == 0 { break }
            switch Int(carrel_xml_kind(reader)) {
            case Int(CARREL_XML_ELEMENT):
                count += 1
                if stack.count >= maximumDepth { throw .refused("the XML nests deeper than \(maximumDepth) levels") }
                if count > maximumElements { throw .refused("the XML has more than \(maximumElements) elements") }
                let name = localName(string(carrel_xml_name(reader)), element: true)
                let line = max(1, carrel_xml_line(reader))
                let empty = carrel_xml_is_empty(reader) != 0
                var attributes: [String: String] = [:]
                while carrel_xml_next_attribute(reader) == 1 {
                    attributes[localName(string(carrel_xml_name(reader)), element: false)] = string(carrel_xml_value(reader))
                }
                let element = XElement(name: name, attributes: attributes, line: line)
                if let parent = stack.last {
                    parent.children.append(.element(element))
                } else if root == nil {
                    root = element
                }
                if !empty { stack.append(element) }
            case Int(CARREL_XML_END_ELEMENT):
                _ = stack.popLast()
            case Int(CARREL_XML_TEXT), Int(CARREL_XML_CDATA), Int(CARREL_XML_WHITESPACE), Int(CARREL_XML_SIGNIFICANT_WHITESPACE):
                stack.last?.children.append(.text(string(carrel_xml_value(reader))))
            default:
                break  // comments and instructions: Carrel reads neither
            }
        }
        guard let root else { throw .malformed(line: 1, "the XML cannot be read: it has no element") }
        return root
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
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        let head = String(decoding: body.prefix(200), as: UTF8.self).lowercased()
        let declared = head.hasPrefix("<?xml") ? head.split(separator: "?>").first.map(String.init) : nil
        if let declared {
            for (names, encoding) in [(["windows-1252", "cp1252"], String.Encoding.windowsCP1252),
                                      (["windows-1251", "cp1251"], .windowsCP1251), (["iso-8859-1", "latin1"], .isoLatin1)]
            where names.contains(where: declared.contains) {
                return String(bytes: body, encoding: encoding) ?? ""
            }
        }
        guard let s = String(validating: body, as: UTF8.self) else {
            let named = declared.flatMap(Self.encodingName).map { "the file says it is \($0), which Carrel does not read, and it is not UTF-8" }
            throw .malformed(line: 1, (named ?? "the file is not UTF-8") + "; save it as UTF-8")
        }
        return s
    }

    /// The `encoding="…"` of an XML declaration (lowercased), shown in a message as written.
    static func encodingName(_ declaration: String) -> String? {
        guard let range = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }
        return name.isEmpty || name == "utf-8" || name == "utf8" ? nil : String(name.prefix(40))
    }

    /// The text handed to the parser is UTF-8 whatever the file declared, so the declaration goes.
    static func withoutXMLDeclaration(_ text: String) -> String {
        let bytes = text.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[start]) { start = bytes.index(after: start) }
        guard bytes[start...].starts(with: "<?xml".utf8) else { return text }
        var end = start
        var previous: UInt8 = 0
        var closed = false
        while end < bytes.endIndex, !closed {
            let byte = bytes[end]
            end = bytes.index(after: end)
            closed = previous == UInt8(ascii: "?") && byte == UInt8(ascii: ">")
            previous = byte
        }
        guard closed else { return text }
        // Keep the line count so reported lines still match the file.
        let lines = bytes[..<end].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        return String(repeating: "\n", count: lines) + String(text[end...])
    }

    /// HTML's named references (`&nbsp;`, `&eacute;`) as numeric ones: without a DTD an XML
    /// parser knows only the five of XML itself. CDATA sections are left alone.
    static func numericEntities(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let s = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            if s[i] == "<", s[i...].starts(with: "<![CDATA[".unicodeScalars) {
                var search = HTMLText.Search(s)
                let end = search.end(of: "]]>", from: i) ?? s.count
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

    /// QTI 3 names (`qti-choice-interaction`, `max-choices`) as QTI 2 names (`choiceInteraction`, `maxChoices`).
    static func localName(_ qualified: String, element: Bool) -> String {
        // Most names (all of Moodle's, QTI 2's) have neither a prefix nor a hyphen.
        if !qualified.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "-") }) { return qualified }
        var name = Substring(qualified)
        if let colon = name.lastIndex(of: ":") { name = name[name.index(after: colon)...] }
        if element && name.hasPrefix("qti-") { name = name.dropFirst(4) }
        guard name.utf8.contains(UInt8(ascii: "-")), element || !name.hasPrefix("data-") else { return String(name) }
        var out = ""
        var upper = false
        for c in name {
            if c == "-" { upper = true; continue }
            out += upper ? c.uppercased() : String(c)
            upper = false
        }
        return out
    }
}
