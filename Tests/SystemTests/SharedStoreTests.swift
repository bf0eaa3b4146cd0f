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
    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

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
            let fromStore = try carrel(checker, ["results", "show", seat.session, "--shared", url], passwordFile: pg.passwordFile)
            let fromSeat = try carrel(seat.sandbox, ["results", "show", seat.session, "--state-dir", seat.sandbox.stateDir], passwordFile: pg.passwordFile)
            #expect(fromStore.status == 0 && fromStore.out == fromSeat.out)
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
        // Each commit of the store takes 0.3 s (a check deferred to the commit), so that a cut
        // connection often falls between an insert's end and its commit: a seat that took the
        // insert's end for the commit would forget records the store never kept.
        let slow = pg.psql("""
            CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
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
        for sql in attacks {
            let out = pg.psql(sql, database: database)
            #expect(out.status == 0, "\(sql): \(out.output)")
        }
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

@Suite("Shared store: URLs, password files and the outbox, without a server")
struct SharedStorePartsTests {
    @Test func urlsAreReadAsLibpqReadsThemAndThePasswordIsNeverShown() throws {
        let u = try SharedURL.parse("postgresql://proctor:s%40cret@db.lab:6543/exams?sslmode=disable", environment: [:])
        #expect(u.host == "db.lab" && u.port == 6543 && u.user == "proctor" && u.database == "exams" && u.tls == .disable)
        #expect(u.password == "s@cret")
        #expect(!u.description.contains("cret"))
        let d = try SharedURL.parse("postgres://", environment: ["PGHOST": "h", "PGPORT": "7000", "PGUSER": "u", "PGDATABASE": "d"])
        #expect(d.host == "h" && d.port == 7000 && d.user == "u" && d.database == "d")
        let socket = try SharedURL.parse("postgresql:///exams?host=/var/run/postgresql", environment: ["PGUSER": "u"])
        #expect(socket.socketFolder == "/var/run/postgresql")
        let v6 = try SharedURL.parse("postgresql://u@[::1]:5433/x", environment: [:])
        #expect(v6.host == "::1" && v6.port == 5433)
    }

    @Test func badURLsAreRefusedWithAClearMessageThatHidesThePassword() {
        for (text, words) in [("http://db/x", "PostgreSQL URL"), ("postgresql://u@h:99999/x", "port"),
                              ("postgresql://u@h/x?sslmode=maybe", "sslmode"), ("postgresql://u@h/x?frobnicate=1", "does not use"),
                              ("", "empty"),
                              ("postgresql://u@a,b/x", "one host")] {
            do {
                _ = try SharedURL.parse(text, environment: [:])
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
        // A password is never quoted back, wherever a typo put it.
        for typo in ["mysql://root:Hunter2Secret@db/x", "postgresql://u:Hunter2/Secret@h:5432/db", "postgresql://u:Hunt?er2Secret@h/db",
                     "mysql://u@h/db?password=Hunter2Secret", "postgresql:/u:Hunter2Secret@h/db", "postgresql://u@h/db?sslmode=Hunter2Secret",
                     "postgresql://u@[::1Hunter2Secret/db", "postgresql://u@h/db?Hunter2Secret=1"] {
            do {
                _ = try SharedURL.parse(typo, environment: [:])
                Issue.record("\(typo) was accepted")
            } catch {
                #expect(!error.description.contains("Hunter2") && !error.description.contains("Secret"), "\(error.description)")
            }
        }
    }

    @Test func aNULCharacterInARecordIsStoredAsAReplacementCharacterAndNothingElseChanges() {
        #expect(SentRecord.storable(#"{"a":"x\u0000y"}"#) == #"{"a":"x\uFFFDy"}"#)
        // An escaped backslash followed by the text u0000 is not a NUL.
        #expect(SentRecord.storable(#"{"a":"x\\u0000y"}"#) == #"{"a":"x\\u0000y"}"#)
        #expect(SentRecord.storable(#"{"a":"\\\u0000"}"#) == #"{"a":"\\\uFFFD"}"#)
        #expect(SentRecord.storable(#"{"a":"plain"}"#) == #"{"a":"plain"}"#)
    }

    @Test func aPublisherThatNeverSentAnythingFinishesAtOnceWithoutAnAlarm() async {
        let url = SharedURL(host: "127.0.0.1", socketFolder: nil, port: 1, user: "u", password: nil, database: "d", tls: .disable,
                            connectTimeout: 1)
        let started = Date()
        // Never started: nothing to wait for.
        #expect(await SeatPublisher(url: url).finish(within: 300))
        // Started, its loop running (and failing to connect), with no journal: nothing to send.
        let publisher = SeatPublisher(url: url)
        publisher.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await publisher.run() }
            #expect(await publisher.finish(within: 300))
            // The loop ends by itself once asked to stop: the group is not cancelled.
        }
        #expect(Date().timeIntervalSince(started) < 150, "neither finish waited out its 300 s, and the loop stopped")
    }

    @Test func thePasswordFileIsReadAsLibpqReadsItAndIgnoredWhenOthersCanReadIt() throws {
        let sandbox = try Sandbox()
        let file = sandbox.root + "/pgpass"
        try """
            # comment
            other:5432:*:u:wrong
            db.lab:5432:exams:u:pa\\:ss\\\\word
            *:*:*:u:fallback
            """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let u = try SharedURL.parse("postgresql://u@db.lab/exams", environment: ["PGPASSFILE": file])
        #expect(u.password == "pa:ss\\word")
        let other = try SharedURL.parse("postgresql://u@else/exams", environment: ["PGPASSFILE": file])
        #expect(other.password == "fallback")
        chmod(file, 0o644)
        let open = try SharedURL.parse("postgresql://u@db.lab/exams", environment: ["PGPASSFILE": file])
        #expect(open.password == nil)
        // A symlink is not followed.
        chmod(file, 0o600)
        let link = sandbox.root + "/link"
        symlink(file, link)
        #expect(try SharedURL.parse("postgresql://u@db.lab/exams", environment: ["PGPASSFILE": link]).password == nil)
    }

    @Test func migrationsSplitIntoStatementsOutsideQuotesAndFunctionBodies() {
        let parts = SharedSchema.statements("CREATE TABLE a (x text DEFAULT ';'); CREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ SELECT 1; SELECT 2; $$;\nSELECT 3")
        #expect(parts.count == 3)
        #expect(parts[1].contains("SELECT 1; SELECT 2;"))
        let real = SharedSchema.migrations.flatMap { SharedSchema.statements($0.1) }
        #expect(real.count > 10)
        #expect(real.allSatisfy { !$0.isEmpty })
    }

    @Test func aPublishingSessionWritesEachRecordToItsOutboxInTheSameTransactionAndOthersDoNot() throws {
        let journal = try Journal(writer: try DatabaseQueue())
        let stored = StoredAssessment(bytes: Data("x".utf8), path: "a.yaml", format: .yaml)
        func record(_ id: String, shared: Bool) -> SessionRecord {
            SessionRecord(id: id, assessmentID: "a", assessmentTitle: "A", fingerprint: "sha256:x", assessmentPath: "a.yaml",
                          candidate: "Ada", status: .active, seed: 1, extraTime: .none,
                          options: SessionOptions(shared: shared ? SharedLabel(room: "r", seat: "s", total: 3, timeAllowed: 600) : nil),
                          startedAt: Date(), pid: 1, host: "h", tty: nil)
        }
        try journal.createSession(record("pub", shared: true), source: stored)
        try journal.createSession(record("local", shared: false), source: stored)
        for id in ["pub", "local"] {
            try journal.commit(session: id, [.answer(item: "q1", response: .text("hi")), .event(.pasteBlocked, "3 characters", at: Date())], at: Date())
            try journal.commit(session: id, [.progress(position: 1, elapsed: 2)], at: Date())
            try journal.commit(session: id, [.flag(item: "q1", on: true)], at: Date())
        }
        let records = try journal.outbox(after: 0, limit: 100)
        #expect(records.allSatisfy { $0.session == "pub" })
        #expect(records.map(\.kind) == ["session", "answer", "event", "progress", "flag"])
        #expect(records.map(\.seq) == records.map(\.seq).sorted())
        #expect(records[1].body.contains("\"answered\":true"))
        // Forgetting published records never lets a sequence number be used again.
        let last = try #require(records.last?.seq)
        try journal.removePublished(through: last)
        #expect(try journal.outbox(after: 0, limit: 100).isEmpty)
        #expect(try journal.outboxWaiting().records == 0)
        try journal.commit(session: "pub", [.flag(item: "q1", on: false)], at: Date())
        let next = try journal.outbox(after: 0, limit: 100)
        #expect(next.count == 1 && next[0].seq > last)
        // The time saved with an answer rides in the answer's record.
        try journal.commit(session: "pub", [.answer(item: "q2", response: .text("x")), .progress(position: 2, elapsed: 42.5)], at: Date())
        let carried = try journal.outbox(after: next[0].seq, limit: 100)
        #expect(carried.map(\.kind) == ["answer"])
        #expect(carried.first?.body.hasPrefix("{\"elapsed\":42.5,\"item\":\"q2\"") == true)
        // A backlog of time saves is sent as the latest one per session.
        let backlog = [OutboxRecord(seq: 1, session: "a", kind: "progress", at: Date(), body: "{}"),
                       OutboxRecord(seq: 2, session: "b", kind: "progress", at: Date(), body: "{}"),
                       OutboxRecord(seq: 3, session: "a", kind: "answer", at: Date(), body: "{}"),
                       OutboxRecord(seq: 4, session: "a", kind: "progress", at: Date(), body: "{}")]
        #expect(SentRecord.latestProgressOnly(backlog).map(\.seq) == [2, 3, 4])
    }
}
