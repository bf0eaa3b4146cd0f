import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

/// A multiple-answer question in which no wrong choice costs anything is full marks for a
/// student who ticks every box: the teacher is told (found in a real GIFT bank of 42 such questions).
@Suite("Scoring a student could game")
struct ScoringWarningTests {
    @Test func noWrongChoiceTakingCreditAwayIsSaid() throws {
        let bank = GIFTReader.read("""
            ::Q1:: Which option is the focus? {
            ~%0%A) Processes
            ~%0%B) Compliance
            ~%100%C) Value
            }
            """, file: "p.gift")
        #expect(bank.items.first?.type == .multiple)
        #expect(bank.diagnostics.map(\.description) == [
            "p.gift:1: warning: ticking every choice earns full marks, since no wrong choice takes credit away; give the wrong choices negative credits, or make it a question with one answer",
        ])
    }

    @Test func wrongChoicesThatCostCreditOrAllRightChoicesAreNotWarnedAbout() throws {
        let costly = GIFTReader.read("::Q2:: Pick the primes {~%50%2 ~%50%3 ~%-100%4}\n", file: "c.gift")
        #expect(costly.items.first?.type == .multiple && costly.diagnostics.isEmpty, "\(costly.diagnostics)")
        let allRight = GIFTReader.read("::Q3:: Pick the primes {~%50%2 ~%50%3}\n", file: "r.gift")
        #expect(allRight.items.first?.type == .multiple && allRight.diagnostics.isEmpty, "\(allRight.diagnostics)")
    }
}

@Suite("GIFT braces split by a blank line")
struct GIFTSplitBracesTests {
    @Test func aBlankLineInsideTheBracesIsNamedAsTheCause() {
        let bank = GIFTReader.read("""
            ::Q6:: What does the system include? {
                ~Only projects
                =Portfolios, programs and projects

            }

            ::Q7:: Still read? {T}
            """, file: "b.gift")
        #expect(bank.diagnostics.map(\.description) == [
            "b.gift:1: error: a blank line inside `{…}` ends the question before its `}`; remove the blank lines between the braces",
        ])
        #expect(bank.questions.map(\.name) == ["Q7"], "the question after it is read as before")
        let open = GIFTReader.read("::A:: x {\n=a ~b\n", file: "o.gift")
        #expect(open.diagnostics.map(\.description) == ["o.gift:1: error: a `{` has no closing `}`; write \\{ for a brace in the text"])
    }
}
