import AssessmentKit
import Foundation
import GRDB
import Logging
import PostgresNIO
import SessionKit

/// How the seats of a room begin.
public enum RoomStartMode: String, Sendable, Codable, CaseIterable {
    /// Seats wait, with nothing locked and no time running, until the proctor starts them.
    case proctor
    /// Each candidate begins at their own start screen.
    case candidate
}

/// A proctor's plan of a room, as the store keeps it: the test by its fingerprint, title,
/// item count and time limit (never its content), how seats start, the roster, and the
/// Carrel that opened the room (its version and executable's digest).
public struct RoomPlan: Sendable, Equatable, Codable {
    public var room: String
    public var fingerprint: String
    public var assessmentID: String
    public var assessmentTitle: String
    public var items: Int
    public var timeLimitSeconds: Int?
    public var startMode: RoomStartMode
    public var carrelVersion: String
    public var carrelDigest: String
    /// The test's `proctor: key:` (public): the console signs the room's commands with the
    /// key the proctor passphrase derives for it. Nil: seats can be watched, not commanded.
    public var proctorKey: String?
    /// A sealed test's package parameters (`ln=…,r=…,p=…$SALT`, public, from its header): the
    /// console derives the package key from the passphrase with them to start its seats.
    public var package: String?
    /// Candidates on the roster (0 without one).
    public var candidates: Int
    public var openedBy: String
    public var openedAt: String
    public var closedAt: String?

    public init(room: String, fingerprint: String, assessmentID: String, assessmentTitle: String, items: Int,
                timeLimitSeconds: Int?, startMode: RoomStartMode, carrelVersion: String, carrelDigest: String,
                proctorKey: String? = nil, package: String? = nil, candidates: Int = 0, openedBy: String = "", openedAt: String = "", closedAt: String? = nil) {
        self.room = room
        self.fingerprint = fingerprint
        self.assessmentID = assessmentID
        self.assessmentTitle = assessmentTitle
        self.items = items
        self.timeLimitSeconds = timeLimitSeconds
        self.startMode = startMode
        self.carrelVersion = carrelVersion
        self.carrelDigest = carrelDigest
        self.proctorKey = proctorKey
        self.package = package
        self.candidates = candidates
        self.openedBy = openedBy
        self.openedAt = openedAt
        self.closedAt = closedAt
    }
}

/// Whom one command is for: a seat (nil: the whole room), the session there, and the keys
/// wrapped to it (a start only).
public struct CommandTarget: Sendable, Equatable {
    public var seat: String?
    public var session: String?
    public var keys: String?
    /// The seat's announced key the keys were wrapped to.
    public var seatKey: String?

    /// A start that moves another session to this seat, and the SHA-256 (hex) of the store
    /// token that session's new key derives (the store fences the old one with it).
    public var move: MoveOrder?
    public var moveToken: String?

    public init(seat: String? = nil, session: String? = nil, keys: String? = nil, seatKey: String? = nil,
                move: MoveOrder? = nil, moveToken: String? = nil) {
        self.move = move
        self.moveToken = moveToken
        self.seat = seat
        self.session = session
        self.keys = keys
        self.seatKey = seatKey
    }
}

