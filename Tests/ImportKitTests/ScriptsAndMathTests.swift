import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

/// Superscripts, subscripts and MathML keep their meaning on a terminal: read as plain text,
/// 2<sup>7</sup> and 27, or the fraction 1/3 and 13, were the same choice and one was dropped.
@Suite("Superscripts, subscripts and MathML in imported banks")
struct ScriptsAndMathTests {
    static func html(_ text: String) -> String {
        var out = TextBuilder()
        HTMLText.render(text, into: &out)
        return out.text
    }

    @Test func superscriptsAndSubscriptsAreWrittenWithTheirMarks() {
        #expect(Self.html("2<sup>10</sup> × 10<sup>-3</sup>") == "2^10 × 10^-3")
        #expect(Self.html("H<sub>2</sub>O and CO<sub>2</sub>") == "H₂O and CO₂")
        #expect(Self.html("x<sub>i</sub> + a<sub>n+1</sub>") == "x_i + a_(n+1)")
        #expect(Self.html("e<sup>i π</sup>") == "e^(i π)")
        #expect(Self.html("x<sup>2<sup>n</sup></sup>") == "x^(2^n)")
        #expect(Self.html("nothing<sup></sup> here") == "nothing here")
        #expect(Self.html("an unopened</sup> end") == "an unopened end")
        #expect(Self.html("there is also <sub>exponent</sub> and <sup>indice</sup>") == "there is also exponent and indice",
                "a script with nothing before it is text")
    }

    @Test func aMoodleChoiceWithASuperscriptStaysApartFromTheSameDigits() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <quiz><question type="multichoice"><name><text>powers</text></name>
            <questiontext format="html"><text><![CDATA[<p>What is 2<sup>10</sup> × 10<sup>-3</sup>? (Water is H<sub>2</sub>O.)</p>]]></text></questiontext>
            <answer fraction="100"><text><![CDATA[<p>1.024</p>]]></text></answer>
            <answer fraction="0"><text><![CDATA[<p>2<sup>7</sup></p>]]></text></answer>
            <answer fraction="0"><text><![CDATA[<p>27</p>]]></text></answer>
            <single>true</single></question></quiz>
            """
        let bank = try MoodleReader.read(bytes: Array(xml.utf8), file: "powers.xml")
        let q = try bank.question("powers")
        #expect(q.prompt == "What is 2^10 × 10^-3? (Water is H₂O.)")
        #expect(q.kind == .choice(choices: ["1.024", "2^7", "27"], answer: "1.024"))
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
        _ = try expectValidAssessment([bank])
    }

    @Test func mathMLIsWrittenOnOneLineAsATeacherWouldTypeIt() throws {
        let math = "http://www.w3.org/1998/Math/MathML"
        let xml = """
            <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="frac" title="Fraction" adaptive="false" timeDependent="false">
              <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
                <correctResponse><value>D</value></correctResponse>
              </responseDeclaration>
              <itemBody>
                <choiceInteraction responseIdentifier="RESPONSE" shuffle="false" maxChoices="1">
                  <prompt>What is <math xmlns="\(math)"><msup><mi>x</mi><mn>2</mn></msup></math> when x = 3, and \
            <m:math xmlns:m="\(math)"><m:msqrt><m:mi>x</m:mi><m:mo>+</m:mo><m:mn>1</m:mn></m:msqrt></m:math>?</prompt>
                  <simpleChoice identifier="A"><math xmlns="\(math)"><mfrac><mn>1</mn><mn>6</mn></mfrac></math></simpleChoice>
                  <simpleChoice identifier="D"><math xmlns="\(math)"><mfrac><mn>1</mn><mn>3</mn></mfrac></math></simpleChoice>
                  <simpleChoice identifier="E"><math xmlns="\(math)"><mn>13</mn></math></simpleChoice>
                  <simpleChoice identifier="F"><math xmlns="\(math)"><mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><msub><mi>c</mi><mn>2</mn></msub></mfrac></math></simpleChoice>
                </choiceInteraction>
              </itemBody>
              <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
            </assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "frac.xml", folder: nil, path: nil)
        let q = try #require(bank.items.first)
        #expect(q.prompt == "What is x^2 when x = 3, and √(x + 1)?")
        #expect(q.kind == .choice(choices: ["1/6", "1/3", "13", "(a + b)/c_2"], answer: "1/3"))
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
        _ = try expectValidAssessment([bank])
    }

    @Test func mathMLOfEveryShapeHasAReading() throws {
        func linear(_ body: String) throws -> String {
            let root = try XMLTree.parse(Array("<math>\(body)</math>".utf8))
            return MathText.linear(root)
        }
        #expect(try linear("<mroot><mn>8</mn><mn>3</mn></mroot>") == "∛8")
        #expect(try linear("<mroot><mi>x</mi><mn>5</mn></mroot>") == "x^(1/5)")
        #expect(try linear("<msubsup><mo>∫</mo><mn>0</mn><mn>1</mn></msubsup><mi>x</mi>") == "∫_0^1x")
        #expect(try linear("<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover>") == "∑_(i = 1)^n")
        #expect(try linear("<mfenced><mi>a</mi><mi>b</mi></mfenced>") == "(a, b)")
        #expect(try linear("<mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr><mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable>") == "[1, 0; 0, 1]")
        #expect(try linear("<semantics><mi>π</mi><annotation encoding=\"TeX\">\\pi</annotation></semantics>") == "π")
        #expect(try linear("<mfrac><mn>1</mn></mfrac>") == "1", "a fraction without its two parts is read as a row")
    }
}

