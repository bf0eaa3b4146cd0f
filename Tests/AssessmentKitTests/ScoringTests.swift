import Testing
@testable import AssessmentKit

@Suite("Scoring")
struct ScoringTests {
    func item(_ kind: Item.Kind, points: Double = 1) -> Item {
        Item(id: "q", prompt: "?", points: points, kind: kind)
    }

    @Test func choiceIsRightOrWrong() {
        let q = item(.choice(choices: ["Toronto", "Ottawa"], answer: "Ottawa"), points: 2)
        #expect(Scoring.score(q, .choice("Ottawa")) == ItemScore(points: 2, max: 2, outcome: .correct))
        #expect(Scoring.score(q, .choice("Toronto")) == ItemScore(points: 0, max: 2, outcome: .incorrect))
        #expect(Scoring.score(q, nil).outcome == .unanswered)
    }

    @Test func multipleAllOrNothingNeedsTheExactSet() {
        let q = item(.multiple(choices: ["2", "3", "4"], answers: ["2", "3"], scoring: .allOrNothing))
        #expect(Scoring.score(q, .multiple(["3", "2"])).outcome == .correct)
        #expect(Scoring.score(q, .multiple(["2"])).outcome == .incorrect)
        #expect(Scoring.score(q, .multiple(["2", "3", "4"])).outcome == .incorrect)
        #expect(Scoring.score(q, .multiple([])).outcome == .unanswered)
    }

    @Test(arguments: [
        (["2", "3"], 3.0, Outcome.correct),
        (["2"], 1.5, .partial),
        (["2", "4"], 0.0, .incorrect),
        (["4"], 0.0, .incorrect),
        (["2", "3", "4"], 1.5, .partial),
    ])
    func multiplePartialAddsAndSubtractsPerPickWithFloorZero(picks: [String], points: Double, outcome: Outcome) {
        let q = item(.multiple(choices: ["2", "3", "4"], answers: ["2", "3"], scoring: .partial), points: 3)
        let score = Scoring.score(q, .multiple(picks))
        #expect(score.points == points)
        #expect(score.outcome == outcome)
    }

    @Test func trueFalse() {
        let q = item(.trueFalse(answer: false))
        #expect(Scoring.score(q, .trueFalse(false)).outcome == .correct)
        #expect(Scoring.score(q, .trueFalse(true)).outcome == .incorrect)
    }

    @Test(arguments: [
        ("schnauzer", true), ("  Schnauzer ", true), ("SCHNAUZER", true), ("schnauser", false), ("", false),
    ])
    func textIgnoresCaseAndSurroundingSpaceByDefault(typed: String, right: Bool) {
        let q = item(.text(accept: ["schnauzer"], caseSensitive: false))
        let outcome = Scoring.score(q, .text(typed)).outcome
        #expect(outcome == (typed.isEmpty ? .unanswered : (right ? .correct : .incorrect)))
    }

    @Test func textComparesAfterNFCAndFoldsInnerWhitespace() {
        let q = item(.text(accept: ["na\u{EF}ve  idea"], caseSensitive: true))
        // "i" + combining diaeresis is the same text as "ï" once in NFC.
        #expect(Scoring.score(q, .text("nai\u{308}ve idea")).outcome == .correct)
        #expect(Scoring.score(q, .text("Naïve idea")).outcome == .incorrect)
    }

    @Test(arguments: [
        ("3.14", true), ("3,14", true), ("3.145", true), ("3.1351", true), ("3.13", false),
        ("314e-2", true), ("pi", false), ("3.14.1", false),
    ])
    func numericWithinTolerance(typed: String, right: Bool) {
        let q = item(.numeric(.value(3.14, tolerance: 0.005)))
        #expect(Scoring.score(q, .numeric(typed)).outcome == (right ? .correct : .incorrect))
    }

