import AssessmentKit
import Foundation
import GRDB
import Logging
import PostgresNIO
import SessionKit

/// What a seat reads of its room, through the functions its role may call.
public enum SeatRoom {
    /// The room's plan as this seat sees it; nil when the room has no open plan.
    public static func plan(_ url: SharedURL, room: String, seat: String) async throws -> SeatRoomPlan? {
        try await withConnection(url) { c, logger in
            let rows = try await StoreCall.rows(c, """
                SELECT fingerprint, assessment_title, start_mode, carrel_digest, has_roster::text, last_command::text,
                       start_command::text, carrel_room_codes(\(room))
                FROM carrel_room_plan(\(room), \(seat))
                """, logger: logger)
            guard let row = rows.first, let t = StoreRows.texts(row), t.count == 8 else { return nil }
            return SeatRoomPlan(
                fingerprint: t[0] ?? "", assessmentTitle: t[1] ?? "", startMode: RoomStartMode(rawValue: t[2] ?? "") ?? .candidate,
                carrelDigest: t[3] ?? "", hasRoster: t[4] == "true", lastCommand: t[5].flatMap { Int64($0) } ?? 0,
                startCommand: t[6].flatMap { Int64($0) }, codeSalt: t[7])
        }
    }

    /// What the roster says of a number (and code) typed at a seat.
    public enum Lookup: Sendable, Equatable {
        case found(RosterMatch)
        /// Not on the roster, or a wrong code: the store does not say which.
        case noMatch
        /// Too many wrong codes: the candidate waits for the proctor.
        case held(candidate: String)
    }

    /// The roster's candidate with this number, and this code when the roster has codes (the
    /// seat sends the code's hash, salted with `codeSalt`); `session` and `token` are those the
    /// seat will announce itself with, so that only it counts as that candidate's seat.
    public static func candidate(_ url: SharedURL, room: String, seat: String, number: String, code: String?,
                                 codeSalt: String?, session: String, token: String) async throws -> Lookup {
        let hash = code.flatMap { code in codeSalt.map { CandidateCode.hash(code, candidate: number, salt: $0) } }
        return try await withConnection(url) { c, logger in
            // The store counts tries per session its seat announced in the room and proves
            // (schema version 9): the seat's row first, with no test named yet; its full
            // announcement makes it again.
            let hello = "{\"room\":\(JSONLiteral.string(room)),\"seat\":\(JSONLiteral.string(seat))}"
            guard try await StoreCall.value(c, "SELECT carrel_hello(\(session), \(hello)::jsonb, \(token))", as: Bool.self,
                                            logger: logger) ?? false else {
                throw SharedSchema.Problem(description: "the store holds session \(session) for another seat")
            }
            // Two transactions: the try is committed (and counted) before it is answered.
            let attempt = try await StoreCall.value(c, "SELECT carrel_candidate_try(\(room), \(session), \(token), \(number), \(hash))",
                                                    as: Int64.self, logger: logger) ?? 0
            let rows = try await StoreCall.rows(c, """
                SELECT outcome, candidate, name, seat, extra_time, screen_reader::text, theme, language, seated_at
                FROM carrel_candidate(\(attempt), \(seat), \(session), \(token))
                """, logger: logger)
            guard let row = rows.first, let t = StoreRows.texts(row), t.count == 9 else { return .noMatch }
            switch t[0] {
            case "found":
                // A session of this candidate the proctor started and that has not ended, at a
                // machine however long dead (schema version 10): the seat offers to move it here.
                let elsewhere = try await t[8] == nil
                    ? StoreCall.value(c, "SELECT carrel_candidate_elsewhere(\(session), \(token))", as: String?.self, logger: logger) ?? nil
                    : t[8]
                return .found(RosterMatch(
                    candidate: t[1] ?? number, name: t[2] ?? "", seat: t[3],
                    extraTime: t[4].flatMap { ExtraTime(parsing: $0) } ?? .none,
                    screenReader: t[5].map { $0 == "true" }, theme: t[6], language: t[7], seatedAt: elsewhere))
            case "held":
                return .held(candidate: t[1] ?? number)
            default:
                return .noMatch
            }
        }
    }

    /// Why a seat refused to begin, as the console shows it.
    public enum Refusal: String, Sendable {
        /// The seat's file is not the room's test.
        case wrongTest = "wrong_test"
        /// The candidate is seated at another seat now.
        case candidateTwice = "candidate_twice"
    }

    /// Tells the proctor's console that this seat refused to begin, for the session (and its
    /// token) the seat chose before it asked the roster: the store takes a refusal only for a
    /// session its seat proves. Best effort (the seat's refusal stands whatever the store says).
    public static func reportRefused(_ url: SharedURL, _ refusal: Refusal, session: String, token: String,
                                     label: SharedLabel, candidate: String?,
                                     assessmentID: String, assessmentTitle: String, fingerprint: String,
                                     attestation: [String: String]) async {
        let string = JSONLiteral.string
        let body = """
            {"room":\(string(label.room)),"seat":\(string(label.seat)),"candidate":\(JSONLiteral.optional(candidate)),\
            "assessment_id":\(string(assessmentID)),"assessment_title":\(string(assessmentTitle)),\
            "fingerprint":\(string(fingerprint)),"pid":\(getpid()),"refusal":\(string(refusal.rawValue)),\
            "attestation":\(JSONLiteral.object(attestation))}
            """
        // Nothing to do when the store cannot hear it: the seat has refused already.
        _ = try? await withConnection(url) { c, logger in
            try await StoreCall.run(c, "SELECT carrel_seat_refused(\(session), \(token), \(body)::jsonb)", logger: logger)
        }
    }

    /// One mark row (id, session, item, points, comment, epoch), each value checked.
    static func mark(_ row: PostgresRow) -> StoreMark? {
        guard let t = StoreRows.texts(row), t.count == 6, let id = t[0].flatMap({ Int64($0) }), let session = t[1],
              let item = t[2], let points = t[3].flatMap({ Double($0) }), points.isFinite, points >= 0,
              let at = StoreRows.date(t[5]) else { return nil }
        return StoreMark(id: id, session: session, item: item, points: points, comment: t[4], at: at)
    }

    static func withConnection<T: Sendable>(_ url: SharedURL,
                                            _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T) async throws -> T {
        let logger = StoreCall.quietLogger
        // Logged in as the seat's publisher is (an enrolled machine's own role, when it has one).
        let c = try await SeatLogin.open(url, logger: logger, timeout: 10)
        do {
            let value = try await StoreCall.guarded(c, timeout: 10) { try await body(c, logger) }
            try? await c.close()
            return value
        } catch {
            // The error that matters is the call's; a close that fails adds nothing.
            try? await c.close()
            throw error
        }
    }
}
