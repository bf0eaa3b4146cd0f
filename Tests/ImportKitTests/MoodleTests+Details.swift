import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

extension MoodleTests {
    // MARK: - Details

    @Test func formatsAreReadAsMoodleShowsThem() throws {
        func prompt(_ format: String, _ text: String) throws -> String {
            try only("""
                <question type="essay"><name><text>f</text></name>
                <questiontext format="\(format)"><text><![CDATA[\(text)]]></text></questiontext></question>
                """).0.prompt
        }
        #expect(try prompt("html", "<p>One\ntwo</p><p>three</p>") == "One two\n\nthree")
        #expect(try prompt("moodle_auto_format", "One\ntwo") == "One\ntwo")
        #expect(try prompt("plain_text", "<b>bold</b>\nnext") == "<b>bold</b>\nnext")
        #expect(try prompt("markdown", "*stars*") == "*stars*")
        #expect(try prompt("something new", "<i>as html</i>") == "as html")
    }

    @Test func oldNumericalFractionsInsideTheAnswerAreRead() throws {
        let (q, _) = try only("""
            <question type="numerical"><name><text>n</text></name>
            <questiontext><text>Two?</text></questiontext>
            <answer><text>2</text><fraction>1</fraction><tolerance>0.5</tolerance></answer>
            <answer><text>3</text><fraction>0.5</fraction></answer></question>
            """)
        #expect(q.kind == .numeric(.value(2, tolerance: 0.5)))
        #expect(q.marking == .numbers([NumberAnswer(answer: .value(2, tolerance: 0.5)), NumberAnswer(answer: .value(3, tolerance: 0), credit: 50)]))
    }

    @Test func trueFalseAnswersNotNamedTrueOrFalseAreReadInOrder() throws {
        let bank = try read(xml: """
            <quiz><question type="truefalse"><name><text>old</text></name>
            <questiontext><text>Old?</text></questiontext>
            <answer fraction="0"><text>Vrai</text></answer><answer fraction="100"><text>Faux</text></answer></question></quiz>
            """)
        #expect(bank.items.map(\.kind) == [.trueFalse(answer: false)])
        #expect(bank.diagnostics.map(\.message) == [
            "“old”: its answers are not named true and false; the first was read as true and the second as false, as Moodle reads old exports",
        ])
    }

    @Test func descriptionsIntroduceTheQuestionsAfterThemAndOneAtTheEndIsPointedOut() throws {
        let bank = try read(xml: """
            <quiz>
            <question type="essay"><name><text>a</text></name><questiontext><text>First?</text></questiontext></question>
            <question type="description"><name><text>d</text></name><questiontext><text>Read this.</text></questiontext></question>
            <question type="essay"><name><text>b</text></name><questiontext><text>Second?</text></questiontext></question>
            <question type="description"><name><text>e</text></name><questiontext><text>Nothing follows.</text></questiontext></question>
            </quiz>
            """)
        #expect(bank.sections.map(\.instructions) == [nil, "Read this."])
        #expect(bank.sections.map { $0.questions.map(\.name) } == [["a"], ["b"]])
        #expect(bank.descriptions == 1)
        #expect(bank.diagnostics.map(\.description) == ["t.xml:5: warning: a description with no question after it was left out"])
    }

    @Test func defaultGradesOutsideCarrelsRangeAreErrors() throws {
        let bank = try read(xml: """
            <quiz><question type="essay"><name><text>big</text></name><questiontext><text>Why?</text></questiontext>
            <defaultgrade>5000</defaultgrade></question></quiz>
            """)
        #expect(bank.diagnostics.map(\.message) == ["“big”: its defaultgrade 5000 is outside 0 to 1000 points"])
    }

    @Test func aLargeBankKeepsEveryQuestionAndItsCategory() throws {
        var xml = "<quiz>\n"
        for i in 0..<1_000 {
            if i % 50 == 0 {
                xml += "<question type=\"category\"><category><text>$course$/top/Bank/Part \(i / 50 + 1)</text></category></question>\n"
            }
            xml += """
                <question type="multichoice"><name><text>Q\(i)</text></name>
                <questiontext format="html"><text><![CDATA[<p>Question \(i)?</p>]]></text></questiontext>
                <answer fraction="100"><text>right\(i)</text></answer><answer fraction="0"><text>wrong\(i)</text></answer>
                <shuffleanswers>1</shuffleanswers></question>

                """
        }
        let bank = try read(xml: xml + "</quiz>")
        #expect(bank.diagnostics.isEmpty)
        #expect(bank.items.count == 1_000)
        #expect(bank.sections.count == 20)
        #expect(bank.sections.last?.title == "Part 20")
        let lines = xml.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(bank.questions.last?.line == lines.firstIndex { $0.contains("<text>Q999</text>") }.map { $0 + 1 })
        #expect(bank.choiceOrder == ChoiceOrder(shuffled: 1_000, inOrder: 0))
    }

    @Test func theFormatIsGuessedFromAQuizRootWhateverTheName() {
        let quiz = Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- exported -->\n<quiz>\n</quiz>".utf8)
        #expect(ImportFormat.guess(name: "bank.xml", bytes: quiz) == .moodle)
        #expect(ImportFormat.guess(name: "bank.txt", bytes: quiz) == .moodle)
        #expect(ImportFormat.guess(name: "bank.xml", bytes: Array("<quizzes/>".utf8)) == .qti)
        // A document type naming quiz is Moodle XML's, so its refusal names Moodle XML.
        let typed = Array("<?xml version=\"1.0\"?>\n<!DOCTYPE quiz [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n<quiz/>".utf8)
        #expect(ImportFormat.guess(name: "bank.xml", bytes: typed) == .moodle)
        #expect(throws: ImportRefusal.self) { try MoodleReader.read(bytes: typed, file: "bank.xml") }
        #expect(ImportFormat.guess(name: "item.xml", bytes: Array("<!DOCTYPE assessmentItem>\n<assessmentItem/>".utf8)) == .qti)
        #expect(ImportFormat.guess(name: "item.xml", bytes: Array("<assessmentItem/>".utf8)) == .qti)
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in "<quiz></quiz>".utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(ImportFormat.guess(name: "bank.xml", bytes: utf16) == .moodle)
    }
}
