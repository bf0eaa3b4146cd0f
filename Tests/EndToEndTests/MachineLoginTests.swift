#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MachineSeal
import SessionTestSupport
import Testing

/// Enrolled machines log in to the store as themselves (schema version 8): `carrel seat
/// enroll` makes the machine's role, and its seat, started by the machine's helper, joins,
/// announces itself and publishes while a student holds every connection of the shared seat
/// role and has used up the room's places. Runs as root (CI does): the helper starts the
/// enrolled Carrel as root's child, from a machine folder of the test's (CARREL_MACHINE_DIR;
/// /etc/carrel is not touched).
@Suite("Enrolled machines' own store logins (PostgreSQL)")
struct MachineLoginTests {
    /// A store set up by `carrel store init` with a shared seat role of 3 connections.
    struct Store {
        var pg: PrivatePostgres
        var owner: String
        var seat: String
        var proctor: String
        var seatRole: String
        var initOutput: String
        var database: String

        init(sharedConnections: Int = 3) throws {
            pg = try PrivatePostgres.shared()
            let password = try String(contentsOfFile: pg.folder + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            owner = try pg.database().replacingOccurrences(of: "postgresql://carrel@", with: "postgresql://carrel:\(password)@") + "?sslmode=disable"
            database = String(owner.split(separator: "/").last?.split(separator: "?").first ?? "")
            let tag = UUID().uuidString.prefix(8).lowercased()
            seatRole = "seat_\(tag)"
            let proctorRole = "proctor_\(tag)"
            let out = RoomEndToEndTests().carrel(["store", "init", "--shared", owner, "--seat-role", seatRole, "--proctor-role", proctorRole,
                                                  "--shared-seat-connections", String(sharedConnections)])
            #expect(out.status == 0, "\(out.output)")
            initOutput = out.output
            seat = try Self.url(out.output, owner: owner, ownerPassword: password, role: seatRole)
            proctor = try Self.url(out.output, owner: owner, ownerPassword: password, role: proctorRole)
        }

        /// `role`'s URL, from its ~/.pgpass line in store init's output.
        static func url(_ output: String, owner: String, ownerPassword: String, role: String) throws -> String {
            let line = try #require(output.split(separator: "\n").first { $0.contains(":\(role):") })
            let secret = try #require(line.split(separator: ":").last)
            return owner.replacingOccurrences(of: "carrel:\(ownerPassword)@", with: "\(role):\(secret)@")
        }

        func sql(_ url: String, _ query: String, password: String? = nil, timeout: Double = 30) -> ChildSpawn.Output {
            var environment = ProcessInfo.processInfo.environment
            if let password { environment["PGPASSWORD"] = password }
            return ChildSpawn.run(SeatRoleAttackTests.psql, ["-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", query],
                                  environment: environment, timeout: timeout)
        }

        func value(_ query: String) -> String {
            sql(owner, query).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// `role`'s URL, with no password in it (given through PGPASSWORD).
        func login(_ role: String) -> String {
            "postgresql://\(role)@127.0.0.1:\(pg.port)/\(database)?sslmode=disable"
        }
    }

    /// A Carrel and its helper copied to a folder of root's, and a machine folder for them.
    struct Machine {
        let lab: String
        let folder: String
        var carrel: String { lab + "/carrel" }
        var environment: [String: String] {
            var env = ProcessInfo.processInfo.environment
            env["CARREL_MACHINE_DIR"] = folder
            return env
        }

        init() throws {
            let tag = "\(getpid())-\(UInt32.random(in: 0 ... .max))"
            lab = "/tmp/carrel-login-lab-\(tag)"
            folder = "/tmp/carrel-login-machine-\(tag)"
            #expect(mkdir(lab, 0o755) == 0 && chmod(lab, 0o755) == 0)
            try FileManager.default.copyItem(atPath: TmuxHarness.carrel, toPath: lab + "/carrel")
            try FileManager.default.copyItem(atPath: URL(fileURLWithPath: TmuxHarness.carrel).deletingLastPathComponent()
                .appendingPathComponent("carrel-keysign").path, toPath: lab + "/carrel-keysign")
            #expect(chmod(lab + "/carrel", 0o755) == 0)
        }

        func enroll(_ url: String, name: String, lab labName: String = "lab1") -> ChildSpawn.Output {
            ChildSpawn.run(carrel, ["seat", "enroll", "--shared", url, "--lab", labName, "--machine", name], environment: environment, timeout: 90)
        }

        /// The password the machine's key gives its role now.
        func password(role: String) throws -> String {
            let text = try String(contentsOfFile: folder + "/machine-key", encoding: .utf8)
            let key = try #require(MachineKey.privateKey(fileText: text))
            return StoreLogin.password(key: key, role: role)
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: lab)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    static let enabled = getuid() == 0 && TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil)

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs root and PostgreSQL"))
    func storeInitSaysHowManyMachinesTheServerTakes() throws {
        let store = try Store(sharedConnections: 7)
        let max = Int(store.value("SHOW max_connections")) ?? 0
        let reserved = Int(store.value("SHOW superuser_reserved_connections")) ?? 0
        #expect(max > 0)
        #expect(store.initOutput.contains("the shared seat role may hold 7 connections"), "\(store.initOutput)")
        let takes = (max - reserved - 10 - 7) / 3
        let line = "This server takes \(takes) enrolled machines (max_connections \(max) - \(reserved) for superusers - 10 for proctors - 7 for the shared seat role, 3 each); 0 enrolled now."
        #expect(store.initOutput.contains(line), "\(store.initOutput)")
        #expect(store.initOutput.contains("raise max_connections"))
        #expect(store.value("SELECT rolconnlimit FROM pg_roles WHERE rolname = '\(store.seatRole)'") == "7")
    }

    @Test(.timeLimit(.minutes(4)), .enabled(if: enabled, "needs root and PostgreSQL"))
    func enrolmentMakesTheMachinesLoginAndEnrollingAgainWithANewKeyChangesItsPassword() throws {
        let store = try Store()
        let machine = try Machine()
        defer { machine.remove() }
        let name = "pc-" + UUID().uuidString.prefix(8).lowercased()
        let role = StoreLogin.role(machine: name)
        defer { _ = store.sql(store.owner, "DROP ROLE IF EXISTS \(role)") }
        // With the proctor's URL: the store's function makes the login.
        let enrolled = machine.enroll(store.proctor, name: name)
        #expect(enrolled.status == 0 && enrolled.output.contains("log in to the store as \(role)"), "\(enrolled.output)")
        #expect(store.value("SELECT rolcanlogin::text || '|' || rolconnlimit FROM pg_roles WHERE rolname = '\(role)'") == "true|3")
        #expect(store.value("SELECT pg_has_role('\(role)', '\(store.seatRole)', 'MEMBER')") == "t")
        let settings = store.value("SELECT array_to_string(setconfig, ',') FROM pg_db_role_setting WHERE setrole = '\(role)'::regrole AND setdatabase = 0")
        for setting in ["statement_timeout=10s", "lock_timeout=2s", "idle_in_transaction_session_timeout=10s"] {
            #expect(settings.contains(setting), "\(settings)")
        }
        #expect(store.value("SELECT login_role FROM carrel_machines WHERE name = '\(name)'") == role)
        let first = try machine.password(role: role)
        #expect(!enrolled.output.contains(first), "the password is never printed")
        let asMachine = store.sql(store.login(role), "SELECT current_user", password: first)
        #expect(asMachine.output.trimmingCharacters(in: .whitespacesAndNewlines) == role, "\(asMachine.output)")
        // What a seat may call, the machine may call (it is a member of the seat role); no table.
        let version = store.sql(store.login(role), "SELECT carrel_schema_version()", password: first).output
        #expect((Int(version.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 14, "this build's schema version: \(version)")
        #expect(store.sql(store.login(role), "SELECT count(*) FROM carrel_sessions", password: first).status != 0)
        // Its places in a room are its own, and few: 20 unstarted sessions a day.
        let token = String(repeating: "M", count: 43)
        let places = store.sql(store.login(role), """
            DO $$ BEGIN FOR i IN 1..50 LOOP
              BEGIN
                PERFORM carrel_hello('mine-' || i, '{"room":"lab9","seat":"M"}', '\(token)');
              EXCEPTION WHEN others THEN
                RAISE NOTICE 'refused after %: %', i - 1, SQLERRM;
                EXIT;
              END;
            END LOOP; END $$
            """, password: first, timeout: 60)
        #expect(places.status == 0 && places.output.contains("refused after 20") && places.output.contains("quota"), "\(places.output)")
        #expect(store.value("SELECT count(*) FROM carrel_sessions WHERE created_by = '\(role)' AND created_room = 'lab9'") == "20")
        // Its sessions take none of the shared role's places in that room.
        #expect(store.sql(store.seat, "SELECT carrel_hello('shared-1', '{\"room\":\"lab9\",\"seat\":\"S\"}', '\(token)')").output.hasPrefix("t"))
        // The shared role cannot make or change a machine's login.
        let forged = store.sql(store.seat, "SELECT * FROM carrel_enroll_login('\(name)', 'SCRAM-SHA-256$4096:AAAA$AAAA:AAAA')")
        #expect(forged.status != 0 && forged.output.contains("permission denied"), "\(forged.output)")
        // A proctor makes no login for a machine that is not enrolled, nor any other role.
        let stray = store.sql(store.proctor, "SELECT * FROM carrel_enroll_login('not-enrolled', 'SCRAM-SHA-256$4096:AAAA$AAAA:AAAA')")
        #expect(stray.status != 0 && stray.output.contains("not enrolled"), "\(stray.output)")

        // Again with the same key (the owner's URL): the same password still logs in.
        #expect(machine.enroll(store.owner, name: name).status == 0)
        #expect(store.sql(store.login(role), "SELECT 1", password: first).output.hasPrefix("1"))
        // A new key (the old one moved away): the role's password is the new key's alone.
        #expect(rename(machine.folder + "/machine-key", machine.folder + "/machine-key.old") == 0)
        let again = machine.enroll(store.owner, name: name)
        #expect(again.status == 0, "\(again.output)")
        let second = try machine.password(role: role)
        #expect(second != first)
        let old = store.sql(store.login(role), "SELECT 1", password: first)
        #expect(old.status != 0 && old.output.contains("password authentication failed"), "\(old.output)")
        #expect(store.sql(store.login(role), "SELECT 1", password: second).output.hasPrefix("1"))
        #expect(store.value("SELECT count(*) FROM pg_roles WHERE rolname = '\(role)'") == "1", "one role for the machine")
        // Retired by a proctor, it logs in no more; enrolled again, it does.
        #expect(store.sql(store.proctor, "UPDATE carrel_machines SET retired_at = now() WHERE name = '\(name)'").status == 0)
        #expect(store.value("SELECT rolcanlogin FROM pg_roles WHERE rolname = '\(role)'") == "f")
        let retired = store.sql(store.login(role), "SELECT 1", password: second)
        #expect(retired.status != 0 && retired.output.contains("not permitted to log in"), "\(retired.output)")
        #expect(machine.enroll(store.proctor, name: name).status == 0)
        #expect(store.sql(store.login(role), "SELECT 1", password: second).output.hasPrefix("1"))
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs root and PostgreSQL"))
    func enrolmentIsRefusedWhenTheServerCannotTakeOneMoreMachine() throws {
        let store = try Store()
        let max = Int(store.value("SHOW max_connections")) ?? 0
        let reserved = Int(store.value("SHOW superuser_reserved_connections")) ?? 0
        // store init again, leaving room for no machine at all.
        let full = RoomEndToEndTests().carrel(["store", "init", "--shared", store.owner, "--seat-role", store.seatRole,
                                               "--proctor-role", "proctor_x" + UUID().uuidString.prefix(6).lowercased(),
                                               "--shared-seat-connections", String(max - reserved - 10 - 2)])
        #expect(full.status == 0 && full.output.contains("This server takes 0 enrolled machines"), "\(full.output)")
        let machine = try Machine()
        defer { machine.remove() }
        let name = "pc-" + UUID().uuidString.prefix(8).lowercased()
        let refused = machine.enroll(store.owner, name: name)
        #expect(refused.status != 0 && refused.output.contains("this server takes 0 enrolled machines") && refused.output.contains("raise max_connections"),
                "\(refused.output)")
        #expect(store.value("SELECT count(*) FROM pg_roles WHERE rolname = '\(StoreLogin.role(machine: name))'") == "0")
        #expect(store.value("SELECT count(*) FROM carrel_machines WHERE name = '\(name)'") == "0", "nothing enrolled")
    }

    /// The issue's attack, both halves: every connection the shared seat role may have held
    /// open, and the room's places for unstarted sessions used up with its password. An
    /// enrolled seat still reads its plan, announces itself, is started by the proctor and
    /// publishes; its session row is its machine's.
    @Test(.timeLimit(.minutes(5)), .enabled(if: enabled, "needs root and PostgreSQL"))
    func anEnrolledSeatJoinsAndPublishesWhileTheSharedRoleIsHeldAndItsPlacesUsedUp() throws {
        let store = try Store(sharedConnections: 3)
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let machine = try Machine()
        defer { machine.remove() }
        let name = "pc-" + UUID().uuidString.prefix(8).lowercased()
        let labName = "lab-" + UUID().uuidString.prefix(6).lowercased()
        let role = StoreLogin.role(machine: name)
        let enrolled = machine.enroll(store.owner, name: name, lab: labName)
        #expect(enrolled.status == 0, "\(enrolled.output)")
        let opened = RoomEndToEndTests().carrel(["room", "open", "lab1", file, "--start", "proctor", "--machines", "all", "--lab", labName,
                                                 "--shared", store.owner])
        #expect(opened.status == 0, "\(opened.output)")
        // The room's places, used up with the shared role's password: each announcement kept on
        // its own (a subtransaction each), until the store refuses.
        let token = String(repeating: "S", count: 43)
        let used = store.sql(store.seat, """
            DO $$ BEGIN FOR i IN 1..300 LOOP
              BEGIN
                PERFORM carrel_hello('squat-' || i, '{"room":"lab1","seat":"Z"}', '\(token)');
              EXCEPTION WHEN others THEN
                RAISE NOTICE 'refused after %: %', i - 1, SQLERRM;
                EXIT;
              END;
            END LOOP; END $$
            """, timeout: 60)
        #expect(used.status == 0 && used.output.contains("quota"), "\(used.output)")
        #expect(store.value("SELECT count(*) FROM carrel_sessions WHERE created_room = 'lab1'") == "100", "the room's 100 places taken")
        let more = store.sql(store.seat, "SELECT carrel_hello('squat-more', '{\"room\":\"lab1\",\"seat\":\"Z\"}', '\(token)')")
        #expect(more.status != 0 && more.output.contains("quota"), "the shared role has no place left: \(more.output)")

        // Every connection the shared role may have, held open (the role's statement timeout
        // lifted, as an attacker would).
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        var holders: [pid_t] = []
        defer {
            for pid in holders { kill(pid, SIGKILL) }
            for pid in holders {
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
            _ = store.sql(store.owner, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(store.seatRole)'")
        }
        for _ in 0..<3 {
            let pid = try ChildSpawn.spawn(SeatRoleAttackTests.psql, ["-X", "-q", "-d", store.seat, "-c", "SET statement_timeout = 0; SELECT pg_sleep(240)"],
                                           environment: ProcessInfo.processInfo.environment, stdin: null, stdout: null, stderr: null).get()
            holders.append(pid)
        }
        #expect(Eventually.poll(15) {
            store.value("SELECT count(*) FROM pg_stat_activity WHERE usename = '\(store.seatRole)'") == "3"
        }, "the attacker holds the shared role's connections")
        let fourth = store.sql(store.seat, "SELECT 1")
        #expect(fourth.status != 0 && fourth.output.contains("too many connections"), "\(fourth.output)")

        // The enrolled seat, started through its helper (carrel relaunches as the helper's child).
        t.start("seat", ["take", file, "--shared", store.seat, "--room", "lab1", "--seat", "A1"], environment: ["CARREL_MACHINE_DIR": machine.folder],
                executable: machine.carrel)
        #expect(t.waitFor("seat", "Waiting for the proctor to start", timeout: 40) != nil, "\(t.screen("seat"))")
        #expect(Eventually.poll(15) { store.value("SELECT count(*) FROM carrel_sessions WHERE created_by = '\(role)' AND created_room = 'lab1'") == "1" },
                "the seat announced itself as its machine")
        // Waiting, the seat holds one connection (its publisher's): the plan's was closed.
        #expect(Eventually.poll(10) { store.value("SELECT count(*) FROM pg_stat_activity WHERE usename = '\(role)'") == "1" },
                "\(store.value("SELECT count(*) FROM pg_stat_activity WHERE usename = '\(role)'")) connections")
        let start = RoomEndToEndTests().carrel(["proctor", "start", "--shared", store.owner, "--room", "lab1"])
        #expect(start.status == 0 && start.output.contains("applied  A1"), "\(start.output)")
        #expect(t.waitFor("seat", "This terminal is now locked to Carrel", timeout: 30) != nil, "\(t.screen("seat"))")
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Question 1 of") != nil, "\(t.screen("seat"))")
        #expect(Eventually.poll(20) {
            store.value("SELECT count(*) FROM carrel_sessions WHERE created_by = '\(role)' AND status = 'active'") == "1"
        }, "the seat's records reached the store: \(store.value("SELECT status, records_count FROM carrel_sessions WHERE created_by = '\(role)'"))")
        #expect(Int(store.value("SELECT records_count FROM carrel_sessions WHERE created_by = '\(role)'")) ?? 0 > 0)
        // Still: the attacker's connections are all there, and no seat-role login got in.
        #expect(store.value("SELECT count(*) FROM pg_stat_activity WHERE usename = '\(store.seatRole)'") == "3")
        t.keys("seat", "C-c")
        _ = store.sql(store.owner, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'")
        _ = store.sql(store.owner, "DROP ROLE IF EXISTS \(role)")
    }

    /// A machine enrolled before its store had machine logins (no role): its seat says so and
    /// goes on as the shared role, as before.
    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs root and PostgreSQL"))
    func aMachineWithoutItsLoginFallsBackToTheSharedRole() throws {
        let store = try Store(sharedConnections: 3)
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let machine = try Machine()
        defer { machine.remove() }
        let name = "pc-" + UUID().uuidString.prefix(8).lowercased()
        let role = StoreLogin.role(machine: name)
        #expect(machine.enroll(store.owner, name: name).status == 0)
        #expect(store.sql(store.owner, "DROP ROLE \(role)").status == 0)
        #expect(RoomEndToEndTests().carrel(["room", "open", "lab1", file, "--start", "proctor", "--machines", "any", "--shared", store.owner]).status == 0)
        // Its standard error kept in a file (the start screen covers the terminal).
        let said = t.root + "/said"
        t.start("seat", ["-c", "exec \"$0\" \"$@\" 2>>\(said)", machine.carrel, "take", file, "--shared", store.seat, "--room", "lab1", "--seat", "A1"],
                environment: ["CARREL_MACHINE_DIR": machine.folder], executable: "/bin/sh")
        #expect(t.waitFor("seat", "Waiting for the proctor to start", timeout: 40) != nil, "\(t.screen("seat"))")
        #expect(Eventually.poll(15) {
            store.value("SELECT count(*) FROM carrel_sessions WHERE created_room = 'lab1' AND created_by IS NULL AND status = 'not_started'") == "1"
        }, "the seat announced itself as the shared role")
        #expect(store.value("SELECT count(*) FROM pg_stat_activity WHERE usename = '\(store.seatRole)'") != "0")
        let text = (try? String(contentsOfFile: said, encoding: .utf8)) ?? ""
        #expect(text.components(separatedBy: "the store refused this machine's own login (\(role))").count == 2, "said once: \(text)")
        #expect(text.contains("uses the shared seat role \(store.seatRole)") && text.contains("carrel seat enroll"), "\(text)")
        #expect(!text.contains(try machine.password(role: role)), "the password is never said")
        t.keys("seat", "C-c")
    }
}
