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

    /// Opens connections to `url`'s store as "carrel seat", logged in as `SeatLogin` says (an
    /// enrolled machine's own role, else the URL's user).
    struct Opener: StoreLinkOpener {
        var url: SharedURL
        var timeout: Double
        var answerDeadline: Double { url.connectTimeout + timeout }

        func open() async throws -> any StoreLink {
            let logger = StoreCall.quietLogger
            let c = try await SeatLogin.open(url, logger: logger, timeout: timeout)
            return PostgresLink(c, logger: logger, timeout: timeout)
        }
    }

    func guarded<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await StoreCall.guarded(c, timeout: timeout, work)
    }

    func run(_ query: PostgresQuery) async throws {
        try await guarded { try await StoreCall.run(self.c, query, logger: self.logger) }
    }

    func hello(session: String, body: String, token: String) async throws -> Bool {
        // The row exists until the session's own record makes it active (after a restart of
        // the store, it is made again).
        try await guarded {
            try await StoreCall.value(self.c, "SELECT carrel_hello(\(session), \(body)::jsonb, \(token))", as: Bool.self,
                                      logger: self.logger) ?? false
        }
    }

    /// The seat's role takes no advisory lock itself (schema version 9): the store takes the
    /// session's, under the key the console reads in `pg_locks`, for a seat that proves it.
    /// The server process is learnt with it (the liveness claim names it), so that a begin
    /// does not ask for it.
    func lock(_ proof: SeatProof) async throws -> Bool {
        let rows = try await guarded {
            try await StoreCall.rows(self.c, """
                SELECT carrel_seat_lock(\(proof.session), \(proof.token), \(proof.previous))::text, pg_backend_pid()::text
                """, logger: self.logger)
        }
        guard let row = rows.first, let t = StoreRows.texts(row), t.count == 2 else { return false }
        if let found = t[1].flatMap({ Int64($0) }) { pid.withLock { $0 = found } }
        return t[0] == "true"
    }

    func unlock(session: String) async throws {
        try await run("SELECT carrel_seat_unlock(\(session))")
    }

    func commands(room: String, seat: String, proof: SeatProof, after: Int64) async throws -> [SignedCommand] {
        try await signed("""
            SELECT id::text, envelope, signature
            FROM carrel_seat_commands(\(proof.session), \(proof.token), \(proof.previous), \(after), false)
            """)
    }

    func starts(room: String, seat: String, proof: SeatProof, after: Int64) async throws -> [SignedCommand] {
        try await signed("""
            SELECT id::text, envelope, signature
            FROM carrel_seat_commands(\(proof.session), \(proof.token), \(proof.previous), \(after), true)
            """)
    }

    /// Both reads in one statement: the commands in order, then the starts newest first
    /// (each part keeps its function's order: `part` and `place` say where a row came from).
    func commandsAndStarts(room: String, seat: String, proof: SeatProof, after: Int64,
                           startsAfter: Int64) async throws -> (commands: [SignedCommand], starts: [SignedCommand]) {
        let rows = try await guarded {
            try await StoreCall.rows(self.c, """
                SELECT part::text, id::text, envelope, signature FROM (
                  SELECT 1 AS part, c.ordinality AS place, c.id, c.envelope, c.signature
                    FROM carrel_seat_commands(\(proof.session), \(proof.token), \(proof.previous), \(after), false) WITH ORDINALITY c
                  UNION ALL
                  SELECT 2, s.ordinality, s.id, s.envelope, s.signature
                    FROM carrel_seat_commands(\(proof.session), \(proof.token), \(proof.previous), \(startsAfter), true) WITH ORDINALITY s
                ) both_reads ORDER BY part, place
                """, logger: self.logger)
        }
        var commands: [SignedCommand] = [], starts: [SignedCommand] = []
        for row in rows {
            guard let t = StoreRows.texts(row), t.count == 4, let id = t[1].flatMap({ Int64($0) }) else { continue }
            let command = SignedCommand(id: id, envelope: t[2], signature: t[3])
            if t[0] == "1" { commands.append(command) } else { starts.append(command) }
        }
        return (commands, starts)
    }

    func signed(_ query: PostgresQuery) async throws -> [SignedCommand] {
        let rows = try await guarded { try await StoreCall.rows(self.c, query, logger: self.logger) }
        return rows.compactMap { row in
            guard let t = StoreRows.texts(row), t.count == 3, let id = t[0].flatMap({ Int64($0) }) else { return nil }
            return SignedCommand(id: id, envelope: t[1], signature: t[2])
        }
    }

    func refused(_ proof: SeatProof, detail: String) async throws {
        try await run("SELECT carrel_command_refused(\(proof.session), \(proof.token), \(proof.previous), \(detail))")
    }

    func marks(_ proofs: [SeatProof], after: Int64) async throws -> [StoreMark] {
        let sessions = proofs.map(\.session), tokens = proofs.map(\.token)
        let rows = try await guarded {
            try await StoreCall.rows(self.c, """
                SELECT id::text, session, item, points::text, comment, at_epoch::text
                FROM carrel_seat_marks(\(sessions)::text[], \(tokens)::text[], \(after))
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

    func live(_ proof: SeatProof, mac: String, elapsed: Double?) async throws {
        try await run("SELECT carrel_live(\(proof.session), \(proof.token), \(proof.previous), \(mac), \(elapsed))")
    }

    func fate(_ proof: SeatProof) async throws -> String? {
        try await guarded {
            try await StoreCall.value(self.c, "SELECT carrel_session_fate(\(proof.session), \(proof.token))", as: String?.self,
                                      logger: self.logger) ?? nil
        }
    }

    func pulse(_ proof: SeatProof, elapsed: Double) async throws {
        try await run("SELECT carrel_pulse(\(proof.session), \(proof.token), \(proof.previous), \(elapsed))")
    }

    /// One call that commits before it returns (`carrel_publish_committed`, schema version 13):
    /// PostgresNIO reports a statement done when the server says the statement finished,
    /// which for a statement outside a transaction comes before its commit, so a plain call
    /// of `carrel_publish` lost between the two would lose the batch after the outbox had
    /// forgotten it. The procedure commits inside the call: its completion is sent once the
    /// batch is durable, as COMMIT's was when a batch was BEGIN, the call and COMMIT (three
    /// round trips where there is one).
    func insert(_ records: [SentRecord]) async throws -> StoreKept {
        try await insert(records, claim: nil)
    }

    /// With a liveness claim, the claim is made in the same call, before the records.
    func insert(_ records: [SentRecord], claim: StoreLiveClaim?) async throws -> StoreKept {
        let b = Batch(records)
        return try await guarded {
            let rows = try await StoreCall.rows(self.c, """
                CALL carrel_publish_committed(\(b.sessions)::text[], \(b.tokens)::text[], \(b.previous)::text[],
                  \(b.seqs)::int8[], \(b.kinds)::text[], \(b.times)::timestamptz[], \(b.bodies)::text[], \(b.macs)::text[],
                  p_live_session => \(claim?.proof.session), p_live_token => \(claim?.proof.token),
                  p_live_previous => \(claim?.proof.previous), p_live_mac => \(claim?.mac), p_live_elapsed => \(claim?.elapsed))
                """, logger: self.logger)
            // The procedure's row: how many the store holds as sent, and why it kept others out.
            // A row that cannot be read counts nothing kept: the call completed, so the batch
            // is durable; the seat only says that fewer were kept than it sent.
            guard let row = rows.first, let kept = try? row.decode((Int64?, String?).self) else { return StoreKept(kept: 0) }
            return StoreKept(kept: kept.0 ?? 0, refused: kept.1)
        }
    }

    /// Writes records in the caller's transaction through `carrel_publish` (the seat's role
    /// inserts nothing itself: the store checks each session's proof and quota), and says how
    /// many of them the store holds as sent and why it kept others out. Only the rehearsal,
    /// which rolls back, writes this way.
    func write(_ records: [SentRecord]) async throws -> StoreKept {
        let b = Batch(records)
        let rows = try await StoreCall.rows(c, """
            SELECT kept::text, refused FROM carrel_publish(\(b.sessions)::text[], \(b.tokens)::text[], \(b.previous)::text[],
              \(b.seqs)::int8[], \(b.kinds)::text[], \(b.times)::timestamptz[], \(b.bodies)::text[], \(b.macs)::text[])
            """, logger: logger)
        guard let row = rows.first, let t = StoreRows.texts(row), t.count == 2 else { return StoreKept(kept: 0) }
        return StoreKept(kept: t[0].flatMap { Int64($0) } ?? 0, refused: t[1])
    }

    /// A batch as `carrel_publish` takes it: eight arrays, one element a record.
    struct Batch {
        let sessions: [String], tokens: [String], previous: [String], seqs: [Int64]
        let kinds: [String], times: [Date], bodies: [String], macs: [String]

        init(_ records: [SentRecord]) {
            sessions = records.map(\.session)
            tokens = records.map(\.token)
            previous = records.map { $0.previous ?? "" }
            seqs = records.map(\.seq)
            kinds = records.map(\.kind)
            times = records.map(\.at)
            bodies = records.map(\.body)
            macs = records.map(\.mac)
        }
    }

    /// Each statement is given a second on the server: a slow store cancels the rehearsal
    /// there, and the connection, its advisory lock and the seat's place in the console stay.
    func rehearse(_ proof: SeatProof, records: [SentRecord]) async throws {
        try await guarded {
            try await StoreCall.run(self.c, "BEGIN", logger: self.logger)
            // A rehearsal that fails changes nothing and is not tried again on this
            // connection: the begin itself will meet whatever it met. Only a connection that
            // cannot even roll back is given up, as any broken connection is.
            try? await StoreCall.run(self.c, "SET LOCAL statement_timeout = '1s'", logger: self.logger)
            _ = try? await self.write(records)
            try? await StoreCall.run(self.c, "SELECT carrel_live(\(proof.session), \(proof.token), \(proof.previous), '', 0)",
                                     logger: self.logger)
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
