import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

/// Banks written to make the XML reader read something other than what the checks before it
/// saw, or what a person reading the file sees: libxml2 must parse exactly the UTF-8 text that
/// was checked, names are read only in the formats' own namespaces, and every limit holds
/// before the parser builds anything.
@Suite("XML banks written against the reader")
struct XMLHostileTests {
    func moodle(_ xml: String) throws -> ImportedBank {
        try MoodleReader.read(bytes: Array(xml.utf8), file: "t.xml")
    }

    func refused(_ xml: String) -> String? {
        do {
            _ = try XMLTree.parse(Array(xml.utf8))
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// An encoding declared anywhere but the very start is not used to read the rest: a
    /// document type spelled in UTF-7 (`+ADwAIQ-DOCTYPE` is `<!DOCTYPE`) is never seen as one,
    /// and a second declaration cannot turn "Café" into another word.
    @Test func aDeclarationAfterAnInstructionChangesNothing() throws {
        let doctype = #"<?xml-model href="x"?><?xml version="1.0" encoding="UTF-7"       ?>"#
            + #"+ADwAIQ-DOCTYPE quiz [+ADwAIQ-ENTITY k "rk">]><quiz><question type="shortanswer"><name><text>q</text></name>"#
            + "<questiontext><text>Capital?</text></questiontext><answer fraction=\"100\"><text>Yo&k;</text></answer></question></quiz>"
        let bank = try moodle(doctype)
        #expect(bank.items.isEmpty)
        #expect(bank.diagnostics.map(\.description) == ["t.xml:1: error: the XML cannot be read: XML declaration allowed only at the start of the document"])
        let greek = #"<?xml-model href="x"?><?xml version="1.0" encoding="ISO-8859-7"?><quiz/>"#
        #expect(refused(greek)?.contains("XML declaration allowed only at the start") == true)
        // The declaration at the start, read by Carrel, is still honoured.
        let latin = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><a>Caf"#.utf8) + [0xE9] + Array("</a>".utf8)
        #expect(try XMLTree.parse(latin).text == "Café")
        #expect(XMLTree.isDeclaration(#"<?xml version="1.0"?>"#.utf8) && !XMLTree.isDeclaration(#"<?xml-model href="x"?>"#.utf8))
    }

    @Test func bytesTheDeclaredEncodingLacksAreNamed() {
        let bytes = Array(#"<?xml version="1.0" encoding="windows-1252"?><a>"#.utf8) + [0x81] + Array("</a>".utf8)
        #expect(throws: XMLTree.Problem.malformed(line: 1, "the file says it is windows-1252 but holds bytes that windows-1252 does not have; save it as UTF-8")) {
            try XMLTree.parse(bytes)
        }
    }

    /// `x:fraction` and `x:identifier` of another vocabulary are not Moodle's or QTI's, and
    /// never replace the attribute written beside them; nor is `<x:answer>` an answer.
    @Test func namesInOtherNamespacesAreNotTheFormats() throws {
        let bank = try moodle("""
            <quiz><question type="shortanswer"><name><text>q</text></name><questiontext><text>Capital?</text></questiontext>
            <answer fraction="100" xmlns:x="urn:other"><text>Paris</text></answer>
            <answer fraction="0" x:fraction="100" xmlns:x="urn:other"><text>Lyon</text></answer>
            <x:answer fraction="100" xmlns:x="urn:other"><text>Nice</text></x:answer></question></quiz>
            """)
        let item = try #require(bank.items.first)
        #expect(Scoring.score(item, .text("Paris")).points > 0)
        #expect(Scoring.score(item, .text("Lyon")).points == 0)
        #expect(Scoring.score(item, .text("Nice")).points == 0)
        let root = try XMLTree.parse(Array("""
            <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" xmlns:x="urn:other" xmlns:m="http://www.w3.org/1998/Math/MathML">
            <simpleChoice identifier="A" x:identifier="Z" xml:lang="en"/><x:correctResponse/><m:math/></assessmentItem>
            """.utf8))
        #expect(root.elements.map(\.name) == ["simpleChoice", "{urn:other}x:correctResponse", "math"])
        #expect(root.elements.first?.attributes == ["identifier": "A", "{urn:other}x:identifier": "Z", "xml:lang": "en"])
    }

    /// An element's line is where its `<` is, past line 65 535 too (libxml2 keeps 16 bits).
    @Test func linesPastSixtyFiveThousandAreExact() throws {
        let text = "<a>" + String(repeating: "\n", count: 70_000) + "<b\n  c=\"1\">x</b><![CDATA[\n<d>\n]]>\n<e/></a>"
        let root = try XMLTree.parse(Array(text.utf8))
        #expect(root.line == 1)
        #expect(root.elements.map(\.name) == ["b", "e"])
        #expect(root.elements.map(\.line) == [70_001, 70_005])
        let returns = try XMLTree.parse(Array("<a>\r\r<b/>\r\n<c/></a>".utf8))
        #expect(returns.elements.map(\.line) == [3, 4])
        let declared = try XMLTree.parse(Array("<?xml\rversion=\"1.0\"\r?>\r<a>\r<b/></a>".utf8))
        #expect(declared.line == 4 && declared.elements.map(\.line) == [5])
    }

    @Test func limitsHoldBeforeTheParserBuildsAnything() {
        let attributes = "<a " + (0..<1_001).map { "a\($0)=\"\($0 % 7 == 0 ? ">" : "")\"" }.joined(separator: " ") + "/>"
        #expect(refused(attributes) == "refused(\"an element of the XML has more than 1000 attributes\")")
        let fine = "<a " + (0..<1_000).map { "a\($0)='='" }.joined(separator: " ") + "/>"
        #expect(refused(fine) == nil)
        let instructions = "<a>" + String(repeating: "x<?p?>", count: 100_001) + "</a>"
        #expect(refused(instructions) == "refused(\"the XML has more than 100000 comments and processing instructions\")")
        // A `<` inside CDATA is text, not an element.
        let cdata = "<a><![CDATA[" + String(repeating: "<b>", count: 500_001) + "]]></a>"
        #expect(refused(cdata) == nil)
    }

    /// A comment holding a CDATA marker starts no CDATA: the HTML reference after it is read.
    @Test func aCDATAMarkerInACommentStartsNothing() throws {
        let root = try XMLTree.parse(Array("<a><!-- <![CDATA[ -->caf&eacute;<?p <![CDATA[ ?>&nbsp;</a>".utf8))
        #expect(root.text == "café\u{A0}")
    }

    /// libxml2's message is its first line (it adds the text it stopped in below).
    @Test func theParsersMessageIsOneLine() {
        let text = "<a>" + String(repeating: "\n", count: 3) + "<![CDATA[ never closed\nsecond line"
        #expect(throws: XMLTree.Problem.malformed(line: 5, "the XML cannot be read: CData section not finished")) {
            try XMLTree.parse(Array(text.utf8))
        }
        #expect(throws: XMLTree.Problem.malformed(line: 1, "the XML cannot be read: Document is empty")) { try XMLTree.parse([]) }
    }

    /// A line ending in 100 000 spaces is tidied in one pass.
    @Test func longRunsOfSpacesAreTidiedAtOnce() throws {
        let bank = try moodle("""
            <quiz><question type="shortanswer"><name><text>q</text></name><questiontext><text>Capital?\(String(repeating: " ", count: 100_000))
            </text></questiontext><answer fraction="100"><text>Paris</text></answer></question></quiz>
            """)
        #expect(bank.items.first?.prompt == "Capital?")
    }

    /// `<!-->` opens a comment (it does not close one): counted as libxml2 reads it, the
    /// CDATA marker after it hides nothing from the limits, and lines stay exact.
    @Test func aCommentThatLooksClosedHidesNothing() {
        let tag = "<b " + (0..<1_001).map { "a\($0)=''" }.joined(separator: " ") + "/>"
        let text = "<a><!--><![CDATA[ -->" + tag + "<!-- ]]> --></a>"
        #expect(refused(text) == "refused(\"an element of the XML has more than 1000 attributes\")")
        let lines = try? XMLTree.parse(Array("<a><!-->\n<b/> -->\n<c/></a>".utf8))
        #expect(lines?.elements.map(\.line) == [3])
    }

    /// An attribute of any namespace, the formats' own included (`xml:`, XHTML, MathML, IMS),
    /// is not the unprefixed attribute beside it; an element of MathML's namespace is not
    /// QTI's; QTI 3's spelling is read in QTI 3 names only, and never in Moodle XML.
    @Test func namesTakeTheirVocabularyFromTheirNamespace() throws {
        for (prefix, uri) in [("xml", "http://www.w3.org/XML/1998/namespace"), ("h", "http://www.w3.org/1999/xhtml"),
                              ("m", "http://www.w3.org/1998/Math/MathML"), ("i", "http://www.imsglobal.org/xsd/imsqti_v2p1")] {
            let declare = prefix == "xml" ? "" : " xmlns:\(prefix)=\"\(uri)\""
            let bank = try moodle("""
                <quiz><question type="shortanswer"><name><text>q</text></name><questiontext><text>Capital?</text></questiontext>
                <answer fraction="100"><text>Paris</text></answer>
                <answer fraction="0" \(prefix):fraction="100"\(declare)><text>Lyon</text></answer></question></quiz>
                """)
            let item = try #require(bank.items.first)
            #expect(Scoring.score(item, .text("Lyon")).points == 0, "\(prefix):fraction")
        }
        let spelled = try moodle("""
            <quiz><question type="shortanswer"><name><text>q</text></name><questiontext><text>Capital?</text></questiontext>
            <answer fraction="100"><text>Paris</text></answer><qti-answer fraction="100"><text>Lyon</text></qti-answer></question></quiz>
            """)
        #expect(Scoring.score(try #require(spelled.items.first), .text("Lyon")).points == 0)
        // A QTI 2 item reads QTI 2's names only; a QTI 3 item QTI 3's (and XHTML's), each in
        // its root's namespace, and a QTI 3 spelling only as QTI 3 writes one.
        let qti = try XMLTree.parse(Array("""
            <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" xmlns:m="http://www.w3.org/1998/Math/MathML"
              xmlns:cp="http://www.imsglobal.org/xsd/imscp_v1p1">
            <m:correctResponse/><correct-response/><qti-correct-response/><cp:correctResponse/><m:math><m:mfrac/></m:math></assessmentItem>
            """.utf8))
        #expect(qti.elements.map(\.name) == ["{http://www.w3.org/1998/Math/MathML}m:correctResponse", "correct-response",
                                            "{http://www.imsglobal.org/xsd/imsqti_v2p1}qti-correct-response",
                                            "{http://www.imsglobal.org/xsd/imscp_v1p1}cp:correctResponse", "math"])
        let qti3 = try XMLTree.parse(Array("""
            <qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0"><correctResponse/><qti-correctResponse/>
            <qti-correct--response/><p/><qti-choice-interaction response-identifier="R" response--identifier="X" response-Identifier="Y"
              max-choices="1" maxChoices="2" qti-identifier="Z"/></qti-assessment-item>
            """.utf8))
        let ns3 = "{http://www.imsglobal.org/xsd/imsqtiasi_v3p0}"
        #expect(qti3.elements.map(\.name) == [ns3 + "correctResponse", ns3 + "qti-correctResponse", ns3 + "qti-correct--response", "p", "choiceInteraction"])
        let interaction = qti3.elements[4].attributes
        #expect(interaction["responseIdentifier"] == "R" && interaction["maxChoices"] == "2" && interaction["identifier"] == nil)
        // XHTML inside a Moodle text is the text's HTML.
        let text = try moodle("""
            <quiz><question type="essay"><name><text>q</text></name><questiontext format="html">
            <text><p xmlns="http://www.w3.org/1999/xhtml">What is the <b>capital</b>?</p></text></questiontext></question></quiz>
            """)
        #expect(text.items.first?.prompt == "What is the capital?")
        #expect(HTMLLayout.role(of: "{http://www.w3.org/2000/svg}svg:svg") == .hidden && HTMLLayout.role(of: "svg:svg") == .hidden)
        #expect(qti.elements[0].shownName == "m:correctResponse")
    }

    /// The encoding is the declaration's name, exactly, read by XML's grammar from the file's
    /// very start (libxml2 is given the same declaration and checks it); a byte-order mark wins.
    @Test func theDeclaredEncodingIsItsNameExactly() throws {
        let euro = Array(#"<?xml version="1.0" encoding="ISO-8859-15"?><a>"#.utf8) + [0xA4] + Array("</a>".utf8)
        #expect(throws: XMLTree.Problem.malformed(line: 1, "the file says it is iso-8859-15, which Carrel does not read, and it is not UTF-8; save it as UTF-8")) {
            try XMLTree.parse(euro)
        }
        #expect(throws: XMLTree.Problem.malformed(line: 1, "the XML cannot be read: parsing XML declaration: '?>' expected")) {
            try XMLTree.parse(Array(#"<?xml version="1.0" encoding="UTF-8" note="not cp1251"?><a>é</a>"#.utf8))
        }
        #expect(try XMLTree.parse([0xEF, 0xBB, 0xBF] + Array(#"<?xml version="1.0" encoding="windows-1252"?><a>é</a>"#.utf8)).text == "é")
        let e9: [UInt8] = [0xE9]
        for declaration in ["<?xml version = '1.0'\n encoding\t=\n'WINDOWS-1252' ?>", "<?xml version=\"1.0\"" + String(repeating: " ", count: 300) + "encoding=\"cp1252\"?>"] {
            #expect(try XMLTree.parse(Array((declaration + "<a>").utf8) + e9 + Array("</a>".utf8)).text == "é", "\(declaration)")
        }
        for malformed in ["<?xml version=\"1.0\" xencoding=\"windows-1252\" encoding=\"UTF-8\"?>", "<?xml version=\"1.0\" ENCODING=\"windows-1252\"?>",
                          "<?xml version=\"1.0\" encoding=windows-1252?>", "<?xml encoding=\"windows-1252\"?>", " <?xml version=\"1.0\" encoding=\"windows-1252\"?>"] {
            #expect(XMLTree.declaredEncoding(Array(malformed.utf8)) == nil, "\(malformed)")
            #expect(throws: XMLTree.Problem.self) { try XMLTree.parse(Array((malformed + "<a>").utf8) + e9 + Array("</a>".utf8)) }
        }
    }

    @Test func aNULIsAnErrorAtItsLine() {
        #expect(throws: XMLTree.Problem.malformed(line: 2, "the XML cannot be read: it holds a NUL character, which XML allows nowhere")) {
            try XMLTree.parse(Array("<a/>\n\0<<<junk".utf8))
        }
    }

    /// A Moodle file is told by its `<quiz>` root whatever comes before it: a document type
    /// in any case (refused then as Moodle XML's, not QTI's), a comment written `<!-->…-->`.
    @Test func aQuizIsToldBehindWhatComesBeforeIt() {
        #expect(MoodleReader.looksLikeQuiz(Array("<!doctype quiz><quiz/>".utf8)))
        #expect(MoodleReader.looksLikeQuiz(Array("<!--> still a comment --><quiz/>".utf8)))
        #expect(!MoodleReader.looksLikeQuiz(Array("<!--> <quiz/> --><assessmentItem/>".utf8)))
    }

    /// Namespace declarations (each prefixed name is looked up through all in scope) and
    /// attributes in all are bounded before libxml2 builds anything.
    @Test func namespacesAndAttributesInAllAreBounded() {
        // In scope at once: declarations on an element and its ancestors.
        let declarations = "<a " + (0..<501).map { "xmlns:d\($0)=\"urn:\($0)\"" }.joined(separator: " ") + "><b "
            + (501..<1_001).map { "xmlns:d\($0)=\"urn:\($0)\"" }.joined(separator: " ") + "/></a>"
        #expect(refused(declarations) == "refused(\"the XML has more than 1000 namespace declarations in scope at once\")")
        // One on each of many siblings (MathML or XHTML blocks, each with its xmlns) is fine.
        let siblings = "<a>" + (0..<1_001).map { "<b xmlns = 'urn:\($0)'><c/></b>" }.joined(separator: "\n") + "</a>"
        #expect(refused(siblings) == nil)
        let many = "<a>" + String(repeating: "<b " + (0..<1_000).map { "a\($0)=''" }.joined(separator: " ") + "/>", count: 501) + "</a>"
        #expect(refused(many) == "refused(\"the XML has more than 500000 attributes in all\")")
    }

    /// libxml2 counts lines by LF: a file whose lines end in CR alone is given LF first.
    @Test func errorsAfterLinesEndingInCRAloneNameTheirLine() {
        #expect(throws: XMLTree.Problem.malformed(line: 5, "the XML cannot be read: xmlParseEntityRef: no name")) {
            try XMLTree.parse(Array("<a>\r\r\r\r& \r</a>".utf8))
        }
    }
}
