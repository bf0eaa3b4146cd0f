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
