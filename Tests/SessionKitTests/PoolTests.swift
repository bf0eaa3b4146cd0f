import AssessmentKit
import Foundation
import Testing
@testable import SessionKit

/// Pools: a section that says `draw: N` gives each session N of its items, drawn from the
/// session's seed, and results tell a question never given from one left unanswered.
@Suite("Pools")
struct PoolTests {
    static func assessment(draw: Int = 3, items: Int = 10, points: (Int) -> Double = { _ in 1 }) throws -> Assessment {
        var yaml = "carrel: 1\nid: pools\ntitle: Pools\nsections:\n  - title: Pool\n    draw: \(draw)\n    items:\n"
        for i in 1...items {
            yaml += "      - {id: p\(i), type: true_false, prompt: \"P\(i)?\", answer: true, points: \(points(i))}\n"
        }
        yaml += "  - title: Fixed\n    items:\n      - {id: f1, type: true_false, prompt: F?, answer: false}\n"
        let outcome = AssessmentReader.read(text: yaml, file: "pools.yaml")
        return try #require(outcome.assessment, "\(outcome.diagnostics.map(\.description))")
    }

    @Test func eachSessionGetsItsDrawInFileOrderAndTheSameDrawFromTheSameSeed() throws {
        let a = try Self.assessment()
        var draws = Set<[String]>()
        for seed in UInt64(1)...50 {
            let plan = SessionPlan.make(assessment: a, sessionID: "s", seed: seed, extraTime: .none)
            #expect(plan.itemOrder.count == 4)
            #expect(plan.itemOrder.last == "f1", "a section without a pool gives every item")
            let pool = Array(plan.itemOrder.dropLast())
            #expect(pool == pool.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }, "in file order without shuffle")
            let again = SessionPlan.make(assessment: a, sessionID: "other", seed: seed, extraTime: .multiplier(1.5))
            #expect(again.itemOrder == plan.itemOrder, "the draw depends on the seed alone")
            #expect(SessionPlan.drawn(a, seed: seed) == Set(plan.itemOrder))
            draws.insert(pool)
        }
        #expect(draws.count > 30, "different sessions get different draws (\(draws.count) of 50)")
    }

    @Test func aTestWithoutPoolsKeepsItsShuffleAsBefore() throws {
        let outcome = AssessmentReader.read(text: """
            carrel: 1
            id: t
            title: T
            shuffle: {items: true, choices: true}
            sections:
              - items:
                  - {id: a, type: choice, prompt: A, choices: [w, x, y, z], answer: w}
                  - {id: b, type: true_false, prompt: B, answer: true}
                  - {id: c, type: true_false, prompt: C, answer: true}
                  - {id: d, type: true_false, prompt: D, answer: true}
            """, file: "t.yaml")
        let a = try #require(outcome.assessment)
        let plan = SessionPlan.make(assessment: a, sessionID: "s", seed: 42, extraTime: .none)
        // Pinned: sessions begun before pools existed resume with the same order.
        #expect(plan.itemOrder == ["c", "a", "d", "b"])
        #expect(plan.displayOrders["a"] == ["y", "z", "x", "w"])
        #expect(SessionPlan.drawn(a, seed: 42) == nil)
    }

    /// 1 000 sessions of a pool of 10 drawing 3: each item is drawn about 300 times.
    @Test func everyItemIsDrawnAboutEquallyOften() throws {
        let a = try Self.assessment()
        var counts: [String: Int] = [:]
        for seed in UInt64(1)...1000 {
            for id in SessionPlan.make(assessment: a, sessionID: "s", seed: seed &* 0x9E37_79B9, extraTime: .none).itemOrder {
                counts[id, default: 0] += 1
            }
        }
        #expect(counts["f1"] == 1000)
        let pool = (1...10).map { counts["p\($0)", default: 0] }
        #expect(pool.reduce(0, +) == 3000)
        // Binomial(1000, 0.3): standard deviation about 14.5; 5 of them either side.
        for n in pool { #expect(abs(n - 300) < 73, "\(pool)") }
    }

    @Test func aResultMarksItemsNeverGivenAsNotDrawnAndCountsOnlyTheDrawn() throws {
        let a = try Self.assessment(draw: 2, items: 4, points: { Double($0) })
        let plan = SessionPlan.make(assessment: a, sessionID: "s", seed: 7, extraTime: .none)
        let record = SessionRecord(id: "s", assessmentID: a.id, assessmentTitle: a.title, fingerprint: Fingerprint.of(a),
                                   assessmentPath: "pools.yaml", candidate: nil, status: .ended, seed: 7, extraTime: .none,
                                   startedAt: Date(timeIntervalSince1970: 0), pid: 1, host: "h", tty: nil)
        let given = plan.itemOrder
        let result = ResultDocument.make(assessment: a, record: record, reason: .submitted, endedAt: Date(timeIntervalSince1970: 60),
                                         elapsed: 60, responses: [given[0]: .trueFalse(true)], flags: [], events: [])
        #expect(result.drawn == a.items.map(\.id).filter(given.contains))
        #expect(result.items.count == 5, "one entry per item of the test")
        let left = result.items.filter { !given.contains($0.id) }
        #expect(left.count == 2)
        #expect(left.allSatisfy { $0.outcome == .notDrawn && $0.max == 0 && CSV.cell($0) == "(not drawn)" })
        let expectedMax = a.items.filter { given.contains($0.id) }.reduce(0) { $0 + $1.points }
        #expect(result.score.max == expectedMax)
        #expect(result.given == 3)
        #expect(result.answered == 1)
        #expect(throws: MarkRefusal.notDrawn(item: left[0].id)) {
            try result.marking(left[0].id, points: 0, comment: nil, at: Date())
        }
    }

    @Test func aDrawLargerThanItsPoolIsRefusedAndUnequalPointsWarn() {
        let read = { (draw: String, second: String) in
            AssessmentReader.read(text: """
                carrel: 1
                id: t
                title: T
                sections:
                  - draw: \(draw)
                    items:
                      - {id: a, type: true_false, prompt: A, answer: true}
                      - {id: b, type: true_false, prompt: B, answer: true\(second)}
                """, file: "t.yaml").diagnostics.map(\.description)
        }
        #expect(read("3", "") == ["t.yaml:5:11: error: section 1 draws 3 items but has only 2; draw at most 2"])
        #expect(read("0", "").first?.hasPrefix("t.yaml:5:11: error: section 1 draw") == true)
        #expect(read("1", ", points: 2") == [
            "t.yaml:5:11: warning: the items of this pool are not worth the same points (a: 1, b: 2), so students can be given tests of different totals",
        ])
        #expect(read("2", "").isEmpty)
    }
}
