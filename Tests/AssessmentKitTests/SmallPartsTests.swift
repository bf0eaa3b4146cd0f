import Testing
@testable import AssessmentKit

@Suite("Durations, identifiers, suggestions")
struct SmallPartsTests {
    @Test(arguments: [("90s", 90), ("10m", 600), ("1h30m", 5400), ("2h15m30s", 8130), ("8h", 28800)])
    func durationsParse(text: String, seconds: Int) {
        #expect(DurationText.parse(text) == seconds)
        #expect(DurationText.parse(DurationText.format(seconds)) == seconds)
    }

    @Test(arguments: ["", "10", "10 min", "m", "1m1h", "1h1h", "-5m", "1.5h", "9999999s"])
    func badDurationsAreRefused(text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test(arguments: [("canada", true), ("q-1", true), ("9", true), ("Canada", false), ("-q", false), ("q_1", false), ("", false)])
    func identifiers(id: String, valid: Bool) {
        #expect(Identifier.isValid(id) == valid)
    }

    @Test func suggestionsCoverTyposTranspositionsAndPrefixes() {
        #expect(DidYouMean.suggestion(for: "titel", among: ["title", "time_limit"]) == "title")
        #expect(DidYouMean.suggestion(for: "multi", among: ["choice", "multiple"]) == "multiple")
        #expect(DidYouMean.suggestion(for: "zebra", among: ["title", "id"]) == nil)
    }

    @Test func pointsPrintWithoutNeedlessDecimals() {
        #expect(PointsText.format(3) == "3")
        #expect(PointsText.format(2.5) == "2.5")
        #expect(PointsText.format(1.0 / 3.0) == "0.33")
        #expect(PointsText.format(22.0 / 3.0) == "7.33")
    }
}

@Suite("Counting words")
struct WordCountTests {
    @Test func wordsBetweenSpacesAndEachEastAsianCharacter() {
        #expect(AnswerText.wordCount("A grey dog\nwith a beard.") == 6)
        #expect(AnswerText.wordCount("  ") == 0)
        #expect(AnswerText.wordCount("a — b") == 2, "a dash alone is no word")
        #expect(AnswerText.wordCount("don't stop") == 2)
        // Japanese is written without spaces: each character counts, as word processors count it.
        #expect(AnswerText.wordCount("私の犬は元気です。") == 8, "the full stop is no word")
        #expect(AnswerText.wordCount("コーヒー") == 2, "the long-vowel mark belongs to the kana before it")
        #expect(AnswerText.wordCount("한국어 문장") == 5)
        #expect(AnswerText.wordCount("Carrel は試験です") == 6)
    }
}
