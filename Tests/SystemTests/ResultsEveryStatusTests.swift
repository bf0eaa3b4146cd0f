import AssessmentKit
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit
@testable import SharedStore

/// Issue 38, "results tell the whole story": every session of a room is in every export once,
/// with its status in words, whether or not it has a result, and with its time allowed, the
/// roster's extra time and the time the proctor added (by whom, when).
@Suite("Results list every session of a room", .serialized,
       .enabled(if: PrivatePostgres.unavailable == nil, "needs PostgreSQL (scripts/install-deps)"))
struct ResultsEveryStatusTests {
    typealias Hostile = SharedReaderHostileTests

    /// The sessions planted beside the honest submitted one, with the status each is reported with.
    static let planted: [(session: String, status: String, endReason: String?, outcome: String)] = [
        ("s-interrupted", "interrupted", nil, "interrupted"),
        ("s-ended", "ended", "ended_by_proctor", "ended"),
        ("s-wrong-test", "wrong_test", nil, "refused"),
        ("s-twice", "candidate_twice", nil, "refused"),
        ("s-seat-lost", "ended", "seat_lost", "ended"),
        ("s-future", "teleported", nil, "teleported"),
    ]

    /// A store with an honest submitted seat in room `h`, a roster giving candidate 1001 1.5x,
    /// and the planted sessions; the interrupted one (candidate 1001) was given 10 more
    /// minutes by `proctor_ann` and paused once.
    static func room() throws -> (pg: PrivatePostgres, url: String, database: String, honest: String) {
        let (pg, url, database, honest) = try Hostile.storeWithAnHonestSeat()
        var sql = ["""
            INSERT INTO carrel_rooms (room, fingerprint, assessment_id, assessment_title, items, start_mode, carrel_version,
                                      carrel_digest, roster)
            VALUES ('h', 'sha256:x', 'fixture', 'Fixture', 6, 'candidate', 'test', 'test',
                    '[{"candidate":"1001","name":"Ada","extra_time":"x1.5"}]')
            ON CONFLICT (room) DO UPDATE SET roster = excluded.roster
            """]
        for p in planted {
            sql.append("""
                INSERT INTO carrel_sessions (session, room, seat, candidate, candidate_number, assessment_id, assessment_title,
                                             fingerprint, status, end_reason, started_at, ended_at, lock_key, time_allowed_seconds)
                VALUES ('\(p.session)', 'h', 'S-\(p.session)', 'Cand \(p.session)',
                        \(p.session == "s-interrupted" ? "'1001'" : "NULL"), 'fixture', 'Fixture', 'sha256:x', '\(p.status)',
                        \(p.endReason.map { "'\($0)'" } ?? "NULL"), now(), \(p.status == "ended" ? "now()" : "NULL"),
                        hashtextextended('\(p.session)', 0), 900)
                """)
        }
        sql.append("""
            INSERT INTO carrel_commands (id, room, seat, action, argument, issued_by, issued_at)
            VALUES (9001, 'h', 'S-s-interrupted', 'time', '600', 'proctor_ann', '2026-11-28 07:00:00+00'),
                   (9002, 'h', 'S-s-interrupted', 'pause', NULL, 'proctor_ann', '2026-11-28 07:01:00+00')
            """)
        sql.append("""
            INSERT INTO carrel_records (session, seq, kind, at, body) VALUES
              ('s-interrupted', 1, 'event', now(), '{"kind":"proctor_command","detail":"#9001.3 time 600"}'),
              ('s-interrupted', 2, 'event', now(), '{"kind":"proctor_command","detail":"#9002.4 pause"}')
            """)
        for statement in sql {
            let out = pg.psql(statement, database: database)
            #expect(out.status == 0, "\(statement): \(out.output)")
        }
        return (pg, url, database, honest.session)
    }

    func carrel(_ pg: PrivatePostgres, _ arguments: [String]) throws -> (status: Int32, out: String) {
        try SharedReaderHostileTests().carrel(pg, arguments)
    }

    /// The CSV as rows of cells (a real parser), by column name.
    func csvRows(_ text: String) throws -> [[String: String]] {
        let python = try #require(ChildSpawn.which("python3", environment: ProcessInfo.processInfo.environment))
        let file = NSTemporaryDirectory() + "/every-status-\(UUID().uuidString).csv"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let script = "import csv,json,sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))"
        let parsed = ChildSpawn.run(python, ["-c", script, file], environment: ProcessInfo.processInfo.environment)
        return try #require(try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [[String: String]], "\(parsed.output)")
    }

    /// Standard output alone: the lines before the report's own summary on standard error.
    func json(_ out: String) throws -> [[String: Any]] {
        let start = try #require(out.firstIndex(of: "["), "\(out)")
        let end = try #require(out.lastIndex(of: "]"), "\(out)")
        return try #require(try JSONSerialization.jsonObject(with: Data(out[start...end].utf8)) as? [[String: Any]], "\(out)")
    }

