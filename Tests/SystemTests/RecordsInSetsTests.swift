import Foundation
import SessionTestSupport
import Testing
@testable import SharedStore

/// Version 13 applies a batch of records in a few statements instead of one record at a time:
/// what a batch changes must be what its records changed one after another under version 12,
/// whether the batch is applied whole or, holding a record the store cannot apply, one record
/// at a time.
@Suite("Records applied in sets on a real PostgreSQL", .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
struct RecordsInSetsTests {
    /// One record: session, number, kind and its body's JSON.
    typealias Record = (session: String, seq: Int, kind: String, body: String)

    /// What a session's records change, every kind the store applies.
    static func everyKind(_ s: String, candidate: String) -> [Record] {
        let attestation = #""attestation":{"os":"Linux","seat":"A1"}"#
        let bodies: [(String, String)] = [
            ("session", #"{"room":"r","seat":"A1","candidate":"\#(candidate)","candidate_number":"N-\#(candidate)","total":5,"time_allowed_seconds":600,"pid":42,\#(attestation)}"#),
            ("answer", #"{"item":"q1","response":"x","answered":true,"elapsed":3}"#),
            ("answer", #"{"item":"q1","response":"","answered":false,"elapsed":4}"#),
            ("answer", #"{"item":"q2","response":["a"],"answered":true}"#),
            ("answer", #"{"item":"q3","response":"y","answered":true}"#),
            ("flag", #"{"item":"q1","on":true,"elapsed":5}"#),
            ("flag", #"{"item":"q1","on":false}"#),
            ("flag", #"{"item":"q2","on":true}"#),
            ("flag", #"{"item":"q2","on":true}"#),
            ("event", #"{"kind":"paste_blocked"}"#),
            ("event", #"{"kind":"focus_lost"}"#),
            ("event", #"{"kind":"focus_lost"}"#),
            ("event", #"{"kind":"exit_attempt"}"#),
            ("event", #"{"kind":"hand_raised"}"#),
            ("event", ##"{"kind":"proctor_command","detail":"#5 acknowledge"}"##),
            ("event", ##"{"kind":"proctor_command","detail":"#6.3 pause"}"##),
            ("event", ##"{"kind":"proctor_command","detail":"#7 time 120"}"##),
            ("event", ##"{"kind":"proctor_command","detail":"#4 time 60"}"##),
            ("event", ##"{"kind":"proctor_command","detail":"#9 oops"}"##),
            ("event", #"{"kind":"proctor_command","detail":"not a command"}"#),
            ("event", #"{"kind":"command_refused","detail":"a start for another seat"}"#),
            ("event", #"{"kind":"passphrase_failed"}"#),
            ("event", #"{"kind":"machine_incident","detail":"a login on tty2"}"#),
            ("event", #"{"kind":"machine_incident","detail":"a USB device"}"#),
            ("event", #"{"kind":"assessment_mode","detail":"began"}"#),
            ("event", #"{"kind":"hand_raised"}"#),
            ("event", ##"{"kind":"proctor_command","detail":"#11 acknowledge"}"##),
            ("status", #"{"status":"review"}"#),
            ("progress", #"{"elapsed":61.5}"#),
            ("status", #"{"status":"interrupted"}"#),
            ("resumed", #"{"pid":77}"#),
            ("result", #"{"json":"{\"score\":1}"}"#),
            ("event", ##"{"kind":"proctor_command","detail":"#10 resume"}"##),
            ("result", #"{"json":"{\"score\":2}"}"#),
            ("status", #"{"status":"ended","end_reason":"submitted","ended_at":"2026-11-29T08:00:00Z"}"#),
            ("session", #"{"room":"r","seat":"B9","candidate":"late"}"#),
            ("event", #"[1,2]"#),
            ("answer", #"{"item":5,"answered":"yes"}"#),
            ("status", #"{"status":"weird"}"#),
        ]
        return bodies.enumerated().map { (s, $0.offset + 1, $0.element.0, $0.element.1) }
    }

    /// Records the store cannot apply, among ones it can: a time that is no time.
    static func withAnUnreadableOne(_ s: String) -> [Record] {
        var records = everyKind(s, candidate: "u")
        records.insert((s, 100, "status", #"{"status":"ended","ended_at":"not a time"}"#), at: 10)
        records.insert((s, 101, "event", ##"{"kind":"proctor_command","detail":"#8 time 9999999"}"##), at: 20)
        return records
    }

    /// The records as one INSERT of many rows (one statement), or as one INSERT each.
    static func insert(_ records: [Record], into pg: PrivatePostgres, url: String, oneByOne: Bool) throws {
        let database = String(url.split(separator: "/").last ?? "")
        func row(_ r: Record) -> String {
            "('\(r.session)', \(r.seq), '\(r.kind)', '2026-11-29T07:00:00Z', '\(r.body.replacingOccurrences(of: "'", with: "''"))'::jsonb)"
        }
        let statements = oneByOne ? records.map { [row($0)] } : [records.map(row)]
        for rows in statements {
            let out = pg.psql("INSERT INTO carrel_records (session, seq, kind, at, body) VALUES " + rows.joined(separator: ", "),
                              database: database)
            try #require(out.status == 0, "\(out.output)")
        }
    }

    /// What the records changed: every row they write, but the times of their arrival and of the row's making.
    static func applied(_ pg: PrivatePostgres, url: String) -> String {
        let database = String(url.split(separator: "/").last ?? "")
        let out = pg.psql("""
            SELECT 'session ' || (to_jsonb(s) - 'last_seen' - 'created_at' - 'records_count' - 'records_bytes')::text FROM carrel_sessions s
            UNION ALL SELECT 'answer ' || to_jsonb(a)::text FROM carrel_answers a
            UNION ALL SELECT 'flag ' || to_jsonb(f)::text FROM carrel_flags f
            UNION ALL SELECT 'result ' || to_jsonb(r)::text FROM carrel_results r
            UNION ALL SELECT 'applied ' || c.command || ' ' || c.session FROM carrel_command_applied c
            ORDER BY 1
            """, database: database)
        return out.status == 0 ? out.output : "failed: \(out.output)"
    }

    /// A store at version 12 given the records one row at a time, and one at this build's
    /// version given them as `batches`: both end with the same rows.
    static func expectSameAsOneByOne(_ records: [Record], batches: [[Record]]) async throws {
        let pg = try PrivatePostgres.shared()
        let before = try pg.database()
        try await SharedSchemaTests.migrate(pg, before, upTo: 12)
        try insert(records, into: pg, url: before, oneByOne: true)
        let now = try pg.database()
        try await SharedSchemaTests.migrate(pg, now)
        for batch in batches { try insert(batch, into: pg, url: now, oneByOne: false) }
        let expected = applied(pg, url: before)
        #expect(expected.components(separatedBy: "\n").filter { $0.hasPrefix("session ") }.count >= 1)
        #expect(expected.contains("\"answered\": 2"), "\(expected)")
        let got = applied(pg, url: now)
        let (was, sets) = (Set(expected.components(separatedBy: "\n")), Set(got.components(separatedBy: "\n")))
        #expect(got == expected, "one by one only: \(was.subtracting(sets).sorted()); in sets only: \(sets.subtracting(was).sorted())")
        // Every record is counted against its session's quota, those the trigger cannot apply too
        // (version 12 left that to carrel_publish: its rows above are not compared).
        let database = String(now.split(separator: "/").last ?? "")
        let counts = pg.psql("SELECT session || ' ' || records_count FROM carrel_sessions ORDER BY 1", database: database).output
        var perSession: [String: Int] = [:]
        for record in records { perSession[record.session, default: 0] += 1 }
        let wanted = perSession.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "\n")
        #expect(counts.trimmingCharacters(in: .whitespacesAndNewlines) == wanted)
    }

    @Test func aBatchAppliedWholeChangesWhatItsRecordsChangedOneAfterAnother() async throws {
        let records = Self.everyKind("set-a", candidate: "a") + Self.everyKind("set-b", candidate: "b")
        try await Self.expectSameAsOneByOne(records, batches: [records])
    }

    @Test func aBatchWithARecordTheStoreCannotApplyIsAppliedOneRecordAtATime() async throws {
        let records = Self.withAnUnreadableOne("set-c") + Self.everyKind("set-d", candidate: "d")
        try await Self.expectSameAsOneByOne(records, batches: [records])
    }

    @Test func recordsSentInSeveralBatchesChangeWhatTheyChangedOneAfterAnother() async throws {
        let records = Self.everyKind("set-e", candidate: "e")
        try await Self.expectSameAsOneByOne(records, batches: [Array(records[..<14]), Array(records[14..<20]), Array(records[20...])])
    }

    /// A count pushed to an integer's limit by made-up events stays there, and the batch is
    /// still applied whole: its time and last record are kept.
    @Test func aCountAtItsLimitStaysThereAndTheBatchIsStillApplied() async throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        try await SharedSchemaTests.migrate(pg, url)
        let s = "limit-1"
        var records: [Record] = [(s, 1, "session", #"{"room":"r","seat":"L1"}"#)]
        for n in 2...300 { records.append((s, n, "event", ##"{"kind":"proctor_command","detail":"#\##(n) time 9999999"}"##)) }
        records.append((s, 301, "event", #"{"kind":"paste_blocked","elapsed":42}"#))
        try Self.insert(records, into: pg, url: url, oneByOne: false)
        let database = String(url.split(separator: "/").last ?? "")
        let row = pg.psql("SELECT added_seconds, last_seq, saved_elapsed_seconds, paste_attempts FROM carrel_sessions WHERE session = '\(s)'",
                          database: database)
        #expect(row.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2147483647|301|42|1", "\(row.output)")
    }

    /// The liveness claim made with a batch is committed on its own: a batch that fails does not
    /// take it with it.
    @Test func aClaimMadeWithABatchThatFailsIsKept() async throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        try await SharedSchemaTests.migrate(pg, url)
        let database = String(url.split(separator: "/").last ?? "")
        let token = String(repeating: "t", count: 40)
        let hello = pg.psql("SELECT carrel_hello('live-1', '{\"room\":\"r\",\"seat\":\"A\"}', '\(token)')", database: database)
        try #require(hello.status == 0, "\(hello.output)")
        let call = pg.psql("""
            CALL carrel_publish_committed(ARRAY['live-1'], ARRAY['\(token)'], ARRAY[''], ARRAY[1::int8], ARRAY['event'], ARRAY[now()],
              ARRAY['{not json'], ARRAY[''], p_live_session => 'live-1', p_live_token => '\(token)', p_live_previous => NULL,
              p_live_mac => 'mac-1', p_live_elapsed => 7)
            """, database: database)
        #expect(call.status != 0, "the batch is refused: \(call.output)")
        let live = pg.psql("SELECT live_mac, elapsed_seconds FROM carrel_sessions WHERE session = 'live-1'", database: database)
        #expect(live.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mac-1|7", "\(live.output)")
    }
}
