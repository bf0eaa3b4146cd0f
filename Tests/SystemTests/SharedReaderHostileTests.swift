import AssessmentKit
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit
@testable import SharedStore

/// What one student holding the seat's database password can add to the store never takes
/// the room's results with it: each row Carrel cannot read is named, counted and left out,
/// `--strict` makes that exit 65, and what is written (stdout, `--out`) is safe text.
@Suite("Shared store readers against hostile rows", .serialized,
       .enabled(if: PrivatePostgres.unavailable == nil, "needs PostgreSQL (scripts/install-deps)"))
struct SharedReaderHostileTests {
    /// A store with one honest submitted session; its URL, database and the session.
    static func storeWithAnHonestSeat() throws -> (pg: PrivatePostgres, url: String, database: String, honest: SharedStoreTests.Seat) {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        let honest = try #require(try SharedStoreTests.Seat(url: url, passwordFile: pg.passwordFile, room: "h", seat: "OK"))
        #expect(honest.answer("q0", "a0"))
        #expect(honest.submit() != nil)
        #expect(honest.child.waitStatus() == 0)
        #expect(try honest.journal().outboxWaiting(session: honest.session) == 0)
        return (pg, url, String(url.split(separator: "/").last ?? ""), honest)
    }

    /// SQL text for a literal.
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// JSON for a record's body.
    static func body(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }

    /// Adds records as a seat's role may (`carrel_records`): a session started at `at`, ended,
    /// with `result` as its result document when given.
    static func plant(_ pg: PrivatePostgres, _ database: String, session: String, at: String = "now()",
                      assessment: String = "fixture", result: String? = nil) {
        let start = body(["room": "h", "seat": "E-\(session.prefix(12))", "candidate": "Eve", "assessment_id": assessment,
                          "assessment_title": "Fixture", "fingerprint": "sha256:evil", "total": 6])
        var sql = ["INSERT INTO carrel_records VALUES (\(literal(session)), 1, 'session', \(at), \(literal(start)))",
                   "INSERT INTO carrel_records VALUES (\(literal(session)), 2, 'event', now(), '{\"kind\":\"paste_blocked\",\"detail\":\"x\"}')",
                   "INSERT INTO carrel_records VALUES (\(literal(session)), 3, 'status', now(), '{\"status\":\"ended\",\"end_reason\":\"submitted\"}')"]
        if let result {
            sql.append("INSERT INTO carrel_records VALUES (\(literal(session)), 4, 'result', now(), \(literal(body(["json": result]))))")
        }
        for statement in sql {
            let out = pg.psql(statement, database: database)
            #expect(out.status == 0, "\(statement): \(out.output)")
        }
    }