public struct RoomProblem: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The roster as the store keeps it: snake_case keys, extra time as `ExtraTime` reads it.
enum RosterJSON {
    /// `salt`: the room's, when the roster has codes (each line then keeps its code's slow
    /// hash, never the code).
    static func encode(_ entries: [RosterEntry], salt: String? = nil) -> String {
        let string = JSONLiteral.string
        let rows = entries.map { e -> String in
            var fields = ["\"candidate\":\(string(e.candidate))", "\"name\":\(string(e.name))"]
            if let seat = e.seat { fields.append("\"seat\":\(string(seat))") }
            if let extra = e.extraTime { fields.append("\"extra_time\":\(string(argument(extra)))") }
            if let reader = e.screenReader { fields.append("\"screen_reader\":\(reader)") }
            if let theme = e.theme { fields.append("\"theme\":\(string(theme))") }
            if let language = e.language { fields.append("\"language\":\(string(language))") }
            if let salt, let code = e.code {
                fields.append("\"code_hash\":\(string(CandidateCode.hash(code, candidate: e.candidate, salt: salt)))")
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "[" + rows.joined(separator: ",") + "]"
    }

    /// Extra time as `ExtraTime(parsing:)` reads it back.
    static func argument(_ extra: ExtraTime) -> String {
        switch extra {
        case .none: return "1"
        case let .multiplier(m): return "x\(m)"
        case let .add(seconds): return "+\(seconds)s"
        case .unlimited: return "unlimited"
        }
    }
}

/// A seat's view of its room's plan (`carrel_room_plan`): what it checks before it begins.
public struct SeatRoomPlan: Sendable, Equatable {
    public var fingerprint: String
    public var assessmentTitle: String
    public var startMode: RoomStartMode
    public var carrelDigest: String
    public var hasRoster: Bool
    /// The room's last command now: the seat's session applies only later ones.
    public var lastCommand: Int64
    /// The proctor's latest start for this seat (or the whole room), if any.
    public var startCommand: Int64?
    /// The salt of the roster's codes; nil when the roster has none (identities unchecked).
    public var codeSalt: String?
}

/// A candidate found on the roster by the number typed at the seat.
public struct RosterMatch: Sendable, Equatable {
    public var candidate: String
    public var name: String
    public var seat: String?
    public var extraTime: ExtraTime
    public var screenReader: Bool?
    public var theme: String?
    public var language: String?
    /// Another seat where this candidate is seated now, if any.
    public var seatedAt: String?
}

extension SharedReader {
    /// Opens a room's plan (the proctor's role; a seat's role may not write it). A room
    /// already open is refused; a closed one is opened again with the new plan.
    public func openRoom(_ plan: RoomPlan, roster: [RosterEntry]?) async throws {
        // A roster with codes: a new salt each time the room opens, so a code's hash from an
        // earlier opening matches nothing.
        let salt = roster?.contains { $0.code != nil } == true ? CandidateCode.salt() : nil
        let rosterJSON = roster.map { RosterJSON.encode($0, salt: salt) }
        let c = connection
        let logger = self.logger
        let opened = try await StoreCall.guarded(c, timeout: 30) {
            try await StoreCall.value(c, """
                INSERT INTO carrel_rooms (room, fingerprint, assessment_id, assessment_title, items, time_limit_seconds,
                    start_mode, carrel_version, carrel_digest, roster, commands_before, proctor_key, package, code_salt)
                  VALUES (\(plan.room), \(plan.fingerprint), \(plan.assessmentID), \(plan.assessmentTitle), \(plan.items),
                    \(plan.timeLimitSeconds), \(plan.startMode.rawValue), \(plan.carrelVersion), \(plan.carrelDigest),
                    \(rosterJSON)::jsonb, (SELECT coalesce(max(id), 0) FROM carrel_commands), \(plan.proctorKey), \(plan.package),
                    \(salt))
                ON CONFLICT (room) DO UPDATE SET fingerprint = excluded.fingerprint, assessment_id = excluded.assessment_id,
                    assessment_title = excluded.assessment_title, items = excluded.items,
                    time_limit_seconds = excluded.time_limit_seconds, start_mode = excluded.start_mode,
                    carrel_version = excluded.carrel_version, carrel_digest = excluded.carrel_digest,
                    roster = excluded.roster, commands_before = excluded.commands_before, proctor_key = excluded.proctor_key, package = excluded.package,
                    code_salt = excluded.code_salt,
                    opened_by = current_user, opened_at = now(), closed_at = NULL
                  WHERE carrel_rooms.closed_at IS NOT NULL
                RETURNING true
                """, as: Bool.self, logger: logger)
        }
        guard opened == true else {
            throw RoomProblem("room \(TerminalSafety.visible(plan.room, keepLineBreaks: false)) is already open; close it first (carrel room close)")
        }
    }

    /// A room's plan (open or closed), or nil.
    public func room(_ name: String) async throws -> RoomPlan? {
        let c = connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.rows(c, """
                SELECT room, fingerprint, assessment_id, assessment_title, items::text, time_limit_seconds::text, start_mode,
                       carrel_version, carrel_digest, coalesce(jsonb_array_length(roster), 0)::text, opened_by,
                       extract(epoch FROM opened_at)::text, extract(epoch FROM closed_at)::text, proctor_key, package
                FROM carrel_rooms WHERE room = \(name)
                """, logger: logger)
        }
        guard let row = rows.first, let t = StoreRows.texts(row), t.count == 15 else { return nil }
        return RoomPlan(
            room: t[0] ?? name, fingerprint: t[1] ?? "", assessmentID: t[2] ?? "", assessmentTitle: t[3] ?? "",
            items: StoreRows.int(t[4], 0...1_000_000) ?? 0, timeLimitSeconds: StoreRows.int(t[5], 0...100_000_000),
            startMode: RoomStartMode(rawValue: t[6] ?? "") ?? .candidate, carrelVersion: t[7] ?? "",
            carrelDigest: t[8] ?? "", proctorKey: t[13], package: t[14], candidates: StoreRows.int(t[9], 0...10_000_000) ?? 0, openedBy: t[10] ?? "",
            openedAt: StoreRows.date(t[11]).map(Timestamp.iso) ?? "", closedAt: StoreRows.date(t[12]).map(Timestamp.iso))
    }

    /// Every room's plan, open or closed.
    public func rooms() async throws -> [RoomPlan] {
        let c = connection
        let logger = self.logger
        let names = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.rows(c, "SELECT room FROM carrel_rooms ORDER BY room", logger: logger)
        }.compactMap { StoreRows.texts($0)?.first ?? nil }
        var plans: [RoomPlan] = []
        for name in names { if let plan = try await room(name) { plans.append(plan) } }
        return plans
    }

