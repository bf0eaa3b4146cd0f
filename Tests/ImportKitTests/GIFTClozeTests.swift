import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

@Suite("Cloze pasted into GIFT")
struct GIFTClozeTests {
    let bank: ImportedBank

    init() throws {
        bank = GIFTReader.read(try Fixtures.text("gift/cloze.gift"), file: "cloze.gift")
    }

    func gaps(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (Item, [Gap]) {
        let item = try bank.question(name, sourceLocation: sourceLocation)
        guard case let .gaps(gaps) = item.kind else {
            Issue.record("\(name) is a \(item.type.rawValue), not gaps", sourceLocation: sourceLocation)
            return (item, [])
        }
        return (item, gaps)
    }

    @Test func aQuestionWithEmbeddedAnswersIsOneGapsItemNeverAChoiceNamed1MC() throws {
        let (item, gaps) = try gaps("Q1")
        #expect(item.prompt == "I {1} came {2}.")
        #expect(gaps == [
            Gap(kind: .choice(options: [ChoiceMark(text: "with"), ChoiceMark(text: "about", credit: 100)], multiple: false)),
            Gap(kind: .text(answers: [TextAnswer(text: "few")], caseSensitive: false)),
        ])
        #expect(item.points == 2)
        // No option anywhere reads like the start of an embedded answer.
        for question in bank.items {
            if case let .choice(choices, _) = question.kind { #expect(!choices.contains { $0.contains(":MC:") }) }
        }
        #expect(bank.types == [.gaps, .gaps, .gaps, .gaps, .gaps, .gaps, .gaps, .choice])
    }

    @Test func gapsOnSeveralLinesKeepTheirLineBreakWeightAndFeedback() throws {
        let (item, gaps) = try gaps("Arrive")
        #expect(item.prompt == "We arrived {1} the station {2} six o'clock\nand {3} home.")
        #expect(gaps == [
            Gap(kind: .choice(options: [ChoiceMark(text: "at", credit: 100), ChoiceMark(text: "in"), ChoiceMark(text: "on")], multiple: false)),
            Gap(kind: .choice(options: [ChoiceMark(text: "at", credit: 100), ChoiceMark(text: "on")], multiple: false)),
            Gap(kind: .text(answers: [TextAnswer(text: "went", feedback: "Yes, went"),
                                      TextAnswer(text: "goed", credit: 50, feedback: "Not a word: went")], caseSensitive: false), points: 2),
        ])
        #expect(item.points == 4)
        #expect(bank.diagnostics.contains { $0.line == 7 && $0.message.hasPrefix("Moodle shuffles the options of gap 2;") })
    }

    @Test func clozeSyntaxEscapedForGIFTIsReadToo() throws {
        let (item, gaps) = try gaps("Escaped")
        #expect(item.prompt == "She is interested {1} art.")
        #expect(gaps == [Gap(kind: .choice(options: [ChoiceMark(text: "on"), ChoiceMark(text: "in", credit: 100)], multiple: false))])
    }

    @Test func clozeEscapesInsideAnswersAndGIFTEscapesOutsideThem() throws {
        let (item, gaps) = try gaps("Symbols")
        #expect(item.prompt == "The symbol # is called a {1} and is typed {2}; a closing brace is typed {3}.")
        #expect(gaps.map(\.kind) == [
            .text(answers: [TextAnswer(text: "hash"), TextAnswer(text: "pound sign")], caseSensitive: false),
            .text(answers: [TextAnswer(text: "#")], caseSensitive: false),
            .text(answers: [TextAnswer(text: "}")], caseSensitive: false),
        ])
    }

    @Test func aTitleOnItsOwnLineShiftsTheLinesOfTheProblems() throws {
        let (item, gaps) = try gaps("Name on its own line")
        #expect(item.prompt == "Yesterday I {1} a film.")
        #expect(gaps.map(\.kind) == [.text(answers: [TextAnswer(text: "saw", feedback: "Right")], caseSensitive: false)])
        #expect(bank.diagnostics.map(\.description).contains(
            "cloze.gift:17: warning: gap 1 ({1:SA:…}): left out the answer * (any other text, 0%); Carrel gives other answers nothing and no feedback"))
    }

    @Test func formatsOfGIFTApply() throws {
        let (html, _) = try gaps("HTML")
        #expect(html.prompt == "The cat sat {1} the mat.")
        let (plain, gaps) = try gaps("Plain")
        #expect(plain.prompt == "Five plus seven is {1}.")
        #expect(gaps.map(\.kind) == [.number(answers: [NumberAnswer(answer: .value(12, tolerance: 0))])])
    }

    @Test func aBrokenGapIsReportedAtItsLineAndTheQuestionNamedAndLeftOut() throws {
        #expect(bank.errors.map(\.description) == [
            "cloze.gift:23: error: gap 1 ({1:MC:…}): a pick needs at least two options; it has 1 (the question “Broken” is not imported)",
            "cloze.gift:24: error: gap 2 ({1:NM:…}): “two” is not a number; a NUMERICAL answer is written =3.14 or =3.14:0.01 (the question “Broken” is not imported)",
        ])
        #expect(bank.questions.allSatisfy { $0.name != "Broken" })
        #expect(try bank.question("Ordinary").kind == .choice(choices: ["run", "table", "blue"], answer: "run"))
    }

    @Test func theImportedBankWritesAndValidates() throws {
        let ok = ImportedBank(file: bank.file, sections: bank.sections, diagnostics: [])
        let assessment = try expectValidAssessment([ok])
        #expect(assessment.sections.map(\.title) == ["English / Gaps"])
        #expect(assessment.items.count == 8)
    }

    @Test func anUnknownTypeInGIFTIsAnErrorNotAChoice() {
        let bank = GIFTReader.read("::Odd:: Pick {1:MCQ:=a~b} now.", file: "o.gift")
        #expect(bank.items.isEmpty)
        #expect(bank.errors.map(\.description) == [
            "o.gift:1: error: gap 1 ({1:MCQ:…}): “MCQ” is not an embedded-answer type; use MULTICHOICE, MULTIRESPONSE, SHORTANSWER or NUMERICAL (or their short names) (the question “Odd” is not imported)",
        ])
    }

    @Test func ordinaryGIFTBracesAreNoEmbeddedAnswers() {
        for text in ["::T:: 2 + 2 = {#4}", "::M:: Match {=a -> 1 =b -> 2}", "::S:: Time {=12:30}", "::C:: Pick {=a ~b}"] {
            let bank = GIFTReader.read(text, file: "t.gift")
            #expect(bank.errors.isEmpty, "\(text)")
            #expect(!bank.types.contains(.gaps), "\(text)")
        }
    }
}