@Suite("Moodle XML text written as XHTML, not in CDATA")
struct MoodleXHTMLTextTests {
    @Test func elementsInsideATextLayOutAsTheyWouldInCDATA() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <quiz><question type="shortanswer"><name><text>list</text></name>
            <questiontext format="html"><text>Here is the start of the list:<br/><style>pre.spec { font-family: monospace; }</style>\
            <pre class="spec">1. AAAA<br/>2. AAAB &amp; more<br/>...</pre>Which number is <b>ABBA</b>?</text></questiontext>
            <answer fraction="100"><text>42</text></answer></question></quiz>
            """
        let bank = try MoodleReader.read(bytes: Array(xml.utf8), file: "list.xml")
        let q = try bank.question("list")
        #expect(q.prompt == "Here is the start of the list:\n\n1. AAAA\n2. AAAB & more\n...\n\nWhich number is ABBA?")
        #expect(!q.prompt.contains("font-family"), "a style's rules are not text")
        _ = try expectValidAssessment([bank])
    }
}

@Suite("QTI objects on a terminal")
struct QTIObjectFallbackTests {
    @Test func anObjectsFallbackIsTheTextAStudentReads() throws {
        let xml = """
            <assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="postcard" title="Postcard" adaptive="false" timeDependent="false">
              <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="string"/>
              <itemBody>
                <p>Read this postcard from Sam.</p>
                <div><object type="image/png" data="images/postcard.png">
                  <blockquote><p>Here is a postcard of my town.<br/> What size is your town?</p></blockquote>
                </object></div>
                <div><object type="image/png" data="images/map.png"/></div>
                <extendedTextInteraction responseIdentifier="RESPONSE"><prompt>Write Sam a postcard.</prompt></extendedTextInteraction>
              </itemBody>
            </assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "postcard.xml", folder: nil, path: nil)
        let q = try #require(bank.items.first)
        #expect(q.prompt == "Read this postcard from Sam.\n\n[image]\n\nHere is a postcard of my town.\nWhat size is your town?\n\n[image]\n\nWrite Sam a postcard.")
    }
}

@Suite("QTI 3 passages an item refers to")
struct QTIPassageTests {
    /// Files in memory, as a package or a folder holds them.
    struct Files: PackageFiles {
        let files: [String: String]
        var paths: Set<String> { Set(files.keys) }
        func read(_ path: String, limit: Int) throws(ImportRefusal) -> [UInt8]? { files[path].map { Array($0.utf8) } }
        func label(_ path: String) -> String { "bank/" + path }
    }

