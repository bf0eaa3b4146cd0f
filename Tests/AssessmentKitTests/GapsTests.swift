import Foundation
import Testing
@testable import AssessmentKit

/// Gap-fill items: read, refused with the place to fix, scored per gap, written back.
@Suite("Gap-fill items")
struct GapsTests: ItemsReading {
    static let ice = """
          - id: ice
            type: gaps
            prompt: It was {1} cold that we walked {2} the lake; the ice was {3} cm thick. Pick {4}.
            points: 4
            gaps:
              - accept:
                  - so
                  - {text: very, credit: 50%}
              - choices: [across, along, under]
                answer: across
              - answer: 12
                tolerance: 2
              - choices: [a, b, c]
                answer: [a, c]

    """

    @Test func eachGapIsReadAsTypedTextAPickOrANumber() throws {
        let item = try only(Self.ice)
        guard case let .gaps(gaps) = item.kind else { Issue.record("not a gaps item"); return }
        #expect(gaps.count == 4)
        #expect(gaps[0].kind == .text(answers: [TextAnswer(text: "so"), TextAnswer(text: "very", credit: 50)], caseSensitive: false))
        #expect(gaps[1].kind == .choice(options: [ChoiceMark(text: "across", credit: 100), ChoiceMark(text: "along"),
                                                  ChoiceMark(text: "under")], multiple: false))
        #expect(gaps[2].kind == .number(answers: [NumberAnswer(answer: .value(12, tolerance: 2))]))
        #expect(gaps[3].kind == .choice(options: [ChoiceMark(text: "a", credit: 50), ChoiceMark(text: "b", credit: -50),
                                                  ChoiceMark(text: "c", credit: 50)], multiple: true))
    }

    @Test func eachGapEarnsItsShareAndPartCreditAddsUp() throws {
        let item = try only(Self.ice)
        func score(_ entries: [[String]]) -> ItemScore { Scoring.score(item, .gaps(entries)) }
        #expect(score([["so"], ["across"], ["13.5"], ["a", "c"]]) == ItemScore(points: 4, max: 4, outcome: .correct))
        #expect(score([["very"], ["along"], ["15"], ["a", "b"]]) == ItemScore(points: 0.5, max: 4, outcome: .partial))
        #expect(score([["SO"], [], [], []]).points == 1)
        #expect(score([[], [], [], []]).outcome == .unanswered)
        let gaps = Scoring.gapScores(item, .gaps([["so"], [], ["x"], ["c"]]))
        #expect(gaps.map(\.outcome) == [.correct, .unanswered, .incorrect, .partial])
        #expect(gaps.map(\.points) == [1, 0, 0, 0.5])
    }

    @Test func gapsWithTheirOwnPointsMakeTheItemWorthTheirSum() throws {
        let item = try only("""
              - id: g
                type: gaps
                prompt: "{1} and {2}"
                gaps:
                  - accept: one
                    points: 3
                  - accept: two

        """)
        #expect(item.points == 4)
        #expect(Scoring.gapScores(item, .gaps([["one"], []])).map(\.max) == [3, 1])
    }

    @Test func writingAGapsItemReadsBackTheSameItem() throws {
        let outcome = read(Self.ice)
        let assessment = try #require(outcome.assessment)
        let text = AssessmentWriter.yaml(assessment)
        let again = try #require(AssessmentReader.read(text: text, file: "again.yaml").assessment)
        #expect(again == assessment)
        #expect(Fingerprint.of(again) == Fingerprint.of(assessment))
    }

    @Test func markersThatDoNotMatchTheGapsAreRefusedAtThePrompt() {
        let item = { (prompt: String) in """
              - id: g
                type: gaps
                prompt: "\(prompt)"
                gaps:
                  - accept: one
                  - accept: two

        """ }
        expectProblem(item("no gap here"), 8, 17, "marks no gap; write `{1}`")
        expectProblem(item("{1} and {1}"), 8, 17, "marks gap `{1}` more than once")
        expectProblem(item("{1} and {3}"), 8, 17, "marks gap `{3}` but `gaps` lists 2 gaps")
        expectProblem(item("{1} only"), 8, 17, "does not mark `{2}`")
        expectProblem(item("{2} then {1}"), 8, 17, "in the order {2} {1}; number them 1, 2")
    }

    @Test func aGapMoodleWouldRefuseIsRefusedWithItsLine() {
        let base = "      - id: g\n        type: gaps\n        prompt: \"{1}\"\n        gaps:\n"
        // Moodle takes a pick with one choice (a drag-and-drop group of one): a warning.
        expectProblem(base + "          - choices: [only]\n            answer: only\n", 10, 22, "has one choice, so it gives its answer away",
                      severity: .warning)
        expectProblem(base + "          - choices: []\n            answer: only\n", 10, 22, "choices")
        expectProblem(base + "          - choices: [a, b]\n", 10, 13, "gap 1 of item \"g\" is missing the required key `answer`")
        expectProblem(base + "          - answer: three\n", 10, 21, "answer must be a number, not \"three\"")
        expectProblem(base + "          - points: 2\n", 10, 13, "needs `accept` (typed text), `choices` (a pick) or `answer` (a number)")
        expectProblem(base + "          - accept: x\n            tolerance: 1\n", 11, 13, "`tolerance` does not apply to a gap for a typed text")
        expectProblem(base, 9, 14, "`gaps` in item \"g\" is empty")
    }
}
