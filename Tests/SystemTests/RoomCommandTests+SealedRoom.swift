#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit

extension RoomCommandTests {
    /// A sealed room started from the console: the seat waits with no passphrase typed, the
    /// start carries the package key and the session's key wrapped to that seat, the test runs,
    /// and its records verify with the proctor's key. Neither the package key nor an answer
    /// key is anywhere in the store. Records the store's owner adds later are named, and the
    /// session is no longer verified; a killed seat is shown interrupted at once although
    /// someone holds its lock.
    @Test(.timeLimit(.minutes(3)))
    func aSealedRoomStartedFromTheConsoleVerifiesAndKeepsItsKeysOutOfTheStore() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let database = String(url.split(separator: "/").last ?? "")
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let sealed = try Self.sealedSecret(in: seatBox)
        #expect(try proctor.carrel(["room", "open", "s1", sealed, "--start", "proctor", "--machines", "any", "--shared", url]).status == 0)

        let (child, session) = try Self.waitingSeat(seatBox, sealed, pg, url: url, room: "s1", seat: "S1")
        // From a script the key goes only with --yes, after the list of seats.
        let unasked = try proctor.carrel(["proctor", "start", "--room", "s1", "--wait", "0", "--shared", url, "--no-yes"])
        #expect(unasked.status == 64, "\(unasked.out)")
        let started = try proctor.carrel(["proctor", "start", "--room", "s1", "--yes", "--wait", "20", "--shared", url])
        #expect(started.status == 0, "\(started.out)")
        // The list named the seat by the key it showed on its screen.
        let fingerprint = try #require(pg.psql("SELECT seat_key FROM carrel_sessions WHERE session = '\(session)'",
                                               database: database).output.split(separator: "\n").first.map(String.init)
                                        .flatMap(SeatBox.fingerprint))
        #expect(unasked.out.joined(separator: "\n").contains("seat key \(fingerprint)"), "\(unasked.out)")
        #expect(child.expect("keys session+package") != nil)
        #expect(child.expect("began \(session)") != nil)
        child.send("answer q1 \(Response.text("wrong").driverJSON)")
        #expect(child.expect("ack q1") != nil)

        // Live, proven with the proctor's key.
        var shown = ""
        #expect(SharedStoreTests.eventually(20) {
            shown = proctor.keyed(["proctor", "--json", "--room", "s1", "--shared", url]).output
            return shown.contains("\"verified\" : true") && shown.contains("\"status\" : \"active\"")
        }, "\(shown)")
        Self.expectRecordsOutsideTheChainNotShown(pg, database: database, session: session, url: url)

        child.send("submit")
        #expect(child.expect("finished submitted", timeout: 20) != nil)
        _ = child.readToEnd()
        var listed = proctor.keyed(Self.resultsList(url))
        #expect(SharedStoreTests.eventually(20) {
            listed = proctor.keyed(Self.resultsList(url))
            return listed.output.contains("\"verified\" : true")
        }, "\(listed.output)")

        try Self.expectNoKeyInTheStore(pg, database: database, session: session, sealed: sealed)
        Self.expectRecordsOfTheOwnerNamed(pg, database: database, session: session, url: url)
        try Self.expectAForgedResultToAddNoColumn(pg, database: database, session: session, url: url)
        Self.expectARecordWithheldFound(pg, database: database, session: session, url: url)
    }

    /// The store's owner deletes one of the seat's own records: its place in the session's
    /// chain is missing, said, and the session is no longer verified.
    static func expectARecordWithheldFound(_ pg: PrivatePostgres, database: String, session: String, url: String) {
        let chained = pg.psql("SELECT count(*) FROM carrel_records WHERE session = '\(session)' AND mac LIKE '2.%'", database: database)
        #expect((Int(chained.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 3, "the seat's records name their places: \(chained.output)")
        let deleted = pg.psql("""
            DELETE FROM carrel_records WHERE session = '\(session)' AND kind = 'answer' AND mac LIKE '2.%'
              AND seq = (SELECT min(seq) FROM carrel_records WHERE session = '\(session)' AND kind = 'answer' AND mac LIKE '2.%')
            """, database: database)
        #expect(deleted.status == 0, "\(deleted.output)")
        let listed = Proctor().keyed(resultsList(url))
        #expect(listed.output.contains("\"verified\" : false"), "\(listed.output)")
        #expect(listed.output.contains("session \(session.prefix(8)) is missing records its seat sent"), "\(listed.output)")
    }

    /// Records the seat did not write change nothing the console shows with the proctor's key:
    /// a submission, an answer, a raised hand and a refusal folded into the store's row are
    /// counted as not the seat's, and the seat stays active with its one answer, verified.
    /// Without the key the console shows the row, unverified.
    static func expectRecordsOutsideTheChainNotShown(_ pg: PrivatePostgres, database: String, session: String, url: String) {
        let forged = pg.psql("""
            INSERT INTO carrel_records (session, seq, kind, at, body, body_text, mac) VALUES
              ('\(session)', 800001, 'answer', now(), '{"item":"q2","response":{"choice":"other"},"answered":true}',
               '{"item":"q2","response":{"choice":"other"},"answered":true}', '2.90.AAAA'),
              ('\(session)', 800002, 'event', now(), '{"kind":"hand_raised","detail":""}', '{"kind":"hand_raised","detail":""}', NULL),
              ('\(session)', 800003, 'event', now(), '{"kind":"command_refused","detail":"#7 refused: proctor key revoked, call IT"}', NULL, 'x'),
              ('\(session)', 800004, 'status', now(), '{"status":"ended","end_reason":"submitted","ended_at":"2026-01-01T00:00:00Z"}', NULL, NULL)
            """, database: database)
        #expect(forged.status == 0, "\(forged.output)")
        let unkeyed = ((try? Proctor().carrel(["proctor", "--json", "--room", "s1", "--shared", url]))?.out ?? []).joined(separator: "\n")
        #expect(unkeyed.contains("\"status\" : \"submitted\""), "the store's row took them: \(unkeyed)")
        #expect(unkeyed.contains("\"verified\" : null"), "\(unkeyed)")
        var shown = ""
        #expect(SharedStoreTests.eventually(20) {
            shown = Proctor().keyed(["proctor", "--json", "--room", "s1", "--shared", url]).output
            return shown.contains("\"status\" : \"active\"")
        }, "\(shown)")
        #expect(shown.contains("\"verified\" : true"), "\(shown)")
        #expect(shown.contains("\"answered\" : 1,"), "\(shown)")
        #expect(shown.contains("\"hand\" : \"down\""), "\(shown)")
        #expect(shown.contains("\"commands_refused\" : 0"), "\(shown)")
        #expect(shown.contains("\"records_not_counted\" : 4"), "\(shown)")
        #expect(shown.contains("4 records not counted"), "\(shown)")
        #expect(!shown.contains("revoked"), "\(shown)")

        // A session announced under the same seat's name, claiming to be submitted with a hand up:
        // not started by the proctor, so shown as not started and flagged; a pause named for
        // that seat goes to the real session alone.
        let fake = pg.psql("""
            INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint, total,
                                         status, end_reason, hand, paused, answered, started_at, lock_key, last_seq, last_seen)
            VALUES ('forged-s1', 's1', 'S1', 'Forged', 'secret', 'Secret', 'x', 2, 'ended', 'submitted', 'raised', true, 2,
                    now(), 0, 0, now())
            """, database: database)
        #expect(fake.status == 0, "\(fake.output)")
        var both = ""
        #expect(SharedStoreTests.eventually(20) {
            both = Proctor().keyed(["proctor", "--json", "--room", "s1", "--shared", url]).output
            return both.contains("forged-s1")
        }, "\(both)")
        let snapshot = (try? JSONSerialization.jsonObject(with: Data(both.utf8))) as? [String: Any]
        let forgedRow = ((snapshot?["seats"] as? [[String: Any]]) ?? []).first { $0["session"] as? String == "forged-s1" } ?? [:]
        #expect(forgedRow["status"] as? String == "not_started" && forgedRow["hand"] as? String == "down", "\(both)")
        #expect((forgedRow["warnings"] as? [String])?.contains("no start signed by the proctor") == true, "\(both)")
        #expect(forgedRow["answered"] as? Int == 0 && forgedRow["paused"] as? Bool == false, "\(both)")
        let paused = Proctor().keyed(["proctor", "pause", "--room", "s1", "--seat", "S1", "--wait", "20", "--shared", url])
        #expect(paused.status == 0 && paused.output.contains("1 of 1 seat applied it"), "\(paused.output)")
        _ = Proctor().keyed(["proctor", "resume", "--room", "s1", "--seat", "S1", "--wait", "20", "--shared", url])
        _ = pg.psql("DELETE FROM carrel_sessions WHERE session = 'forged-s1'", database: database)
    }

    /// A roster with codes, on any machine: a seat whose own session did not find its candidate
    /// with the code is held back, whatever name it announces, and started only once a proctor
    /// admits it by the seat key on its screen.
    @Test(.timeLimit(.minutes(3)))
    func aSeatWhoseCandidateWasNotFoundWithTheCodeIsHeldBack() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let database = String(url.split(separator: "/").last ?? "")
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let sealed = try Self.sealedSecret(in: seatBox)
        let roster = seatBox.root + "/roster.csv"
        try "candidate,name,code\n1001,Grace Hopper,ALPHA123\n".write(toFile: roster, atomically: true, encoding: .utf8)
        let open = try proctor.carrel(["room", "open", "c1", sealed, "--roster", roster, "--start", "proctor", "--machines", "any",
                                       "--shared", url])
        #expect(open.status == 0, "\(open.out)")
        let (child, session) = try Self.waitingSeat(seatBox, sealed, pg, url: url, room: "c1", seat: "A7")
        defer { child.signal(SIGKILL) }
        _ = pg.psql("UPDATE carrel_sessions SET candidate = 'Grace Hopper', candidate_number = '1001' WHERE session = '\(session)'",
                    database: database)
        var shown = ""
        #expect(SharedStoreTests.eventually(20) {
            shown = ChildSpawn.run(ChildProcess.carrel, ["proctor", "--json", "--room", "c1", "--shared", url],
                                   environment: ProcessInfo.processInfo.environment).output
            return shown.contains("candidate not identified with a code, held back")
        }, "\(shown)")
        let start = try proctor.carrel(["proctor", "start", "--room", "c1", "--yes", "--wait", "5", "--shared", url])
        #expect(start.status == 69, "\(start.out)")
        #expect(start.out.joined(separator: "\n").contains("held back  A7: candidate not identified with the roster's code"), "\(start.out)")
        let key = try #require(pg.psql("SELECT seat_key FROM carrel_sessions WHERE session = '\(session)'", database: database)
            .output.split(separator: "\n").first.map(String.init).flatMap(SeatBox.fingerprint))
        let admitted = try proctor.carrel(["proctor", "admit", "--room", "c1", "--seat", "A7", "--seat-key", key, "--shared", url])
        #expect(admitted.status == 0, "\(admitted.out)")
        let next = try proctor.carrel(["proctor", "start", "--room", "c1", "--seat", "A7", "--yes", "--wait", "20", "--shared", url])
        #expect(next.status == 0, "\(next.out)")
        #expect(child.expect("keys session+package") != nil)
    }

    /// A result stored under a session of someone's own, with items the test does not have:
    /// exported (unverified), but its inventions add no column to the gradebook; a refused
    /// attempt (a wrong test) is no session that cannot be read, even with --strict.
    static func expectAForgedResultToAddNoColumn(_ pg: PrivatePostgres, database: String, session: String, url: String) throws {
        let genuine = pg.psql("SELECT json FROM carrel_results WHERE session = '\(session)'", database: database).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var document = try #require(try JSONSerialization.jsonObject(with: Data(genuine.utf8)) as? [String: Any])
        document["session"] = "forged-result"
        var items = try #require(document["items"] as? [[String: Any]])
        let model = try #require(items.first)
        for n in 0..<300 {
            var extra = model
            extra["id"] = "invented-\(n)"
            items.append(extra)
        }
        document["items"] = items
        let json = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self).replacingOccurrences(of: "'", with: "''")
        let inserted = pg.psql("""
            INSERT INTO carrel_sessions (session, room, seat, candidate, assessment_id, assessment_title, fingerprint, total, status,
                                         end_reason, started_at, lock_key, last_seq, last_seen)
            VALUES ('forged-result', 's1', 'Z9', 'Nobody', 'secret', 'Secret', 'x', 2, 'ended', 'submitted', now(), 0, 0, now()),
                   ('refused-1', 's1', 'Z8', 'Eve', 'other', 'Other', 'y', 2, 'wrong_test', NULL, now(), 0, 0, now());
            INSERT INTO carrel_results (session, json) VALUES ('forged-result', '\(json)');
            """, database: database)
        #expect(inserted.status == 0, "\(inserted.output)")
        let csv = Proctor().keyed(["results", "export", "--format", "csv", "--strict", "--shared", url, "--room", "s1"])
        let header = csv.output.split(separator: "\n").first { $0.hasPrefix("session,") }.map(String.init) ?? ""
        #expect(!header.contains("invented-"), "\(header)")
        #expect(header.contains(",q1") && header.contains(",q2"), "\(header)")
        #expect(csv.output.contains("forged-result"), "the forged session is still listed (unverified): \(csv.output)")
        #expect(csv.status == 0, "a refused attempt is not a session that cannot be read: \(csv.output)")
    }

    /// `results list` of room s1, as JSON.
    static func resultsList(_ url: String) -> [String] {
        ["results", "list", "--shared", url, "--room", "s1", "--json"]
    }

    /// A sealed test whose answer keys are words found nowhere else: its package's path.
    static func sealedSecret(in seatBox: Sandbox) throws -> String {
        let plain = seatBox.root + "/secret.yaml"
        try """
            carrel: 1
            id: secret
            title: Secret
            time_limit: 10m
            policy: { multiplexer: allow }
            \(TestProctor.yaml)
            sections:
              - items:
                  - {id: q1, type: text, prompt: The hidden word, accept: [quixotically]}
                  - {id: q2, type: choice, prompt: Pick, choices: [xylophonist, other], answer: xylophonist}
            """.write(toFile: plain, atomically: true, encoding: .utf8)
        let sealed = seatBox.root + "/secret.carrel"
        let seal = ChildSpawn.run(ChildProcess.carrel, ["seal", plain, "--out", sealed],
                                  input: TestProctor.passphrase + "\n" + TestProctor.passphrase + "\n",
                                  environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(seal.status == 0, "\(seal.output)")
        return sealed
    }

    /// Nothing in the store reads as the package key or an answer key.
    static func expectNoKeyInTheStore(_ pg: PrivatePostgres, database: String, session: String, sealed: String) throws {
        let dump = storeDump(pg, database: database)
        #expect(dump.contains(session), "the dump has the session's rows")
        let log = (try? String(contentsOfFile: pg.folder + "/server.log", encoding: .utf8)) ?? ""
        for (text, place) in [(dump, "store"), (log, "server log")] {
            #expect(!text.contains("quixotically") && !text.contains("xylophonist"), "no answer key in the \(place)")
        }
        // Nor the package key, in any spelling.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sealed)))
        let header = try SealedAssessment.header(of: bytes)
        let packageKey = try SealedAssessment.packageKey(passphrase: TestProctor.passphrase, salt: header.salt, cost: header.cost)
        #expect(try SealedAssessment.open(bytes, packageKey: packageKey, file: sealed).id == "secret", "the derived key is the package's")
        let spellings = [Data(packageKey).base64EncodedString(), packageKey.map { String(format: "%02x", $0) }.joined()]
        for spelling in spellings {
            #expect(!dump.contains(spelling) && !log.contains(spelling), "the package key is nowhere in the store or its log")
        }
    }

    /// The store's owner adds a result, an answer and an event to the session: each is
    /// named and not counted, and the session's own records still verify it.
    static func expectRecordsOfTheOwnerNamed(_ pg: PrivatePostgres, database: String, session: String, url: String) {
        let forged = pg.psql("""
            INSERT INTO carrel_records (session, seq, kind, at, body, body_text, mac) VALUES
              ('\(session)', 900001, 'event', now(), '{"kind":"focus_lost","detail":""}', '{"kind":"focus_lost","detail":""}', 'AAAA'),
              ('\(session)', 900002, 'answer', now(), '{"item":"q1","response":{"text":"x"},"answered":true}', NULL, NULL),
              ('\(session)', 900003, 'result', now(), (SELECT body FROM carrel_records WHERE session = '\(session)' AND kind = 'result' LIMIT 1),
                (SELECT body_text FROM carrel_records WHERE session = '\(session)' AND kind = 'result' LIMIT 1), 'forged')
            """, database: database)
        #expect(forged.status == 0, "\(forged.output)")
        let listed = Proctor().keyed(resultsList(url))
        #expect(listed.output.contains("\"verified\" : true"), "records from elsewhere unverify nothing: \(listed.output)")
        #expect(!listed.output.contains("\"verified\" : false"), "\(listed.output)")
        #expect(listed.output.contains("a result under session \(session.prefix(8)) was not written by its seat: not counted"), "\(listed.output)")
        #expect(listed.output.contains("answer record 900002 under session \(session.prefix(8)) was not written by its seat: not counted"))
        #expect(listed.output.contains("event record 900001 under session \(session.prefix(8)) was not written by its seat: not counted"))
        let csv = Proctor().keyed(["results", "export", "--format", "csv", "--shared", url, "--room", "s1"])
        #expect(csv.output.contains(",verified"), "\(csv.output)")
        #expect(csv.output.contains(",yes"))
    }
}

extension RoomCommandTests.Proctor {
    /// A command run with the proctor's passphrase on its standard input (`--passphrase-stdin`).
    func keyed(_ arguments: [String], timeout: Double = 30) -> ChildSpawn.Output {
        ChildSpawn.run(ChildProcess.carrel, arguments + ["--passphrase-stdin"],
                       input: TestProctor.passphrase + "\n", environment: ProcessInfo.processInfo.environment, timeout: timeout)
    }
}
