import CXMLReader

extension XMLTree {
    /// Builds the tree from what libxml2 parsed, the depth checked as each element starts.
    /// `lines` gives each element's line, in document order (`XMLMarkup`).
    static func read(_ text: String, lines: [Int]) throws(Problem) -> XElement {
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
            return try build(reader, lines: lines)
        }
    }

    /// The elements and text the reader gives, as a tree.
    static func build(_ reader: OpaquePointer, lines: [Int]) throws(Problem) -> XElement {
        var root: XElement?
        var stack: [XElement] = []
        var count = 0
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
                if stack.count >= maximumDepth { throw .refused("the XML nests deeper than \(maximumDepth) levels") }
                if count >= maximumElements { throw .refused("the XML has more than \(maximumElements) elements") }
                let line = count < lines.count ? lines[count] : max(1, carrel_xml_line(reader))
                count += 1
                let name = Self.name(reader, element: true)
                let empty = carrel_xml_is_empty(reader) != 0
                var attributes: [String: String] = [:]
                while carrel_xml_next_attribute(reader) == 1 {
                    attributes[Self.name(reader, element: false)] = string(carrel_xml_value(reader))
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
            case Int(CARREL_XML_DOCUMENT_TYPE), Int(CARREL_XML_ENTITY), Int(CARREL_XML_ENTITY_REFERENCE), Int(CARREL_XML_NOTATION):
                // Refused before parsing; met here only if the check were ever got round.
                throw .refused("the XML declares a document type or an entity, which can read other files or expand without end")
            default:
                break  // comments and instructions: Carrel reads neither
            }
        }
        guard let root else { throw .malformed(line: 1, "the XML cannot be read: it has no element") }
        return root
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

    /// The name an element or attribute is read by. Its local name (QTI 3's spelling made QTI
    /// 2's) when it is in no namespace or in one of the formats Carrel reads; otherwise its
    /// name as written, namespace and all, which no reader asks for: a `<x:correctResponse>`
    /// or an `x:identifier="B"` of another vocabulary is not QTI's, nor `x:fraction` Moodle's.
    static func name(_ reader: OpaquePointer, element: Bool) -> String {
        let local = string(carrel_xml_local_name(reader))
        guard let uri = carrel_xml_namespace(reader).map({ String(cString: $0) }), !uri.isEmpty, !isRead(uri) else {
            return localName(local, element: element)
        }
        return "{\(uri)}" + string(carrel_xml_name(reader))
    }

    /// QTI's and IMS packages' namespaces, MathML's, XHTML's, and XML's own (`xml:base`, `xml:lang`).
    static func isRead(_ uri: String) -> Bool {
        uri.hasPrefix("http://www.imsglobal.org/") || uri.hasPrefix("https://www.imsglobal.org/")
            || uri.hasPrefix("http://purl.imsglobal.org/") || uri.hasPrefix("https://purl.imsglobal.org/")
            || uri == "http://www.w3.org/1998/Math/MathML" || uri == "http://www.w3.org/1999/xhtml"
            || uri == "http://www.w3.org/XML/1998/namespace"
    }
}
