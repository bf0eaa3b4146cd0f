import AssessmentKit
import Foundation
import GRDB
import Testing
@testable import SessionKit

/// Sessions copied from a lab's shared store into a journal that is only read (`results --shared`).
@Suite("Copied sessions")
struct JournalCopiesTests {
    static func copy(_ id: String, events: [JournalEvent] = []) -> CopiedSession {
        let record = SessionRecord(id: id, assessmentID: "a", assessmentTitle: "A", fingerprint: "sha256:a",
                                   assessmentPath: "(shared store)", candidate: "Ada", status: .interrupted, seed: 0,
                                   extraTime: .none, options: SessionOptions(shared: SharedLabel(room: "r", seat: "s1")),
                                   elapsed: 42, startedAt: Date(timeIntervalSince1970: 1_700_000_000), pid: 7, host: "h", tty: nil)
        return CopiedSession(record: record, events: events, result: nil)
    }

    @Test func eachSessionIsWrittenWholeOrLeftOutAndNamed() throws {
        let journal = try Journal(writer: try DatabaseQueue())
        let event = JournalEvent(at: Date(timeIntervalSince1970: 1_700_000_010), kind: "paste_blocked", detail: "3 characters")
        // The second "a" cannot be written (its id is taken): it alone is left out, events and all.
        let failed = try journal.importCopies([Self.copy("a", events: [event]), Self.copy("a", events: [event, event]),
                                               Self.copy("b")])
        #expect(failed == ["a"])
        #expect(try journal.sessions(status: nil).map(\.id).sorted() == ["a", "b"])
        #expect(try journal.session("a") == Self.copy("a").record)
        #expect(try journal.events(session: "a") == [event])
        #expect(try journal.storedAssessment(fingerprint: "sha256:a").path == "(shared store)")
    }
}
