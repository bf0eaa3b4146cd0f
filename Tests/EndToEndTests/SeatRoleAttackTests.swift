#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing

/// A student who knows the seat role's password (it sits in an account students use), with a
/// shell and psql, against a store set up by `carrel store init`: what they try, and that none
/// of it reaches another session, stalls another seat or the proctor, fills the store or
/// lists the roster.
@Suite("The seat role in a student's hands (PostgreSQL)")
struct SeatRoleAttackTests {
    static let genuineToken = String(repeating: "G", count: 43)
    static let attackerToken = String(repeating: "A", count: 43)

    /// SQL as the seat role, as psql runs it (unaligned, tuples only).
    static func seat(_ lab: RoomEndToEndTests.Lab, _ sql: String, timeout: Double = 30) -> ChildSpawn.Output {
        ChildSpawn.run(psql, ["-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-d", lab.seat, "-c", sql],
                       environment: ProcessInfo.processInfo.environment, timeout: timeout)
    }

    static func owner(_ lab: RoomEndToEndTests.Lab, _ sql: String) -> ChildSpawn.Output {
        ChildSpawn.run(psql, ["-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-d", lab.owner, "-c", sql],
                       environment: ProcessInfo.processInfo.environment, timeout: 30)
    }

    static var psql: String { ChildSpawn.which("psql", environment: ProcessInfo.processInfo.environment) ?? "/usr/bin/psql" }

    static func publish(_ session: String, token: String, seq: Int, kind: String = "event", body: String) -> String {
        """
        SELECT kept || '|' || coalesce(refused, '') FROM carrel_publish(ARRAY['\(session)'], ARRAY['\(token)'], ARRAY[''],
          ARRAY[\(seq)]::int8[], ARRAY['\(kind)'], ARRAY[now()], ARRAY[$b$\(body)$b$], ARRAY[''])
        """
    }

