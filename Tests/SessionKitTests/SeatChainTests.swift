import AssessmentKit
import Foundation
import Testing
@testable import SessionKit

/// The console's view of a seat from its verified records only.
@Suite("A seat's verified records")
struct SeatChainTests {
    let key = [UInt8](repeating: 7, count: 32)
    let session = "s-0001"

    /// One record as its seat signs it (its place in the chain: `link`).
    func signed(_ chain: inout SeatChain, seq: Int64, link: Int64?, kind: String, body: String) {
        let mac = SessionMAC.record(key: key, session: session, seq: seq, link: link, kind: kind, body: body)
        chain.add(session: session, key: key, seq: seq, kind: kind, body: body, mac: mac)
    }

    func begun() -> SeatChain {
        var chain = SeatChain()
        signed(&chain, seq: 1, link: 1, kind: "session",
               body: #"{"room":"r","seat":"A1","candidate":"Ada","total":3,"time_allowed_seconds":600,"candidate_number":"1001"}"#)
        signed(&chain, seq: 2, link: 2, kind: "answer", body: #"{"elapsed":30,"item":"q1","response":{"text":"x"},"answered":true}"#)
        return chain
    }

    func view(status: String = "active", connected: Bool = true) -> SeatView {
        var seat = SeatView(session: session, candidate: "Row says", seat: "A1", room: "r", assessment: "t", assessmentTitle: "T",
                            status: status, answered: 3, total: 3, timeLeftSeconds: 1, pasteAttempts: 9, focusLosses: 9,
                            exitAttempts: 9, interruptions: 9, lastSeen: "", lastHeardSeconds: 0, connected: connected)
        seat.hand = "raised"
        seat.paused = true
        seat.commandsRefused = 2
        seat.lastRefusal = "#7 refused: proctor key revoked, call IT"
        seat.warnings = ["refused 2 commands"]
        seat.timing = SeatView.Timing(allowed: 600, elapsed: 100)
        return seat
    }

    @Test func theSeatsOwnRecordsAreShownAndTheRowIsNot() {
        var chain = begun()
        signed(&chain, seq: 3, link: 3, kind: "event", body: #"{"kind":"paste_blocked","detail":""}"#)
        signed(&chain, seq: 4, link: 4, kind: "event", body: ##"{"kind":"proctor_command","detail":"#12.1 time 120"}"##)
        // The same command's event read again adds nothing.
        signed(&chain, seq: 5, link: 5, kind: "event", body: ##"{"kind":"proctor_command","detail":"#12.1 time 120"}"##)
        signed(&chain, seq: 6, link: 6, kind: "event", body: ##"{"kind":"proctor_command","detail":"#13.2 pause"}"##)
        var seat = view()
        seat.apply(chain)
        #expect(seat.status == "active")
        #expect(seat.answered == 1)
        #expect(seat.candidate == "Ada")
        #expect(seat.hand == "down")
        #expect(seat.paused)
        #expect(seat.pasteAttempts == 1 && seat.focusLosses == 0 && seat.exitAttempts == 0 && seat.interruptions == 0)
        #expect(seat.commandsRefused == 0 && seat.lastRefusal == nil)
        #expect(seat.warnings.isEmpty, "\(seat.warnings)")
        // 600 s allowed, 120 added, 100 used by the pulse.
        #expect(seat.timeLeftSeconds == 620)
        #expect(seat.recordsNotCounted == 0)
    }

    @Test func recordsThatDoNotVerifyAreCountedOnceAndNeverApplied() {
        var chain = begun()
        let forged: [(Int64, String, String, String?)] = [
            (3, "status", #"{"status":"ended","end_reason":"submitted","ended_at":null}"#, "2.3.AAAA"),
            (4, "event", #"{"kind":"hand_raised","detail":""}"#, nil),
            (5, "answer", #"{"item":"q2","response":{"text":"y"},"answered":true}"#, "x"),
        ]
        for (seq, kind, body, mac) in forged {
            chain.add(session: session, key: key, seq: seq, kind: kind, body: body, mac: mac)
        }
        // Signed with another session's key: not this seat's either.
        let other = SessionMAC.record(key: [UInt8](repeating: 8, count: 32), session: session, seq: 6, link: 3, kind: "event",
                                      body: #"{"kind":"focus_lost","detail":""}"#)
        chain.add(session: session, key: key, seq: 6, kind: "event", body: #"{"kind":"focus_lost","detail":""}"#, mac: other)
        // A record read again at the next reading is not counted again.
        chain.add(session: session, key: key, seq: 4, kind: "event", body: #"{"kind":"hand_raised","detail":""}"#, mac: nil)
        #expect(chain.outsideCount == 4)
        #expect(chain.outside.first == "status record 3 under session s-0001 was not written by its seat: not counted")
        #expect(chain.lastSeq == 2, "the next reading asks again after the seat's own last record")
        // The seat's next record still counts, after the forged ones.
        signed(&chain, seq: 7, link: 3, kind: "event", body: #"{"kind":"focus_lost","detail":""}"#)
        var seat = view()
        seat.apply(chain)
        #expect(seat.status == "active")
        #expect(seat.answered == 1)
        #expect(seat.hand == "down")
        #expect(seat.focusLosses == 1)
        #expect(seat.recordsNotCounted == 4)
        #expect(seat.warnings == ["4 records not counted"])
        #expect(chain.holes == "")
    }

    @Test func anEndItsSeatWroteIsShownAsItsSeatSaidIt() {
        var chain = begun()
        signed(&chain, seq: 3, link: 3, kind: "status", body: #"{"status":"ended","end_reason":"timed_out","ended_at":"2026-01-01T00:00:00Z"}"#)
        var seat = view(status: "interrupted", connected: false)
        seat.apply(chain)
        #expect(seat.status == "timed_out")
        #expect(seat.timeLeftSeconds == nil)
    }

    @Test func aSessionWithNoRecordOfItsOwnHasNotBegunWhateverTheRowSays() {
        var chain = SeatChain()
        chain.add(session: session, key: key, seq: 1, kind: "status", body: #"{"status":"ended","end_reason":"submitted"}"#, mac: nil)
        var seat = view(status: "submitted")
        seat.apply(chain)
        #expect(seat.status == "not_started")
        #expect(seat.answered == 0)
        #expect(seat.warnings == ["1 record not counted"])
    }

    @Test func aHoleInTheChainIsNamed() {
        var chain = begun()
        signed(&chain, seq: 5, link: 5, kind: "event", body: #"{"kind":"focus_lost","detail":""}"#)
        #expect(chain.holes == "3–4")
        // The missing records arrive later (after an outage) and fill it.
        signed(&chain, seq: 3, link: 3, kind: "event", body: #"{"kind":"focus_lost","detail":""}"#)
        signed(&chain, seq: 4, link: 4, kind: "event", body: #"{"kind":"focus_lost","detail":""}"#)
        #expect(chain.holes == "")
        #expect(chain.focusLosses == 3)
    }
}
