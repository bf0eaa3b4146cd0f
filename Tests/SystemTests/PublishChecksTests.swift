import Foundation
import SessionTestSupport
import Testing
@testable import SharedStore

/// Version 14 leaves out in `carrel_publish` what two row triggers left out of every insert
/// before it (a record too large, a kind or session name too long, a record of a session a move
/// merged): the same batches, published through a version-13 store and one at this build's
/// version, keep the same records, say the same counts and change the same rows.
@Suite("What a batch keeps, on a real PostgreSQL", .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
struct PublishChecksTests {
    static let token = String(repeating: "t", count: 40)

    /// One record of a batch: its session, number, kind and its body as an SQL expression.
    typealias Record = (session: String, seq: Int, kind: String, body: String)

    static func text(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }

    /// `CALL carrel_publish_committed` with `records`, each session proven by the test's token
    /// (or by `token`), giving the call's (kept, refused).
    static func publish(_ pg: PrivatePostgres, _ database: String, _ records: [Record], token: String = token) -> String {
        let column = { (f: (Record) -> String, type: String) in "ARRAY[" + records.map(f).joined(separator: ", ") + "]::\(type)[]" }
        let out = pg.psql("""
            CALL carrel_publish_committed(\(column({ text($0.session) }, "text")), \(column({ _ in text(token) }, "text")),
              \(column({ _ in "''" }, "text")), \(column({ String($0.seq) }, "int8")), \(column({ text($0.kind) }, "text")),
              \(column({ _ in "'2026-11-29T09:00:00Z'" }, "timestamptz")), \(column({ $0.body }, "text")), \(column({ _ in "''" }, "text")))
            """, database: database)
        return out.status == 0 ? out.output.trimmingCharacters(in: .whitespacesAndNewlines) : "failed: \(out.output)"
    }

    /// Every record the store keeps and every row the records changed (times of arrival aside).
    static func kept(_ pg: PrivatePostgres, _ database: String) -> String {
        pg.psql("""
            SELECT 'record ' || session || ' ' || seq || ' ' || kind || ' ' || octet_length(body_text) FROM carrel_records
            UNION ALL SELECT 'session ' || (to_jsonb(s) - 'last_seen' - 'created_at' - 'started_at' - 'live_at')::text FROM carrel_sessions s
            UNION ALL SELECT 'answer ' || to_jsonb(a)::text FROM carrel_answers a
            ORDER BY 1
            """, database: database).output
    }

    @Test func aBatchKeepsWhatVersion13KeptAndLeavesOutWhatItLeftOut() async throws {
        let pg = try PrivatePostgres.shared()
        let answer = Self.text(#"{"item":"q1","response":"x","answered":true,"elapsed":3}"#)
        let event = Self.text(#"{"kind":"paste_blocked"}"#)
        // 4 MB and one byte of text as sent; 900 numbers that PostgreSQL writes out as 5 001
        // digits each (its text as jsonb, 4.5 MB, from 6 kB sent); a kind of 41 characters.
        let large = "'{\"s\":\"' || repeat('x', 4194298) || '\"}'"
        let expanding = "'{\"n\":[' || array_to_string(array_fill('1e5000'::text, ARRAY[900]), ',') || ']}'"
        let batches: [[Record]] = [
            [("pc-a", 1, "answer", answer), ("pc-a", 2, "event", large), ("pc-a", 3, "event", expanding),
             ("pc-a", 4, String(repeating: "k", count: 41), event), ("pc-a", 5, "event", event)],
            [("pc-a", 6, "event", event), ("pc-b", 1, "answer", answer), ("pc-b", 2, "event", event)],
            [("pc-m", 1, "answer", answer), ("pc-a", 7, "answer", answer)],
            [("pc-a", 5, "event", event), ("pc-a", 8, "event", event)],
        ]
        var outcomes: [[String]] = []
        for version in [13, SharedSchema.version] {
            let url = try pg.database()
            try await SharedSchemaTests.migrate(pg, url, upTo: version)
            let database = String(url.split(separator: "/").last ?? "")
            for s in ["pc-a", "pc-b", "pc-m"] {
                let hello = pg.psql("SELECT carrel_hello('\(s)', '{\"room\":\"r\",\"seat\":\"\(s)\"}', '\(Self.token)')", database: database)
                try #require(hello.status == 0, "\(hello.output)")
            }
            // pc-m is a spare's request a move took in (as carrel_command_moves leaves it).
            try #require(pg.psql("UPDATE carrel_sessions SET status = 'merged' WHERE session = 'pc-m'", database: database).status == 0)
            var said = batches.map { Self.publish(pg, database, $0) }
            said.append(Self.publish(pg, database, [("pc-b", 3, "event", event)], token: String(repeating: "w", count: 40)))
            said.append(Self.kept(pg, database))
            outcomes.append(said)
        }
        let (old, new) = (outcomes[0], outcomes[1])
        #expect(old == new)
        // What both say, read: the first batch keeps two of five, the merged session nothing,
        // a record already there as sent counts as kept, a token that is not the session's keeps nothing.
        #expect(new.prefix(5) == ["2|", "3|", "1|", "2|", "0|this seat has not proven it holds session pc-b"], "\(new)")
        let rows = new.last ?? ""
        #expect(rows.contains("record pc-a 1 answer") && rows.contains("record pc-a 5 event") && !rows.contains("record pc-a 2 "))
        #expect(!rows.contains("record pc-a 3 ") && !rows.contains("record pc-a 4 ") && !rows.contains("record pc-m "), "\(rows)")
        #expect(rows.contains(#""records_count": 5"#), "pc-a's five records counted: \(rows)")
    }

    /// A record the store can never keep (no body, no kind; text that is no JSON in a record it
    /// leaves out anyway) no longer fails its whole batch, as it did at version 13: the others
    /// are kept, and the seat is told how many.
    @Test func aRecordTheStoreCanNeverKeepNoLongerStopsItsBatch() async throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        try await SharedSchemaTests.migrate(pg, url)
        let database = String(url.split(separator: "/").last ?? "")
        let hello = pg.psql("SELECT carrel_hello('pn-a', '{\"room\":\"r\",\"seat\":\"N1\"}', '\(Self.token)')", database: database)
        try #require(hello.status == 0, "\(hello.output)")
        let event = Self.text(#"{"kind":"paste_blocked"}"#)
        let said = Self.publish(pg, database, [("pn-a", 1, "event", event), ("pn-a", 2, "event", "NULL"),
                                               ("pn-a", 3, String(repeating: "k", count: 41), "'{not json'"), ("pn-a", 4, "event", event)])
        #expect(said == "2|", "\(said)")
        let rows = pg.psql("SELECT string_agg(seq::text, ',' ORDER BY seq) FROM carrel_records WHERE session = 'pn-a'", database: database)
        #expect(rows.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1,4", "\(rows.output)")
    }
}