    /// A genuine seat's session, announced in `room` and with one record kept.
    static func genuine(_ lab: RoomEndToEndTests.Lab, _ session: String, room: String = "lab1", seat: String = "A1") {
        let hello = Self.seat(lab, "SELECT carrel_hello('\(session)', '{\"room\":\"\(room)\",\"seat\":\"\(seat)\"}', '\(genuineToken)')")
        #expect(hello.output.trimmingCharacters(in: .whitespacesAndNewlines) == "t", "\(hello.output)")
        let kept = Self.seat(lab, publish(session, token: genuineToken, seq: 1, kind: "event", body: #"{"kind":"hand_raised"}"#))
        #expect(kept.output.hasPrefix("1|"), "\(kept.output)")
    }

    static let enabled = TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil)

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func anotherSessionsIdBuysNothingWithoutItsToken() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        Self.genuine(lab, "victim")
        #expect(Self.owner(lab, "INSERT INTO carrel_commands (room, seat, action, envelope, signature, session) VALUES ('lab1', 'A1', 'start', 'secret envelope', 'sig', 'victim')").status == 0)
        #expect(Self.owner(lab, "INSERT INTO carrel_marks (session, item, points, comment) VALUES ('victim', 'q1', 1, 'a private comment')").status == 0)
        let before = Self.owner(lab, "SELECT status, hand, last_seen, records_count FROM carrel_sessions WHERE session = 'victim'").output

        // Writing: directly, through every old call that trusted an id, and through every new
        // one with a wrong, empty or absent token (or a wrong one to replace).
        for sql in [
            "INSERT INTO carrel_records (session, seq, kind, at, body) VALUES ('victim', 9, 'status', now(), '{\"status\":\"ended\"}')",
            "SELECT carrel_hello('victim', '{\"room\":\"lab1\"}')",
            "SELECT carrel_pulse('victim', 999)",
            "SELECT carrel_live('victim', 'mac', 1)",
            "SELECT carrel_command_refused('victim', 'forged')",
            "SELECT carrel_seat_kept(ARRAY['victim'], ARRAY[1]::int8[], ARRAY[''], ARRAY[''])",
            "SELECT * FROM carrel_seat_starts('lab1', 'A1', 0)",
            "SELECT * FROM carrel_seat_signed_commands('lab1', 'A1', 0)",
            "SELECT * FROM carrel_seat_marks(ARRAY['victim'], 0)",
            "SELECT * FROM carrel_roster_candidate('lab1', 'A1', '1001')",
            "SELECT * FROM carrel_sessions",
        ] {
            let out = Self.seat(lab, sql)
            #expect(out.status != 0 && out.output.contains("permission denied"), "\(sql): \(out.output)")
        }
        for token in [Self.attackerToken, "", "short"] {
            for sql in [
                "SELECT carrel_hello('victim', '{\"room\":\"lab1\",\"seat\":\"Z9\"}', '\(token)')",
                "SELECT carrel_live('victim', '\(token)', NULL, 'mac', 1)",
                "SELECT carrel_live('victim', '\(token)', '\(Self.attackerToken)', 'mac', 1)",
                "SELECT carrel_pulse('victim', '\(token)', NULL, 999)",
                "SELECT carrel_command_refused('victim', '\(token)', NULL, 'forged')",
            ] {
                let out = Self.seat(lab, sql)
                #expect(out.status != 0 || out.output.trimmingCharacters(in: .whitespacesAndNewlines) == "f", "\(sql): \(out.output)")
            }
            let forged = Self.seat(lab, Self.publish("victim", token: token, seq: 2, kind: "status", body: #"{"status":"ended","end_reason":"submitted"}"#))
            #expect(forged.output.hasPrefix("0|") && forged.output.contains("not proven"), "\(forged.output)")
            // Reading: the start addressed to it, its commands, its marks.
            for sql in ["SELECT count(*) FROM carrel_seat_commands('victim', '\(token)', NULL, 0, true)",
                        "SELECT count(*) FROM carrel_seat_commands('victim', '\(token)', NULL, 0, false)",
                        "SELECT count(*) FROM carrel_seat_marks(ARRAY['victim'], ARRAY['\(token)'], 0)"] {
                #expect(Self.seat(lab, sql).output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(sql)")
            }
        }
        // A batch that names the session with its own token beside the real one's id.
        let mixed = Self.seat(lab, """
            SELECT kept || '|' || coalesce(refused, '') FROM carrel_publish(ARRAY['victim', 'victim'], ARRAY['\(Self.attackerToken)', '\(Self.genuineToken)x'],
              ARRAY['', ''], ARRAY[3, 4]::int8[], ARRAY['event', 'event'], ARRAY[now(), now()], ARRAY['{}', '{}'], ARRAY['', ''])
            """)
        #expect(mixed.output.hasPrefix("0|"), "\(mixed.output)")
        let after = Self.owner(lab, "SELECT status, hand, last_seen, records_count FROM carrel_sessions WHERE session = 'victim'").output
        #expect(after == before, "nothing of the victim's row changed")
        #expect(Self.owner(lab, "SELECT count(*) FROM carrel_records WHERE session = 'victim'").output.hasPrefix("1"))
        // Its own seat still reads its start and marks, and writes.
        #expect(Self.seat(lab, "SELECT count(*) FROM carrel_seat_commands('victim', '\(Self.genuineToken)', NULL, 0, true)").output.hasPrefix("1"))
        #expect(Self.seat(lab, "SELECT count(*) FROM carrel_seat_marks(ARRAY['victim'], ARRAY['\(Self.genuineToken)'], 0)").output.hasPrefix("1"))
        #expect(Self.seat(lab, Self.publish("victim", token: Self.genuineToken, seq: 5, body: "{}")).output.hasPrefix("1|"))
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func aTransactionHeldOpenDelaysNoOtherSeatAndNotTheProctorsStart() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        Self.genuine(lab, "honest", seat: "A1")
        Self.genuine(lab, "holder", seat: "A2")
        // The attacker lifts its own limits and holds every lock its session's calls take.
        let hold = """
            SET statement_timeout = 0; SET lock_timeout = 0; SET idle_in_transaction_session_timeout = 0;
            BEGIN;
            SELECT carrel_pulse('holder', '\(Self.genuineToken)', NULL, 1);
            SELECT * FROM carrel_publish(ARRAY['holder'], ARRAY['\(Self.genuineToken)'], ARRAY[''], ARRAY[7]::int8[], ARRAY['event'],
              ARRAY[now()], ARRAY['{"kind":"hand_raised"}'], ARRAY['']);
            SELECT carrel_seat_lock('holder', '\(Self.genuineToken)', NULL);
            SELECT pg_sleep(60);
            """
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let holder = try ChildSpawn.spawn(Self.psql, ["-X", "-q", "-d", lab.seat, "-c", hold],
                                          environment: ProcessInfo.processInfo.environment, stdin: null, stdout: null, stderr: null).get()
        defer {
            kill(holder, SIGKILL)
            var status: Int32 = 0
            waitpid(holder, &status, 0)
            _ = Self.owner(lab, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()")
        }
        #expect(Eventually.poll(10) {
            Self.owner(lab, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND state = 'active' AND pid <> pg_backend_pid()").output.hasPrefix("1")
        }, "the attacker's transaction is open")
        let began = Date()
        #expect(Self.seat(lab, Self.publish("honest", token: Self.genuineToken, seq: 2, body: #"{"kind":"focus_lost"}"#), timeout: 20).output.hasPrefix("1|"))
        #expect(Self.seat(lab, "SELECT carrel_live('honest', '\(Self.genuineToken)', NULL, 'mac', 3)", timeout: 20).output.hasPrefix("t"))
        #expect(Self.seat(lab, "SELECT count(*) FROM carrel_seat_commands('honest', '\(Self.genuineToken)', NULL, 0, false)", timeout: 20).status == 0)
        // The proctor starts the room, the holder's session included.
        let start = Self.owner(lab, """
            INSERT INTO carrel_commands (room, seat, action, envelope, signature, session)
            VALUES ('lab1', 'A1', 'start', 'e', 's', 'honest'), ('lab1', 'A2', 'start', 'e', 's', 'holder')
            """)
        #expect(start.status == 0, "\(start.output)")
        let took = Date().timeIntervalSince(began)
        #expect(took < 8, "a held transaction delayed the others by \(took) s")
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func aFloodStopsAtItsQuotaAndTheRoomGoesOn() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        #expect(Self.owner(lab, """
            INSERT INTO carrel_rooms (room, fingerprint, assessment_id, assessment_title, items, start_mode, carrel_version, carrel_digest)
            VALUES ('lab1', 'f', 'a', 'A test', 3, 'proctor', '1', 'd')
            """).status == 0)
        Self.genuine(lab, "honest")
        let size = { Int64(Self.owner(lab, "SELECT pg_database_size(current_database())").output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 }
        let empty = size()
        // One session of the attacker's own, filled with records of 3 MB.
        #expect(Self.seat(lab, "SELECT carrel_hello('flood', '{\"room\":\"lab1\",\"seat\":\"Z1\"}', '\(Self.attackerToken)')").output.hasPrefix("t"))
        var refused = ""
        for seq in 1...20 {
            let out = Self.seat(lab, """
                SELECT kept || '|' || coalesce(refused, '') FROM carrel_publish(ARRAY['flood'], ARRAY['\(Self.attackerToken)'], ARRAY[''],
                  ARRAY[\(seq)]::int8[], ARRAY['event'], ARRAY[now()],
                  ARRAY['{"kind":"x","detail":"' || repeat(md5(random()::text), 93750) || '"}'], ARRAY[''])
                """, timeout: 60)
            if out.output.hasPrefix("0|") { refused = out.output; break }
        }
        #expect(refused.contains("quota"), "the flood was refused at its quota: \(refused)")
        // Made again and again, or dated long ago, sessions stop at the room's quota.
        let made = Self.seat(lab, """
            DO $$ BEGIN FOR i IN 1..300 LOOP
              PERFORM carrel_hello('many-' || i, '{"room":"lab1","seat":"Z"}', '\(Self.attackerToken)');
              PERFORM carrel_publish(ARRAY['many-' || i], ARRAY['\(Self.attackerToken)'], ARRAY[''], ARRAY[1]::int8[], ARRAY['session'],
                ARRAY['2000-01-01'::timestamptz], ARRAY['{"room":"elsewhere"}'], ARRAY['']);
            END LOOP; END $$
            """, timeout: 60)
        #expect(made.status != 0 && made.output.contains("quota"), "\(made.output)")
        let count = Self.owner(lab, "SELECT count(*) FROM carrel_sessions WHERE session LIKE 'many-%'").output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((Int(count) ?? 999) <= 100, "\(count) sessions")
        let grown = size() - empty
        #expect(grown < 80_000_000, "the store grew by \(grown) bytes")
        // The genuine seat goes on publishing.
        #expect(Self.seat(lab, Self.publish("honest", token: Self.genuineToken, seq: 2, body: #"{"kind":"focus_lost"}"#)).output.hasPrefix("1|"))
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func theRosterAnswersOnlyTheRightNumberAndCodeAndHoldsAGuessedCandidate() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        let salt = try Self.codeRoom(lab)
        #expect(!salt.isEmpty)
        func hash(_ number: String, _ code: String?) -> String { Self.codeHash(number, code, salt: salt) }
        func announce(_ session: String, _ token: String = Self.genuineToken) { Self.announce(lab, session, token) }
        for session in ["s0", "s1", "s2", "s3", "s4"] { announce(session) }
        for session in ["s9", "s", "r1", "r2"] { announce(session, Self.attackerToken) }
        func lookUp(_ number: String, _ code: String?, session: String = "s1", token: String = Self.genuineToken) -> String {
            Self.lookUp(lab, number, hash(number, code), session: session, token: token)
        }
        // A try answered in its own transaction, or to another session, says nothing, and a
        // try rolled back leaves nothing to ask about; every committed try counts.
        let same = Self.seat(lab, """
            SELECT c.outcome FROM carrel_candidate(carrel_candidate_try('lab1', 's0', '\(Self.genuineToken)', '1001', \(hash("1001", "7F3K-92QD"))),
              'A1', 's0', '\(Self.genuineToken)') c
            """)
        #expect(same.output.trimmingCharacters(in: .whitespacesAndNewlines) == "no_match", "\(same.output)")
        let other = Self.seat(lab, "SELECT carrel_candidate_try('lab1', 's9', '\(Self.attackerToken)', '1001', \(hash("1001", "7F3K-92QD")))")
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Self.seat(lab, "SELECT outcome FROM carrel_candidate(\(other), 'A1', 's8', '\(Self.attackerToken)')").output.hasPrefix("no_match"))
        // Listing by number: nothing, and a wrong code answers as a number not on the roster.
        let listed = Self.seat(lab, """
            SELECT count(*) FROM generate_series(990, 1010) n, carrel_candidate(carrel_candidate_try('lab1', 's', '\(Self.attackerToken)', n::text, NULL), 'A1', 's', '\(Self.attackerToken)') c
            WHERE c.name IS NOT NULL
            """)
        #expect(listed.output.hasPrefix("0"), "\(listed.output)")
        #expect(lookUp("4242", "7F3K-92QD") == "no_match|")
        #expect(lookUp("1001", "7F3K-92QE") == "no_match|")
        #expect(lookUp("1001", "7f3k 92qd") == "found|Ada Lovelace", "the card's code, typed as it comes")
        // Guesses rolled back still count.
        for _ in 0..<5 {
            let out = Self.seat(lab, """
                BEGIN; SELECT carrel_candidate_try('lab1', 'r1', '\(Self.attackerToken)', '1002', \(hash("1002", "WRONG-CODE"))); ROLLBACK;
                """)
            #expect(out.status == 0, "\(out.output)")
        }
        for _ in 0..<5 { _ = lookUp("1002", "WRONG-CODE") }
        #expect(lookUp("1002", "QQ4P-0Z1M") == "held|", "held for the proctor after five wrong codes")
        #expect(lookUp("1002", "QQ4P-0Z1M", session: "s3") == "found|Bo Li", "held for the session that failed only")
        // A number not on the roster is held alike: 'held' names no one.
        for _ in 0..<5 { _ = lookUp("4243", "WRONG-CODE") }
        #expect(lookUp("4243", "WRONG-CODE") == "held|")
        let release = RoomEndToEndTests().carrel(["proctor", "release", "--room", "lab1", "--candidate", "1002", "--shared", lab.owner])
        #expect(release.status == 0 && release.output.contains("Candidate 1002 released"), "\(release.output)")
        #expect(RoomEndToEndTests().carrel(["proctor", "release", "--room", "lab1", "--candidate", "9999", "--shared", lab.owner]).status == 64)
        #expect(lookUp("1002", "QQ4P-0Z1M", session: "s2") == "found|Bo Li")
        // Tries in a transaction opened before the proctor's release count from when they were
        // written, not from when the transaction began.
        for _ in 0..<5 { _ = lookUp("1002", "WRONG-CODE") }
        let tries = (0..<5).map { _ in "SELECT carrel_candidate_try('lab1', 'r2', '\(Self.attackerToken)', '1002', \(hash("1002", "WRONG-CODE")));" }
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let early = try ChildSpawn.spawn(Self.psql, ["-X", "-q", "-d", lab.seat, "-c", "BEGIN; SELECT now(); SELECT pg_sleep(3); " + tries.joined(separator: " ") + " COMMIT;"],
                                         environment: ProcessInfo.processInfo.environment, stdin: null, stdout: null, stderr: null).get()
        usleep(1_000_000)
        #expect(RoomEndToEndTests().carrel(["proctor", "release", "--room", "lab1", "--candidate", "1002", "--shared", lab.owner]).status == 0)
        var status: Int32 = 0
        waitpid(early, &status, 0)
        #expect(lookUp("1002", "QQ4P-0Z1M", session: "r2", token: Self.attackerToken) == "held|",
                "five tries written after the release hold the number again for their session")
        #expect(lookUp("1002", "QQ4P-0Z1M", session: "s4") == "found|Bo Li")
        // A seat that only says it is candidate 1001 squats nobody.
        #expect(Self.seat(lab, "SELECT carrel_hello('squat', '{\"room\":\"lab1\",\"seat\":\"Z9\",\"candidate_number\":\"1001\"}', '\(Self.attackerToken)')").output.hasPrefix("t"))
        // Not even once the proctor started it (a seat admitted by hand, a room of any machine).
        #expect(Self.owner(lab, "INSERT INTO carrel_commands (room, seat, action, envelope, signature, session) VALUES ('lab1', 'Z9', 'start', 'e', 's', 'squat')").status == 0)
        let attempt = Self.seat(lab, "SELECT carrel_candidate_try('lab1', 's3', '\(Self.genuineToken)', '1001', \(hash("1001", "7F3K-92QD")))")
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        let seated = Self.seat(lab, "SELECT outcome || '|' || coalesce(seated_at, 'nobody') FROM carrel_candidate(\(attempt), 'A1', 's3', '\(Self.genuineToken)')")
        #expect(seated.output.trimmingCharacters(in: .whitespacesAndNewlines) == "found|nobody", "\(seated.output)")
        // The stored roster keeps no code.
        #expect(!Self.owner(lab, "SELECT roster::text FROM carrel_rooms WHERE room = 'lab1'").output.contains("7F3K"))
    }

    /// A seat that cannot read its room's plan (the role's connections all held, the store
    /// down) stays in the room's flow: it says so and tries again, and never goes on without
    /// the plan (which would skip the roster and the proctor's start, and ask for a passphrase
    /// at the seat).
    @Test(.timeLimit(.minutes(4)))
    func aSeatThatCannotReadItsRoomsPlanWaitsForItAndAsksNothing() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let nobody = "postgresql://carrel_seat@127.0.0.1:\(PrivatePostgres.freePort())/carrel?sslmode=disable"
        t.start("seat", ["take", file, "--shared", nobody, "--room", "lab1", "--seat", "A1"])
        #expect(t.waitFor("seat", "waits for the store and tries again") != nil, "\(t.screen("seat"))")
        usleep(3_000_000)
        let screen = t.screen("seat")
        #expect(!screen.contains("assphrase") && !screen.contains("Candidate number"), "\(screen)")
        #expect(t.exitStatus("seat", timeout: 0.5) == nil, "still waiting for its plan")
        t.keys("seat", "C-c")
        // Ctrl-C ends the seat, as it says (and the window's shell with it).
        #expect(Eventually.poll(10) { !t.screen("seat").contains("tries again") }, "\(t.screen("seat"))")
    }
    static func codeHash(_ number: String, _ code: String?, salt: String) -> String {
        code.map { "'" + CandidateCode.hash($0, candidate: number, salt: salt) + "'" } ?? "NULL"
    }

    /// Each session tries numbers once its seat has announced it in the room (schema 9).
    static func announce(_ lab: RoomEndToEndTests.Lab, _ session: String, _ token: String) {
        let out = Self.seat(lab, "SELECT carrel_hello('\(session)', '{\"room\":\"lab1\",\"seat\":\"Z\"}', '\(token)')")
        #expect(out.output.hasPrefix("t"), "\(session): \(out.output)")
    }

    /// A try, then its answer, each its own transaction (as a seat asks).
    static func lookUp(_ lab: RoomEndToEndTests.Lab, _ number: String, _ hashed: String, session: String, token: String) -> String {
        let attempt = Self.seat(lab, "SELECT carrel_candidate_try('lab1', '\(session)', '\(token)', '\(number)', \(hashed))")
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        return Self.seat(lab, "SELECT outcome || '|' || coalesce(name, '') FROM carrel_candidate(\(attempt), 'A1', '\(session)', '\(token)')")
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    /// Room lab1 opened with a roster of two candidates with codes; its codes' salt.
    static func codeRoom(_ lab: RoomEndToEndTests.Lab) throws -> String {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let roster = t.root + "/codes.csv"
        try "candidate,name,seat,extra_time,code\n1001,Ada Lovelace,A1,1.5,7F3K-92QD\n1002,Bo Li,,,QQ4P-0Z1M\n".write(toFile: roster, atomically: true, encoding: .utf8)
        let opened = RoomEndToEndTests().carrel(["room", "open", "lab1", file, "--roster", roster, "--start", "proctor", "--shared", lab.owner])
        #expect(opened.status == 0, "\(opened.output)")
        return Self.seat(lab, "SELECT carrel_room_codes('lab1')").output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