    @Test func numericRangeIsInclusive() {
        let q = item(.numeric(.range(1, 2)))
        #expect(Scoring.score(q, .numeric("1")).outcome == .correct)
        #expect(Scoring.score(q, .numeric("2,0")).outcome == .correct)
        #expect(Scoring.score(q, .numeric("2.01")).outcome == .incorrect)
        #expect(Scoring.score(q, .numeric("-2e3")).outcome == .incorrect)
    }

    @Test(arguments: [
        ("-2e3", -2000.0), ("+0.5", 0.5), ("  42 ", 42.0), ("1E2", 100.0),
    ])
    func numericTextReadsTheFormsStudentsType(text: String, value: Double) {
        #expect(NumericText.parse(text) == value)
    }

    @Test(arguments: ["", "e3", "1e", "0x10", "inf", "nan", "1,000.5", "1 000", "--1", "1-"])
    func numericTextRefusesEverythingElse(text: String) {
        #expect(NumericText.parse(text) == nil)
    }

    @Test func essayIsPendingUntilAPersonMarksIt() {
        let q = item(.essay(minWords: 5, maxWords: nil), points: 5)
        #expect(Scoring.score(q, .essay("A dog with a beard.")) == ItemScore(points: 0, max: 5, outcome: .pending))
        #expect(Scoring.score(q, .essay("   ")).outcome == .unanswered)
    }

    @Test func orderEarnsCreditPerNeighbouringPairKept() {
        let q = item(.order(items: ["mouse", "cat", "horse", "elephant"]), points: 3)
        #expect(Scoring.score(q, .order(["mouse", "cat", "horse", "elephant"])).points == 3)
        // mouse→cat kept, cat→horse broken, horse→elephant kept: 2 of 3 pairs.
        #expect(Scoring.score(q, .order(["horse", "elephant", "mouse", "cat"])) == ItemScore(points: 2, max: 3, outcome: .partial))
        #expect(Scoring.score(q, .order(["elephant", "horse", "cat", "mouse"])).outcome == .incorrect)
        #expect(Scoring.score(q, .order(["mouse", "cat"])).outcome == .incorrect)
    }

    @Test func matchEarnsCreditPerPair() {
        let pairs = [MatchPair(left: "Canada", right: "Ottawa"), MatchPair(left: "Italy", right: "Rome"),
                     MatchPair(left: "Japan", right: "Tokyo")]
        let q = item(.match(pairs: pairs, distractors: ["Sydney"]), points: 3)
        let all = ["Canada": "Ottawa", "Italy": "Rome", "Japan": "Tokyo"]
        #expect(Scoring.score(q, .match(all)).outcome == .correct)
        let two = ["Canada": "Ottawa", "Italy": "Sydney", "Japan": "Tokyo"]
        #expect(Scoring.score(q, .match(two)) == ItemScore(points: 2, max: 3, outcome: .partial))
        #expect(Scoring.score(q, .match([:])).outcome == .unanswered)
    }

    @Test func aResponseOfTheWrongTypeEarnsNothing() {
        let q = item(.choice(choices: ["a", "b"], answer: "a"))
        #expect(Scoring.score(q, .text("a")).outcome == .incorrect)
    }

    @Test func summaryAddsPointsAndCountsPendingPoints() {
        let a = Assessment(id: "t", title: "T", sections: [Section(items: [
            Item(id: "a", prompt: "?", kind: .trueFalse(answer: true)),
            Item(id: "b", prompt: "?", points: 4, kind: .essay(minWords: nil, maxWords: nil)),
            Item(id: "c", prompt: "?", points: 2, kind: .multiple(choices: ["x", "y"], answers: ["x", "y"], scoring: .partial)),
        ])])
        let summary = Scoring.summary(a, responses: ["a": .trueFalse(true), "b": .essay("words"), "c": .multiple(["x"])])
        #expect(summary == ScoreSummary(points: 2, max: 7, pending: 4))
    }
}