    static let item = """
        <qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="fox-colour" title="Fox colour">
          <qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier">
            <qti-correct-response><qti-value>B</qti-value></qti-correct-response>
          </qti-response-declaration>
          <qti-assessment-stimulus-ref identifier="passage" href="../passages/fox.xml" title="The fox"/>
          <qti-item-body>
            <qti-choice-interaction response-identifier="RESPONSE" max-choices="1">
              <qti-prompt>According to the passage, what colour is the fox?</qti-prompt>
              <qti-simple-choice identifier="A">Red</qti-simple-choice>
              <qti-simple-choice identifier="B">Brown</qti-simple-choice>
            </qti-choice-interaction>
          </qti-item-body>
        </qti-assessment-item>
        """

    static let passage = """
        <qti-assessment-stimulus xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="passage" title="The fox">
          <qti-stimulus-body><p>The quick brown fox jumps over the lazy dog.</p><p><img src="fox.png" alt="a fox"/></p></qti-stimulus-body>
        </qti-assessment-stimulus>
        """

    @Test func thePassageComesBeforeTheItemsOwnText() throws {
        let files = Files(files: ["items/fox.xml": Self.item, "passages/fox.xml": Self.passage])
        let bank = try QTIReader.read(bytes: Array(Self.item.utf8), file: "bank/items/fox.xml", folder: files, path: "items/fox.xml")
        let q = try #require(bank.items.first)
        #expect(q.prompt == "The quick brown fox jumps over the lazy dog.\n\n[image: a fox]\n\nAccording to the passage, what colour is the fox?")
        #expect(bank.diagnostics.map(\.message) == ["missing asset passages/fox.png (shown by the item)"])
    }

    @Test func aPassageThatCannotBeReadIsSaidNotDroppedInSilence() throws {
        let alone = try QTIReader.read(bytes: Array(Self.item.utf8), file: "fox.xml", folder: nil, path: nil)
        #expect(try #require(alone.items.first).prompt == "According to the passage, what colour is the fox?")
        #expect(alone.diagnostics.contains { $0.severity == .warning && $0.message.contains("the passage ../passages/fox.xml is not next to the item") })
        let wrong = Files(files: ["items/fox.xml": Self.item, "passages/fox.xml": "<qti-assessment-item identifier=\"x\"/>"])
        let bank = try QTIReader.read(bytes: Array(Self.item.utf8), file: "bank/items/fox.xml", folder: wrong, path: "items/fox.xml")
        #expect(bank.diagnostics.contains { $0.message.contains("is not a QTI passage") })
    }
}

@Suite("XML banks in the encodings their declarations name")
struct XMLEncodingTests {
    @Test func windows1251IsReadAsCyrillic() throws {
        let head = Array(#"<?xml version="1.0" encoding="windows-1251"?><quiz><question type="shortanswer"><name><text>q</text></name><questiontext format="html"><text>"#.utf8)
        // "Привет?" in Windows-1251.
        let prompt: [UInt8] = [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2, 0x3F]
        let tail = Array(#"</text></questiontext><answer fraction="100"><text>да</text></answer></question></quiz>"#.utf8)
        // The answer's bytes are UTF-8 on purpose here: read as 1251 they are other letters, not an error.
        let bank = try MoodleReader.read(bytes: head + prompt + tail, file: "cp1251.xml")
        #expect(try bank.question("q").prompt == "Привет?")
    }

    @Test func anEncodingCarrelDoesNotReadIsNamed() throws {
        let bytes = Array(#"<?xml version="1.0" encoding="KOI8-R"?><quiz>"#.utf8) + [0xF0, 0xF2] + Array("</quiz>".utf8)
        let bank = try MoodleReader.read(bytes: bytes, file: "koi.xml")
        #expect(bank.errors.map(\.message) == ["the file says it is koi8-r, which Carrel does not read, and it is not UTF-8; save it as UTF-8"])
    }
}

@Suite("Tables in imported banks")
struct TableLayoutTests {
    @Test func aLineBreakInACellKeepsTheRowTogether() {
        var out = TextBuilder()
        HTMLText.render("<table><tr><th>sys1</th><td>1 kg<br></td><td>0.35 m<br></td></tr><tr><td>2 kg<td>- <br></table><p>Line one<br>Line two</p>", into: &out)
        #expect(out.text == "sys1 1 kg 0.35 m\n2 kg -\n\nLine one\nLine two", "an unclosed cell ends with its table")
    }
}
