import CXMLReader

extension XMLTree {
    /// Builds the tree from what libxml2 parsed, the depth checked as each element starts.
    /// `lines` gives each element's line, in document order (`XMLMarkup`); `qti` says the
    /// document is QTI (or an IMS package's manifest), not Moodle XML.
    static func read(_ text: String, lines: [Int], qti: Bool) throws(Problem) -> XElement {
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
            return try build(reader, lines: lines, qti: qti)
        }
    }

    /// The elements and text the reader gives, as a tree.
    static func build(_ reader: OpaquePointer, lines: [Int], qti: Bool) throws(Problem) -> XElement {
        var root: XElement?
        var stack: [XElement] = []
        var count = 0
        var vocabulary = Vocabulary(qti: qti)
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
                let name = elementName(reader, in: &vocabulary)
                let qti3 = vocabulary.qti3 && string(carrel_xml_local_name(reader)).hasPrefix("qti-")
                let empty = carrel_xml_is_empty(reader) != 0
                let element = XElement(name: name, attributes: attributes(reader, qti3: qti3), line: line)
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

    /// What an element's name is read against: Moodle XML's (no namespace), or a QTI file's,
    /// whose root says its namespace and its version (QTI 3's names begin `qti-`).
    struct Vocabulary {
        var qti: Bool
        var root: String? = nil
        var qti3 = false
    }

    /// The name an element is read by: its local name when it belongs to the document's
    /// vocabulary (in Moodle XML, no namespace; in QTI, no namespace or the root's, in the
    /// root's version: `qti-…` names read as QTI 2's in QTI 3, and only there), or to MathML's
    /// or XHTML's in their namespaces; otherwise its namespace and name as written, which no
    /// reader asks for (`<x:correctResponse>`, `<m:correctResponse>`, `<qti-answer>` in Moodle
    /// XML, QTI 2's `<correctResponse>` in a QTI 3 item).
    static func elementName(_ reader: OpaquePointer, in vocabulary: inout Vocabulary) -> String {
        let local = string(carrel_xml_local_name(reader))
        let uri = carrel_xml_namespace(reader).map { String(cString: $0) } ?? ""
        if vocabulary.qti && vocabulary.root == nil {
            vocabulary.root = uri
            vocabulary.qti3 = local.hasPrefix("qti-")
        }
        // Made only for a name no reader asks for (most elements are read by their local name).
        var foreign: String { "{\(uri)}" + string(carrel_xml_name(reader)) }
        switch uri {
        case mathML: return mathMLElements.contains(local) ? local : foreign
        case xhtml: return htmlElements.contains(local) ? local : foreign
        case "", vocabulary.root ?? "":
            guard vocabulary.qti else { return local }
            if vocabulary.qti3 { return qti2Name(local, element: true) ?? (htmlElements.contains(local) ? local : foreign) }
            return local.hasPrefix("qti-") ? foreign : local
        default:
            return foreign
        }
    }

    /// The attributes of the element the reader is on. An attribute in no namespace is the
    /// format's, under its name (a QTI 3 element's `max-choices` also as `maxChoices`, unless
    /// `maxChoices` is written too); `xml:base` and `xml:lang` keep their prefix; any other
    /// namespace's attribute (`x:fraction`, `xml:identifier`'s like) is kept under its
    /// namespace and name, so it never stands for, nor replaces, the format's own.
    static func attributes(_ reader: OpaquePointer, qti3: Bool) -> [String: String] {
        var written: [String: String] = [:]
        var spelled: [String: String] = [:]
        while carrel_xml_next_attribute(reader) == 1 {
            let local = string(carrel_xml_local_name(reader)), value = string(carrel_xml_value(reader))
            switch carrel_xml_namespace(reader).map({ String(cString: $0) }) ?? "" {
            case "":
                written[local] = value
                if qti3, !local.hasPrefix("data-"), let name = qti2Name(local, element: false) { spelled[name] = value }
            case "http://www.w3.org/XML/1998/namespace":
                written["xml:" + local] = value
            case let uri:
                written["{\(uri)}" + string(carrel_xml_name(reader))] = value
            }
        }
        return written.merging(spelled) { exact, _ in exact }
    }

    static let mathML = "http://www.w3.org/1998/Math/MathML"
    static let xhtml = "http://www.w3.org/1999/xhtml"

    static let mathMLElements = Set("""
        math mi mn mo mtext mspace ms mglyph mrow mfrac msqrt mroot mstyle merror mpadded mphantom mfenced menclose msub
        msup msubsup munder mover munderover mmultiscripts mprescripts none mtable mtr mtd mlabeledtr maligngroup
        malignmark mstack mlongdiv msgroup msrow mscarries mscarry msline maction semantics annotation annotation-xml
        """.split(whereSeparator: \.isWhitespace).map(String.init))

    static let htmlElements = Set("""
        a abbr address area article aside b bdi bdo big blockquote body br caption center cite code col colgroup dd del
        details dfn div dl dt em figcaption figure font footer h1 h2 h3 h4 h5 h6 head header hr html i img ins kbd label
        li main map mark nav object ol p param pre q rb rp rt ruby s samp section small span strike strong style sub
        summary sup table tbody td tfoot th thead title tr tt u ul var video audio source track wbr
        """.split(whereSeparator: \.isWhitespace).map(String.init))
}
