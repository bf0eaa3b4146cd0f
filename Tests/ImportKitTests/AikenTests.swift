import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

@Suite("Aiken, as Moodle reads it")
struct AikenTests {
    @Test func aWellFormedFileGivesOneChoiceItemPerQuestion() throws {
        let bank = AikenReader.read(try Fixtures.text("aiken/capitals.txt"), file: "capitals.txt")
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
        #expect(bank.types == [.choice, .choice, .choice, .choice])
        #expect(bank.items[0].prompt == "What is the capital of Canada?")
        #expect(bank.items[0].kind == .choice(choices: ["Toronto", "Ottawa", "Montreal", "Vancouver"], answer: "Ottawa"))
        // `A.` labels, and labels without a space after them, as Moodle accepts them.
        #expect(bank.items[1].kind == .choice(choices: ["Milan", "Rome", "Naples"], answer: "Rome"))
        #expect(bank.items[3].kind == .choice(choices: ["Atlantic", "Pacific", "Indian"], answer: "Pacific"))
        #expect(bank.questions.map(\.line) == [1, 8, 14, 18])
        _ = try expectValidAssessment([bank])
    }

    @Test func malformedQuestionsAreReportedWithTheirLineAndTheRestImported() throws {
        let bank = AikenReader.read(try Fixtures.text("aiken/malformed.txt"), file: "m.txt")
        #expect(bank.items.map(\.prompt) == ["First question is fine?", "Last question is fine too?"])
        #expect(bank.diagnostics.map(\.description) == [
            "m.txt:1: error: a choice line with no question before it",
            "m.txt:7: error: the question has no `ANSWER:` line before the next question (line 11); question text is one line",
            "m.txt:11: error: the question has fewer than two choices",
            "m.txt:18: error: `ANSWER:` names “E”, not one of the choices A–B",
            "m.txt:20: error: an `ANSWER:` line with no question before it",
        ])
    }

    @Test func windowsLineEnds() throws {
        let bank = AikenReader.read(try Fixtures.text("aiken/crlf.txt"), file: "crlf.txt")
        #expect(bank.items.first?.kind == .choice(choices: ["yes", "no"], answer: "yes"))
    }

    @Test func anUnfinishedLastQuestionIsReported() {
        let bank = AikenReader.read("Q?\nA) a\nB) b\n", file: "u.txt")
        #expect(bank.items.isEmpty)
        #expect(bank.diagnostics.map(\.description) == ["u.txt:1: error: the question has no `ANSWER:` line"])
    }

    @Test func aLowerCaseAnswerLetterGetsAHint() {
        let bank = AikenReader.read("Q?\nA) a\nB) b\nANSWER: b\n", file: "l.txt")
        #expect(bank.diagnostics.map(\.description) == ["l.txt:4: error: `ANSWER:` names “b”; write the letter as a capital: ANSWER: B"])
    }
}
