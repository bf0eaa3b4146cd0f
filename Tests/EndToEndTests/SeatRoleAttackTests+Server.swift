#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing

/// What a seat role may take that the whole server shares, and candidates held by sessions
/// that proved nothing (schema 9).
extension SeatRoleAttackTests {
    /// What the whole server shares, which no Carrel quota counts, is not the seat role's: it
    /// takes no advisory lock of its own (one lock table for the cluster: a loop of them kept
    /// everyone out, the owner too), no large object, no temporary table, no `pg_notify`; the
    /// store takes the seat's one liveness lock for a session it proves. The token-less refusal
    /// of version 2 is gone.
    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func theSeatRoleTakesNothingTheWholeServerShares() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        Self.genuine(lab, "honest", seat: "A1")
        Self.genuine(lab, "other", seat: "A2")
        for sql in [
            "SET statement_timeout = 0; DO $$ BEGIN FOR i IN 1..40000 LOOP PERFORM pg_advisory_lock(777000000 + i); END LOOP; END $$",
            "SELECT pg_try_advisory_lock(1)", "SELECT pg_advisory_xact_lock(1)", "SELECT pg_advisory_lock_shared(1, 2)",
            "SELECT lo_from_bytea(0, 'x')", "SELECT lo_create(0)", "SELECT lo_creat(-1)",
            "CREATE TEMP TABLE fill AS SELECT repeat('x', 1000) AS b FROM generate_series(1, 10)",
            "SELECT pg_notify('carrel_commands', 'x')",
            #"SELECT carrel_seat_refused('refused-1', '{"room":"lab1","seat":"A2","refusal":"candidate_twice"}')"#,
        ] {
            let out = Self.seat(lab, sql)
            #expect(out.status != 0 && out.output.contains("denied"), "\(sql): \(out.output)")
        }
        #expect(Self.seat(lab, "SHOW temp_file_limit").output.hasPrefix("64MB"))
        // The seat's own lock, through the store: once per connection, for a proven session.
        #expect(Self.seat(lab, "SELECT carrel_seat_lock('honest', '\(Self.attackerToken)', NULL)").output.hasPrefix("f"))
        let one = Self.seat(lab, "SELECT carrel_seat_lock('honest', '\(Self.genuineToken)', NULL)")
        #expect(one.output.hasPrefix("t"), "\(one.output)")
        let two = Self.seat(lab, """
            SELECT carrel_seat_lock('honest', '\(Self.genuineToken)', NULL), carrel_seat_lock('honest', '\(Self.genuineToken)', NULL);
            SELECT carrel_seat_lock('other', '\(Self.genuineToken)', NULL)
            """)
        #expect(two.status != 0 && two.output.contains("one a connection"), "\(two.output)")
        // The console reads a held lock as a live seat, under the session's key.
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let holder = try ChildSpawn.spawn(Self.psql, ["-X", "-q", "-d", lab.seat, "-c",
                                                      "SELECT carrel_seat_lock('honest', '\(Self.genuineToken)', NULL); SELECT pg_sleep(8)"],
                                          environment: ProcessInfo.processInfo.environment, stdin: null, stdout: null, stderr: null).get()
        defer {
            kill(holder, SIGKILL)
            var status: Int32 = 0
            waitpid(holder, &status, 0)
        }
        #expect(Eventually.poll(5) {
            Self.owner(lab, """
                SELECT count(*) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                  AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended('honest', 0)
                """).output.hasPrefix("1")
        }, "the seat's lock is where the console looks")
        #expect(Self.owner(lab, "SELECT 1").output.hasPrefix("1"), "the owner still connects")
        // A refusal is for a session its seat proves, and a new one counts among the room's places.
        #expect(Self.seat(lab, #"SELECT carrel_seat_refused('honest', '\#(Self.attackerToken)', '{"room":"lab1","seat":"A1","refusal":"wrong_test"}')"#)
            .output.hasPrefix("f"))
        #expect(Self.seat(lab, #"SELECT carrel_seat_refused('refusing', '\#(Self.attackerToken)', '{"room":"lab1","seat":"A3","refusal":"wrong_test"}')"#)
            .output.hasPrefix("t"))
        #expect(!Self.owner(lab, "SELECT status FROM carrel_sessions WHERE session = 'honest'").output.hasPrefix("wrong_test"))
        #expect(Self.owner(lab, "SELECT status FROM carrel_sessions WHERE session = 'refusing'").output.hasPrefix("wrong_test"))
    }

    /// A seat connection that lifts its own timeouts and sits idle in a transaction (it pins
    /// the server's one NOTIFY queue: a flood of notices then fills it, and every proctor's
    /// command fails) is ended by the janitor every seat's pulse runs, within seconds; no
    /// other role's connection is, and the proctor's command goes through afterwards.
    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func aListenerIdleInATransactionIsEndedByTheJanitor() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        Self.genuine(lab, "honest", seat: "A1")
        let dir = NSTemporaryDirectory() + "carrel-janitor-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pin = dir + "/pin.sql"
        try """
            SET idle_in_transaction_session_timeout = 0;
            SET statement_timeout = 0;
            LISTEN carrel_commands;
            BEGIN;
            SELECT 'pinned-by-attacker';
            \\! sleep 60
            """.write(toFile: pin, atomically: true, encoding: .utf8)
        let calm = dir + "/calm.sql"
        try "BEGIN;\nSELECT 'owner-idle-in-transaction';\n\\! sleep 25\n".write(toFile: calm, atomically: true, encoding: .utf8)
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let env = ProcessInfo.processInfo.environment
        let pinner = try ChildSpawn.spawn(Self.psql, ["-X", "-q", "-d", lab.seat, "-f", pin], environment: env, stdin: null, stdout: null, stderr: null).get()
        let owner = try ChildSpawn.spawn(Self.psql, ["-X", "-q", "-d", lab.owner, "-f", calm], environment: env, stdin: null, stdout: null, stderr: null).get()
        defer {
            for pid in [pinner, owner] {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
        let pinned = "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pinned-by-attacker%' AND pid <> pg_backend_pid()"
        #expect(Eventually.poll(10) { Self.owner(lab, pinned).output.hasPrefix("1") }, "the listener sits in its transaction")
        // A small flood of notices (NOTIFY the command cannot be taken from a role).
        let flood = Self.seat(lab, "DO $$ BEGIN FOR i IN 1..200 LOOP EXECUTE format('NOTIFY carrel_commands, %L', repeat('x', 7000)); END LOOP; END $$")
        #expect(flood.status == 0, "\(flood.output)")
        // The honest seat's pulses run the janitor.
        let began = Date()
        var ended = false
        while Date().timeIntervalSince(began) < 30 {
            _ = Self.seat(lab, "SELECT carrel_pulse('honest', '\(Self.genuineToken)', NULL, 1)")
            if Self.owner(lab, pinned).output.hasPrefix("0") { ended = true; break }
            usleep(1_000_000)
        }
        #expect(ended, "the janitor ended the listener")
        #expect(Date().timeIntervalSince(began) < 15, "within seconds")
        let kept = Self.owner(lab, "SELECT login || '|' || reason || '|' || ended FROM carrel_terminations ORDER BY id")
        #expect(kept.output.contains("idle in a transaction") && kept.output.contains("|t"), "\(kept.output)")
        #expect(Self.owner(lab, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%owner-idle-in-transaction%' AND pid <> pg_backend_pid()")
            .output.hasPrefix("1"), "another role's connection is never ended")
        // The proctor's commands go through, and the console's sweep finds nothing more to end.
        let command = Self.owner(lab, "INSERT INTO carrel_commands (room, seat, action, envelope, signature, session) VALUES ('lab1', 'A1', 'pause', 'e', 's', 'honest') RETURNING id")
        #expect(command.status == 0, "\(command.output)")
        #expect(Self.owner(lab, "SELECT carrel_sweep()").status == 0)
    }

    /// Tries at candidate numbers are a proven session's: made-up sessions hold no one, a
    /// session that fails five times holds the candidate for itself only (the proctor's
    /// release frees it), and no campaign of tries locks the room.
    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func inventedSessionsHoldNobodyAndAFailingSessionHoldsOnlyItself() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        let salt = try Self.codeRoom(lab)
        // 500 tries with made-up sessions: none is taken.
        let flood = Self.seat(lab, """
            DO $$ DECLARE taken int := 0; BEGIN
              FOR n IN 1000..1099 LOOP FOR k IN 1..5 LOOP
                BEGIN
                  PERFORM carrel_candidate_try('lab1', 'hold-' || n || '-' || k, '\(Self.attackerToken)', n::text, 'wrong');
                  taken := taken + 1;
                EXCEPTION WHEN others THEN NULL;
                END;
              END LOOP; END LOOP;
              RAISE NOTICE 'taken %', taken;
            END $$
            """, timeout: 60)
        #expect(flood.status == 0 && flood.output.contains("taken 0"), "\(flood.output)")
        func hash(_ number: String, _ code: String) -> String { CandidateCode.hash(code, candidate: number, salt: salt) }
        func lookUp(_ session: String, _ number: String, _ code: String) -> String {
            let attempt = Self.seat(lab, "SELECT carrel_candidate_try('lab1', '\(session)', '\(Self.genuineToken)', '\(number)', '\(hash(number, code))')")
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
            return Self.seat(lab, "SELECT outcome FROM carrel_candidate(\(attempt), 'A1', '\(session)', '\(Self.genuineToken)')")
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        for session in ["real", "guesser"] {
            #expect(Self.seat(lab, #"SELECT carrel_hello('\#(session)', '{"room":"lab1","seat":"A1"}', '\#(Self.genuineToken)')"#).output.hasPrefix("t"))
        }
        for _ in 0..<5 { #expect(lookUp("guesser", "1002", "WRONG-CODE") == "no_match") }
        #expect(lookUp("guesser", "1002", "QQ4P-0Z1M") == "held")
        #expect(lookUp("real", "1002", "QQ4P-0Z1M") == "found", "the candidate with the right code, from their own session")
        let release = RoomEndToEndTests().carrel(["proctor", "release", "--room", "lab1", "--candidate", "1002", "--shared", lab.owner])
        #expect(release.status == 0, "\(release.output)")
        #expect(lookUp("guesser", "1002", "QQ4P-0Z1M") == "found", "released")
        // A session tries at most 30 numbers a day: then it is refused, and the room is not.
        var refused = ""
        for n in 0..<40 {
            let out = Self.seat(lab, "SELECT carrel_candidate_try('lab1', 'guesser', '\(Self.genuineToken)', '\(5000 + n)', 'x')")
            if out.status != 0 { refused = out.output; break }
        }
        #expect(refused.contains("too many"), "\(refused)")
        #expect(Self.seat(lab, #"SELECT carrel_hello('late', '{"room":"lab1","seat":"A2"}', '\#(Self.genuineToken)')"#).output.hasPrefix("t"))
        #expect(lookUp("late", "1001", "7F3K-92QD") == "found")
    }

    /// An owner who is not the cluster's superuser (as docs/deployment.md sets one up) is told
    /// exactly the superuser's statements still to run; once the superuser has run them, the
    /// seat role reaches nothing the whole server shares, and the owner's own functions (the
    /// seat's lock, the command notice, the janitor) still work.
    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func anOwnerWhoIsNotTheSuperuserIsToldTheSuperusersPart() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        let tag = UUID().uuidString.prefix(8).lowercased()
        let (role, database, password) = ("own_\(tag)", "d_\(tag)", "pw\(tag)pw\(tag)")
        #expect(Self.owner(lab, "CREATE ROLE \(role) LOGIN CREATEROLE PASSWORD '\(password)'").status == 0)
        #expect(Self.owner(lab, "CREATE DATABASE \(database) OWNER \(role)").status == 0)
        let superDB = lab.owner.replacingOccurrences(of: #"/[^/?]+\?"#, with: "/\(database)?", options: .regularExpression)
        let password0 = try String(contentsOfFile: pg.folder + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let url = superDB.replacingOccurrences(of: "carrel:\(password0)@", with: "\(role):\(password)@")
        let seatRole = "seat_\(tag)"
        let first = RoomEndToEndTests().carrel(["store", "init", "--shared", url, "--seat-role", seatRole, "--proctor-role", "proctor_\(tag)"])
        #expect(first.status == 0, "\(first.output)")
        let warning = try #require(first.output.split(separator: "\n").first { $0.contains("as the cluster's superuser") }, "\(first.output)")
        for part in ["pg_catalog.pg_advisory_lock(bigint)", "pg_catalog.lo_from_bytea(oid, bytea)", "pg_catalog.pg_notify(text, text)",
                     "GRANT pg_signal_backend, pg_read_all_stats TO \(role)", "temp_file_limit"] {
            #expect(warning.contains(part), "\(part): \(warning)")
        }
        #expect(!warning.contains("REVOKE TEMPORARY"), "the database's owner takes TEMP itself")
        let sql = try #require(warning.range(of: "run: ").map { String(warning[$0.upperBound...]) })
        let ran = ChildSpawn.run(Self.psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", superDB, "-c", sql],
                                 environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(ran.status == 0, "\(ran.output)")
        let again = RoomEndToEndTests().carrel(["store", "init", "--shared", url, "--seat-role", seatRole, "--proctor-role", "proctor_\(tag)"])
        #expect(again.status == 0 && !again.output.contains("as the cluster's superuser"), "\(again.output)")
        let line = try #require(first.output.split(separator: "\n").first { $0.contains(":\(seatRole):") })
        let seatPassword = try #require(line.split(separator: ":").last)
        let other = RoomEndToEndTests.Lab(owner: url, seat: url.replacingOccurrences(of: "\(role):\(password)@", with: "\(seatRole):\(seatPassword)@"),
                                          seatRole: seatRole)
        for sql in ["SELECT pg_advisory_lock(1)", "SELECT lo_from_bytea(0, 'x')", "CREATE TEMP TABLE t (x int)", "SELECT pg_notify('carrel_commands', 'x')"] {
            let out = Self.seat(other, sql)
            #expect(out.status != 0 && out.output.contains("denied"), "\(sql): \(out.output)")
        }
        Self.genuine(other, "honest")
        #expect(Self.seat(other, "SELECT carrel_seat_lock('honest', '\(Self.genuineToken)', NULL)").output.hasPrefix("t"))
        #expect(Self.owner(other, "INSERT INTO carrel_commands (room, seat, action, envelope, signature, session) VALUES ('lab1', 'A1', 'pause', 'e', 's', 'honest')").status == 0)
        let swept = Self.owner(other, "SELECT carrel_sweep()")
        #expect(swept.status == 0, "\(swept.output)")
    }
}
