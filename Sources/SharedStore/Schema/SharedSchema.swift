import Foundation
import Logging
import PostgresNIO

/// The shared store's tables, in versioned migrations of their own (`carrel_schema`).
///
/// Seats only insert records (`carrel_records`) and report their time (`carrel_pulse`,
/// `carrel_live`); triggers owned by the schema's owner keep one row per session
/// (`carrel_sessions`) and the latest answers, flags and results; the proctor's console reads
/// them once a second. docs/deployment.md shows the roles: a seat's role inserts and calls the
/// seat functions but reads no table, a proctor's reads everything.
///
/// Each version's SQL is in `VersionN.swift`. A version a store has applied is never edited:
/// a later one changes what it needs (ALTER TABLE, CREATE OR REPLACE FUNCTION), so every store,
/// whatever version it starts from, ends with the same schema. The schema this build leaves,
/// with the version that created each object and those that changed it since (the last one
/// named holds its current definition):
///
/// | object (and its indexes)              | created | changed since                              |
/// |----------------------------------------|---------|--------------------------------------------|
/// | carrel_schema                          | before 1 (`migrate`)                                 |
/// | carrel_sessions, carrel_sessions_room  | 1       | 2 and 4: columns added                     |
/// | carrel_records                         | 1       | 4: text and MAC columns; key → 3 indexes   |
/// | carrel_answers, carrel_flags, carrel_results | 1 |                                            |
/// | carrel_rooms                           | 2       | 4: proctor_key, package                    |
/// | carrel_commands, carrel_commands_room  | 2       | 4: signed envelope columns, index          |
/// | carrel_command_applied                 | 2       |                                            |
/// | carrel_marks, carrel_marks_session     | 2       |                                            |
/// | fn carrel_number, carrel_pulse, carrel_schema_version | 1 |                                 |
/// | fn carrel_apply_record, trigger carrel_records_apply  | 1 |                                 |
/// | fn carrel_hello                        | 1       | 2, 4: more columns in the row it makes     |
/// | fn and trigger carrel_records_cap      | 2       | 4: the text as sent counts too             |
/// | fn carrel_apply_room_record, trigger carrel_records_room | 2 | 4: refusals, signed command ids |
/// | fn and trigger carrel_commands_notify  | 2       |                                            |
/// | fn carrel_room_plan, carrel_roster_candidate, carrel_seat_commands | 2 |                    |
/// | fn carrel_seat_refused, carrel_seat_marks | 2    |                                            |
/// | fn carrel_live, carrel_seat_signed_commands, carrel_seat_starts | 4 |                       |
/// | fn carrel_command_refused, carrel_seat_kept | 4  |                                            |
/// | fn and trigger carrel_records_notify   | 1       | 3: dropped                                 |
/// | carrel_sessions: token, quota columns  | 5       |                                            |
/// | fn carrel_token_hash, carrel_proven, carrel_room_has_place | 5 |                              |
/// | fn carrel_hello/3, carrel_publish, carrel_live/5, carrel_pulse/4 | 5 |                          |
/// | fn carrel_seat_commands/5, carrel_command_refused/4, carrel_seat_marks/3 | 5 |                  |
/// | fn carrel_seat_refused                 | 2       | 5: within the room's quota                 |
/// | fn carrel_admitted                     | 5       |                                            |
/// | carrel_rooms.code_salt                 | 6       |                                            |
/// | carrel_candidate_tries, _releases, _claims | 6   |                                            |
/// | fn carrel_candidate_entry, _held, _try, carrel_candidate, carrel_room_codes | 6 |             |
/// | fn carrel_roster_candidate             | 2       | 6: no longer a seat's                      |
/// | carrel_machines, carrel_admissions     | 7       |                                            |
/// | carrel_rooms: machine_rule, lab, machines | 7    |                                            |
/// | carrel_logins, carrel_machines.login_role | 8   |                                            |
/// | carrel_sessions.created_by (and its index) | 8   |                                            |
/// | fn carrel_login_capacity, carrel_enroll_login | 8 |                                           |
/// | fn and trigger carrel_machine_retired  | 8       |                                            |
/// | fn carrel_room_has_place               | 5       | 8: places counted per login                |
/// | carrel_sweeps, carrel_terminations     | 9       |                                            |
/// | fn carrel_sweep, carrel_seat_lock, carrel_seat_unlock | 9 |                                   |
/// | fn carrel_seat_refused/3, carrel_candidate_held/4 | 9 |                                       |
/// | fn carrel_pulse/4, carrel_live/5       | 5       | 9: each runs the sweep; 12: update in place |
/// | fn carrel_hello/3                      | 5       | 9: the look-up's row made again            |
/// | fn carrel_candidate_try, carrel_candidate | 6    | 9: a proven session's tries, held per session |
/// | carrel_sessions: moves, merged_into, fenced_hashes, fate | 10 |                                |
/// | carrel_commands: move_from, move_token; action 'lost' | 10 |                                    |
/// | fn carrel_end_lock_holders, carrel_command_moves, trigger carrel_commands_moves | 10 |        |
/// | fn carrel_seat_records, carrel_session_fate | 10 |                                             |
/// | carrel_sessions: machine_incidents, last_incident, assessment_mode | 11 |                    |
/// | fn and trigger carrel_machine_event    | 11      |                                            |
/// | fn carrel_number                       | 1       | 12: no search path of its own (inlined)    |
/// | fn carrel_token_hash                   | 5       | 12: no search path of its own              |
/// | fn carrel_publish                      | 5       | 12: one read of the session, quota locked  |
/// | fn carrel_hello/3, carrel_seat_refused/3 | 5, 9  | 12: a concurrent announcement's token kept |
/// | fn carrel_apply_record                 | 1       | 12: one update of the session's row        |
/// | fn carrel_sweep_due                    | 12      |                                            |
/// | fn carrel_apply_records, trigger carrel_records_apply (for each statement) | 13 | replaces the row triggers below |
/// | fn carrel_apply_record, carrel_apply_room_record, carrel_machine_event and their triggers | 13: dropped |    |
/// | procedure carrel_publish_committed (a seat's batch, committed in the call) | 13 |               |
/// | fn carrel_publish                      | 5       | 12; 13: the trigger counts the records kept; 14: leaves out what the row triggers below left out |
/// | fn and trigger carrel_records_cap, carrel_records_merged | 2, 10 | 14: dropped (`carrel_publish` checks) |
/// | fn carrel_token_hash                   | 5       | 12; 14: STABLE (inlined)                   |
/// | fn carrel_publish, carrel_apply_records, carrel_live/5, carrel_pulse/4, carrel_proven, carrel_seat_commands/5, carrel_sweep_due | 5–13 | 14: one plan a statement kept (`plan_cache_mode`) |
///
/// Each function that acts for a seat is revoked from PUBLIC by the version that creates it
/// (`carrel_number` and `carrel_schema_version` stay open to anyone); version 4 grants its new
/// ones to each role that could call `carrel_seat_commands`, and version 5 takes from every
/// seat's role the calls that trusted a session id it named (and its INSERT on
/// `carrel_records`) and grants `seatFunctions` instead; the functions of earlier versions
/// that version 5 wraps still exist, for the owner only. `carrel store init` grants
/// `seatFunctions` to the seat role it sets up.
public enum SharedSchema {
    /// The version this build writes and reads.
    public static let version = 14

