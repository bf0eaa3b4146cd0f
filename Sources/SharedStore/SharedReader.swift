import AssessmentKit
import Foundation
import GRDB
import Logging
import PostgresNIO
import SessionKit

/// Reads the shared store for the proctor: the seats of a room, and a copy of its sessions
/// in the journal's own form, so `results` prints exactly what it prints from a local journal.
public final class SharedReader: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Connects (bringing the schema up to date when this role may) within the URL's timeout.
    public static func open(_ url: SharedURL) async throws -> SharedReader {
        let logger = StoreCall.quietLogger
        // Statements may run as long as the longest read below waits (an export, 120 s).
        let connection = try await StoreCall.open(url, as: "carrel proctor", logger: logger, timeout: 10, statementLimit: 120)
        return SharedReader(connection: connection, logger: logger)
    }

    public func close() async {
        // Closing a connection that is already gone has nothing left to do.
        try? await connection.close()
    }

    /// Runs `body` with a notification stream of the store's changes.
    public func listen<T>(_ body: (PostgresNotificationSequence) async throws -> T) async throws -> T {
        try await connection.listen(on: SharedSchema.channel, consume: body)
    }

    struct RawSeat: Decodable {
        var session: String
        var candidate: String?
        var seat: String
        var room: String
        var assessment: String
        var assessment_title: String
        var status: String
        var end_reason: String?
        var answered: Int
        var total: Int
        var time_allowed: Double?
        var elapsed: Double
        var paste_attempts: Int
        var focus_losses: Int
        var exit_attempts: Int
        var interruptions: Int
        var last_seen: String
        var quiet: Double
        var connected: Bool
    }

    /// The advisory locks held now, each as the session key it was taken under
    /// (`hashtextextended(session, 0)`): a session whose key is here has a live seat.
    static let heldLocks = """
        WITH held AS (
          SELECT (l.classid::bigint << 32) | l.objid::bigint AS key FROM pg_locks l
          WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
        """

    /// Every seat of `room` (every room when nil), trouble first.
    public func seats(room: String?) async throws -> [SeatView] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 10) { try await connection.query("""
            \(unescaped: Self.heldLocks)
            SELECT json_build_object(
              'session', s.session, 'candidate', s.candidate, 'seat', s.seat, 'room', s.room,
              'assessment', s.assessment_id, 'assessment_title', s.assessment_title, 'status', s.status,
              'end_reason', s.end_reason, 'answered', s.answered, 'total', s.total,
              'time_allowed', s.time_allowed_seconds, 'elapsed', s.elapsed_seconds,
              'paste_attempts', s.paste_attempts, 'focus_losses', s.focus_losses, 'exit_attempts', s.exit_attempts,
              'interruptions', s.interruptions,
              'last_seen', to_char(s.last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
              'quiet', extract(epoch FROM clock_timestamp() - s.last_seen)::float8,
              'connected', h.key IS NOT NULL)::text
            FROM carrel_sessions s LEFT JOIN (SELECT DISTINCT key FROM held) h ON h.key = s.lock_key
            WHERE \(room)::text IS NULL OR s.room = \(room)::text
            """, logger: logger).collect() }
        let decoder = JSONDecoder()
        var seats: [SeatView] = []
        for row in rows {
            // A row that cannot be read is one seat's problem, never the whole room's.
            guard let text = try? row.decode(String.self),
                  let raw = try? decoder.decode(RawSeat.self, from: Data(text.utf8)) else { continue }
            // A seat that left its start screen without beginning is gone, not waiting.
            if raw.status == "not_started" && !raw.connected { continue }
            seats.append(Self.view(raw))
        }
        return seats.sorted(by: SeatView.troubleFirst)
    }

    static func view(_ raw: RawSeat) -> SeatView {
        let status: String
        switch raw.status {
        case "active", "review", "beginning", "ending":
            status = raw.connected ? "active" : "interrupted"
        case "interrupted": status = "interrupted"
        case "not_started": status = "not_started"
        case "ended", "abandoned", "failed_to_begin":
            switch raw.end_reason {
            case "submitted": status = "submitted"
            case "timed_out": status = "timed_out"
            default: status = "ended"
            }
        default: status = raw.status
        }
        // Time left means something only while the test can still go on.
        let running = ["active", "interrupted", "not_started"].contains(status)
        let left = running ? raw.time_allowed.map { whole($0 - raw.elapsed) } : nil
        // A running seat reports every second; a seat heard from longer ago is hung or cut off
        // even while its connection stays open.
        let quiet = raw.status == "not_started" && raw.connected ? 0 : whole(raw.quiet)
        return SeatView(
            session: raw.session, candidate: raw.candidate, seat: raw.seat, room: raw.room, assessment: raw.assessment,
            assessmentTitle: raw.assessment_title, status: status, answered: raw.answered, total: raw.total,
            timeLeftSeconds: left, pasteAttempts: raw.paste_attempts, focusLosses: raw.focus_losses,
            exitAttempts: raw.exit_attempts, interruptions: raw.interruptions, lastSeen: raw.last_seen,
            lastHeardSeconds: quiet, connected: raw.connected)
    }

    /// Whole seconds from 0 to ten million, whatever number the store holds.
    static func whole(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? 10_000_000 : 0 }
        return Int(min(max(value, 0), 10_000_000).rounded(.down))
    }

    /// One session's events as its seat published them, oldest first.
    public func events(session: String) async throws -> [JournalEvent] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 10) { try await connection.query("""
            SELECT at, coalesce(body->>'kind', ''), coalesce(body->>'detail', '') FROM carrel_records
            WHERE session = \(session) AND kind = 'event' ORDER BY seq
            """, logger: logger).collect() }
        return try rows.map { row in
            let (at, kind, detail) = try row.decode((Date, String, String).self)
            return JournalEvent(at: at, kind: kind, detail: detail)
        }
    }

    struct RawSession: Decodable {
        var session: String
        var candidate: String?
        var room: String
        var seat: String
        var assessment_id: String
        var assessment_title: String
        var fingerprint: String
        var status: String
        var end_reason: String?
        var started_at: String
        var ended_at: String?
        var elapsed: Double
        var interruptions: Int
        var pid: Int?
        var host: String?
        var connected: Bool
    }

    /// The sessions of `room` (every room when nil) copied into an in-memory journal: their
    /// rows, events and results, as `results` reads them from a seat's own journal. Also the
    /// sessions that are interrupted (their seat's process is gone before they ended).
    public func journalCopy(room: String?) async throws -> (journal: Journal, waiting: Set<String>) {
        let journal = try Journal(writer: try DatabaseQueue())
        var waiting: Set<String> = []
        let connection = self.connection
        let logger = self.logger
        let sessions = try await StoreCall.guarded(connection, timeout: 30) { try await connection.query("""
            \(unescaped: Self.heldLocks)
            SELECT json_build_object(
              'session', s.session, 'candidate', s.candidate, 'room', s.room, 'seat', s.seat,
              'assessment_id', s.assessment_id, 'assessment_title', s.assessment_title, 'fingerprint', s.fingerprint,
              'status', s.status, 'end_reason', s.end_reason,
              'started_at', to_char(s.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'),
              'ended_at', to_char(s.ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'),
              'elapsed', s.saved_elapsed_seconds, 'interruptions', s.interruptions, 'pid', s.pid, 'host', s.host,
              'connected', h.key IS NOT NULL)::text
            FROM carrel_sessions s LEFT JOIN (SELECT DISTINCT key FROM held) h ON h.key = s.lock_key
            WHERE (\(room)::text IS NULL OR s.room = \(room)::text) AND s.status <> 'not_started'
            ORDER BY s.started_at, s.session
            """, logger: logger).collect() }
        let decoder = JSONDecoder()
        var raws: [RawSession] = []
        let statuses = Set(["active", "review", "ending", "ended", "interrupted", "abandoned"])
        let reasons = Set(["submitted", "timed_out", "ended_by_proctor", "ended_by_candidate"])
        for row in sessions {
            // A session whose row cannot be read, or whose status is not one a journal has, is
            // left out (one seat's data never stops the results of the others).
            guard let text = try? row.decode(String.self),
                  var raw = try? decoder.decode(RawSession.self, from: Data(text.utf8)),
                  statuses.contains(raw.status) else { continue }
            if let reason = raw.end_reason, !reasons.contains(reason) { raw.end_reason = nil }
            raw.elapsed = Double(Self.whole(raw.elapsed))
            raws.append(raw)
        }
        let ids = raws.map(\.session)
        // Each session's time used as its result says (the store's own figure is the last
        // the running seat reported), events and results.
        var events: [(String, String, String, String)] = []
        for row in try await StoreCall.guarded(connection, timeout: 60, { try await connection.query("""
            SELECT session, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'),
                   coalesce(body->>'kind', ''), coalesce(body->>'detail', '')
            FROM carrel_records WHERE kind = 'event' AND session = ANY(\(ids)::text[]) ORDER BY session, seq
            """, logger: logger).collect() }) {
            guard let event = try? row.decode((String, String, String, String).self) else { continue }
            events.append(event)
        }
        // Each result is read from its document, and its gradebook digest made here again: a
        // seat's role can add records, so what it sent is data to check, not to trust (a
        // document that does not read as a result, or names another session, is left out;
        // spreadsheet cells are neutralised here, whatever the seat sent).
        var results: [(String, String, String, String, String, String)] = []
        let documentDecoder = JSONDecoder()
        for row in try await StoreCall.guarded(connection, timeout: 120, { try await connection.query("""
            SELECT session, json FROM carrel_results WHERE session = ANY(\(ids)::text[])
            """, logger: logger).collect() }) {
            guard let (session, json) = try? row.decode((String, String).self) else { continue }
            guard let document = try? documentDecoder.decode(ResultDocument.self, from: Data(json.utf8)),
                  document.session == session,
                  let columns = try? ResultDigest(document).columns() else { continue }
            results.append((session, columns.heading, columns.items, columns.csv, columns.cells, json))
        }
        for raw in raws {
            let running = ["active", "review", "beginning", "ending"].contains(raw.status)
            if raw.status == "interrupted" || (running && !raw.connected) { waiting.insert(raw.session) }
        }
        let noExtraTime = String(decoding: try JSONEncoder().encode(ExtraTime.none), as: UTF8.self)
        try await journal.writer.write { [raws, events, results] db in
            for raw in raws {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO assessment (fingerprint, assessment_id, title, path, format, source)
                      VALUES (?, ?, ?, '(shared store)', 'yaml', x'')
                    """, arguments: [raw.fingerprint, raw.assessment_id, raw.assessment_title])
                let options = String(decoding: try JSONEncoder().encode(SessionOptions(shared: SharedLabel(room: raw.room, seat: raw.seat))),
                                     as: UTF8.self)
                try db.execute(sql: """
                    INSERT INTO session (id, fingerprint, assessment_id, assessment_title, candidate, status, end_reason, seed,
                      extra_time, options, started_at, ended_at, interruptions, pid, host, tty)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, NULL)
                    """, arguments: [raw.session, raw.fingerprint, raw.assessment_id, raw.assessment_title, raw.candidate,
                                     raw.status, raw.end_reason, noExtraTime, options, raw.started_at, raw.ended_at, raw.interruptions,
                                     raw.pid ?? 0, raw.host ?? ""])
                try db.execute(sql: "INSERT INTO progress (session_id, position, elapsed) VALUES (?, 0, ?)",
                               arguments: [raw.session, raw.elapsed])
            }
            for (session, at, kind, detail) in events {
                try db.execute(sql: "INSERT INTO event (session_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                               arguments: [session, at, kind, detail])
            }
            for (session, heading, items, csv, cells, json) in results {
                try db.execute(sql: "INSERT INTO result (session_id, heading, items, csv, cells, json) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [session, heading, items, csv, cells, json])
                // A finished session's time used is its result's.
                try db.execute(sql: """
                    UPDATE progress SET elapsed = coalesce(json_extract(?, '$.time_used_seconds'), elapsed) WHERE session_id = ?
                    """, arguments: [json, session])
            }
        }
        return (journal, waiting)
    }
}

/// Runs async work to its end from synchronous code (a command's `run`).
public enum Blocking {
    final class Box<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }

    public static func run<T>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                box.result = .success(try await work())
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        guard let result = box.result else { throw CancellationError() }
        return try result.get()
    }
}