    @Test func everySessionOfARoomIsInEveryExportOnceWithItsStatusAndStrictPasses() throws {
        let (pg, url, _, honest) = try Self.room()
        let csv = try carrel(pg, ["results", "export", "--format", "csv", "--shared", url, "--strict"])
        #expect(csv.status == 0, "\(csv.out)")
        let rows = try csvRows(String(csv.out[try #require(csv.out.range(of: "session,")).lowerBound...]))
        let expected = Self.planted.map { ($0.session, $0.outcome) } + [(honest, "finished")]
        for (session, outcome) in expected {
            let mine = rows.filter { $0["session"] == session }
            #expect(mine.count == 1, "\(session): \(csv.out)")
            #expect(mine.first?["outcome"] == outcome, "\(session): \(mine)")
        }
        let byID = Dictionary(rows.map { ($0["session"] ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byID["s-wrong-test"]?["status"] == "wrong_test" && byID["s-twice"]?["status"] == "candidate_twice")
        #expect(byID["s-seat-lost"]?["status_words"] == "ended by the proctor, seat lost; no result", "\(byID)")
        #expect(byID["s-interrupted"]?["status"] == "interrupted" && byID["s-interrupted"]?["points"] == "")
        #expect(byID["s-ended"]?["status_words"] == "ended by the proctor; no result")
        #expect(byID[honest]?["status_words"] == "finished, submitted" && byID[honest]?["verified"] == "no")

        let export = try carrel(pg, ["results", "export", "--shared", url, "--strict"])
        #expect(export.status == 0, "\(export.out)")
        let documents = try json(export.out)
        for (session, outcome) in expected {
            let mine = documents.filter { $0["session"] as? String == session }
            #expect(mine.count == 1, "\(session): \(export.out)")
            #expect(mine.first?["outcome"] as? String == outcome && mine.first?["verified"] as? Bool == false, "\(session)")
        }
        let list = try carrel(pg, ["results", "list", "--json", "--shared", url, "--strict"])
        #expect(list.status == 0, "\(list.out)")
        let listed = try json(list.out)
        for (session, outcome) in expected {
            #expect(listed.filter { $0["session"] as? String == session && $0["outcome"] as? String == outcome }.count == 1,
                    "\(session): \(list.out)")
        }
        let table = try carrel(pg, ["results", "list", "--shared", url, "--strict"])
        #expect(table.status == 0 && table.out.contains("wrong_test") && table.out.contains("teleported"), "\(table.out)")
    }

    @Test func aTrulyUnreadableRowStillMakesStrictFail() throws {
        let (pg, url, database, _) = try Self.room()
        Hostile.plant(pg, database, session: "evil-time", at: "'20000-01-01 00:00:00+00'")
        for command in [["results", "export", "--format", "csv"], ["results", "export"], ["results", "list", "--json"]] {
            let plain = try carrel(pg, command + ["--shared", url])
            #expect(plain.status == 0 && plain.out.contains("s-wrong-test") && plain.out.contains("s-interrupted"), "\(plain.out)")
            let strict = try carrel(pg, command + ["--shared", url, "--strict"])
            #expect(strict.status == 65, "\(command): \(strict.out)")
            #expect(strict.out.contains("skipped session evil-time: its start time is out of range"), "\(strict.out)")
            #expect(strict.out.contains("1 session could not be read"), "\(strict.out)")
            #expect(!strict.out.contains("skipped session s-"), "no status Carrel writes is unreadable: \(strict.out)")
        }
    }

    @Test func rosterExtraTimeAndTheProctorsAddedTimeWithItsIssuerAreInCSVAndJSON() throws {
        let (pg, url, _, _) = try Self.room()
        let csv = try carrel(pg, ["results", "export", "--format", "csv", "--shared", url])
        let rows = try csvRows(String(csv.out[try #require(csv.out.range(of: "session,")).lowerBound...]))
        let row = try #require(rows.first { $0["session"] == "s-interrupted" }, "\(csv.out)")
        #expect(row["extra_time"] == "1.5x", "\(row)")
        #expect(row["time_added_seconds"] == "600" && row["pauses"] == "1", "\(row)")
        #expect(row["time_added"] == "10m by proctor_ann at 2026-11-28T07:00:00Z", "\(row)")
        #expect(row["time_allowed_seconds"] == "1500", "900 with the roster's extra time, and 600 added: \(row)")
        #expect(row["moves"] == "")

        let export = try carrel(pg, ["results", "export", "--shared", url])
        let document = try #require(try json(export.out).first { $0["session"] as? String == "s-interrupted" })
        #expect(document["extra_time"] as? String == "1.5x" && document["time_added_seconds"] as? Int == 600)
        #expect(document["time_allowed_seconds"] as? Int == 1500 && document["pauses"] as? Int == 1)
        let added = try #require((document["time_added"] as? [[String: Any]])?.first, "\(document)")
        #expect(added["issued_by"] as? String == "proctor_ann" && added["issued_at"] as? String == "2026-11-28T07:00:00Z")
        #expect(added["seconds"] as? Int == 600 && added["command"] as? Int == 9001)
        #expect((document["moves"] as? [Any])?.isEmpty == true)
        #expect(document["score"] is NSNull && (document["items"] as? [Any])?.isEmpty == true, "\(document)")
    }
}