    /// The channel seats of a room listen on: a command was issued.
    public static let commandChannel = "carrel_commands"

    /// Every migration, in order: (version, SQL). `@SCHEMA@` is the schema Carrel's tables
    /// live in (quoted), used to pin the search path of the functions that run as the owner.
    static let migrations: [(Int, String)] = [
        (1, version1Sessions),
        (2, version2Rooms),
        (3, version3QuietRecords),
        (4, version4SignedCommands),
        (5, version5ProvenSeats),
        (6, version6CandidateCodes),
        (7, version7EnrolledMachines),
        (8, version8MachineLogins),
        (9, version9SharedResources),
        (10, version10Moves),
        (11, version11MachineEvents),
        (12, version12LighterRecords),
        (13, version13BatchedRecords),
        (14, version14LighterBatches),
    ]

    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Brings the store's schema to this build's version when it is behind and this role may
    /// change it; concurrent callers (many seats starting at once) wait for one another.
    /// Throws when the store is newer than this build, or older and this role cannot update it.
    public static func prepare(_ connection: PostgresConnection, logger: Logger) async throws {
        if let current = try await installedVersion(connection, logger: logger), current >= version {
            if current > version {
                throw Problem(description: "the shared store's schema is version \(current), newer than this Carrel (\(version)); update Carrel on this machine")
            }
            return
        }
        try await StoreCall.run(connection, "BEGIN", logger: logger)
        do {
            try await migrate(connection, logger: logger)
            try await StoreCall.run(connection, "COMMIT", logger: logger)
        } catch {
            // The first error is the one to report; a connection that closed has rolled back.
            if !connection.isClosed { try? await StoreCall.run(connection, "ROLLBACK", logger: logger) }
            if let psql = error as? PSQLError, let state = psql.serverInfo?[.sqlState], state == "42501" {
                throw Problem(description: "the shared store has no Carrel schema (version \(version)) and this role may not create it; run `carrel proctor --json` once as the store's owner (docs/deployment.md)")
            }
            throw error
        }
    }

