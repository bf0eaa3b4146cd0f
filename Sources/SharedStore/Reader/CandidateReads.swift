import Logging
import PostgresNIO

/// What the proctor's role reads and writes of a room's candidates (schema version 6).
extension SharedReader {
    /// Releases a candidate held after wrong codes (they get five more tries); false when the
    /// open room's roster has no such candidate.
    public func releaseCandidate(room: String, candidate: String) async throws -> Bool {
        let c = connection
        let logger = self.logger
        let released = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.value(c, """
                INSERT INTO carrel_candidate_releases (room, candidate)
                SELECT r.room, e->>'candidate' FROM carrel_rooms r, jsonb_array_elements(r.roster) e
                WHERE r.room = \(room) AND r.closed_at IS NULL AND lower(e->>'candidate') = lower(\(candidate))
                LIMIT 1
                RETURNING true
                """, as: Bool.self, logger: logger)
        }
        return released == true
    }

    /// Whether `room`'s open plan has a roster without codes (identities taken on the word of
    /// whoever types a candidate number).
    public func identitiesUnchecked(_ room: String) async throws -> Bool {
        let c = connection
        let logger = self.logger
        return try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.value(c, """
                SELECT roster IS NOT NULL AND code_salt IS NULL FROM carrel_rooms WHERE room = \(room) AND closed_at IS NULL
                """, as: Bool.self, logger: logger)
        } ?? false
    }
}

/// One line of a room's roster as `room show` lists it: the candidate, their accommodations,
/// and where they sit now (the seat of their latest session in the room, and its state).
public struct RosterLine: Sendable, Equatable, Encodable {
    public var candidate: String
    public var name: String
    public var plannedSeat: String?
    public var extraTime: String?
    public var screenReader: Bool?
    public var theme: String?
    public var language: String?
    public var hasCode: Bool
    /// The seat of the candidate's latest session in the room, and that session's status.
    public var seatedAt: String?
    public var sessionStatus: String?

    enum CodingKeys: String, CodingKey {
        case candidate, name, plannedSeat = "planned_seat", extraTime = "extra_time", screenReader = "screen_reader", theme, language
        case hasCode = "has_code", seatedAt = "seated_at", sessionStatus = "session_status"
    }

    /// Every key is written, `null` included.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(candidate, forKey: .candidate)
        try c.encode(name, forKey: .name)
        try c.encode(plannedSeat, forKey: .plannedSeat)
        try c.encode(extraTime, forKey: .extraTime)
        try c.encode(screenReader, forKey: .screenReader)
        try c.encode(theme, forKey: .theme)
        try c.encode(language, forKey: .language)
        try c.encode(hasCode, forKey: .hasCode)
        try c.encode(seatedAt, forKey: .seatedAt)
        try c.encode(sessionStatus, forKey: .sessionStatus)
    }
}

extension SharedReader {
    /// The roster of `room`'s plan (open or last closed), in its order, with where each
    /// candidate sits: the seat of their latest session in the room that is not a refused one.
    public func roster(room: String) async throws -> [RosterLine] {
        let c = connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(c, timeout: 20) {
            try await StoreCall.rows(c, """
                WITH plan AS (
                  SELECT roster FROM carrel_rooms WHERE room = \(room) ORDER BY closed_at IS NULL DESC, closed_at DESC NULLS FIRST LIMIT 1)
                SELECT e->>'candidate', e->>'name', e->>'seat', e->>'extra_time',
                       CASE jsonb_typeof(e->'screen_reader') WHEN 'boolean' THEN (e->>'screen_reader') END,
                       e->>'theme', e->>'language', (e ? 'code_hash')::text, s.seat, s.status
                FROM plan, jsonb_array_elements(coalesce(plan.roster, '[]'::jsonb)) WITH ORDINALITY AS r(e, n)
                LEFT JOIN LATERAL (
                  SELECT s.seat, s.status FROM carrel_sessions s
                  WHERE s.room = \(room) AND lower(s.candidate_number) = lower(e->>'candidate')
                    AND s.status NOT IN ('candidate_twice', 'wrong_test')
                  ORDER BY s.started_at DESC NULLS LAST LIMIT 1) s ON true
                ORDER BY n
                """, logger: logger)
        }
        var lines: [RosterLine] = []
        for row in rows {
            guard let t = StoreRows.texts(row), t.count == 10, let candidate = t[0] else { continue }
            lines.append(RosterLine(candidate: candidate, name: t[1] ?? "", plannedSeat: t[2], extraTime: t[3],
                                    screenReader: t[4].map { $0 == "true" }, theme: t[5], language: t[6],
                                    hasCode: t[7] == "true", seatedAt: t[8], sessionStatus: t[9]))
        }
        return lines
    }
}
