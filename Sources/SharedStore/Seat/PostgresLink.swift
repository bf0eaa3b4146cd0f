import AssessmentKit
import Foundation
import Logging
import PostgresNIO
import SessionKit
import Synchronization

/// A seat's connection to the lab's PostgreSQL: the statements behind `StoreLink`, each ended
/// within `timeout` seconds (the connection is closed then, and the call throws).
final class PostgresLink: StoreLink {
    let c: PostgresConnection
    let logger: Logger
    let timeout: Double
    private let pid = Mutex<Int64?>(nil)

    init(_ c: PostgresConnection, logger: Logger, timeout: Double) {
        self.c = c
        self.logger = logger
        self.timeout = timeout
    }

    /// Opens connections to `url` as "carrel seat".
    struct Opener: StoreLinkOpener {
        var url: SharedURL
        var timeout: Double
        var answerDeadline: Double { url.connectTimeout + timeout }

        func open() async throws -> any StoreLink {
            let logger = StoreCall.quietLogger
            let c = try await StoreCall.open(url, as: "carrel seat", logger: logger, timeout: timeout)
            return PostgresLink(c, logger: logger, timeout: timeout)
        }
    }

    func guarded<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await StoreCall.guarded(c, timeout: timeout, work)
    }

    func run(_ query: PostgresQuery) async throws {
        try await guarded { try await StoreCall.run(self.c, query, logger: self.logger) }
    }

    func hello(session: String, body: String) async throws {
        // The row exists until the session's own record makes it active (after a restart of
        // the store, it is made again).
        try await run("SELECT carrel_hello(\(session), \(body)::jsonb)")
    }

    func lock(session: String) async throws -> Bool {
        try await guarded {
            try await StoreCall.value(self.c, "SELECT pg_try_advisory_lock(hashtextextended(\(session), 0))", as: Bool.self,
                                      logger: self.logger) ?? false
        }
    }

    func unlock(session: String) async throws {
        try await run("SELECT pg_advisory_unlock(hashtextextended(\(session), 0))")
    }

    func commands(room: String, seat: String, after: Int64) async throws -> [SignedCommand] {
        try await signed("SELECT id::text, envelope, signature FROM carrel_seat_signed_commands(\(room), \(seat), \(after))")
    }

    func starts(room: String, seat: String, after: Int64) async throws -> [SignedCommand] {
        try await signed("SELECT id::text, envelope, signature FROM carrel_seat_starts(\(room), \(seat), \(after))")
    }

    func signed(_ query: PostgresQuery) async throws -> [SignedCommand] {
        let rows = try await guarded { try await StoreCall.rows(self.c, query, logger: self.logger) }
        return rows.compactMap { row in
            guard let t = StoreRows.texts(row), t.count == 3, let id = t[0].flatMap({ Int64($0) }) else { return nil }
            return SignedCommand(id: id, envelope: t[1], signature: t[2])
        }
    }

    func refused(session: String, detail: String) async throws {
        try await run("SELECT carrel_command_refused(\(session), \(detail))")
    }

    func marks(sessions: [String], after: Int64) async throws -> [StoreMark] {
        let rows = try await guarded {
            try await StoreCall.rows(self.c, """
                SELECT id::text, session, item, points::text, comment, at_epoch::text
                FROM carrel_seat_marks(\(sessions)::text[], \(after))
                """, logger: self.logger)
        }
        return rows.compactMap(SeatRoom.mark)
    }

    func serverProcess() async throws -> Int64 {
        if let known = pid.withLock({ $0 }) { return known }
        let found = try await guarded {
            try await StoreCall.value(self.c, "SELECT pg_backend_pid()::int8", as: Int64.self, logger: self.logger) ?? 0
        }
        pid.withLock { $0 = found }
        return found
    }

    func live(session: String, mac: String, elapsed: Double?) async throws {
        try await run("SELECT carrel_live(\(session), \(mac), \(elapsed))")
    }

    func pulse(session: String, elapsed: Double) async throws {
        try await run("SELECT carrel_pulse(\(session), \(elapsed))")
    }

    /// In an explicit transaction, and only COMMIT's own completion counts: PostgresNIO
    /// reports a statement done when the server says the statement finished, which for a
    /// statement outside a transaction comes before its commit; a connection lost between the
    /// two would lose the batch after the outbox had forgotten it. COMMIT's completion is sent
    /// once the commit is durable.
    func insert(_ records: [SentRecord]) async throws -> Int64 {
        try await guarded {
            try await StoreCall.run(self.c, "BEGIN", logger: self.logger)
            let kept = try await self.write(records)
            try await StoreCall.run(self.c, "COMMIT", logger: self.logger)
            return kept
        }
    }

    /// Writes records in the caller's transaction, and says how many of them the store holds
    /// as sent. `ON CONFLICT DO NOTHING` without naming the key needs nothing but INSERT
    /// privilege: a seat's role can add records and read none (docs/deployment.md).
    func write(_ records: [SentRecord]) async throws -> Int64 {
        let sessions = records.map(\.session), seqs = records.map(\.seq), kinds = records.map(\.kind)
        let times = records.map(\.at), bodies = records.map(\.body), macs = records.map(\.mac)
        let digests = records.map(\.digest)
        try await StoreCall.run(c, """
            INSERT INTO carrel_records (session, seq, kind, at, body, body_text, mac)
              SELECT s, q, k, a, b::jsonb, b, nullif(m, '')
              FROM unnest(\(sessions)::text[], \(seqs)::int8[], \(kinds)::text[], \(times)::timestamptz[], \(bodies)::text[],
                          \(macs)::text[])
                WITH ORDINALITY AS r(s, q, k, a, b, m, n)
              ORDER BY n
            ON CONFLICT DO NOTHING
            """, logger: logger)
        // What the store kept is what was sent: a record written there first under the same
        // number (unauthenticated, or by anyone) would otherwise have taken this one's place.
        return try await StoreCall.value(c, """
            SELECT carrel_seat_kept(\(sessions)::text[], \(seqs)::int8[], \(digests)::text[], \(macs)::text[])
            """, as: Int64.self, logger: logger) ?? 0
    }

    /// Each statement is given a second on the server: a slow store cancels the rehearsal
    /// there, and the connection, its advisory lock and the seat's place in the console stay.
    func rehearse(session: String, records: [SentRecord]) async throws {
        try await guarded {
            try await StoreCall.run(self.c, "BEGIN", logger: self.logger)
            // A rehearsal that fails changes nothing and is not tried again on this
            // connection: the begin itself will meet whatever it met. Only a connection that
            // cannot even roll back is given up, as any broken connection is.
            try? await StoreCall.run(self.c, "SET LOCAL statement_timeout = '1s'", logger: self.logger)
            _ = try? await self.write(records)
            try? await StoreCall.run(self.c, "SELECT carrel_live(\(session), '', 0)", logger: self.logger)
            try await StoreCall.run(self.c, "ROLLBACK", logger: self.logger)
        }
    }

    func listen(started: @escaping @Sendable () -> Void, heard: @escaping @Sendable () -> Void) async {
        // A listener that ends (the connection went) leaves the fallback reads.
        try? await c.listen(on: SharedSchema.commandChannel) { notices in
            started()
            for try await _ in notices { heard() }
        }
    }

    func close() async {
        // Closing a connection that is already gone has nothing left to report.
        try? await c.close()
    }
}
