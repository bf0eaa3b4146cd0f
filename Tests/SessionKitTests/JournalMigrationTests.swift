import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
import Testing
@testable import SessionKit

@Suite("Journal schema v1 → v5")
struct JournalMigrationTests {
    static let yaml = """
        carrel: 1
        id: old
        title: From a v1 journal
        time_limit: 10m
        sections:
          - items:
              - {id: a, type: text, prompt: A, accept: [x]}
              - {id: b, type: choice, prompt: B, choices: [p, q], answer: q}

        """

    /// A journal exactly as v1 wrote it: the whole assessment text in the session row.
    static func v1Journal() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try Journal.migrator.migrate(queue, upTo: "v1")
        let fingerprint = Fingerprint.of(try #require(AssessmentReader.read(text: yaml, file: "old.yaml").assessment))
        try queue.write { db in
            for (id, status, result) in [("s-interrupted", "active", nil), ("s-ended", "ended", "{\"session\":\"s-ended\"}")] as [(String, String, String?)] {
                try db.execute(sql: """
                    INSERT INTO session (id, assessment_id, assessment_title, fingerprint, assessment_source, assessment_path,
                      candidate, status, end_reason, seed, extra_time, position, elapsed, started_at, interruptions, pid, host, tty, result_json)
                    VALUES (?, 'old', 'From a v1 journal', ?, ?, 'old.yaml', 'Zoë', ?, ?, -5, '{"multiplier":{"_0":1.5}}', 1, 123.5,
                      '2026-11-01 10:00:00.000', 2, 99, 'lab', NULL, ?)
                    """, arguments: [id, fingerprint, yaml, status, status == "ended" ? "submitted" : nil, result])
            }
            try db.execute(sql: "INSERT INTO answer VALUES ('s-interrupted', 'a', '{\"text\":{\"_0\":\"kept\"}}', '2026-11-01 10:01:00.000')")
            try db.execute(sql: "INSERT INTO answer_history (session_id, item_id, response, at) VALUES ('s-interrupted', 'a', '{\"text\":{\"_0\":\"kept\"}}', '2026-11-01 10:01:00.000')")
            try db.execute(sql: "INSERT INTO flag VALUES ('s-interrupted', 'b')")
            try db.execute(sql: "INSERT INTO event (session_id, at, kind, detail) VALUES ('s-interrupted', '2026-11-01 10:00:00.000', 'began', '')")
        }
        return queue
    }

    @Test func aV1JournalOpensWithEverySessionAnswerFlagAndResult() throws {
        let queue = try Self.v1Journal()
        let journal = try Journal(writer: queue)
        let record = try #require(try journal.session("s-interrupted"))
        #expect(record.candidate == "Zoë")
        #expect(record.position == 1)
        #expect(record.elapsed == 123.5)
        #expect(record.interruptions == 2)
        #expect(record.seed == UInt64(bitPattern: -5))
        #expect(record.extraTime == .multiplier(1.5))
        #expect(record.assessmentPath == "old.yaml")
        #expect(try journal.answers(session: "s-interrupted") == ["a": .text("kept")])
        #expect(try journal.flags(session: "s-interrupted") == ["b"])
        #expect(try journal.history(session: "s-interrupted").count == 1)
        #expect(try journal.events(session: "s-interrupted").map(\.kind) == ["began"])
        #expect(try journal.result(session: "s-ended") == "{\"session\":\"s-ended\"}")
        let stored = try journal.storedAssessment(fingerprint: record.fingerprint)
        #expect(String(decoding: stored.bytes, as: UTF8.self) == Self.yaml)
        try queue.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM assessment") == 1, "the text is stored once for both sessions")
            let columns = try db.columns(in: "session").map(\.name)
            #expect(!columns.contains("assessment_source"))
            #expect(try db.foreignKeyViolations().map { _ in 1 }.isEmpty)
            // v5: an answer writes as few pages as it can: no separate index for the latest
            // answers, no index or AUTOINCREMENT counter for the history.
            let answerSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'answer'") ?? ""
            #expect(answerSQL.contains("WITHOUT ROWID"))
            let historySQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'answer_history'") ?? ""
            #expect(!historySQL.uppercased().contains("AUTOINCREMENT"))
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('answer', 'answer_history')")
            #expect(indexes.isEmpty, "indexes an answer would also write: \(indexes)")
        }
    }

    @Test func aV1SessionResumesAndFinishes() throws {
        let world = try MemoryWorld()
        let v1 = try Self.v1Journal()
        try v1.backup(to: world.storage.queue)
        let runtime = try SessionRuntime.resume(sessionID: "s-interrupted", context: world.context)
        #expect(runtime.state.position == 1)
        #expect(runtime.state.responses["a"] == .text("kept"))
        #expect(runtime.state.flags == ["b"])
        #expect(runtime.state.elapsed == 123.5)
        _ = runtime.send(.answer("b", .choice("q")))
        _ = runtime.send(.submitRequested)
        guard case let .finished(result, _, nil)? = runtime.send(.submitConfirmed).outcome else {
            Issue.record("the resumed v1 session did not finish")
            return
        }
        #expect(result.interruptions == 3)
        #expect(result.score.points == 1)
    }

    /// A Tab writes a few bytes whatever the size of the assessment: measured as what the
    /// move appends to the journal's write-ahead log (whole pages) in a real journal file.
    @Test func aMoveWritesTheSamePagesAtAnySize() throws {
        var written: [Int] = []
        for items in [16, 3000] {
            let box = try Sandbox()
            let context = box.context()
            var lines = ["carrel: 1", "id: big", "title: Big", "policy: { multiplexer: allow }", "sections:", "  - items:"]
            for i in 0..<items { lines.append("      - {id: q\(i), type: text, prompt: \"Question \(i) with some words to make it longer\", accept: [x]}") }
            let (assessment, source) = try MemoryWorld.assessment(lines.joined(separator: "\n"))
            let r = try SessionRuntime.begin(assessment: assessment, source: source, candidate: nil, extraTime: .none, context: context)
            _ = r.send(.next)
            // An empty log, so afterwards it holds exactly what the move wrote.
            try r.journal.writer.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
            let wal = box.location.journalPath + "-wal"
            let before = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
            _ = r.send(.next)
            let after = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
            written.append(after - before)
            _ = r.send(.hangUp("test over"))
        }
        #expect(written[0] == written[1], "bytes a Tab appends to the journal: \(written)")
        #expect(written[0] > 0 && written[0] <= 3 * 4120, "one or two pages: \(written)")
    }
}
