import AssessmentKit
import Foundation
import PostgresNIO
import SessionKit

/// Who issued one of the store's commands, and when.
public struct CommandIssue: Sendable, Equatable {
    public var by: String
    /// ISO-8601 UTC.
    public var at: String
}

extension SharedReader {
    /// The roster's extra time of each of `sessions` (found by its room and roster number),
    /// as `ExtraTime.rosterText` gives it; sessions with none are absent.
    func rosterExtraTimes(_ sessions: [String]) async throws -> [String: String] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            SELECT s.session, e->>'extra_time'
            FROM carrel_sessions s JOIN carrel_rooms r ON r.room = s.room,
                 jsonb_array_elements(CASE WHEN jsonb_typeof(r.roster) = 'array' THEN r.roster ELSE '[]'::jsonb END) e
            WHERE s.session = ANY(\(sessions)::text[]) AND s.candidate_number IS NOT NULL
              AND e->>'candidate' = s.candidate_number AND e ? 'extra_time'
            """, logger: logger) }
        var out: [String: String] = [:]
        for row in rows {
            // A roster line Carrel cannot read gives no extra time: the session is still listed.
            guard let t = StoreRows.texts(row), t.count == 2, let session = t[0],
                  let text = t[1], let extra = ExtraTime(parsing: text) else { continue }
            out[session] = extra.rosterText
        }
        return out
    }

    /// Who issued each `time` command of the rooms of `sessions`, and when, by the command's
    /// number (the number a seat journals as `#ID time N`).
    func timeCommandIssues(_ sessions: [String]) async throws -> [Int64: CommandIssue] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            SELECT c.id::text, c.issued_by, extract(epoch FROM c.issued_at)::text
            FROM carrel_commands c
            WHERE c.action = 'time' AND c.room IN (SELECT room FROM carrel_sessions WHERE session = ANY(\(sessions)::text[]))
            """, logger: logger) }
        var out: [Int64: CommandIssue] = [:]
        for row in rows {
            guard let t = StoreRows.texts(row), t.count == 3, let id = t[0].flatMap({ Int64($0) }),
                  let at = StoreRows.date(t[2]) else { continue }
            let by = TerminalSafety.visible(String((t[1] ?? "").prefix(64)), keepLineBreaks: false)
            out[id] = CommandIssue(by: by, at: Timestamp.iso(at))
        }
        return out
    }
}

extension SharedReader {
    /// Each of `sessions`' moves to another seat (`carrel proctor move`), in order, as the
    /// store's trigger kept them; sessions never moved are absent.
    func sessionMoves(_ sessions: [String]) async throws -> [String: [SeatMove]] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            SELECT s.session, m->>'from', m->>'to', extract(epoch FROM (m->>'at')::timestamptz)::text, m->>'by'
            FROM carrel_sessions s,
                 jsonb_array_elements(CASE WHEN jsonb_typeof(s.moves) = 'array' THEN s.moves ELSE '[]'::jsonb END) WITH ORDINALITY AS x(m, n)
            WHERE s.session = ANY(\(sessions)::text[]) AND jsonb_typeof(m) = 'object'
            ORDER BY s.session, n
            """, logger: logger) }
        var out: [String: [SeatMove]] = [:]
        let v = { (t: String?) in TerminalSafety.visible(String((t ?? "").prefix(64)), keepLineBreaks: false) }
        for row in rows {
            guard let t = StoreRows.texts(row), t.count == 5, let session = t[0], let at = StoreRows.date(t[3]) else { continue }
            out[session, default: []].append(SeatMove(from: v(t[1]), to: v(t[2]), at: Timestamp.iso(at), by: t[4].map { v($0) }))
        }
        return out
    }
}

extension SharedReader {
    /// The sessions of `copy` that no start of the proctor's keyed (`checks`), in rooms whose
    /// plan says the proctor starts them.
    func unstartedInProctorRooms(_ copy: CopyPlan, checks: [String: SessionCheck]) async throws -> Set<String> {
        let candidates = copy.sessions.filter { checks[$0.session]?.keyed == false }
        guard !candidates.isEmpty else { return [] }
        let rooms = Array(Set(candidates.map(\.room)))
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            SELECT room FROM carrel_rooms WHERE room = ANY(\(rooms)::text[]) AND start_mode = 'proctor'
            """, logger: logger) }
        let proctorRooms = Set(rows.compactMap { StoreRows.texts($0)?.first.flatMap { $0 } })
        return Set(candidates.filter { proctorRooms.contains($0.room) }.map(\.session))
    }
}

extension StoreRows.Session {
    /// The status `results` gives a session whose store status or end reason its record
    /// cannot hold (`wrong_test`, `candidate_twice`, `seat_lost`, a later Carrel's word), or
    /// nil when the record says it.
    var reportedStatus: String? {
        let known = SessionStatus(rawValue: storeStatus).map { Self.statuses.contains($0) } ?? false
        guard known else { return storeStatus }
        if let reason = storeEndReason, EndReason(rawValue: reason) == nil, !reason.isEmpty { return reason }
        return nil
    }
}
