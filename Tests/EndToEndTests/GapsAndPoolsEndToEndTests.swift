import AssessmentKit
import Foundation
import SessionTestSupport
import SessionKit
import Testing

/// The real binary in tmux: a test whose first section is a pool and whose last question has
/// gaps. The draw and the gaps survive a kill and a resume; the result names the item never
/// given and scores each gap.
@Suite("Gap-fill questions and pools end to end (tmux)", .serialized)
struct GapsAndPoolsEndToEndTests {
    @Test(.timeLimit(.minutes(3)))
    func aPooledTestWithGapsResumesWithTheSameDrawAndScoresEachGap() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("workshop.yaml", replacing: [("  - title: Choosing\n", "  - title: Choosing\n    draw: 2\n")])
        #expect(t.begin("w", file))
        #expect(t.waitFor("w", "Question 1 of 8") != nil, "two of the three choosing questions, and the other six")
        for _ in 0..<7 { t.keys("w", "Tab") }
        #expect(t.waitFor("w", "Question 8 of 8") != nil)
        #expect(t.waitFor("w", "Gap 1 of 3") != nil || t.screen("w").contains("[1: ______]"))
        t.type("w", "so")
        t.keys("w", "Enter", "Right", "Down")
        t.type("w", "12")
        let filled = try #require(t.waitFor("w", "[3: 12]"))
        #expect(filled.contains("[1: so]"))
        #expect(filled.contains("[2: across ▾]"))
        #expect(t.waitFor("w", "✓ saved") != nil)
        sleep(1)
        #expect(t.killAndResume("w", in: "r"))
        let resumed = try #require(t.waitFor("r", "Question 8 of 8"))
        #expect(resumed.contains("[1: so]") && resumed.contains("[2: across ▾]") && resumed.contains("[3: 12]"), "\(resumed)")
        #expect(t.submit("r"))
        let result = try #require(try t.result())
        let drawn = try #require(result.drawn)
        #expect(drawn.count == 8)
        let left = result.items.filter { $0.outcome == .notDrawn }
        #expect(left.count == 1)
        #expect(["canada", "primes", "ottawa"].contains(left.first?.id ?? ""))
        #expect(result.score.max == result.items.reduce(0) { $0 + $1.max })
        let ice = try #require(result.items.first { $0.id == "ice" })
        #expect(ice.outcome == .correct)
        #expect(ice.gaps?.map(\.outcome) == [.correct, .correct, .correct])
        #expect(ice.gaps?.map(\.response) == [.string("so"), .string("across"), .string("12")])
    }
}
