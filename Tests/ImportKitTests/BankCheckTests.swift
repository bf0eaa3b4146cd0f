import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

/// What importing real question banks showed: questions lost without a count, false warnings,
/// lost list numbers, keys dropped silently, rounding noise, and messages that disagreed.
@Suite("Real banks: every question counted, shown and scored as written")
struct BankCheckTests {
    func gift(_ text: String) -> ImportedBank { GIFTReader.read(text, file: "t.gift") }

    func qti(_ body: String) throws -> ImportedBank {
        let xml = "<assessmentItem xmlns=\"http://www.imsglobal.org/xsd/imsqti_v2p1\" identifier=\"x\">\n\(body)\n</assessmentItem>"
        return try QTIReader.read(bytes: Array(xml.utf8), file: "x.xml", folder: nil, path: nil)
    }

    // MARK: 1. No question lost without a count

    @Test func aGIFTQuestionRightAfterItsCategoryLineIsImportedInThatCategory() throws {
        let bank = gift("""
            $CATEGORY: Unit 1
            ::Q1:: Capital of France? {=Paris ~Rome}

            ::Q2:: 2+2? {#4}
            """)
        #expect(bank.questions.map(\.name) == ["Q1", "Q2"])
        #expect(bank.sections.map(\.title) == ["Unit 1"])
        #expect(bank.questions.map(\.line) == [2, 4])
        #expect(bank.errors.isEmpty && bank.skips.isEmpty)
        // Moodle would read the line as part of the category's name: said at its line.
        #expect(bank.diagnostics.map(\.description) == [
            "t.gift:2: warning: imported as what it is, though Moodle would take this line as part of the category's name above it; put a blank line after the `$CATEGORY:` line so that Moodle reads it the same way",
        ])
        _ = try expectValidAssessment([bank])
    }

    @Test func aCategoryLineRightAfterAQuestionStartsItsCategoryAndLosesNeitherQuestion() throws {
        let bank = gift("""
            ::Q1:: One? {=a ~b}
            $CATEGORY: Unit 2
            $CATEGORY: Unit 2/Week 1
            ::Q2:: Two? {=c ~d}
            """)
        #expect(bank.questions.map(\.name) == ["Q1", "Q2"])
        #expect(bank.sections.map(\.title) == [nil, "Unit 2 / Week 1"])
        #expect(bank.errors.isEmpty)
        #expect(bank.diagnostics.map(\.line) == [2, 3, 4])
        _ = try expectValidAssessment([bank])
    }

    @Test func aMalformedQuestionAfterACategoryLineIsAnErrorAtItsLine() {
        let bank = gift("$CATEGORY: Unit 1\n// a comment\nQ1 {=Paris}{=Rome}\n\nQ2 {T}")
        #expect(bank.items.count == 1)
        #expect(bank.errors.map(\.line) == [3])
    }

    @Test func aQTI1ItemInAZipWithoutAManifestIsAnErrorNotPassedOver() throws {
        let zip = try QTITests.zip([("a/choice.xml", try Fixtures.bytes("qti21/order.xml")),
                                    ("b/old.xml", Array("<questestinterop><item ident=\"q\"/></questestinterop>".utf8)),
                                    ("c/style.xml", Array("<styles/>".utf8))])
        let bank = try QTIReader.read(bytes: zip, file: "loose.zip", folder: nil, path: nil)
        #expect(bank.types == [.order])
        #expect(bank.errors.map(\.description) == ["loose.zip:b/old.xml:1: error: this is QTI 1.x (<questestinterop>); export the items as QTI 2.1 or 3.0"])
    }

    // MARK: 2. No false "empty choice"

    @Test func aRightAnswerWrittenAfterATildeIsNoEmptyChoice() throws {
        for text in ["Q {~a ~=b}", "Q {~=b ~a}", "Q {~a ~ =b}"] {
            let bank = gift(text)
            #expect(bank.diagnostics.isEmpty, "\(text): \(bank.diagnostics)")
            #expect(bank.items.first?.kind == .choice(choices: text == "Q {~=b ~a}" ? ["b", "a"] : ["a", "b"], answer: "b"), "\(text)")
        }
        // A choice that is really empty is still pointed out.
        #expect(gift("Q {~a ~ ~=b}").diagnostics.map(\.message) == ["left out 1 empty choice"])
    }

    // MARK: 3. Numbered lists keep their numbers

    @Test func orderedListsAreNumberedAndBulletedOnesDashed() {
        func html(_ s: String) -> String {
            var out = TextBuilder()
            HTMLText.render(s, into: &out)
            return out.text
        }
        #expect(html("<p>Which statement is false?</p><ol><li>one</li><li>two</li></ol><p>Pick one.</p>")
            == "Which statement is false?\n\n1. one\n2. two\n\nPick one.")
        #expect(html("<ul><li>a</li><li>b</li></ul>") == "- a\n- b")
        #expect(html("<ol start=\"3\"><li>c</li><li value=\"7\">g</li><li>h</li></ol>") == "3. c\n7. g\n8. h")
        #expect(html("<ol type=\"a\"><li>x</li><li>y</li></ol>") == "a. x\nb. y")
        #expect(html("<ol><li>one<ul><li>detail</li></ul></li><li>two</li></ol>") == "1. one\n   - detail\n2. two")
    }

    /// A list numbered from a number no list holds is numbered from 1, never counted past
    /// the largest integer.
    @Test func aListStartingAtAHugeNumberIsNumberedFromOne() {
        var out = TextBuilder()
        HTMLText.render("<ol start=\"9223372036854775807\"><li>a</li><li value=\"-9223372036854775808\">b</li><li>c</li></ol>", into: &out)
        #expect(out.text == "1. a\n2. b\n3. c")
    }

    /// Thousands of category lines in a row are read one after another, not one inside another.
    @Test func thousandsOfCategoryLinesInARowAreReadInTurn() {
        let text = (0..<20_000).map { "$CATEGORY: c\($0)" }.joined(separator: "\n") + "\n::Q:: Last? {T}\n"
        let bank = gift(text)
        #expect(bank.items.count == 1)
        #expect(bank.sections.last?.title == "c19999")
    }

    @Test func qtiOrderedListsAreNumberedToo() throws {
        let bank = try qti("""
            <responseDeclaration identifier="R" cardinality="single" baseType="identifier"><correctResponse><value>B</value></correctResponse></responseDeclaration>
            <itemBody><p>Which statement is false?</p><ol><li>Water boils at 100 °C.</li><li>Ice sinks.</li></ol>
            <choiceInteraction responseIdentifier="R" maxChoices="1"><simpleChoice identifier="A">statement 1</simpleChoice>
            <simpleChoice identifier="B">statement 2</simpleChoice></choiceInteraction></itemBody>
            """)
        #expect(bank.items.first?.prompt == "Which statement is false?\n\n1. Water boils at 100 °C.\n2. Ice sinks.")
    }

    // MARK: 4. A keyed QTI answer is kept, or said to be lost

    @Test func anExtendedTextWithACorrectNumberIsANumericItem() throws {
        let bank = try qti("""
            <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float"><correctResponse><value>123</value></correctResponse></responseDeclaration>
            <itemBody><p>What is 3 × 41?</p><extendedTextInteraction responseIdentifier="RESPONSE"/></itemBody>
            """)
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
        #expect(bank.items.first?.kind == .numeric(.value(123, tolerance: 0)))
        _ = try expectValidAssessment([bank])
    }

    @Test func anExtendedTextWithACorrectStringIsATextItem() throws {
        let bank = try qti("""
            <responseDeclaration identifier="R" cardinality="single" baseType="string"><correctResponse><value>Paris</value></correctResponse></responseDeclaration>
            <itemBody><p>Capital of France?</p><extendedTextInteraction responseIdentifier="R"/></itemBody>
            """)
        #expect(bank.items.first?.type == .text)
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
    }

    @Test func aKeyAnEssayCannotKeepIsNamedInAWarning() throws {
        let bank = try qti("""
            <responseDeclaration identifier="R" cardinality="multiple" baseType="string"><correctResponse><value>a</value><value>b</value></correctResponse></responseDeclaration>
            <itemBody><p>Name two.</p><extendedTextInteraction responseIdentifier="R"/></itemBody>
            """)
        #expect(bank.items.first?.type == .essay)
        #expect(bank.diagnostics.map(\.description) == [
            "x.xml:1: warning: imported as an essay, which a person marks: its correct response (“a”) is not kept, as Carrel scores no multiple answer of type string typed at length",
        ])
    }

    // MARK: 5. No rounding noise in the file

    @Test func creditsAndPointsComputedFromAMappingAreWrittenRound() throws {
        let bank = try qti("""
            <responseDeclaration identifier="R" cardinality="multiple" baseType="identifier">
            <correctResponse><value>A</value><value>C</value></correctResponse>
            <mapping defaultValue="0"><mapEntry mapKey="A" mappedValue="0.16666666666666666"/><mapEntry mapKey="C" mappedValue="0.16666666666666666"/></mapping>
            </responseDeclaration>
            <itemBody><choiceInteraction responseIdentifier="R" maxChoices="0"><prompt>Pick two.</prompt>
            <simpleChoice identifier="A">a</simpleChoice><simpleChoice identifier="B">b</simpleChoice><simpleChoice identifier="C">c</simpleChoice>
            </choiceInteraction></itemBody>
            """)
        let item = try #require(bank.items.first)
        #expect(item.points == 0.33)
        let yaml = try #require(Importer.assemble([bank], options: .init(id: "x", title: "X")).yaml)
        #expect(yaml.contains("credit: 50%"), "\(yaml)")
        #expect(!yaml.contains("49.99"), "\(yaml)")
        _ = try expectValidAssessment([bank])
    }

    /// A score the test declares is kept as declared, not rounded to hundredths.
    @Test func aDeclaredMaximumScoreIsKeptAsDeclared() throws {
        let bank = try qti("""
            <responseDeclaration identifier="R" cardinality="single" baseType="identifier">
            <correctResponse><value>A</value></correctResponse></responseDeclaration>
            <outcomeDeclaration identifier="MAXSCORE" cardinality="single" baseType="float"><defaultValue><value>0.125</value></defaultValue></outcomeDeclaration>
            <itemBody><choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>Pick.</prompt>
            <simpleChoice identifier="A">a</simpleChoice><simpleChoice identifier="B">b</simpleChoice>
            </choiceInteraction></itemBody>
            """)
        #expect(bank.items.first?.points == 0.125)
        #expect(ItemBuilder.declared(0.30000000000000004) == 0.3)
    }

    @Test func snappingKeepsRealDecimals() {
        #expect(ItemBuilder.snapped(49.99999999999999) == 50)
        #expect(ItemBuilder.snapped(0.1 + 0.2) == 0.3)
        #expect(ItemBuilder.snapped(-33.33333) == -33.33333)
        #expect(ItemBuilder.snapped(100.0 / 3) == 100.0 / 3)
        #expect(ItemBuilder.points(1.0 / 3) == 0.33)
    }

    // MARK: 6. The same situation, the same verdict and words

    @Test func aTextEntryWithoutAKeyIsSkippedLikeAChoiceWithoutOne() throws {
        let bank = try qti("""
            <responseDeclaration identifier="R" cardinality="single" baseType="string"/>
            <itemBody><p>Your name: <textEntryInteraction responseIdentifier="R"/></p></itemBody>
            """)
        #expect(bank.errors.isEmpty)
        #expect(bank.skips.map(\.message) == ["the item names no correct response (a survey, or an item a person scores), so Carrel cannot score it"])
    }

    @Test func identicalChoicesAreCalledIdentical() {
        let bank = AikenReader.read("Pick one\nA) same\nB) same\nANSWER: A\n", file: "a.txt")
        #expect(bank.errors.map(\.message) == [
            "the 2 choices are identical (each reads “same”); a question with one answer to pick needs at least two different choices",
        ])
    }

    @Test func feedbackInAGIFTMatchPairIsLeftOutWithAWarning() throws {
        let bank = gift("Match {=Paris -> France#Bonne réponse =Rome -> Italy}")
        #expect(bank.items.first?.kind == .match(pairs: [MatchPair(left: "Paris", right: "France"), MatchPair(left: "Rome", right: "Italy")], distractors: []))
        #expect(bank.diagnostics.map(\.message) == [
            "left out the feedback after `#` in the pairs (“Bonne réponse”): a matching question has no feedback per pair, and Moodle would show it as part of the answer; write it as the question's general feedback (`####…`) or write \\# for a # in the text",
        ])
    }

    @Test func anXMLFileOfNoKnownKindNamesTheFormatsCarrelReads() throws {
        let bank = try QTIReader.read(bytes: Array("<?xml version=\"1.0\"?>\n<test><question/></test>".utf8), file: "t.xml", folder: nil, path: nil)
        let message = try #require(bank.errors.first?.message)
        #expect(message.hasPrefix("its root element is <test>, which Carrel does not import"))
        #expect(message.contains("<quiz>") && message.contains("<assessmentItem>") && message.contains("<assessmentTest>"))
    }
}