    /// How many open rooms (this one, or any when nil) have a test with a proctor key: the
    /// console asks the passphrase only when it could command one.
    public func commandableRooms(room: String?) async throws -> Int {
        let c = connection
        let logger = self.logger
        let count = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.value(c, """
                SELECT count(*)::int8 FROM carrel_rooms
                WHERE closed_at IS NULL AND proctor_key IS NOT NULL AND (\(room)::text IS NULL OR room = \(room)::text)
                """, as: Int64.self, logger: logger)
        }
        return Int(count ?? 0)
    }

    /// Closes a room: seats can no longer begin in it. False when no open room has that name.
    public func closeRoom(_ name: String) async throws -> Bool {
        let c = connection
        let logger = self.logger
        let closed = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.value(c, "UPDATE carrel_rooms SET closed_at = now() WHERE room = \(name) AND closed_at IS NULL RETURNING true",
                                      as: Bool.self, logger: logger)
        }
        return closed == true
    }

    /// Issues one command, signed: to the whole room (no seats) or to each seat named.
    public func issue(room: String, seats: [String], action: ProctorAction, key: ProctorSigningKey,
                      fingerprint: String) async throws -> [Int64] {
        try await issue(room: room, targets: seats.isEmpty ? [CommandTarget()] : seats.map { CommandTarget(seat: $0) },
                        action: action, key: key, fingerprint: fingerprint)
    }

    /// Issues one command per target, each signed: a sequence number above the room's last
    /// (`CommandEnvelope.nextSequence`), an envelope for the room's test (`fingerprint`) and
    /// the target's seat, session and wrapped keys. Returns the commands' numbers, in order.
    public func issue(room: String, targets: [CommandTarget], action: ProctorAction, key: ProctorSigningKey,
                      fingerprint: String) async throws -> [Int64] {
        try await issue(room: room, targets: targets, action: action, named: nil, key: key, fingerprint: fingerprint)
    }

    /// Ends the session at a seat that will not come back (`lost`, schema version 10): signed
    /// for that seat and session; the store ends the session, reason `seat_lost`, and fences
    /// its seat. No seat applies it.
    public func issueLost(room: String, seat: String, session: String, key: ProctorSigningKey, fingerprint: String) async throws -> [Int64] {
        try await issue(room: room, targets: [CommandTarget(seat: seat, session: session)], action: .end, named: "lost", key: key,
                        fingerprint: fingerprint)
    }

    func issue(room: String, targets: [CommandTarget], action: ProctorAction, named: String?, key: ProctorSigningKey,
               fingerprint: String) async throws -> [Int64] {
        let c = connection
        let logger = self.logger
        let name = named ?? action.name
        let argument = action.argument
        return try await StoreCall.guarded(c, timeout: 30) {
            var last = try await StoreCall.value(
                c, "SELECT coalesce(max(sequence), 0) FROM carrel_commands WHERE room = \(room)", as: Int64.self,
                logger: logger) ?? 0
            var seats: [String] = []
            var sessions: [String] = []
            var envelopes: [String] = []
            var signatures: [String] = []
            var sequences: [Int64] = []
            var moveFroms: [String] = []
            var moveTokens: [String] = []
            for target in targets {
                let now = Date()
                let sequence = CommandEnvelope.nextSequence(now: now, after: last)
                last = sequence
                var envelope = CommandEnvelope(room: room, seat: target.seat, action: action, sequence: sequence,
                                               issued: now.timeIntervalSince1970, fingerprint: fingerprint,
                                               session: target.session, keys: target.keys, seatKey: target.seatKey,
                                               move: target.move)
                envelope.action = name
                let signed = try SignedCommand.sign(envelope, with: key)
                // An empty name stands for none (the store keeps NULL).
                seats.append(target.seat ?? "")
                sessions.append(target.session ?? "")
                envelopes.append(signed.envelope)
                signatures.append(signed.signature)
                sequences.append(sequence)
                moveFroms.append(target.move?.session ?? "")
                moveTokens.append(target.moveToken ?? "")
            }
            // One statement for them all: one notice wakes the room's seats once, not once per seat.
            // In an explicit transaction, and the numbers are told only once COMMIT completes:
            // outside one, the statement's rows come back before its commit, and a commit that
            // fails (a NOTIFY queue that is full fails it) would be reported as commands sent.
            try await StoreCall.run(c, "BEGIN", logger: logger)
            let rows: [PostgresRow]
            do {
                rows = try await StoreCall.rows(c, """
                INSERT INTO carrel_commands (room, seat, action, argument, envelope, signature, sequence, session, move_from, move_token)
                  SELECT \(room), nullif(t, ''), \(name), \(argument), e, g, q, nullif(x, ''), nullif(mf, ''), nullif(mt, '')
                  FROM unnest(\(seats)::text[], \(envelopes)::text[], \(signatures)::text[], \(sequences)::int8[], \(sessions)::text[],
                              \(moveFroms)::text[], \(moveTokens)::text[])
                    WITH ORDINALITY AS u(t, e, g, q, x, mf, mt, n)
                  ORDER BY n
                RETURNING id::text
                """, logger: logger)
                try await StoreCall.run(c, "COMMIT", logger: logger)
            } catch {
                // The first error is the one to report: nothing was sent. (A connection that
                // closed has rolled back already; a ROLLBACK that fails adds nothing.)
                if !c.isClosed { try? await StoreCall.run(c, "ROLLBACK", logger: logger) }
                throw error
            }
            return rows.compactMap { StoreRows.texts($0)?.first.flatMap { $0 }.flatMap { Int64($0) } }.sorted()
        }
    }

    /// The sessions that have applied any of these commands.
    public func applied(_ commands: [Int64]) async throws -> Set<String> {
        guard !commands.isEmpty else { return [] }
        let c = connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.rows(c, "SELECT DISTINCT session FROM carrel_command_applied WHERE command = ANY(\(commands)::int8[])",
                                     logger: logger)
        }
        return Set(rows.compactMap { StoreRows.texts($0)?.first ?? nil })
    }

    /// Where each of `sessions` stands while a command waits for them: its status and the
    /// last command it refused (`#ID refused: REASON`). What `carrel proctor ACTION --wait`
    /// asks many times a second, so only these columns of these rows: reading the whole
    /// room as the console does took PostgreSQL's time from the seats it waited for.
    public func standing(_ sessions: [String]) async throws -> [(session: String, status: String, lastRefusal: String?)] {
        guard !sessions.isEmpty else { return [] }
        let c = connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.rows(c, """
                SELECT session, status, left(last_refusal, 300) FROM carrel_sessions WHERE session = ANY(\(sessions)::text[])
                """, logger: logger)
        }
        return rows.compactMap { row in
            guard let cells = StoreRows.texts(row), cells.count == 3, let session = cells[0] else { return nil }
            return (session, cells[1] ?? "", cells[2])
        }
    }
}