    /// The honest seat's result as the store holds it, made into `session`'s.
    static func honestResult(_ pg: PrivatePostgres, _ url: String, _ honest: String, as session: String) throws -> String {
        // One line of base64, as psql prints rows line by line.
        let rows = pg.rows("SELECT translate(encode(convert_to(json, 'UTF8'), 'base64'), E'\\n', '') FROM carrel_results WHERE session = \(literal(honest))", url: url)
        let data = try #require(rows.first?.first.flatMap { Data(base64Encoded: $0) })
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: honest, with: session).replacingOccurrences(of: "\" : ", with: "\": ")
    }

    func carrel(_ pg: PrivatePostgres, _ arguments: [String]) throws -> (status: Int32, out: String) {
        let sandbox = try Sandbox()
        var environment = sandbox.environment
        environment["PGPASSFILE"] = pg.passwordFile
        let out = ChildSpawn.run(ChildProcess.carrel, arguments, environment: environment, timeout: 60)
        return (out.status, out.output)
    }

    static let commands = [["results", "list"], ["results", "list", "--json"], ["results", "export", "--format", "csv"], ["results", "export"]]

    /// Every reader: exit 0 with the honest session, each bad one named with `words`, the
    /// count in the summary, and `--strict` exit 65 after the same output.
    func expectNamedAndSkipped(_ pg: PrivatePostgres, _ url: String, honest: String, bad: [String: String]) throws {
        for command in Self.commands {
            let out = try carrel(pg, command + ["--shared", url])
            #expect(out.status == 0, "\(command): \(out.out)")
            #expect(out.out.contains(honest.prefix(8)), "\(command): \(out.out)")
            for (session, words) in bad {
                let line = out.out.split(separator: "\n").first { $0.contains("skipped session \(session)") }
                #expect(line?.contains(words) == true, "\(command) \(session): \(out.out)")
            }
            #expect(out.out.contains("\(bad.count) session\(bad.count == 1 ? "" : "s") skipped"), "\(command): \(out.out)")
            let strict = try carrel(pg, command + ["--shared", url, "--strict"])
            #expect(strict.status == 65, "\(command) --strict: \(strict.out)")
            #expect(strict.out.contains(honest.prefix(8)) && strict.out.contains("--strict"), "\(command) --strict: \(strict.out)")
        }
    }

    @Test func aStartTimeOutOfRangeSkipsThatSessionAloneAndStrictExits65() throws {
        let (pg, url, database, honest) = try Self.storeWithAnHonestSeat()
        var bad: [String: String] = [:]
        for (n, at) in ["'20000-01-01 00:00:00+00'", "'infinity'", "'-infinity'", "'4713-01-01 00:00:00+00 BC'", "'1900-01-01 00:00:00+00'"].enumerated() {
            Self.plant(pg, database, session: "evil-time-\(n)", at: at)
            bad["evil-time-\(n)"] = "start time is out of range"
        }
        // An event in the year 20000 is its session's damage alone.
        Self.plant(pg, database, session: "evil-event")
        #expect(pg.psql("INSERT INTO carrel_records VALUES ('evil-event', 9, 'event', '20000-01-01', '{\"kind\":\"focus_lost\"}')",
                        database: database).status == 0)
        bad["evil-event"] = "event 9 is out of range"
        try expectNamedAndSkipped(pg, url, honest: honest.session, bad: bad)
        let show = try carrel(pg, ["results", "show", "evil-time-0", "--shared", url])
        #expect(show.status == 65 && show.out.contains("start time is out of range"), "\(show.out)")
        // The console shows every seat, the absurd one too, and exits 0.
        let console = try carrel(pg, ["proctor", "--shared", url, "--json"])
        #expect(console.status == 0 && console.out.contains(honest.session) && console.out.contains("evil-time-0"), "\(console.out)")
    }

    @Test func aResultThatTwoParsersWouldReadDifferentlyIsNamedAndNeverCrashesTheReader() throws {
        let (pg, url, database, honest) = try Self.storeWithAnHonestSeat()
        func with(_ member: String, _ session: String) throws -> String {
            let json = try Self.honestResult(pg, url, honest.session, as: session)
            return json.replacingOccurrences(of: "{", with: "{" + member + ",", options: [], range: json.range(of: "{"))
        }
        Self.plant(pg, database, session: "evil-dup", result: try with(#""time_used\u005fseconds": "abc""#, "evil-dup"))
        Self.plant(pg, database, session: "evil-dup2", result: try with(#""time_used_seconds": 99999999"#, "evil-dup2"))
        Self.plant(pg, database, session: "evil-ctl", result: try with("\"un\u{01}known\": 1", "evil-ctl"))
        Self.plant(pg, database, session: "evil-other", result: try Self.honestResult(pg, url, honest.session, as: honest.session))
        Self.plant(pg, database, session: "evil-junk", result: "{not json")
        try expectNamedAndSkipped(pg, url, honest: honest.session, bad: [
            "evil-dup": "appears twice", "evil-dup2": "appears twice", "evil-ctl": "raw control character",
            "evil-other": "names another session", "evil-junk": "cannot be read",
        ])
    }

    @Test func exportedFilesHoldTheSameSafeTextAsStandardOutput() throws {
        let (pg, url, database, honest) = try Self.storeWithAnHonestSeat()
        let hostile = "quiz\u{1B}]52;c;eA==\u{07}\u{9B}2J"
        var json = try Self.honestResult(pg, url, honest.session, as: "evil-esc")
        json = json.replacingOccurrences(of: "\"id\": \"fixture\"", with: #""id": "quiz\u001b]52;c;eA==\u0007\u009b2J""#)
        json = json.replacingOccurrences(of: "\"id\": \"q0\"", with: "\"id\": \"q0\\u001b[31m\"")
        Self.plant(pg, database, session: "evil-esc", assessment: hostile, result: json)
        let sandbox = try Sandbox()
        for format in ["csv", "json"] {
            let file = sandbox.root + "/out.\(format)"
            let written = try carrel(pg, ["results", "export", "--format", format, "--shared", url, "--out", file])
            #expect(written.status == 0, "\(written.out)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("evil-esc") && text.contains(honest.session), "\(text)")
            #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "\(format): \(text.debugDescription)")
            let shown = try carrel(pg, ["results", "export", "--format", format, "--shared", url])
            #expect(shown.status == 0 && shown.out.contains(text), "\(format): stdout differs from the file")
        }
    }

    @Test func aStoreURLWhosePasswordHoldsASlashNeverPrintsAnyOfIt() throws {
        let pg = try PrivatePostgres.shared()
        let closed = PrivatePostgres.freePort()
        // As typed: the password's / ends the host part, so its halves would be read as a
        // port and a database name, and printed back as part of the store's address.
        for (n, url) in ["postgresql://carrel:\(pg.port)/Hunter2Secret@127.0.0.1:\(pg.port)/carrel",
                    "postgresql://carrel:/Hunter2Secret@127.0.0.1:\(closed)/carrel",
                    "postgresql://carrel:Hunter2%2FSecret@127.0.0.1:\(closed)/carrel",
                    "postgresql://carrel:Hunter2%2FSecret@127.0.0.1:\(pg.port)/carrel",
                    "postgresql://carrel@127.0.0.1:\(closed)/carrel?password=Hunter2&host=Secret"].enumerated() {
            var commands = [["results", "list"], ["proctor", "--json"], ["results", "export", "--format", "csv"]]
            // `take` reads the URL before anything else: one it refuses ends it before a session.
            if [0, 1, 4].contains(n) { commands.append(["take", "/nonexistent.yaml"]) }
            for command in commands {
                let out = try carrel(pg, command + ["--shared", url])
                #expect(out.status != 0, "\(command) \(url)")
                #expect(!out.out.contains("Hunter2") && !out.out.contains("Secret"), "\(command) \(url): \(out.out)")
            }
        }
    }
}
