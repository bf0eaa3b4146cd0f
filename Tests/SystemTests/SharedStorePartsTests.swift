#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
import Testing
@testable import SessionKit
@testable import SharedStore

@Suite("Shared store: URLs, password files and the outbox, without a server")
struct SharedStorePartsTests {
    @Test func urlsAreReadAsLibpqReadsThemAndThePasswordIsNeverShown() throws {
        let u = try SharedURL.parse("postgresql://proctor:s%40cret@db.lab:6543/exams?sslmode=disable", environment: [:])
        #expect(u.host == "db.lab" && u.port == 6543 && u.user == "proctor" && u.database == "exams" && u.tls == .disable)
        #expect(u.password == "s@cret")
        #expect(!u.description.contains("cret"))
        let d = try SharedURL.parse("postgres://", environment: ["PGHOST": "h", "PGPORT": "7000", "PGUSER": "u", "PGDATABASE": "d"])
        #expect(d.host == "h" && d.port == 7000 && d.user == "u" && d.database == "d")
        let socket = try SharedURL.parse("postgresql:///exams?host=/var/run/postgresql", environment: ["PGUSER": "u"])
        #expect(socket.socketFolder == "/var/run/postgresql")
        let v6 = try SharedURL.parse("postgresql://u@[::1]:5433/x", environment: [:])
        #expect(v6.host == "::1" && v6.port == 5433)
    }

    @Test func badURLsAreRefusedWithAClearMessageThatHidesThePassword() {
        for (text, words) in [("http://db/x", "PostgreSQL URL"), ("postgresql://u@h:99999/x", "port"),
                              ("postgresql://u@h/x?sslmode=maybe", "sslmode"), ("postgresql://u@h/x?frobnicate=1", "does not use"),
                              ("", "empty"),
                              ("postgresql://u@a,b/x", "one host")] {
            do {
                _ = try SharedURL.parse(text, environment: [:])
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
        // A password is never quoted back, wherever a typo put it.
        for typo in ["mysql://root:Hunter2Secret@db/x", "postgresql://u:Hunter2/Secret@h:5432/db", "postgresql://u:Hunt?er2Secret@h/db",
                     "mysql://u@h/db?password=Hunter2Secret", "postgresql:/u:Hunter2Secret@h/db", "postgresql://u@h/db?sslmode=Hunter2Secret",
                     "postgresql://u@[::1Hunter2Secret/db", "postgresql://u@h/db?Hunter2Secret=1"] {
            do {
                _ = try SharedURL.parse(typo, environment: [:])
                Issue.record("\(typo) was accepted")
            } catch {
                #expect(!error.description.contains("Hunter2") && !error.description.contains("Secret"), "\(error.description)")
            }
        }
    }

    @Test func aNULCharacterInARecordIsStoredAsAReplacementCharacterAndNothingElseChanges() {
        #expect(SentRecord.storable(#"{"a":"x\u0000y"}"#) == #"{"a":"x\uFFFDy"}"#)
        // An escaped backslash followed by the text u0000 is not a NUL.
        #expect(SentRecord.storable(#"{"a":"x\\u0000y"}"#) == #"{"a":"x\\u0000y"}"#)
        #expect(SentRecord.storable(#"{"a":"\\\u0000"}"#) == #"{"a":"\\\uFFFD"}"#)
        #expect(SentRecord.storable(#"{"a":"plain"}"#) == #"{"a":"plain"}"#)
    }

    @Test func aPublisherThatNeverSentAnythingFinishesAtOnceWithoutAnAlarm() async {
        let url = SharedURL(host: "127.0.0.1", socketFolder: nil, port: 1, user: "u", password: nil, database: "d", tls: .disable,
                            connectTimeout: 1)
        let started = Date()
        // Never started: nothing to wait for.
        #expect(await SeatPublisher(url: url).finish(within: 300))
        // Started, its loop running (and failing to connect), with no journal: nothing to send.
        let publisher = SeatPublisher(url: url)
        publisher.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await publisher.run() }
            #expect(await publisher.finish(within: 300))
            // The loop ends by itself once asked to stop: the group is not cancelled.
        }
        // Neither waited out its 300 s (on a busy machine the test's own tasks may wait their
        // turn for minutes, so only the deadline itself tells).
        #expect(Date().timeIntervalSince(started) < 295, "neither finish waited out its 300 s, and the loop stopped")
    }

