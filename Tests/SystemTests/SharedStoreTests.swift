#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
import Testing
@testable import SessionKit
@testable import SharedStore

/// Seats that publish to a real PostgreSQL (a private cluster), the proctor's view of them and
/// results read back from the store.
@Suite("A lab's shared store on a real PostgreSQL", .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
struct SharedStoreTests {
    /// A seat: the real runtime through the driver, publishing to `url`.
    final class Seat {
        let sandbox: Sandbox
        let child: ChildProcess
        let session: String
        let items: [String]

        init?(url: String, passwordFile: String, room: String, seat: String, items: Int = 6) throws {
            sandbox = try Sandbox()
            let file = try sandbox.assessment(items: items)
            let child = try sandbox.driver(["begin", file, "--candidate", "Cand \(seat)", "--shared", url, "--room", room, "--seat", seat],
                                           environment: ["PGPASSFILE": passwordFile])
            guard let line = child.expect("began ") else { return nil }
            let parts = line.split(separator: " ")
            self.child = child
            session = String(parts[1])
            self.items = parts.count > 2 ? parts[2].split(separator: ",").map(String.init) : []
        }

        /// Answers and waits for the acknowledgement (committed to the local journal).
        @discardableResult
        func answer(_ item: String, _ text: String) -> Bool {
            child.send("answer \(item) \(Response.text(text).driverJSON)")
            return child.expect("ack \(item)", timeout: 10) != nil
        }

        func command(_ line: String) {
            child.send(line)
            _ = child.expect("ok ", timeout: 10)
        }

        func submit() -> String? {
            child.send("submit")
            return child.expect("finished ", timeout: 20)
        }

        func journal() throws -> Journal { try sandbox.journal() }
    }

    /// Polls `condition` every 50 ms for up to `seconds`.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool { Eventually.poll(seconds, condition) }

    /// Every record kind the store holds for a session, counted.
    static func storeCounts(_ pg: PrivatePostgres, url: String, session: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for row in pg.rows("SELECT kind, count(*) FROM carrel_records WHERE session = '\(session)' GROUP BY kind", url: url) where row.count == 2 {
            out[row[0]] = Int(row[1])
        }
        return out
    }

    /// The same counts from the seat's own journal.
    static func journalCounts(_ journal: Journal, session: String) throws -> [String: Int] {
        try journal.writer.read { db in
            var out: [String: Int] = [:]
            out["answer"] = try Int.fetchOne(db, sql: "SELECT count(*) FROM answer_history WHERE session_id = ?", arguments: [session])
            out["event"] = try Int.fetchOne(db, sql: "SELECT count(*) FROM event WHERE session_id = ?", arguments: [session])
            out["result"] = try Int.fetchOne(db, sql: "SELECT count(*) FROM result WHERE session_id = ?", arguments: [session])
            return out.filter { $0.value > 0 }
        }
    }

    /// The store's answers of a session in order, against the journal's history.
    static func answersMatch(_ pg: PrivatePostgres, url: String, session: String, journal: Journal) throws -> Bool {
        let stored = pg.rows("SELECT body->>'item', body->'response'->'text'->>'_0' FROM carrel_records WHERE session = '\(session)' AND kind = 'answer' ORDER BY seq", url: url)
            .map { $0.joined(separator: "=") }
        let local = try journal.history(session: session).map { entry -> String in
            if case let .text(t)? = entry.response { return "\(entry.item)=\(t)" }
            return "\(entry.item)="
        }
        return stored == local
    }

    func carrel(_ sandbox: Sandbox, _ arguments: [String], passwordFile: String) throws -> (status: Int32, out: String) {
        var environment = sandbox.environment
        environment["PGPASSFILE"] = passwordFile
        let out = ChildSpawn.run(ChildProcess.carrel, arguments, environment: environment, timeout: 30)
        return (out.status, out.output)
    }

    struct Snapshot: Decodable {
        struct Seat: Decodable {
            var session: String
            var candidate: String?
            var seat: String
            var room: String
            var assessment: String
            var status: String
            var answered: Int
            var total: Int
            var time_left_seconds: Int?
            var paste_attempts: Int
            var focus_losses: Int
            var exit_attempts: Int
            var last_seen: String
        }
        var seats: [Seat]
    }

    func snapshot(_ sandbox: Sandbox, url: String, room: String?, passwordFile: String) throws -> Snapshot? {
        let r = try carrel(sandbox, ["proctor", "--shared", url, "--json"] + (room.map { ["--room", $0] } ?? []), passwordFile: passwordFile)
        guard r.status == 0 else { return nil }
        return try? JSONDecoder().decode(Snapshot.self, from: Data(r.out.utf8))
    }

    @Test func tenHeadlessSeatsPublishEverythingAndTheConsoleSnapshotMatchesTheirJournals() throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        var seats: [Seat] = []
        for n in 0..<10 {
            seats.append(try #require(try Seat(url: url, passwordFile: pg.passwordFile, room: "lab-1", seat: "S\(n)")))
        }
        // Different work on each seat: n answers, a paste attempt on odd seats, a flag.
        for (n, seat) in seats.enumerated() {
            for i in 0..<(n % 6) { #expect(seat.answer(seat.items[i], "answer \(n)-\(i)")) }
            if n % 2 == 1 { seat.command("paste 42") }
            seat.command("flag \(seat.items[5])")
        }
        // Half submit; the others stay active.
        for seat in seats.prefix(5) { #expect(seat.submit() != nil) }
        let checker = try Sandbox()
        var last: Snapshot?
        let settled = Self.eventually(15) {
            guard let snap = try? snapshot(checker, url: url, room: "lab-1", passwordFile: pg.passwordFile) else { return false }
            last = snap
            return snap.seats.count == 10 && zip(seats.indices, seats).allSatisfy { n, seat in
                guard let s = snap.seats.first(where: { $0.session == seat.session }) else { return false }
                return s.answered == n % 6 && s.paste_attempts == n % 2 && s.status == (n < 5 ? "submitted" : "active")
            }
        }
        #expect(settled, "the console never matched the seats: \(String(describing: last))")
        let snap = try #require(last)
        for (n, seat) in seats.enumerated() {
            let s = try #require(snap.seats.first { $0.session == seat.session })
            #expect(s.seat == "S\(n)" && s.room == "lab-1" && s.candidate == "Cand S\(n)" && s.assessment == "fixture")
            #expect(s.total == 6)
            #expect(n < 5 ? s.time_left_seconds == nil : (s.time_left_seconds ?? 0) > 500)
            // Every record of the journal is in the store, once.
            let journal = try seat.journal()
            let local = try Self.journalCounts(journal, session: seat.session)
            #expect(Self.eventually(10) { Self.storeCounts(pg, url: url, session: seat.session).filter { local[$0.key] != nil } == local },
                    "seat \(n): store \(Self.storeCounts(pg, url: url, session: seat.session)) journal \(local)")
            #expect(try Self.answersMatch(pg, url: url, session: seat.session, journal: journal))
        }
        // Trouble first: the active seats with a paste attempt lead.
        let firstActive = try #require(snap.seats.first)
        #expect(firstActive.status == "active" && firstActive.paste_attempts == 1)
        // Another room shows none of them.
        #expect(try snapshot(checker, url: url, room: "lab-2", passwordFile: pg.passwordFile)?.seats.isEmpty == true)
        for seat in seats.suffix(5) { #expect(seat.submit() != nil) }
        // Results from the store: one per seat, as from each seat's journal.
        let listed = try carrel(checker, ["results", "list", "--shared", url, "--room", "lab-1", "--json"], passwordFile: pg.passwordFile)
        #expect(listed.status == 0)
        for seat in seats {
            #expect(listed.out.contains(seat.session))
            // The store catches up with the journal: a running seat's time saves and a submitted
            // seat's result reach it after they were committed at the seat.
            var fromStore: (status: Int32, out: String) = (-1, ""), fromSeat: (status: Int32, out: String) = (-1, "")
            let same = Self.eventually(15) {
                fromStore = (try? carrel(checker, ["results", "show", seat.session, "--shared", url], passwordFile: pg.passwordFile)) ?? (-1, "")
                fromSeat = (try? carrel(seat.sandbox, ["results", "show", seat.session, "--state-dir", seat.sandbox.stateDir],
                                        passwordFile: pg.passwordFile)) ?? (-1, "")
                return fromStore.status == 0 && fromStore.out == fromSeat.out
            }
            #expect(same, "from the store:\n\(fromStore.out)\nfrom the seat:\n\(fromSeat.out)")
        }
    }

    @Test func aStatementPastItsLimitIsEndedByTheServerAndAStalledCallByItsDeadline() async throws {
        let pg = try PrivatePostgres.shared()
        let url = try SharedURL.parse(try pg.database(), environment: ["PGPASSFILE": pg.passwordFile])
        let logger = StoreCall.quietLogger
        // The server's own limit: the statement ends at 0.5 s though the client would wait 90 s and
        // the sleep asks for 60 s. The bounds are far apart so a busy machine cannot blur them.
        // (Opening may wait long for the schema while other tests prepare theirs on the cluster.)
        let limited = try await StoreCall.open(url, as: "carrel test", logger: logger, timeout: 120, statementLimit: 0.5)
        var started = Date()
        await #expect(throws: (any Error).self) {
            try await StoreCall.guarded(limited, timeout: 90) {
                try await StoreCall.run(limited, "SELECT pg_sleep(60)", logger: logger)
            }
        }
        #expect(Date().timeIntervalSince(started) < 30, "ended by statement_timeout, not by the sleep or the deadline")
        #expect(!limited.isClosed, "the server's limit leaves the connection usable")
        // Statements answered leave nothing behind on a connection open for hours: one watch
        // for the connection's end, no answer kept.
        for _ in 0..<200 { try await StoreCall.run(limited, "SELECT 1", logger: logger) }
        let key = ObjectIdentifier(limited)
        #expect(StoreCall.pending.withLock { $0.waiting[key]?.count } == 0)
        try await limited.close()
        let closed = Date()
        while StoreCall.pending.withLock({ $0.waiting[key] }) != nil && Date().timeIntervalSince(closed) < 30 {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(StoreCall.pending.withLock { $0.waiting[key] } == nil, "the connection's end forgot it")
        // The client's deadline: the call ends at 0.5 s, with its connection closed and nothing left running.
        let patient = try await StoreCall.open(url, as: "carrel test", logger: logger, timeout: 120, statementLimit: 60)
        started = Date()
        await #expect(throws: StoreCall.StoreTimeout.self) {
            try await StoreCall.guarded(patient, timeout: 0.5) {
                try await StoreCall.run(patient, "SELECT pg_sleep(60)", logger: logger)
            }
        }
        #expect(Date().timeIntervalSince(started) < 30, "the deadline ended the call, not the sleep")
        let closing = Date()
        while !patient.isClosed && Date().timeIntervalSince(closing) < 5 { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(patient.isClosed, "the deadline closed the connection")
        // A statement sent to a connection that has closed fails at once (PostgresNIO alone
        // would never answer it), so nothing awaiting the store can hang on it.
        let after = Date()
        await #expect(throws: (any Error).self) { try await StoreCall.run(patient, "SELECT 1", logger: logger) }
        #expect(Date().timeIntervalSince(after) < 10)
    }

    /// A seat announced at its start screen shows as waiting while its publisher holds the
    /// seat; `leave` (the demo's workshop test ended) takes it out of the room at once.
    @Test func aSeatThatLeavesItsStartScreenIsNoLongerShownWaiting() async throws {
        let pg = try PrivatePostgres.shared()
        let url = try SharedURL.parse(try pg.database(), environment: ["PGPASSFILE": pg.passwordFile])
        let room = "leave-\(UUID().uuidString.prefix(8))"
        let publisher = SeatPublisher(url: url)
        publisher.announce(.init(session: "leaving-\(UUID().uuidString)", label: SharedLabel(room: room, seat: "L1"), candidate: "Lee",
                                 assessmentID: "a", assessmentTitle: "A"))
        publisher.start()
        // The shared cluster is busy with the other suites: a read that times out is read again.
        var opened: SharedReader?
        for _ in 0..<10 where opened == nil { opened = try? await SharedReader.open(url) }
        let reader = try #require(opened)
        func seats() async -> [String]? { (try? await reader.seats(room: room))?.map(\.status) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await publisher.run() }
            var shown: [String]?
            for _ in 0..<1200 where shown != ["not_started"] {
                shown = await seats()
                if shown != ["not_started"] { try? await Task.sleep(nanoseconds: 50_000_000) }
            }
            #expect(shown == ["not_started"], "announced and waiting")
            publisher.leave()
            for _ in 0..<1200 where shown != [] {
                shown = await seats()
                if shown != [] { try? await Task.sleep(nanoseconds: 50_000_000) }
            }
            #expect(shown == [], "gone from the room once it left")
            _ = await publisher.finish(within: 5)
        }
        await reader.close()
    }

    @Test func aStoreThatCannotBeReachedChangesNothingForTheSeatAndItsOutboxWaits() throws {
        let sandbox = try Sandbox()
        let file = try sandbox.assessment()
        // Nothing listens on this port.
        let url = "postgresql://carrel@127.0.0.1:\(PrivatePostgres.freePort())/carrel"
        let child = try sandbox.driver(["begin", file, "--shared", url, "--room", "r", "--seat", "s"])
        let began = try #require(child.expect("began "))
        let session = String(began.split(separator: " ")[1])
        for i in 0..<3 {
            child.send("answer q\(i) \(Response.text("x").driverJSON)")
            #expect(child.expect("ack q\(i)", timeout: 10) != nil)
        }
        child.send("store")
        let store = try #require(child.expect("store ", timeout: 10))
        #expect(store.contains("not reachable") || store.contains("connecting"))
        child.send("submit")
        #expect(child.expect("finished submitted", timeout: 20) != nil)
        #expect(child.waitStatus() == 0)
        let journal = try sandbox.journal()
        #expect(try journal.outboxWaiting(session: session) > 3)
        let status = try sandbox.carrel(["status"])
        #expect(status.out.contains { $0.contains("not yet published") })
    }

    @Test func aSeatKilledShowsAsInterruptedWithinTwoSecondsAndItsOutboxDrainsAfterResume() throws {
        let pg = try PrivatePostgres()
        defer { pg.destroy() }
        let url = try pg.database()
        let seat = try #require(try Seat(url: url, passwordFile: pg.passwordFile, room: "lab", seat: "K1"))
        #expect(seat.answer("q0", "first"))
        let checker = try Sandbox()
        #expect(Self.eventually(10) {
            (try? snapshot(checker, url: url, room: "lab", passwordFile: pg.passwordFile))?.seats.first?.answered == 1
        })
        #expect(try snapshot(checker, url: url, room: "lab", passwordFile: pg.passwordFile)?.seats.first?.status == "active")
        // Killed: the console says so within two seconds.
        let killedAt = Date()
        seat.child.signal(SIGKILL)
        _ = seat.child.waitStatus()
        var status = ""
        let seen = Self.eventually(5) {
            status = (try? snapshot(checker, url: url, room: "lab", passwordFile: pg.passwordFile))?.seats.first?.status ?? ""
            return status == "interrupted"
        }
        let took = Date().timeIntervalSince(killedAt)
        #expect(seen && took < 2, "status \(status) after \(took) s")

        // Records written while the store does not answer wait in the outbox ...
        let second = try #require(try Seat(url: url, passwordFile: pg.passwordFile, room: "lab", seat: "K2"))
        #expect(Self.eventually(10) { (try? snapshot(checker, url: url, room: "lab", passwordFile: pg.passwordFile))?.seats.count == 2 })
        pg.pause()
        for i in 0..<4 { #expect(second.answer("q\(i)", "while paused \(i)")) }
        second.child.signal(SIGKILL)
        _ = second.child.waitStatus()
        pg.resume()
        let journal = try second.journal()
        #expect(try journal.outboxWaiting(session: second.session) >= 4)
        // ... and reach the store after `resume`.
        let resumed = try second.sandbox.driver(["resume", "--shared", url], environment: ["PGPASSFILE": pg.passwordFile])
        #expect(resumed.expect("began ", timeout: 20) != nil)
        #expect(Self.eventually(15) { (try? journal.outboxWaiting(session: second.session)) == 0 })
        resumed.send("submit")
        #expect(resumed.expect("finished submitted", timeout: 20) != nil)
        #expect(resumed.waitStatus() == 0)
        #expect(try Self.answersMatch(pg, url: url, session: second.session, journal: journal))
        let snap = try snapshot(checker, url: url, room: "lab", passwordFile: pg.passwordFile)
        let row = try #require(snap?.seats.first { $0.session == second.session })
        #expect(row.status == "submitted" && row.answered == 4)
    }

    @Test func storeStoppedMidTestAndRestartedLosesNothingAndDuplicatesNothing() throws {
        let pg = try PrivatePostgres()
        defer { pg.destroy() }
        let url = try pg.database()
        var seats: [Seat] = []
        for n in 0..<3 { seats.append(try #require(try Seat(url: url, passwordFile: pg.passwordFile, room: "lab", seat: "R\(n)"))) }
        for seat in seats { #expect(seat.answer("q0", "before")) }
        pg.stop()
        // The seats go on as before: every answer is acknowledged at once.
        for round in 1...3 {
            for seat in seats {
                let started = Date()
                #expect(seat.answer("q\(round)", "during \(round)"))
                #expect(Date().timeIntervalSince(started) < 5)
            }
        }
        try pg.start()
        for seat in seats { #expect(seat.answer("q4", "after")) }
        for seat in seats {
            let journal = try seat.journal()
            #expect(Self.eventually(20) { (try? journal.outboxWaiting(session: seat.session)) == 0 }, "outbox of \(seat.session) not drained")
            #expect(try Self.answersMatch(pg, url: url, session: seat.session, journal: journal))
            let local = try Self.journalCounts(journal, session: seat.session)
            #expect(Self.storeCounts(pg, url: url, session: seat.session).filter { local[$0.key] != nil } == local)
        }
        // No record twice: the store's keys are unique and every sequence number appears once.
        let duplicates = pg.rows("SELECT count(*) - count(DISTINCT (session, seq)) FROM carrel_records", url: url)
        #expect(duplicates.first?.first == "0")
        for seat in seats { #expect(seat.submit() != nil) }
    }
}

extension SharedStoreTests {
    @Test func connectionsCutAgainAndAgainLoseNoRecordTheSeatForgot() throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        let database = String(url.split(separator: "/").last ?? "")
        var seats: [Seat] = []
        for n in 0..<3 { seats.append(try #require(try Seat(url: url, passwordFile: pg.passwordFile, room: "cut", seat: "C\(n)", items: 12))) }
        #expect(Self.eventually(10) { pg.rows("SELECT count(*) FROM carrel_records", url: url).first?.first.flatMap { Int($0) } ?? 0 > 0 })
        // Each commit of the store takes 0.3 s (a check deferred to the commit, waiting once a
        // transaction), so that a cut connection often falls between an insert's end and its
        // commit: a seat that took the insert's end for the commit would forget records the
        // store never kept.
        let slow = pg.psql("""
            CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
              IF current_setting('carrel_test.slowed', true) IS DISTINCT FROM 'yes' THEN
                PERFORM set_config('carrel_test.slowed', 'yes', true);
                PERFORM pg_sleep(0.3);
              END IF;
              RETURN NULL;
            END $$;
            CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON carrel_records DEFERRABLE INITIALLY DEFERRED
              FOR EACH ROW EXECUTE FUNCTION slow_commit();
            """, database: database)
        #expect(slow.status == 0, "\(slow.output)")
        // Every seat connection is cut four times a second while the seats answer.
        let cutting = ManagedFlag()
        let cutter = Thread {
            while !cutting.isSet {
                _ = pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'carrel seat' AND datname = current_database()", database: database)
                usleep(250_000)
            }
        }
        cutter.start()
        for round in 0..<2 {
            for seat in seats {
                for i in 0..<12 {
                    #expect(seat.answer("q\(i)", "r\(round)-\(i)"))
                    usleep(50_000)
                }
            }
        }
        usleep(1_000_000)
        cutting.set()
        for seat in seats {
            let journal = try seat.journal()
            #expect(Self.eventually(40) { (try? journal.outboxWaiting(session: seat.session)) == 0 })
            #expect(try Self.answersMatch(pg, url: url, session: seat.session, journal: journal), "seat \(seat.session) lost answers")
        }
        for seat in seats { #expect(seat.submit() != nil) }
    }

    @Test func hostileRecordsFromASeatNeverBreakTheConsoleOrTheResultsOfOthers() throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        let database = String(url.split(separator: "/").last ?? "")
        let honest = try #require(try Seat(url: url, passwordFile: pg.passwordFile, room: "h", seat: "OK"))
        #expect(honest.answer("q0", "fine"))
        #expect(honest.submit() != nil)
        #expect(honest.child.waitStatus() == 0)
        #expect(try honest.journal().outboxWaiting(session: honest.session) == 0)
        // What a student with the seat's password could send.
        let attacks = [
            "SELECT carrel_hello('evil-1', '{\"room\":\"h\",\"seat\":\"X\",\"time_allowed_seconds\":1e300,\"total\":\"lots\"}')",
            "INSERT INTO carrel_records VALUES ('evil-2', 1, 'session', now(), '{\"room\":\"h\",\"seat\":\"E2\",\"total\":1e300,\"time_allowed_seconds\":-1e300}')",
            "SELECT carrel_pulse('evil-2', 'Infinity')",
            "SELECT carrel_pulse('evil-2', 'NaN')",
            "INSERT INTO carrel_records VALUES ('evil-2', 2, 'status', now(), '{\"status\":\"weird\",\"end_reason\":\"because\"}')",
            "INSERT INTO carrel_records VALUES ('evil-2', 3, 'status', now(), '{}')",
            "INSERT INTO carrel_records VALUES ('evil-2', 4, 'event', now(), '{\"kind\":\"paste_blocked\"}')",
            "INSERT INTO carrel_records VALUES ('evil-2', 5, 'event', now(), '[1,2]')",
            "INSERT INTO carrel_records VALUES ('evil-2', 6, 'result', now(), '{\"json\":\"{not json\"}')",
            "INSERT INTO carrel_records VALUES ('evil-2', 7, 'answer', now(), '{\"item\":5,\"answered\":\"yes\"}')",
            "INSERT INTO carrel_records VALUES ('evil-2', 8, 'status', now(), '{\"status\":\"ended\",\"ended_at\":\"not a time\"}')",
            "INSERT INTO carrel_records VALUES ('evil-3', 1, 'session', now(), '{\"room\":\"h\\u001b[2J\",\"seat\":\"\\u001b]52;c;eA==\\u0007\"}')",
        ]
        Self.run(attacks, on: pg, database: database)
        let checker = try Sandbox()
        let console = try carrel(checker, ["proctor", "--shared", url, "--json"], passwordFile: pg.passwordFile)
        #expect(console.status == 0, "\(console.out)")
        #expect(console.out.contains(honest.session))
        #expect(!console.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        for command in [["results", "list"], ["results", "export", "--format", "csv"], ["results", "export"]] {
            let out = try carrel(checker, command + ["--shared", url], passwordFile: pg.passwordFile)
            #expect(out.status == 0, "\(command): \(out.out)")
            #expect(out.out.contains(honest.session.prefix(8)))
            #expect(!out.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        }
    }
}

final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

extension SharedStoreTests {
    /// Statements run straight against the store's database (rows a student holding the seat's
    /// password could write), each of which must be taken.
    static func run(_ statements: [String], on pg: PrivatePostgres, database: String) {
        for sql in statements {
            let out = pg.psql(sql, database: database)
            #expect(out.status == 0, "\(sql): \(out.output)")
        }
    }
}