/// A mark a proctor gave in the store, as a seat or a copy takes it.
public struct StoreMark: Sendable, Equatable {
    public var id: Int64
    public var session: String
    public var item: String
    public var points: Double
    public var comment: String?
    public var at: Date
}

/// Result storage that keeps nothing: the store's copy of a journal has no result files.
public struct NoResultFiles: StateStorage {
    public init() {}
    public var location: StateLocation { StateLocation(stateDirectory: "/nonexistent") }
    public func openJournal(create: Bool) throws -> (any DatabaseWriter)? { nil }
    public func writeResult(_ data: Data, session: String) throws -> String { "" }
}

extension SharedReader {
    /// Records a proctor's mark in the store (the proctor's role); the session's seat takes it
    /// into its journal when it next connects. Returns the mark's number.
    public func addMark(session: String, item: String, points: Double, comment: String?) async throws -> Int64 {
        let c = connection
        let logger = self.logger
        let id = try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.value(c, """
                INSERT INTO carrel_marks (session, item, points, comment) VALUES (\(session), \(item), \(points), \(comment))
                RETURNING id
                """, as: Int64.self, logger: logger)
        }
        guard let id else { throw RoomProblem("the store did not keep the mark") }
        return id
    }

    /// The marks given in the store to these sessions, in order.
    func marks(sessions: [String]) async throws -> [StoreMark] {
        guard !sessions.isEmpty else { return [] }
        let c = connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(c, timeout: 30) {
            try await StoreCall.rows(c, """
                SELECT id::text, session, item, points::text, comment, extract(epoch FROM at)::text
                FROM carrel_marks WHERE session = ANY(\(sessions)::text[]) ORDER BY id
                """, logger: logger)
        }
        return rows.compactMap(SeatRoom.mark)
    }
}