    @Test func thePasswordFileIsReadAsLibpqReadsItAndIgnoredWhenOthersCanReadIt() throws {
        let sandbox = try Sandbox()
        let file = sandbox.root + "/pgpass"
        try """
            # comment
            other:5432:*:u:wrong
            db.lab:5432:exams:u:pa\\:ss\\\\word
            *:*:*:u:fallback
            """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let u = try SharedURL.parse("postgresql://u@db.lab/exams", environment: ["PGPASSFILE": file])
        #expect(u.password == "pa:ss\\word")
        let other = try SharedURL.parse("postgresql://u@else/exams", environment: ["PGPASSFILE": file])
        #expect(other.password == "fallback")
        chmod(file, 0o644)
        let open = try SharedURL.parse("postgresql://u@db.lab/exams", environment: ["PGPASSFILE": file])
        #expect(open.password == nil)
        // A symlink is not followed.
        chmod(file, 0o600)
        let link = sandbox.root + "/link"
        symlink(file, link)
        #expect(try SharedURL.parse("postgresql://u@db.lab/exams", environment: ["PGPASSFILE": link]).password == nil)
    }

    @Test func migrationsSplitIntoStatementsOutsideQuotesAndFunctionBodies() {
        let parts = SharedSchema.statements("CREATE TABLE a (x text DEFAULT ';'); CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ SELECT 1; SELECT 2; $$;\nSELECT 3")
        #expect(parts.count == 3)
        #expect(parts[1].contains("SELECT 1; SELECT 2;"))
        let real = SharedSchema.migrations.flatMap { SharedSchema.statements($0.1) }
        #expect(real.count > 10)
        #expect(real.allSatisfy { !$0.isEmpty })
    }

    @Test func aPublishingSessionWritesEachRecordToItsOutboxInTheSameTransactionAndOthersDoNot() throws {
        let journal = try Journal(writer: try DatabaseQueue())
        let stored = StoredAssessment(bytes: Data("x".utf8), path: "a.yaml", format: .yaml)
        func record(_ id: String, shared: Bool) -> SessionRecord {
            SessionRecord(id: id, assessmentID: "a", assessmentTitle: "A", fingerprint: "sha256:x", assessmentPath: "a.yaml",
                          candidate: "Ada", status: .active, seed: 1, extraTime: .none,
                          options: SessionOptions(shared: shared ? SharedLabel(room: "r", seat: "s", total: 3, timeAllowed: 600) : nil),
                          startedAt: Date(), pid: 1, host: "h", tty: nil)
        }
        try journal.createSession(record("pub", shared: true), source: stored)
        try journal.createSession(record("local", shared: false), source: stored)
        for id in ["pub", "local"] {
            try journal.commit(session: id, [.answer(item: "q1", response: .text("hi")), .event(.pasteBlocked, "3 characters", at: Date())], at: Date())
            try journal.commit(session: id, [.progress(position: 1, elapsed: 2)], at: Date())
            try journal.commit(session: id, [.flag(item: "q1", on: true)], at: Date())
        }
        let records = try journal.outbox(after: 0, limit: 100)
        #expect(records.allSatisfy { $0.session == "pub" })
        #expect(records.map(\.kind) == ["session", "answer", "event", "progress", "flag"])
        #expect(records.map(\.seq) == records.map(\.seq).sorted())
        #expect(records[1].body.contains("\"answered\":true"))
        // Forgetting published records never lets a sequence number be used again.
        let last = try #require(records.last?.seq)
        try journal.removePublished(through: last)
        #expect(try journal.outbox(after: 0, limit: 100).isEmpty)
        #expect(try journal.outboxWaiting().records == 0)
        try journal.commit(session: "pub", [.flag(item: "q1", on: false)], at: Date())
        let next = try journal.outbox(after: 0, limit: 100)
        #expect(next.count == 1 && next[0].seq > last)
        // The time saved with an answer rides in the answer's record.
        try journal.commit(session: "pub", [.answer(item: "q2", response: .text("x")), .progress(position: 2, elapsed: 42.5)], at: Date())
        let carried = try journal.outbox(after: next[0].seq, limit: 100)
        #expect(carried.map(\.kind) == ["answer"])
        #expect(carried.first?.body.hasPrefix("{\"elapsed\":42.5,\"item\":\"q2\"") == true)
        // A backlog of time saves is sent as the latest one per session.
        let backlog = [OutboxRecord(seq: 1, session: "a", kind: "progress", at: Date(), body: "{}"),
                       OutboxRecord(seq: 2, session: "b", kind: "progress", at: Date(), body: "{}"),
                       OutboxRecord(seq: 3, session: "a", kind: "answer", at: Date(), body: "{}"),
                       OutboxRecord(seq: 4, session: "a", kind: "progress", at: Date(), body: "{}")]
        #expect(SentRecord.latestProgressOnly(backlog).map(\.seq) == [2, 3, 4])
    }
}
