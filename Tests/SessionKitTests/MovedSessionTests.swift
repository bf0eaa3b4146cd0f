import AssessmentKit
import Foundation
import GRDB
import Testing
@testable import SessionKit

/// A session rebuilt at a spare seat from the records its seats wrote (`MovedSession`), in
/// memory: only records that verify with one of its keys count, holes are named, and the
/// spare's journal continues the same session.
@Suite("A session moved to a spare seat")
struct MovedSessionTests {
    let old = [UInt8](repeating: 1, count: 32)
    let new = [UInt8](repeating: 2, count: 32)
    let session = "moved-0001"
    let at = Date(timeIntervalSince1970: 1_800_000_000)

    func record(_ seq: Int64, link: Int64?, _ kind: String, _ body: String, key: [UInt8]? = nil) -> StoreRecord {
        let mac = SessionMAC.record(key: key ?? old, session: session, seq: seq, link: link, kind: kind, body: body)
        return StoreRecord(seq: seq, kind: kind, at: at.addingTimeInterval(Double(seq)), body: body, mac: mac)
    }

    var start: String {
        #"{"room":"r","seat":"A5","candidate":"Ada","assessment_id":"geo","assessment_title":"Geo","fingerprint":"sha256:f","total":8,"time_allowed_seconds":900,"candidate_number":"1005","continue":{"seed":"18446744073709551000","extra_time":{"multiplier":{"_0":1.5}},"options":{"language":"fr","shared":{"room":"r","seat":"A5","total":8,"timeAllowed":900,"candidateNumber":"1005"}}}}"#
    }

    func answer(_ item: String, _ value: String) -> String {
        let json = String(decoding: (try? JSONEncoder().encode(Response.choice(value))) ?? Data(), as: UTF8.self)
        return "{\"elapsed\":\(Double(item.count) * 10),\"item\":\"\(item)\",\"response\":\(json),\"answered\":true}"
    }

    var label: SharedLabel { SharedLabel(room: "r", seat: "S1") }

    func records() -> [StoreRecord] {
        [
            record(1, link: 1, "session", start),
            record(2, link: 2, "answer", answer("canada", "Toronto")),
            // Place 3 never reached the store.
            record(4, link: 4, "answer", answer("canada", "Ottawa")),
            record(5, link: 5, "flag", #"{"item":"sizes","on":true}"#),
            record(6, link: nil, "progress", #"{"position":3,"elapsed":61.5}"#),
            record(7, link: 6, "event", ##"{"kind":"proctor_command","detail":"#4.1795857840525094 time 600"}"##),
            // Not written by the session's seats: a forgery under its id.
            StoreRecord(seq: 8, kind: "answer", at: at, body: answer("australia", "Sydney"), mac: "2.7.AAAA"),
            // Written after an earlier move, with that seat's key.
            record(9, link: 7, "answer", answer("australia", "Canberra"), key: new),
        ]
    }

    @Test func everyVerifiedRecordIsKeptAndNothingElse() throws {
        let moved = try MovedSession.rebuild(session: session, records: records(), keys: [new, old], label: label,
                                             fingerprint: "sha256:f", path: "geo.yaml", host: "spare", pid: 7)
        #expect(moved.record.seed == 18_446_744_073_709_551_000)
        #expect(moved.record.extraTime == .multiplier(1.5))
        #expect(moved.record.options.language == "fr")
        #expect(moved.record.options.shared?.seat == "S1" && moved.record.options.shared?.candidateNumber == "1005")
        #expect(moved.record.position == 3 && moved.record.elapsed == 90, "the time the last verified record carried")
        #expect(moved.answers.map(\.item) == ["canada", "canada", "australia"])
        #expect(moved.answers.last?.response == .choice("Canberra"), "the forged Sydney is not counted")
        #expect(moved.flags == ["sizes"])
        #expect(moved.events.map(\.detail) == ["#4.1795857840525094 time 600"])
        #expect(moved.holes == "3" && moved.lastSeq == 9 && moved.outside.count == 1)
        #expect(RoomControl.replay(moved.events, watched: true).addedSeconds == 600)
    }

    @Test func aSessionItCannotContinueIsRefusedWithWhy() {
        #expect(throws: MovedSession.Failure.noStart) {
            try MovedSession.rebuild(session: session, records: records(), keys: [[UInt8](repeating: 9, count: 32)], label: label,
                                     fingerprint: "sha256:f", path: "", host: "", pid: 0)
        }
        #expect(throws: MovedSession.Failure.otherTest) {
            try MovedSession.rebuild(session: session, records: records(), keys: [old], label: label,
                                     fingerprint: "sha256:other", path: "", host: "", pid: 0)
        }
        let older = record(1, link: 1, "session", #"{"room":"r","seat":"A5","fingerprint":"sha256:f"}"#)
        #expect(throws: MovedSession.Failure.olderSeat) {
            try MovedSession.rebuild(session: session, records: [older], keys: [old], label: label,
                                     fingerprint: "sha256:f", path: "", host: "", pid: 0)
        }
    }

    @Test func theSparesJournalContinuesTheSameSessionAfterTheStoresNumbers() throws {
        var label = label
        label.storeToken = nil
        let moved = try MovedSession.rebuild(session: session, records: records(), keys: [new, old], label: label,
                                             fingerprint: "sha256:f", path: "geo.yaml", host: "spare", pid: 7)
        let journal = try Journal(writer: DatabaseQueue())
        try journal.adopt(moved, source: StoredAssessment(bytes: Data("x".utf8), path: "geo.yaml", format: .yaml),
                          seatKey: "spare-key", event: "from A5 to S1 by the proctor's command #9; records the store never received: 3", at: at)
        let kept = try #require(try journal.session(session))
        #expect(kept.status == .interrupted && kept.position == 3)
        #expect(try journal.answers(session: session) == ["canada": .choice("Ottawa"), "australia": .choice("Canberra")])
        #expect(try journal.flags(session: session) == ["sizes"])
        let events = try journal.events(session: session)
        #expect(events.contains { $0.kind == "moved" && $0.detail.hasSuffix("never received: 3") })
        #expect(events.contains { $0.kind == "seat_key" && $0.detail == "spare-key" })
        // Its next records go on after the store's numbers and the chain's last place.
        let waiting = try journal.outbox(after: 0, limit: 10)
        #expect(waiting.count == 2 && waiting.allSatisfy { $0.seq > 9 && ($0.link ?? 0) > 7 }, "\(waiting)")
    }
}
