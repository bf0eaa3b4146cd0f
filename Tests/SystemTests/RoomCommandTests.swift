#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit

/// The proctor's commands reaching seats (the real runtime through the driver) on a real
/// PostgreSQL: queued while a seat cannot read them, then applied in order, each once.
@Suite("Proctor commands on a real PostgreSQL", .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
struct RoomCommandTests {
    /// The numbers of the commands a seat applied, from its `command N` lines, until `count`
    /// arrived or the time ran out.
    static func applied(_ child: ChildProcess, count: Int, timeout: Double = 30) -> [Int] {
        var out: [Int] = []
        let deadline = Date().addingTimeInterval(timeout)
        while out.count < count, Date() < deadline {
            guard let line = child.readLine(timeout: max(0.1, deadline.timeIntervalSinceNow)) else { break }
            // `command N left=SECONDS`
            if line.hasPrefix("command "), let n = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { out.append(n) }
        }
        return out
    }

    static func issued(_ out: [String]) -> [Int] {
        out.compactMap { line -> [Int]? in
            guard let range = line.range(of: "(command ") else { return nil }
            return line[range.upperBound...].prefix { $0 != ")" }.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }.flatMap { $0 }
    }

    /// A private PostgreSQL and a database of its own, its URL with the password in it (the
    /// sandbox's commands have no password file).
    static func store() throws -> (PrivatePostgres, String) {
        let pg = try PrivatePostgres()
        let password = try String(contentsOfFile: pg.folder + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return (pg, try pg.database().replacingOccurrences(of: "postgresql://carrel@", with: "postgresql://carrel:\(password)@"))
    }

    /// A seat of `room` waiting for the proctor's start (the driver); its session id.
    static func waitingSeat(_ box: Sandbox, _ file: String, _ pg: PrivatePostgres, url: String, room: String, seat: String) throws
        -> (ChildProcess, String) {
        let child = try box.driver(["begin", file, "--shared", url, "--room", room, "--seat", seat, "--follow", "--wait-start"],
                                   environment: ["PGPASSFILE": pg.passwordFile])
        let waiting = try #require(child.expect("waiting "))
        let session = String(waiting.split(separator: " ")[1])
        // The seat says it waits once it has asked to be announced; the store hears of it (and
        // the proctor's start finds it) when its announcement and lock reach it, later on a
        // loaded machine.
        #expect(SharedStoreTests.eventually(30) {
            let seats = (try? Proctor().carrel(["proctor", "--json", "--room", room, "--shared", url]))?.out.joined() ?? ""
            return seats.contains(session) && seats.contains("\"connected\" : true")
        }, "the waiting seat never showed as connected in the store")
        return (child, session)
    }

    /// Room s1 of `sealed` opened for the proctor's start on any machine, and a seat S1 of it
    /// started from it (the driver): the seat and its session, begun.
    static func startedSeat(_ box: Sandbox, _ sealed: String, _ pg: PrivatePostgres, url: String) throws -> (ChildProcess, String) {
        let proctor = Proctor()
        #expect(try proctor.carrel(["room", "open", "s1", sealed, "--start", "proctor", "--machines", "any", "--shared", url]).status == 0)
        let (child, session) = try waitingSeat(box, sealed, pg, url: url, room: "s1", seat: "S1")
        let started = try proctor.carrel(["proctor", "start", "--room", "s1", "--yes", "--wait", "20", "--shared", url])
        #expect(started.status == 0, "\(started.out)")
        #expect(child.expect("began \(session)") != nil)
        return (child, session)
    }

    /// The proctor's commands (no state directory of their own).
    struct Proctor {
        func carrel(_ arguments: [String]) throws -> (status: Int32, out: [String]) {
            let (arguments, input) = TestProctor.signing(arguments)
            let run = ChildSpawn.run(ChildProcess.carrel, arguments, input: input, environment: ProcessInfo.processInfo.environment, timeout: 60)
            return (run.status, run.output.split(separator: "\n").map(String.init))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func commandsQueuedWhileTheStoreRestartsAndWhileASeatIsFrozenApplyInOrderOnce() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let file = try seatBox.assessment(items: 4, extra: TestProctor.yaml)
        let open = try proctor.carrel(["room", "open", "q1", file, "--shared", url])
        #expect(open.status == 0, "\(open.out)")
        let child = try seatBox.driver(["begin", file, "--shared", url, "--room", "q1", "--seat", "Q1", "--follow"],
                                       environment: ["PGPASSFILE": pg.passwordFile])
        let began = try #require(child.expect("began "))
        let session = String(began.split(separator: " ")[1])
        #expect(SharedStoreTests.eventually(20) {
            ((try? proctor.carrel(["proctor", "--json", "--room", "q1", "--shared", url]))?.out.joined().contains(session)) ?? false
        })

        // The store restarts: the seat's connection is gone; commands issued as it comes back.
        pg.stop()
        sleep(1)
        try pg.start()
        var ids: [Int] = []
        for words in [["message", "one"], ["time", "+1m"], ["message", "two"]] {
            let out = try proctor.carrel(["proctor", words[0], "--room", "q1", words[1], "--wait", "0", "--shared", url])
            ids += Self.issued(out.out)
        }
        #expect(ids.count == 3)
        #expect(Self.applied(child, count: 3) == ids)

        // The seat frozen (SIGSTOP): the commands wait in the store, and apply once it goes on.
        child.signal(SIGSTOP)
        var more: [Int] = []
        for words in [["pause", ""], ["resume", ""], ["message", "three"]] {
            let out = try proctor.carrel(["proctor", words[0], "--room", "q1"] + (words[1].isEmpty ? [] : [words[1]])
                                         + ["--wait", "0", "--shared", url])
            more += Self.issued(out.out)
        }
        child.signal(SIGCONT)
        #expect(more.count == 3)
        #expect(Self.applied(child, count: 3) == more)
        // Nothing applied twice: the journal has each command once, in order.
        let events = try seatBox.journal().events(session: session).filter { $0.kind == "proctor_command" }
        let numbers = events.compactMap { ProctorCommand(journalDetail: $0.detail)?.id }.map(Int.init)
        #expect(numbers == ids + more)
        child.send("submit")
        #expect(child.expect("finished ", timeout: 20) != nil)
    }

    /// Commands written straight into the store by its owner (full database access): unsigned,
    /// signed with another passphrase's key, a genuine one replayed, one changed after signing,
    /// and correctly signed ones for another room, seat or test or out of their time. The seat
    /// applies none, journals each with why, and the console shows them; a genuine command
    /// after them all still applies.
    @Test(.timeLimit(.minutes(3)))
    func commandsForgedInTheStoreAreRefusedLoggedAndShownAndNoneApplies() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let file = try seatBox.assessment(items: 3, extra: TestProctor.yaml)
        let assessment = try #require(AssessmentReader.read(text: try String(contentsOfFile: file, encoding: .utf8), file: file).assessment)
        #expect(try proctor.carrel(["room", "open", "q2", file, "--shared", url]).status == 0)
        let child = try seatBox.driver(["begin", file, "--shared", url, "--room", "q2", "--seat", "Q1", "--follow"],
                                       environment: ["PGPASSFILE": pg.passwordFile])
        let began = try #require(child.expect("began "))
        let session = String(began.split(separator: " ")[1])
        // The seat says it began once its journal has; the store hears of it when the seat's
        // records reach it, later on a loaded machine. A command sent before is for no seat.
        #expect(SharedStoreTests.eventually(20) {
            pg.rows("SELECT status FROM carrel_sessions WHERE session = '\(session)'", url: url).first?.first == "active"
        })

        // A genuine message, signed by `carrel proctor` in its own process, verified at the seat.
        let genuine = try proctor.carrel(["proctor", "message", "--room", "q2", "genuine", "--wait", "20", "--shared", url])
        #expect(genuine.status == 0, "\(genuine.out)")
        let genuineID = try #require(Self.issued(genuine.out).first)
        #expect(Self.applied(child, count: 1) == [genuineID])

        // The forgeries, as the database's owner writes them.
        let database = String(url.split(separator: "/").last ?? "")
        let other = try #require(try ProctorKey.make(passphrase: TestProctor.otherPassphrase, logRounds: 10)
            .signingKey(passphrase: TestProctor.otherPassphrase))
        let proctorKey = try #require(try ProctorKey(parsing: TestProctor.key).signingKey(passphrase: TestProctor.passphrase))
        let now = Date().timeIntervalSince1970
        func signed(room: String = "q2", seat: String? = nil, _ action: ProctorAction = .end, issued: Double = now,
                    expires: Double? = nil, fingerprint: String = Fingerprint.of(assessment),
                    key: ProctorSigningKey) throws -> String {
            let envelope = CommandEnvelope(room: room, seat: seat, action: action, sequence: CommandEnvelope.sequence(at: issued) + 1,
                                           issued: issued, expires: expires, fingerprint: fingerprint)
            let s = try SignedCommand.sign(envelope, with: key)
            return "INSERT INTO carrel_commands (room, seat, action, envelope, signature, sequence) VALUES ('q2', NULL, 'end', $e$\(s.envelope)$e$, '\(s.signature)', 1)"
        }
        let forgeries: [(String, String)] = [
            ("not signed", "INSERT INTO carrel_commands (room, seat, action) VALUES ('q2', NULL, 'end')"),
            ("does not verify", try signed(key: other)),
            ("replayed", "INSERT INTO carrel_commands (room, seat, action, argument, envelope, signature, sequence) SELECT room, seat, action, argument, envelope, signature, sequence FROM carrel_commands WHERE id = \(genuineID)"),
            ("does not verify", "INSERT INTO carrel_commands (room, seat, action, argument, envelope, signature, sequence) SELECT room, seat, 'end', argument, replace(envelope, '\"message\"', '\"end\"'), signature, sequence FROM carrel_commands WHERE id = \(genuineID)"),
            ("for room q9", try signed(room: "q9", key: proctorKey)),
            ("for seat Z9", try signed(seat: "Z9", key: proctorKey)),
            ("for another test", try signed(fingerprint: "sha256:" + String(repeating: "0", count: 64), key: proctorKey)),
            ("expired", try signed(issued: now - 3600, expires: now - 3000, key: proctorKey)),
        ]
        for (_, sql) in forgeries {
            let out = pg.psql(sql, database: database)
            #expect(out.status == 0, "\(sql): \(out.output)")
        }
        var refusals: [String] = []
        let deadline = Date().addingTimeInterval(40)
        while refusals.count < forgeries.count, Date() < deadline {
            guard let line = child.readLine(timeout: max(0.1, deadline.timeIntervalSinceNow)) else { break }
            #expect(!line.hasPrefix("command ") && !line.hasPrefix("finished "), "nothing forged applies: \(line)")
            if line.hasPrefix("refused ") { refusals.append(line) }
        }
        #expect(refusals.count == forgeries.count, "\(refusals)")
        for ((why, _), line) in zip(forgeries, refusals) {
            #expect(line.contains(why) || (why == "replayed" && line.contains("not newer")), "\(why): \(line)")
        }
        // The console shows them.
        var shown = ""
        #expect(SharedStoreTests.eventually(20) {
            shown = (try? proctor.carrel(["proctor", "--json", "--room", "q2", "--shared", url]))?.out.joined() ?? ""
            return shown.contains("\"commands_refused\" : \(forgeries.count)")
        }, "\(shown)")
        #expect(shown.contains("refused \(forgeries.count) commands"))
        // A genuine command after them all still applies, and the journal kept every refusal.
        let pause = try proctor.carrel(["proctor", "pause", "--room", "q2", "--wait", "20", "--shared", url])
        #expect(pause.status == 0, "\(pause.out)")
        let refused = try seatBox.journal().events(session: session).filter { $0.kind == "command_refused" }
        #expect(refused.count == forgeries.count)
        #expect(try proctor.carrel(["proctor", "end", "--room", "q2", "--wait", "20", "--shared", url]).status == 0)
        #expect(child.expect("finished ended_by_proctor", timeout: 20) != nil)
    }

    /// The proctor's commands need the passphrase that made the test's key; a test without a
    /// key is watched, never commanded.
    @Test(.timeLimit(.minutes(4)))
    func aWrongPassphraseOrATestWithoutAKeySendsNothing() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let box = try Sandbox()
        let keyed = try box.assessment("keyed.yaml", items: 2, extra: TestProctor.yaml)
        let plain = try box.assessment("plain.yaml", items: 2)
        let environment = ProcessInfo.processInfo.environment
        #expect(ChildSpawn.run(ChildProcess.carrel, ["room", "open", "k1", keyed, "--shared", url], environment: environment).status == 0)
        let wrong = ChildSpawn.run(ChildProcess.carrel, ["proctor", "pause", "--room", "k1", "--shared", url, "--passphrase-stdin"],
                                   input: TestProctor.otherPassphrase + "\n", environment: environment, timeout: 30)
        #expect(wrong.status == 77, "\(wrong.output)")
        #expect(wrong.output.contains("wrong proctor passphrase for room k1"))
        let open = ChildSpawn.run(ChildProcess.carrel, ["room", "open", "p1", plain, "--shared", url], environment: environment)
        #expect(open.status == 0)
        #expect(open.output.contains("no proctor key: seats can be watched, not commanded"))
        let none = ChildSpawn.run(ChildProcess.carrel, ["proctor", "pause", "--room", "p1", "--shared", url, "--passphrase-stdin"],
                                  input: TestProctor.passphrase + "\n", environment: environment, timeout: 30)
        #expect(none.status == 69)
        #expect(none.output.contains("has no proctor key"), "\(none.output)")
        let waiting = ChildSpawn.run(ChildProcess.carrel, ["room", "open", "p2", plain, "--start", "proctor", "--machines", "any", "--shared", url],
                                     environment: environment)
        #expect(waiting.status == 65)
        #expect(waiting.output.contains("could never be started"))
        let count = pg.psql("SELECT count(*) FROM carrel_commands", database: String(url.split(separator: "/").last ?? ""))
        #expect(count.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "nothing was sent")
    }

    /// A seat waiting for the proctor begins only with a start the proctor signed: starts the
    /// store's owner writes (unsigned, another key, for another seat) leave it waiting, and
    /// the console shows each refused.
    @Test(.timeLimit(.minutes(4)))
    func aWaitingSeatRefusesForgedStartsAndBeginsWithTheProctors() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let file = try seatBox.assessment(items: 2, extra: TestProctor.yaml)
        let assessment = try #require(AssessmentReader.read(text: try String(contentsOfFile: file, encoding: .utf8), file: file).assessment)
        #expect(try proctor.carrel(["room", "open", "w1", file, "--start", "proctor", "--machines", "any", "--shared", url]).status == 0)
        let (child, _) = try Self.waitingSeat(seatBox, file, pg, url: url, room: "w1", seat: "W1")
        let database = String(url.split(separator: "/").last ?? "")
        let other = try #require(try ProctorKey.make(passphrase: TestProctor.otherPassphrase, logRounds: 10)
            .signingKey(passphrase: TestProctor.otherPassphrase))
        let proctorKey = try #require(try ProctorKey(parsing: TestProctor.key).signingKey(passphrase: TestProctor.passphrase))
        func start(seat: String?, key: ProctorSigningKey) throws -> String {
            let now = Date()
            let envelope = CommandEnvelope(room: "w1", seat: seat, action: .start, sequence: CommandEnvelope.nextSequence(now: now, after: 0),
                                           issued: now.timeIntervalSince1970, fingerprint: Fingerprint.of(assessment))
            let s = try SignedCommand.sign(envelope, with: key)
            return "INSERT INTO carrel_commands (room, seat, action, envelope, signature, sequence) VALUES ('w1', NULL, 'start', $e$\(s.envelope)$e$, '\(s.signature)', 1)"
        }
        for sql in ["INSERT INTO carrel_commands (room, seat, action) VALUES ('w1', NULL, 'start')",
                    try start(seat: nil, key: other), try start(seat: "W2", key: proctorKey)] {
            let out = pg.psql(sql, database: database)
            #expect(out.status == 0, "\(out.output)")
        }
        #expect(child.expect("began ", timeout: 4) == nil, "no forged start begins the seat")
        var shown = ""
        #expect(SharedStoreTests.eventually(20) {
            shown = (try? proctor.carrel(["proctor", "--json", "--room", "w1", "--shared", url]))?.out.joined() ?? ""
            return shown.contains("\"commands_refused\" : 3")
        }, "\(shown)")
        #expect(shown.contains("\"waiting\" : true"))
        // While it waits, the seat rehearsed its begin on its connection, in a transaction it
        // rolled back: the store counted the records written, and keeps none of them, nor the
        // claim of liveness; the session is still the waiting one.
        var counts: [[String]] = []
        #expect(SharedStoreTests.eventually(20) {
            counts = pg.rows("""
                SELECT (SELECT count(*) FROM carrel_records), n_tup_ins,
                       (SELECT count(*) FROM carrel_sessions WHERE status = 'not_started' AND backend_pid IS NULL AND live_mac IS NULL)
                FROM pg_stat_user_tables WHERE relname = 'carrel_records'
                """, url: url)
            return counts.first.map { $0.count == 3 && (Int($0[1]) ?? 0) >= 4 } ?? false
        }, "\(counts)")
        #expect(counts.first?.first == "0")
        #expect(counts.first?.last == "1")
        let started = try proctor.carrel(["proctor", "start", "--room", "w1", "--wait", "20", "--shared", url])
        #expect(started.status == 0, "\(started.out)")
        #expect(child.expect("began ", timeout: 20) != nil)
        child.send("submit")
        #expect(child.expect("finished ", timeout: 20) != nil)
    }

    /// A seat whose process dies is shown interrupted at once by a console with the proctor's
    /// key, although another connection holds the seat's advisory lock and claims its liveness.
    @Test(.timeLimit(.minutes(4)))
    func aKilledSeatIsInterruptedWhateverLocksAnotherHolds() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let database = String(url.split(separator: "/").last ?? "")
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let file = try seatBox.assessment(items: 2, extra: TestProctor.yaml)
        #expect(try proctor.carrel(["room", "open", "k1", file, "--start", "proctor", "--machines", "any", "--shared", url]).status == 0)
        let (child, session) = try Self.waitingSeat(seatBox, file, pg, url: url, room: "k1", seat: "K1")
        #expect(try proctor.carrel(["proctor", "start", "--room", "k1", "--wait", "20", "--shared", url]).status == 0)
        #expect(child.expect("keys session") != nil)
        #expect(child.expect("began") != nil)
        func console() -> String {
            ChildSpawn.run(ChildProcess.carrel, ["proctor", "--json", "--room", "k1", "--shared", url, "--passphrase-stdin"],
                           input: TestProctor.passphrase + "\n", environment: ProcessInfo.processInfo.environment, timeout: 30).output
        }
        var shown = ""
        #expect(SharedStoreTests.eventually(20) {
            shown = console()
            return shown.contains("\"verified\" : true") && shown.contains("\"status\" : \"active\"")
        }, "\(shown)")
        // A session started with keys is never sent keys again, even set back to waiting with
        // another seat key by whoever can write the store.
        let other = SeatBox().publicKey
        #expect(pg.psql("UPDATE carrel_sessions SET status = 'not_started', seat_key = '\(other)' WHERE session = '\(session)'",
                        database: database).status == 0)
        _ = try proctor.carrel(["proctor", "start", "--room", "k1", "--wait", "0", "--shared", url])
        #expect(pg.psql("SELECT count(*) FROM carrel_commands WHERE session = '\(session)' AND action = 'start'",
                        database: database).output.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(pg.psql("UPDATE carrel_sessions SET status = 'active' WHERE session = '\(session)'", database: database).status == 0)
        // Another connection waits for the seat's lock, takes it when the seat dies, and
        // replays the seat's own claim of liveness (its MAC) for itself.
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSFILE"] = pg.passwordFile
        let psql = ChildSpawn.which("psql", environment: environment) ?? "/usr/bin/psql"
        let holder = try ChildProcess(psql, ["-X", "-q", "-h", "127.0.0.1", "-p", String(pg.port), "-U", "carrel", "-d", database,
                                             "-c", "SELECT pg_advisory_lock(hashtextextended('\(session)', 0))",
                                             "-c", "SELECT carrel_live('\(session)', (SELECT live_mac FROM carrel_sessions WHERE session = '\(session)'), NULL)",
                                             "-c", "SELECT pg_sleep(30)"], environment: environment)
        defer { holder.signal(SIGTERM) }
        child.signal(SIGKILL)
        let killed = Date()
        #expect(SharedStoreTests.eventually(20) {
            shown = console()
            return shown.contains("\"status\" : \"interrupted\"")
        }, "\(shown)")
        #expect(Date().timeIntervalSince(killed) < 10, "shown interrupted soon after the kill")
    }

    /// Records written first under a session's next sequence numbers: they no longer keep the
    /// seat's own out (a session with a key), and a seat whose record the store did not keep
    /// (a session without one) says so instead of "connected".
    @Test(.timeLimit(.minutes(3)))
    func recordsWrittenFirstCannotHideASeatsOwnAndTheSeatSaysWhenOneWasNotKept() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let database = String(url.split(separator: "/").last ?? "")
        let proctor = Proctor()
        func prefill(_ session: String) {
            let out = pg.psql("""
                INSERT INTO carrel_records (session, seq, kind, at, body, body_text)
                SELECT '\(session)', g, 'answer', now(), '{"item":"q0","response":null,"answered":false}',
                       '{"item":"q0","response":null,"answered":false}'
                FROM generate_series((SELECT coalesce(max(seq), 0) + 1 FROM carrel_records WHERE session = '\(session)'),
                                     (SELECT coalesce(max(seq), 0) + 400 FROM carrel_records WHERE session = '\(session)')) g
                """, database: database)
            #expect(out.status == 0, "\(out.output)")
        }

        // A session the proctor's start gave a key: its records are kept beside the forged ones.
        let keyedBox = try Sandbox()
        let file = try keyedBox.assessment(items: 2, extra: TestProctor.yaml)
        #expect(try proctor.carrel(["room", "open", "r1", file, "--start", "proctor", "--machines", "any", "--shared", url]).status == 0)
        let (keyed, session) = try Self.waitingSeat(keyedBox, file, pg, url: url, room: "r1", seat: "R1")
        #expect(try proctor.carrel(["proctor", "start", "--room", "r1", "--wait", "20", "--shared", url]).status == 0)
        #expect(keyed.expect("began") != nil)
        #expect(SharedStoreTests.eventually(20) {
            pg.psql("SELECT count(*) FROM carrel_records WHERE session = '\(session)'", database: database).output.contains("1")
        })
        prefill(session)
        keyed.send("answer q0 \(Response.text("mine").driverJSON)")
        #expect(keyed.expect("ack q0") != nil)
        #expect(SharedStoreTests.eventually(20) {
            pg.psql("SELECT count(*) FROM carrel_records WHERE session = '\(session)' AND mac IS NOT NULL AND body_text LIKE '%mine%'",
                    database: database).output.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }, "the seat's own answer is in the store beside the forged ones")
        keyed.send("store")
        #expect(keyed.expect("store connected") != nil)
        keyed.send("submit")
        #expect(keyed.expect("finished ", timeout: 20) != nil)

        // A session without a key (its room lets the candidate start): a record written first
        // keeps the seat's out, and the seat says so.
        let plainBox = try Sandbox()
        let plain = try plainBox.assessment(items: 2, extra: TestProctor.yaml)
        #expect(try proctor.carrel(["room", "open", "r2", plain, "--shared", url]).status == 0)
        let open = try plainBox.driver(["begin", plain, "--shared", url, "--room", "r2", "--seat", "R2", "--follow"],
                                       environment: ["PGPASSFILE": pg.passwordFile])
        let began = try #require(open.expect("began "))
        let other = String(began.split(separator: " ")[1])
        #expect(SharedStoreTests.eventually(20) {
            pg.psql("SELECT count(*) FROM carrel_records WHERE session = '\(other)'", database: database).output.contains("1")
        })
        prefill(other)
        open.send("answer q0 \(Response.text("mine").driverJSON)")
        #expect(open.expect("ack q0") != nil)
        var said = ""
        #expect(SharedStoreTests.eventually(20) {
            open.send("store")
            said = open.expect("store ") ?? ""
            return said.contains("did not keep what this seat sent")
        }, "\(said)")
        open.send("submit")
        #expect(open.expect("finished ", timeout: 20) != nil)
    }
}