    /// The migrations this store lacks, inside the transaction `prepare` opened (up to `last`:
    /// the tests make stores of older versions with it).
    static func migrate(_ c: PostgresConnection, upTo last: Int = version, logger: Logger) async throws {
        // One migrating role at a time (a constant key of Carrel's own).
        try await StoreCall.run(c, "SELECT pg_advisory_xact_lock(746163617272)", logger: logger)
        try await StoreCall.run(c, "CREATE TABLE IF NOT EXISTS carrel_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())", logger: logger)
        let current = try await StoreCall.value(c, "SELECT coalesce(max(version), 0) FROM carrel_schema", as: Int.self, logger: logger) ?? 0
        let schema = try await StoreCall.value(c, "SELECT quote_ident(current_schema())", as: String.self, logger: logger) ?? "public"
        for (number, sql) in migrations where number > current && number <= last {
            // One statement at a time: PostgresNIO speaks the extended protocol only.
            for statement in statements(sql.replacingOccurrences(of: "@SCHEMA@", with: schema)) {
                try await StoreCall.run(c, PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await StoreCall.run(c, "INSERT INTO carrel_schema (version) VALUES (\(number))", logger: logger)
        }
    }

    /// The statements of a migration: split at each `;` outside quotes and `$$` bodies.
    static func statements(_ sql: String) -> [String] {
        var out: [String] = []
        var current = ""
        var inDollar = false
        var inQuote = false
        var previous: Character = " "
        for ch in sql {
            if ch == "$" && previous == "$" && !inQuote {
                inDollar.toggle()
            } else if ch == "'" && !inDollar {
                inQuote.toggle()
            }
            if ch == ";" && !inDollar && !inQuote {
                let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !trimmed.isEmpty { out.append(trimmed) }
                current = ""
            } else {
                current.append(ch)
            }
            previous = ch == "$" && previous == "$" ? " " : ch
        }
        let trimmed = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty { out.append(trimmed) }
        return out
    }

    /// The installed version, or nil when the store has no Carrel schema.
    static func installedVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int? {
        let present = try await StoreCall.value(connection, "SELECT to_regprocedure('carrel_schema_version()') IS NOT NULL",
                                                as: Bool.self, logger: logger) ?? false
        guard present else { return nil }
        return try await StoreCall.value(connection, "SELECT carrel_schema_version()", as: Int?.self, logger: logger) ?? nil
    }
}
