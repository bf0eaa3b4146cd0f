#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Testing

/// What an attack pass on schema 12 found: a session's quota passed by connections publishing
/// at once, a batch of two-dimensional arrays past the length check, and the count of records
/// "kept" telling a caller without the token which records of another session exist.
extension SeatRoleAttackTests {
    /// `sql` run as the seat role in a transaction held open two seconds; `meanwhile` runs
    /// 0.7 s into it, from another connection. Returns what the held transaction printed and
    /// what `meanwhile` gave.
    static func whileHeldOpen<T>(_ lab: RoomEndToEndTests.Lab, _ sql: String, meanwhile: () -> T) throws -> (held: String, meanwhile: T) {
        let held = Process()
        held.executableURL = URL(fileURLWithPath: psql)
        held.arguments = ["-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-d", lab.seat, "-c", "BEGIN", "-c", sql,
                          "-c", "SELECT pg_sleep(2)", "-c", "COMMIT"]
        let output = Pipe()
        held.standardOutput = output
        try held.run()
        usleep(700_000)
        let result = meanwhile()
        held.waitUntilExit()
        return (String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), result)
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func connectionsPublishingAtOnceAreCountedOneAfterTheOther() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        #expect(Self.seat(lab, "SELECT carrel_hello('race', '{\"room\":\"lab1\",\"seat\":\"Z1\"}', '\(Self.attackerToken)')").output.hasPrefix("t"))
        // Five records short of the quota of a session the proctor did not start.
        #expect(Self.owner(lab, "UPDATE carrel_sessions SET records_count = 49995 WHERE session = 'race'").status == 0)
        func batch(from first: Int) -> String {
            let seqs = (first..<(first + 5)).map(String.init).joined(separator: ",")
            return """
                SELECT kept || '|' || coalesce(refused, '') FROM carrel_publish(array_fill('race'::text, ARRAY[5]),
                  array_fill('\(Self.attackerToken)'::text, ARRAY[5]), array_fill(''::text, ARRAY[5]), ARRAY[\(seqs)]::int8[],
                  array_fill('event'::text, ARRAY[5]), array_fill(now(), ARRAY[5]), array_fill('{}'::text, ARRAY[5]), array_fill(''::text, ARRAY[5]))
                """
        }
        // One connection keeps its batch uncommitted for two seconds; the other publishes meanwhile.
        let (firstText, second) = try Self.whileHeldOpen(lab, batch(from: 10)) { Self.seat(lab, batch(from: 20)) }
        #expect(firstText.contains("5|"), "the first batch fits: \(firstText)")
        #expect(second.output.hasPrefix("0|") && second.output.contains("quota"), "the second is counted after the first: \(second.output)")
        let count = Self.owner(lab, "SELECT records_count, (SELECT count(*) FROM carrel_records WHERE session = 'race') FROM carrel_sessions WHERE session = 'race'")
        #expect(count.output.trimmingCharacters(in: .whitespacesAndNewlines) == "50000|5", "\(count.output)")
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func aBatchIsOneDimensionalAndKeptCountsOnlyAProvenSessionsRecords() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        Self.genuine(lab, "victim")
        #expect(Self.seat(lab, "SELECT carrel_hello('mine', '{\"room\":\"lab1\",\"seat\":\"Z1\"}', '\(Self.attackerToken)')").output.hasPrefix("t"))
        let flat = Self.seat(lab, """
            SELECT kept FROM carrel_publish(ARRAY[['mine', 'mine'], ['mine', 'mine']], ARRAY[['\(Self.attackerToken)', '\(Self.attackerToken)'],
              ['\(Self.attackerToken)', '\(Self.attackerToken)']], ARRAY[['', ''], ['', '']], ARRAY[[1, 2], [3, 4]]::int8[],
              ARRAY[['event', 'event'], ['event', 'event']], ARRAY[[now(), now()], [now(), now()]], ARRAY[['{}', '{}'], ['{}', '{}']],
              ARRAY[['', ''], ['', '']])
            """)
        #expect(flat.status != 0 && flat.output.contains("at most 1000 records"), "\(flat.output)")
        #expect(Self.owner(lab, "SELECT count(*) FROM carrel_records WHERE session = 'mine'").output.hasPrefix("0"))
        // The victim's own record, sent again word for word without its token: nothing says it is there.
        let guess = Self.seat(lab, Self.publish("victim", token: Self.attackerToken, seq: 1, kind: "event", body: #"{"kind":"hand_raised"}"#))
        #expect(guess.output.hasPrefix("0|") && guess.output.contains("not proven"), "\(guess.output)")
        let own = Self.seat(lab, Self.publish("victim", token: Self.genuineToken, seq: 1, kind: "event", body: #"{"kind":"hand_raised"}"#))
        #expect(own.output.hasPrefix("1|"), "its own seat still learns it is kept: \(own.output)")
        // At its quota, its own seat sending a held record again still learns it is held.
        #expect(Self.owner(lab, "UPDATE carrel_sessions SET records_count = 50000 WHERE session = 'victim'").status == 0)
        let full = Self.seat(lab, Self.publish("victim", token: Self.genuineToken, seq: 1, kind: "event", body: #"{"kind":"hand_raised"}"#))
        #expect(full.output.hasPrefix("1|") && full.output.contains("quota"), "\(full.output)")
    }

    /// A refusal sent while the real seat's first announcement of its new session is not yet
    /// committed waits for it, then keeps the real seat's token and says it holds nothing.
    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func aRefusalRacingASeatsFirstAnnouncementTakesNothing() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        let (hello, refusal) = try Self.whileHeldOpen(lab, "SELECT carrel_hello('fresh', '{\"room\":\"lab1\",\"seat\":\"A2\"}', '\(Self.genuineToken)')") {
            Self.seat(lab, """
                SELECT carrel_seat_refused('fresh', '\(Self.attackerToken)', '{"room":"lab1","seat":"Z9","refusal":"wrong_test"}')
                """)
        }
        #expect(hello.contains("t"), "the real seat's announcement holds its session: \(hello)")
        #expect(refusal.output.trimmingCharacters(in: .whitespacesAndNewlines) == "f", "\(refusal.output)")
        #expect(Self.seat(lab, "SELECT carrel_live('fresh', '\(Self.genuineToken)', NULL, 'mac', 1)").output.hasPrefix("t"))
        #expect(Self.seat(lab, "SELECT carrel_live('fresh', '\(Self.attackerToken)', NULL, 'mac', 1)").output.hasPrefix("f"))
    }

    /// A batch that waited for its session's row while the seat's full announcement made that
    /// row again sees no row to count against: it is refused to be sent again, never let through
    /// past the quota.
    @Test(.timeLimit(.minutes(3)), .enabled(if: enabled, "needs PostgreSQL (scripts/install-deps)"))
    func aBatchThatLosesItsSessionsRowIsSentAgainNotKeptUncounted() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try RoomEndToEndTests().lab(pg)
        // The look-up row a seat makes before its full announcement (no assessment yet).
        #expect(Self.seat(lab, "SELECT carrel_hello('remade', '{\"room\":\"lab1\",\"seat\":\"Z1\"}', '\(Self.attackerToken)')").output.hasPrefix("t"))
        let (_, batch) = try Self.whileHeldOpen(
            lab, "SELECT carrel_hello('remade', '{\"room\":\"lab1\",\"seat\":\"Z1\",\"assessment_id\":\"x\"}', '\(Self.attackerToken)')") {
            Self.seat(lab, Self.publish("remade", token: Self.attackerToken, seq: 1, body: "{}"))
        }
        #expect(batch.status != 0 && batch.output.contains("send it again"), "\(batch.output)")
        let row = Self.owner(lab, "SELECT records_count, (SELECT count(*) FROM carrel_records WHERE session = 'remade') FROM carrel_sessions WHERE session = 'remade'")
        #expect(row.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0|0", "\(row.output)")
        #expect(Self.seat(lab, Self.publish("remade", token: Self.attackerToken, seq: 1, body: "{}")).output.hasPrefix("1|"), "sent again, it is kept")
    }
}
