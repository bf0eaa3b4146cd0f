import AssessmentKit
import Foundation
import Testing
@testable import SessionKit

/// The seat's own result keeps its time: the time allowed (the roster's extra time and the
/// proctor's additions in it), the extra time, each addition, and the pauses; older results
/// without them still read.
@Suite("The result's time and the proctor's commands")
struct ResultAccountTests {
    static func record(_ extra: ExtraTime) -> SessionRecord {
        SessionRecord(id: "s", assessmentID: "t", assessmentTitle: "T", fingerprint: "sha256:x", assessmentPath: "t.yaml",
                      candidate: "Ada", status: .ended, seed: 7, extraTime: extra, startedAt: Date(timeIntervalSince1970: 0),
                      pid: 1, host: "h", tty: nil)
    }

    static func test() throws -> Assessment {
        try #require(AssessmentReader.read(text: """
            carrel: 1
            id: t
            title: T
            time_limit: 10m
            sections:
              - items:
                  - id: q0
                    type: true_false
                    prompt: Yes?
                    answer: true
            """, file: "t.yaml").assessment)
    }

    @Test func theResultFileKeepsTimeAllowedExtraTimeAddedTimeAndPauses() throws {
        let events = [JournalEvent(at: Date(timeIntervalSince1970: 30), kind: "proctor_command", detail: "#4.1 pause"),
                      JournalEvent(at: Date(timeIntervalSince1970: 40), kind: "proctor_command", detail: "#5.2 time 600"),
                      JournalEvent(at: Date(timeIntervalSince1970: 50), kind: "proctor_command", detail: "#6.3 resume")]
        let result = ResultDocument.make(assessment: try Self.test(), record: Self.record(.multiplier(1.5)), reason: .submitted,
                                         endedAt: Date(timeIntervalSince1970: 60), elapsed: 60, responses: [:], flags: [],
                                         events: events)
        #expect(result.timeAllowedSeconds == 1500 && result.extraTime == "1.5x")
        #expect(result.timeAddedSeconds == 600 && result.pauses == 1)
        #expect(result.timeAdded == [TimeAddition(seconds: 600, command: 5, appliedAt: "1970-01-01T00:00:40Z")])
        let text = String(decoding: try result.json(), as: UTF8.self)
        for key in ["\"time_allowed_seconds\"", "\"extra_time\"", "\"time_added_seconds\"", "\"time_added\"", "\"pauses\"", "\"applied_at\""] {
            #expect(text.contains(key), "\(key): \(text)")
        }
        #expect(try ResultDocument.read(text) == result)
    }

    @Test func anOlderResultWithoutThemStillReadsAndHasNoAccount() throws {
        var result = ResultDocument.make(assessment: try Self.test(), record: Self.record(.add(seconds: 900)), reason: .timedOut,
                                         endedAt: Date(timeIntervalSince1970: 60), elapsed: 60, responses: [:], flags: [], events: [])
        #expect(result.extraTime == "+15m" && result.timeAllowedSeconds == 1500 && result.timeAddedSeconds == 0)
        result.timeAllowedSeconds = nil
        result.extraTime = nil
        result.timeAddedSeconds = nil
        result.timeAdded = nil
        result.pauses = nil
        let old = String(decoding: try result.json(), as: UTF8.self)
        #expect(!old.contains("extra_time"))
        let read = try ResultDocument.read(old)
        #expect(read == result && read.account == nil)
    }

    @Test func statusesInWords() {
        #expect(SessionStanding(status: "wrong_test", hasResult: false).outcome == "refused")
        #expect(SessionStanding(status: "candidate_twice", hasResult: false).outcome == "refused")
        #expect(SessionStanding(status: "seat_lost", hasResult: false).words == "ended by the proctor, seat lost; no result")
        #expect(SessionStanding(status: "interrupted", hasResult: false).words == "interrupted, never resumed; no result")
        #expect(SessionStanding(status: "some_new_word", hasResult: false) == SessionStanding(status: "some_new_word", hasResult: false))
        #expect(SessionStanding(status: "some_new_word", hasResult: true).words == "some new word")
        #expect(ExtraTime.unlimited.rosterText == "unlimited" && ExtraTime.none.rosterText == "")
    }
}
