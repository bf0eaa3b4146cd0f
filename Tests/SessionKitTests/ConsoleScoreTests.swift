import AssessmentKit
import Foundation
import Testing
@testable import SessionKit
@testable import SharedStore

/// A finished seat's score as the console says it: scored by its seat, scored with the sealed
/// test where the passphrase opened it, or not scored yet; the proctor's marks follow, and no
/// mark ever scores a result that has no score.
@Suite("The console's scores")
struct ConsoleScoreTests {
    static func test() throws -> Assessment {
        let outcome = AssessmentReader.read(text: """
            carrel: 1
            id: scored-room
            title: Scored room
            sections:
              - items:
                  - {id: c, type: choice, prompt: Pick, choices: [Alpha, Beta], answer: Beta}
                  - {id: e, type: essay, prompt: Write, points: 4}
                  - {id: w, type: text, prompt: Word, accept: [bonjour]}
            """, file: "scored-room.yaml")
        return try #require(outcome.assessment, "\(outcome.diagnostics)")
    }

    static func result(_ a: Assessment) -> ResultDocument {
        let record = SessionRecord(id: "s1", assessmentID: a.id, assessmentTitle: a.title, fingerprint: "sealed:x",
                                   assessmentPath: "k.carrel", candidate: "Ada", status: .ended, seed: 1, extraTime: .none,
                                   startedAt: Date(timeIntervalSince1970: 0), pid: 1, host: "h", tty: nil)
        return ResultDocument.make(assessment: a, record: record, reason: .submitted, endedAt: Date(timeIntervalSince1970: 60),
                                   elapsed: 60, responses: ["c": .choice("Beta"), "e": .essay("words"), "w": .text("hello")],
                                   flags: [], events: [])
    }

    static func mark(_ item: String, _ points: Double, at: Double = 100, id: Int64 = 1) -> StoreMark {
        StoreMark(id: id, session: "s1", item: item, points: points, comment: nil, at: Date(timeIntervalSince1970: at))
    }

    static func scoring(_ full: Assessment) -> ResultScoring { { $0.scored(with: full) } }

    @Test func aKeylessResultIsNotScoredYetWithoutItsTestAndScoredWithIt() throws {
        let full = try Self.test()
        let seat = Self.result(full.withoutKey)
        #expect(seat.unscored == true)
        #expect(SeatScore.of(.verified(seat), marks: [], scoring: nil) == .notScored)
        // A test that is not this result's scores nothing.
        #expect(SeatScore.of(.verified(seat), marks: [], scoring: { _ in nil }) == .notScored)
        #expect(SeatScore.of(.verified(seat), marks: [], scoring: Self.scoring(full)) == .scored(points: 1, max: 6, pending: 4))
        // The store's copy is scored the same way (the console says it is unverified).
        #expect(SeatScore.of(.unchecked(seat), marks: [], scoring: Self.scoring(full)) == .scored(points: 1, max: 6, pending: 4))
        // A result its seat scored is said as it is.
        #expect(SeatScore.of(.verified(Self.result(full)), marks: [], scoring: nil) == .scored(points: 1, max: 6, pending: 4))
        #expect(SeatScore.of(.notVerified, marks: [], scoring: Self.scoring(full)) == .unverified)
        #expect(SeatScore.of(.missing, marks: [], scoring: Self.scoring(full)) == nil)
    }

    @Test func theProctorsMarksFollowAndNeverScoreAnUnscoredResult() throws {
        let full = try Self.test()
        let seat = Self.result(full.withoutKey)
        let marks = [Self.mark("e", 3), Self.mark("w", 1, at: 200, id: 2)]
        #expect(SeatScore.of(.verified(seat), marks: marks, scoring: nil) == .notScored, "a mark alone scores nothing")
        #expect(SeatScore.of(.verified(seat), marks: marks, scoring: Self.scoring(full)) == .scored(points: 5, max: 6, pending: 0))
        // Marks of another session, of an item the test lacks, or over the item's worth change nothing.
        var other = Self.mark("e", 4)
        other.session = "s2"
        let misfits = [other, Self.mark("nope", 1), Self.mark("e", 9)]
        #expect(SeatScore.of(.verified(seat), marks: misfits, scoring: Self.scoring(full)) == .scored(points: 1, max: 6, pending: 4))
        // The newest mark of an item counts; one the seat's result already carries is not given again.
        let marked = try #require(seat.scored(with: full)).marking("e", points: 2, comment: nil, at: Date(timeIntervalSince1970: 300)).result
        #expect(SeatScore.of(.verified(marked), marks: [Self.mark("e", 3)], scoring: nil) == .scored(points: 3, max: 6, pending: 0))
        #expect(SeatScore.of(.verified(marked), marks: [Self.mark("e", 4, at: 400)], scoring: nil) == .scored(points: 5, max: 6, pending: 0))
    }

    @Test func aMarkOfAnUnscoredResultIsRefusedAndSaysToGiveTheSealedTest() throws {
        let full = try Self.test()
        let seat = Self.result(full.withoutKey)
        #expect(throws: MarkRefusal.unscored(session: "s1")) {
            try seat.marking("e", points: 2, comment: nil, at: Date())
        }
        let words = MarkRefusal.unscored(session: "s1").description
        #expect(words.contains("--test FILE.carrel") && words.contains("--passphrase-stdin"), "\(words)")
        // Scored with its test first, the same mark is kept.
        let scored = try #require(seat.scored(with: full))
        let marked = try scored.marking("e", points: 2.5, comment: "ok", at: Date()).result
        #expect(marked.score == ScoreSummary(points: 3.5, max: 6, pending: 0))
    }

    @Test func theJSONSnapshotAlwaysHasTheScoreKeys() throws {
        var seat = SeatView(session: "s1", candidate: "Ada", seat: "A1", room: "lab", assessment: "a", assessmentTitle: "A",
                            status: "submitted", answered: 3, total: 3, timeLeftSeconds: nil, pasteAttempts: 0, focusLosses: 0,
                            exitAttempts: 0, interruptions: 0, lastSeen: "2026-11-24T10:00:00Z", lastHeardSeconds: 0, connected: false)
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        func object() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: try encoder.encode(seat)) as? [String: Any])
        }
        var json = try object()
        for key in ["scoring", "score_points", "score_max", "score_pending"] { #expect(json[key] is NSNull, "\(key)") }
        seat.score = .notScored
        json = try object()
        #expect(json["scoring"] as? String == "not_scored" && json["score_points"] is NSNull)
        seat.score = .scored(points: 7.5, max: 10, pending: 2)
        json = try object()
        #expect(json["scoring"] as? String == "scored")
        #expect(json["score_points"] as? Double == 7.5 && json["score_max"] as? Double == 10 && json["score_pending"] as? Double == 2)
    }
}
