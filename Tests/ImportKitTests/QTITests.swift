import AssessmentKit
import Foundation
import Testing
import ZIPFoundation
@testable import ImportKit

@Suite("QTI 2.1 and 3.0 items and packages")
struct QTITests {
    static let versions = ["qti21", "qti30"]

    func item(_ version: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ImportedBank {
        let path = "\(version)/\(name).xml"
        return try QTIReader.read(bytes: try Fixtures.bytes(path), file: path, folder: nil, path: nil)
    }

    func only(_ version: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Item {
        let bank = try item(version, name)
        #expect(bank.errors.isEmpty && bank.skips.isEmpty, "\(bank.diagnostics)", sourceLocation: sourceLocation)
        return try #require(bank.items.first, sourceLocation: sourceLocation)
    }

    @Test(arguments: versions)
    func choice(version: String) throws {
        let q = try only(version, "choice")
        #expect(q.kind == .choice(choices: [
            "You must stay with your luggage at all times.", "Do not let someone else look after your luggage.",
            "Remember your luggage when you leave.",
        ], answer: "You must stay with your luggage at all times."))
        #expect(q.prompt == "Look at the text in the picture.\n\n[image: NEVER LEAVE LUGGAGE UNATTENDED]\n\nWhat does it say?")
        #expect(q.points == 1)
        #expect(q.marking == nil)
    }

    @Test(arguments: versions)
    func choiceMultipleWithAMappingBecomesCredits(version: String) throws {
        let q = try only(version, "choice_multiple")
        #expect(q.kind == .multiple(choices: ["Hydrogen", "Helium", "Carbon", "Oxygen", "Nitrogen", "Chlorine"],
                                    answers: ["Hydrogen", "Oxygen"], scoring: .partial))
        // upperBound 2: H and O earn 1 each (50 %), Cl costs 1 (−50 %), the rest the default −2 (−100 %).
        #expect(q.marking == .choices([
            ChoiceMark(text: "Hydrogen", credit: 50), ChoiceMark(text: "Helium", credit: -100), ChoiceMark(text: "Carbon", credit: -100),
            ChoiceMark(text: "Oxygen", credit: 50), ChoiceMark(text: "Nitrogen", credit: -100), ChoiceMark(text: "Chlorine", credit: -50),
        ]))
        #expect(q.points == 2)
        #expect(Scoring.score(q, .multiple(["Hydrogen", "Oxygen"])).points == 2)
        #expect(Scoring.score(q, .multiple(["Hydrogen", "Oxygen", "Chlorine"])).points == 1)
    }

    @Test func choiceMultipleWithoutAMappingNeedsTheExactSet() throws {
        let q = try only("qti21", "choice_multiple_key")
        #expect(q.kind == .multiple(choices: ["2", "3", "4"], answers: ["2", "3"], scoring: .allOrNothing))
    }

    @Test(arguments: versions)
    func order(version: String) throws {
        let q = try only(version, "order")
        #expect(q.kind == .order(items: ["Michael Schumacher", "Rubens Barrichello", "Jenson Button"]))
        #expect(q.prompt.hasPrefix("The following F1 drivers finished on the podium"))
    }

    @Test(arguments: versions)
    func match(version: String) throws {
        let q = try only(version, "match")
        #expect(q.kind == .match(pairs: [
            MatchPair(left: "Capulet", right: "Romeo and Juliet"), MatchPair(left: "Demetrius", right: "A Midsummer-Night's Dream"),
            MatchPair(left: "Lysander", right: "A Midsummer-Night's Dream"), MatchPair(left: "Prospero", right: "The Tempest"),
        ], distractors: ["Hamlet"]))
        #expect(q.points == 3)
        #expect(try item(version, "match").diagnostics.map(\.message) == [
            "the pairs are worth different points in the item's mapping; in Carrel every pair is worth the same share of the item's points",
        ])
    }

    @Test(arguments: versions)
    func textEntryHonoursCaseAndMappedCredit(version: String) throws {
        let q = try only(version, "text_entry")
        // The correct response mapped again at full credit is not reported as a repeat.
        #expect(try item(version, "text_entry").diagnostics.isEmpty)
        #expect(q.kind == .text(accept: ["York"], caseSensitive: true))
        #expect(q.marking == .texts([TextAnswer(text: "York"), TextAnswer(text: "york", credit: 50)]))
        #expect(q.prompt.contains("Made glorious summer by this sun of _____;\nAnd all the clouds"))
        #expect(Scoring.score(q, .text("york")).points == 0.5)
        #expect(Scoring.score(q, .text("YORK")).outcome == .incorrect)
    }

    @Test(arguments: versions)
    func numericTextEntryKeepsItsTolerance(version: String) throws {
        let q = try only(version, "text_entry_numeric")
        #expect(q.kind == .numeric(.value(9.81, tolerance: 0.05)))
        #expect(q.prompt == "The acceleration due to gravity near the Earth's surface is _____ m/s².")
    }

    @Test(arguments: versions)
    func extendedTextIsAnEssayAndTheScorersRubricAProctorNote(version: String) throws {
        let q = try only(version, "extended_text")
        #expect(q.kind == .essay(minWords: nil, maxWords: nil))
        #expect(q.points == 5)
        #expect(q.prompt.hasSuffix("Write Sam a postcard. Answer the questions. Write 25-35 words."))
        #expect(!q.prompt.contains("Give a point"))
        #expect(q.proctorNote == "Give a point for each question Sam asked that is answered.")
    }

    @Test(arguments: versions)
    func aLoneInlineChoiceIsAChoice(version: String) throws {
        let q = try only(version, "inline_choice")
        #expect(q.kind == .choice(choices: ["Gloucester", "Lancaster", "York"], answer: "York"))
        #expect(q.prompt.contains("by this sun of _____;"))
    }

    @Test(arguments: versions)
    func textEntriesAndInlineChoicesInOneTextBecomeGaps(version: String) throws {
        let q = try only(version, "gaps")
        #expect(q.type == .gaps)
        #expect(q.prompt == "Complétez le dialogue. (Complete the dialogue.)\n\n– Bonjour ! Je {1} {2} café, s'il vous plaît.\n\n– Voilà. Ça fait deux euros cinquante : {3} €.")
        guard case let .gaps(gaps) = q.kind else { return }
        // In reading order; each mapping's full score is its gap's weight (2, 1, and 1 without one).
        #expect(gaps == [
            Gap(kind: .text(answers: [TextAnswer(text: "voudrais"), TextAnswer(text: "veux", credit: 50)], caseSensitive: false), points: 2),
            Gap(kind: .choice(options: [ChoiceMark(text: "un", credit: 100), ChoiceMark(text: "le", credit: 50), ChoiceMark(text: "des")],
                              multiple: false), points: 1),
            Gap(kind: .number(answers: [NumberAnswer(answer: .value(2.5, tolerance: 0))]), points: 1),
        ])
        #expect(q.points == 4)
        #expect(Scoring.score(q, .gaps([["Voudrais"], ["le"], ["2,5"]])).points == 3.5)
    }

    @Test func twoTextEntriesAreTwoGapsOfOneItem() throws {
        let q = try only("qti21", "two_interactions")
        #expect(q.prompt == "First {1} and second {2}.")
        #expect(q.kind == .gaps([
            Gap(kind: .text(answers: [TextAnswer(text: "a")], caseSensitive: true)),
            Gap(kind: .text(answers: [TextAnswer(text: "b")], caseSensitive: true)),
        ]))
        #expect(q.points == 2)
    }

    @Test func aGapWithoutItsDeclarationIsAnErrorNamingTheGap() throws {
        let xml = """
            <assessmentItem identifier="g" adaptive="false"><responseDeclaration identifier="R1" cardinality="single" baseType="string"><correctResponse><value>a</value></correctResponse></responseDeclaration>
            <itemBody><p>One <textEntryInteraction responseIdentifier="R1"/> two <textEntryInteraction responseIdentifier="R9"/>.</p></itemBody></assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "g.xml", folder: nil, path: nil)
        #expect(bank.items.isEmpty)
        #expect(bank.diagnostics.map(\.description) == [
            "g.xml:2: error: gap 2 of 2: the interaction's responseIdentifier names no <responseDeclaration>",
        ])
    }

    @Test func bracesThatWouldReadAsAGapSkipTheItem() throws {
        let xml = """
            <assessmentItem identifier="g" adaptive="false"><responseDeclaration identifier="R1" cardinality="single" baseType="string"><correctResponse><value>a</value></correctResponse></responseDeclaration>
            <responseDeclaration identifier="R2" cardinality="single" baseType="string"><correctResponse><value>b</value></correctResponse></responseDeclaration>
            <itemBody><p>The set {2} holds <textEntryInteraction responseIdentifier="R1"/> and <textEntryInteraction responseIdentifier="R2"/>.</p></itemBody></assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "g.xml", folder: nil, path: nil)
        #expect(bank.items.isEmpty)
        #expect(bank.skips.map(\.message) == ["the item's text holds braces such as {1} that Carrel would read as a gap; write them another way"])
    }

    @Test(arguments: [
        ("qti21", "associate", "associateInteraction"), ("qti21", "gap_match", "gapMatchInteraction"),
        ("qti21", "hottext", "hottextInteraction"), ("qti21", "slider", "sliderInteraction"),
        ("qti30", "associate", "associateInteraction"), ("qti30", "gap_match", "gapMatchInteraction"),
        ("qti30", "hottext", "hottextInteraction"), ("qti30", "slider", "sliderInteraction"),
        ("qti21", "hotspot", "picture"), ("qti21", "adaptive", "adaptive item"), ("qti21", "mixed_interactions", "2 interactions"),
    ])
    func unsupportedItemsAreSkippedWithAReason(version: String, name: String, reason: String) throws {
        let bank = try item(version, name)
        #expect(bank.items.isEmpty)
        #expect(bank.skips.count == 1)
        let skip = try #require(bank.skips.first)
        #expect(skip.description.hasPrefix("\(version)/\(name).xml:"))
        #expect(skip.description.contains(": warning: skipped: "))
        #expect(skip.message.contains(reason), "\(skip.message)")
    }

    @Test func everyFixtureItemImportsOrIsSkippedAndTheImportedOnesValidate() throws {
        var banks: [ImportedBank] = []
        for version in Self.versions {
            for path in Fixtures.files(in: version, extensions: [".xml"]) {
                let bank = try QTIReader.read(bytes: try Fixtures.bytes(path), file: path, folder: nil, path: nil)
                #expect(bank.errors.isEmpty, "\(path): \(bank.diagnostics)")
                #expect(bank.items.count + bank.skips.count == 1, "\(path)")
                banks.append(bank)
            }
        }
        #expect(banks.count >= 20, "the fixture loop ran over \(banks.count) files")
        let a = try expectValidAssessment(banks)
        #expect(a.items.count == 20)
    }

    @Test(arguments: ["hostile/xxe.xml", "hostile/billion-laughs.xml"])
    func documentTypesAreRefusedBeforeParsing(file: String) throws {
        let clock = ContinuousClock()
        let start = clock.now
        let refused = refusal { _ = try QTIReader.read(bytes: try Fixtures.bytes(file), file: file, folder: nil, path: nil) }
        #expect(refused?.description.hasPrefix("\(file): refused: the XML declares a document type (<!DOCTYPE)") == true, "\(String(describing: refused))")
        #expect(clock.now - start < .seconds(2))
    }

    @Test func anEntityWithoutADoctypeAndDeepNestingAreRefusedToo() {
        #expect(throws: XMLTree.Problem.refused("the XML declares an entity (<!ENTITY); QTI needs none, and document types can read other files or expand without end")) {
            try XMLTree.parse(Array("<a><!eNtItY x 'y'></a>".utf8))
        }
        let deep = String(repeating: "<a>", count: 5000) + String(repeating: "</a>", count: 5000)
        #expect(throws: XMLTree.Problem.refused("the XML nests deeper than 256 levels")) { try XMLTree.parse(Array(deep.utf8)) }
    }

    @Test func processingInstructionsAreReadSafelyWhereverTheyAre() throws {
        // Instructions anywhere, with data or without (`<?x?>`, which crashed an earlier parser
        // when fuzzed), are passed over; the text around them is read as written.
        let xml = """
            <?xml version="1.0"?>
            <?x?><?xml-model href="https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd"?>
            <assessmentItem identifier="pi" title="PI"><?y?>
            <!-- a comment with <?z?> in it -->
            <responseDeclaration identifier="R" cardinality="single" baseType="identifier">
            <correctResponse><value>A</value></correctResponse></responseDeclaration>
            <itemBody><?note
            spread over lines
            ?><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt><![CDATA[Is <?this?> kept?]]></prompt>
            <simpleChoice identifier="A">Yes</simpleChoice><simpleChoice identifier="B">No</simpleChoice>
            </choiceInteraction></itemBody></assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "pi.xml", folder: nil, path: nil)
        #expect(bank.errors.isEmpty, "\(bank.diagnostics)")
        let item = try #require(bank.items.first)
        #expect(item.prompt == "Is <?this?> kept?", "an instruction spelled out in CDATA is text")
        #expect(throws: XMLTree.Problem.self) { try XMLTree.parse(Array("<?x?>".utf8)) }
        let kept = try XMLTree.parse(Array("<a>1<?b?>2<?c d?><!-- <?f?> -->3</a>".utf8))
        #expect(kept.text == "123")
        #expect(throws: XMLTree.Problem.self) { try XMLTree.parse(Array(("<a>" + String(repeating: "<?", count: 500_000)).utf8)) }
        for hostile in ["<a><<?x?>?y?></a>", "<a><!-<?x?>- <![CDATA[ --> <?y?> ]]></a>", "<a><!--> <![CDATA[ --> <?y?> ]]></a>",
                        "<a><!---> <![CDATA[ --> <?y?> ]]></a>", "<a><![CDATA[]]><?y?></a>", "<a><?y?><?z?></a>",
                        "<a><!-->  <A[ --> <?&nbsp;C<A[ --> <?y?> ![CDATA[ --> <?y?> ]]></a> <?y?>", "<a><?a<?b?></a>"] {
            // Reading them must not crash the process: each is a tree or a clear error.
            do {
                _ = try XMLTree.parse(Array(hostile.utf8))
            } catch {
                #expect(!"\(error)".isEmpty)
            }
        }
    }

    @Test func responseProcessingThatScoresAgainstItsOwnValuesIsPointedOut() throws {
        func item(processing: String) throws -> ImportedBank {
            let xml = """
                <assessmentItem identifier="rp"><responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
                <correctResponse><value>A</value></correctResponse></responseDeclaration>
                <itemBody><choiceInteraction responseIdentifier="RESPONSE" maxChoices="1"><prompt>Pick.</prompt>
                <simpleChoice identifier="A">One</simpleChoice><simpleChoice identifier="B">Two</simpleChoice>
                </choiceInteraction></itemBody>\(processing)</assessmentItem>
                """
            return try QTIReader.read(bytes: Array(xml.utf8), file: "rp.xml", folder: nil, path: nil)
        }
        let custom = try item(processing: """
            <responseProcessing><responseCondition><responseIf><match><variable identifier="RESPONSE"/>
            <baseValue baseType="identifier">B</baseValue></match>
            <setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue></setOutcomeValue>
            </responseIf></responseCondition></responseProcessing>
            """)
        #expect(custom.diagnostics.map(\.description) == [
            "rp.xml:1: warning: the item's response processing scores the answer against values of its own; Carrel scores by the declared correct response and mapping, so check the key",
        ])
        let standard = try item(processing: """
            <responseProcessing><responseCondition><responseIf><match><variable identifier="RESPONSE"/>
            <correct identifier="RESPONSE"/></match></responseIf></responseCondition></responseProcessing>
            """)
        #expect(standard.diagnostics.isEmpty)
        let template = try item(processing: #"<responseProcessing template="https://purl.imsglobal.org/spec/qti/v2p1/rptemplates/match_correct"/>"#)
        #expect(template.diagnostics.isEmpty)
    }

    @Test func theFirstErrorIsNamedWithItsLine() {
        let text = "<a>\n<b>ok</b>\n<?\n" + String(repeating: "<?\n", count: 5_000) + "</a>"
        #expect(throws: XMLTree.Problem.malformed(line: 3, "the XML cannot be read: xmlParsePI : no target name")) {
            try XMLTree.parse(Array(text.utf8))
        }
        // An earlier parser crashed on this when fuzzed (a parse aborted inside its error report).
        #expect(throws: XMLTree.Problem.self) { try XMLTree.parse([0, 0, 0] + Array("<assessmentItem>".utf8)) }
    }

    @Test func aSurveyItemWithoutAKeyIsSkipped() throws {
        let xml = """
            <assessmentItem identifier="likert"><responseDeclaration identifier="R" cardinality="single" baseType="identifier"/>
            <itemBody><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>I like QTI.</prompt>
            <simpleChoice identifier="A">Agree</simpleChoice><simpleChoice identifier="D">Disagree</simpleChoice>
            </choiceInteraction></itemBody></assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "likert.xml", folder: nil, path: nil)
        #expect(bank.skips.map(\.message) == ["the item names no correct response (a survey, or an item a person scores), so Carrel cannot score it"])
    }

    @Test func otherQTIDocumentsAreNamed() throws {
        let qti12 = try QTIReader.read(bytes: Array("<questestinterop><item/></questestinterop>".utf8), file: "old.xml", folder: nil, path: nil)
        #expect(qti12.diagnostics.map(\.description) == ["old.xml:1: error: this is QTI 1.x (<questestinterop>); export the items as QTI 2.1 or 3.0"])
        let test = try QTIReader.read(bytes: Array("<qti-assessment-test identifier='t'/>".utf8), file: "test.xml", folder: nil, path: nil)
        #expect(test.errors.first?.message.hasPrefix("this is a QTI test, not an item") == true)
    }

    @Test func imagesWithoutADescriptionAreNamedByTheirFile() throws {
        let xml = """
            <assessmentItem identifier="i"><responseDeclaration identifier="R" cardinality="single" baseType="identifier">
            <correctResponse><value>A</value></correctResponse></responseDeclaration>
            <itemBody><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>Which flag?</prompt>
            <simpleChoice identifier="A"><img src="flags/fr.png"/></simpleChoice><simpleChoice identifier="B"><img src="flags/it%20a.png"/></simpleChoice>
            </choiceInteraction></itemBody></assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "i.xml", folder: nil, path: nil)
        #expect(bank.items.first?.kind == .choice(choices: ["[image: fr.png]", "[image: it a.png]"], answer: "[image: fr.png]"))
    }

    @Test func preformattedTextKeepsItsLayout() throws {
        let xml = """
            <assessmentItem identifier="p"><responseDeclaration identifier="R" cardinality="single" baseType="string"/>
            <itemBody><p>What does this print?</p><pre>for i in 1...2 {
                print(i)
            }</pre><extendedTextInteraction responseIdentifier="R"/></itemBody></assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "p.xml", folder: nil, path: nil)
        #expect(bank.items.first?.prompt == "What does this print?\n\nfor i in 1...2 {\n    print(i)\n}")
    }

    @Test func htmlEntitiesInItemsAreReadWithoutADTD() throws {
        let xml = """
            <assessmentItem identifier="e"><responseDeclaration identifier="R" cardinality="single" baseType="identifier">
            <correctResponse><value>A</value></correctResponse></responseDeclaration>
            <itemBody><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>Caf&eacute;&nbsp;&mdash; &amp; <![CDATA[&copy; stays]]></prompt>
            <simpleChoice identifier="A">&laquo;oui&raquo;</simpleChoice><simpleChoice identifier="B">non</simpleChoice>
            </choiceInteraction></itemBody></assessmentItem>
            """
        let bank = try QTIReader.read(bytes: Array(xml.utf8), file: "e.xml", folder: nil, path: nil)
        #expect(bank.items.first?.prompt == "Café — & &copy; stays")
        #expect(bank.items.first?.kind == .choice(choices: ["«oui»", "non"], answer: "«oui»"))
    }
}
