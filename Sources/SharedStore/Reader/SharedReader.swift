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

    /// A seat's row as `seats` selects it, each value read leniently (one that cannot be read
    /// shows as nothing), before `view` folds it into a `SeatView`.
    struct RawSeat {
        var session: String
        var candidate: String?
        var seat = ""
        var room = ""
        var assessment = ""
        var assessment_title = ""
        var status: String
        var end_reason: String?
        var answered = 0
        var total = 0
        var time_allowed: Double?
        var elapsed: Double = 0
        var paste_attempts = 0
        var focus_losses = 0
        var exit_attempts = 0
        var interruptions = 0
        var last_seen = ""
        var quiet: Double = 0
        var connected = false
        var paused = false
        var hand = "down"
        var added: Double = 0
        var pending = 0
        var fingerprint: String?
        var version: String?
        var digest: String?
        var terminal: String?
        var policy: String?
        var passphrase_failures = 0
        var room_fingerprint: String?
        var room_digest: String?
        var room_start: String?
        var candidate_number: String?
        var refused = 0
        var last_refusal: String?
        var room_key = false
        var seat_key: String?
        var host: String?
        var backend_pid: Int?
        var live_mac: String?
        var process_alive = false
        var start_envelope: String?
        var start_signature: String?
        var live_age: Double?
        var move_request: String?
        var move_commands: String?
        var moves: String?
        var machine_incidents = 0
        var last_incident: String?
        var assessment_mode: String?

        /// The columns `seats` selects, in order, each as text.
        static let columns = """
            s.session, s.candidate, s.seat, s.room, s.assessment_id, s.assessment_title, s.status, s.end_reason,
            s.answered::text, s.total::text, s.time_allowed_seconds::text, s.elapsed_seconds::text,
            s.paste_attempts::text, s.focus_losses::text, s.exit_attempts::text, s.interruptions::text,
            extract(epoch FROM s.last_seen)::text, extract(epoch FROM clock_timestamp() - s.last_seen)::text,
            \(SharedReader.holdsLock)::text,
            s.paused::text, s.hand, s.added_seconds::text,
            (SELECT count(*) FROM (SELECT 1 FROM carrel_commands c
               WHERE s.status IN ('active', 'review') AND c.room = s.room AND (c.seat IS NULL OR c.seat = s.seat)
                 AND c.id > s.last_command AND c.issued_at >= s.started_at AND c.action <> 'start' LIMIT 1000) p)::text,
            nullif(s.fingerprint, ''), left(s.attestation->>'carrel_version', 100),
            left(s.attestation->>'executable_digest', 100), left(s.attestation->>'terminal', 40),
            left(s.attestation->>'policy', 300), s.passphrase_failures::text,
            r.fingerprint, r.carrel_digest, r.start_mode, left(s.candidate_number, 64),
            s.refused::text, left(s.last_refusal, 300), (r.proctor_key IS NOT NULL)::text,
            left(s.seat_key, 100), left(s.host, 200), s.backend_pid::text, left(s.live_mac, 100), (live.pid IS NOT NULL)::text,
            st.envelope, st.signature, extract(epoch FROM clock_timestamp() - s.live_at)::text,
            left(s.attestation->>'move_from', 64),
            (SELECT json_agg(json_build_array(c3.id, c3.envelope, c3.signature) ORDER BY c3.id) FROM (
               SELECT c3.id, c3.envelope, c3.signature FROM carrel_commands c3 WHERE c3.move_from = s.session ORDER BY c3.id LIMIT 20) c3)::text,
            (SELECT string_agg(left(m->>'from', 64) || ' → ' || left(m->>'to', 64), ', ')
               FROM (SELECT m FROM jsonb_array_elements(CASE WHEN jsonb_typeof(s.moves) = 'array' THEN s.moves ELSE '[]' END) m LIMIT 20) x),
            s.machine_incidents::text, left(s.last_incident, 300), left(s.assessment_mode, 300)
            """

        static let columnCount = 50

        init(cells c: [String?]) {
            session = c.first.flatMap { $0 } ?? "?"
            guard c.count == Self.columnCount else {
                status = "unreadable"
                return
            }
            candidate = c[1]
            seat = c[2] ?? ""
            room = c[3] ?? ""
            assessment = c[4] ?? ""
            assessment_title = c[5] ?? ""
            status = c[6] ?? "unreadable"
            end_reason = c[7]
            let counts = c[8...15].map { StoreRows.int($0, 0...10_000_000) }
            answered = counts[0] ?? 0
            total = counts[1] ?? 0
            time_allowed = StoreRows.number(c[10])
            elapsed = StoreRows.number(c[11]) ?? 0
            paste_attempts = counts[4] ?? 0
            focus_losses = counts[5] ?? 0
            exit_attempts = counts[6] ?? 0
            interruptions = counts[7] ?? 0
            last_seen = StoreRows.date(c[16]).map(Timestamp.iso) ?? ""
            quiet = StoreRows.number(c[17]) ?? 0
            connected = c[18] == "true"
            paused = c[19] == "true"
            hand = ["raised", "acknowledged"].contains(c[20] ?? "") ? c[20] ?? "down" : "down"
            added = StoreRows.number(c[21]) ?? 0
            pending = StoreRows.int(c[22], 0...1000) ?? 0
            fingerprint = c[23]
            version = c[24]
            digest = c[25]
            terminal = c[26]
            policy = c[27]
            passphrase_failures = StoreRows.int(c[28], 0...10_000_000) ?? 0
            room_fingerprint = c[29]
            room_digest = c[30]
            room_start = c[31]
            candidate_number = c[32]
            refused = StoreRows.int(c[33], 0...10_000_000) ?? 0
            last_refusal = c[34]
            room_key = c[35] == "true"
            seat_key = c[36]
            host = c[37]
            backend_pid = StoreRows.int(c[38], 1...Int(Int32.max))
            live_mac = c[39]
            process_alive = c[40] == "true"
            start_envelope = c[41]
            start_signature = c[42]
            live_age = StoreRows.number(c[43])
            move_request = c[44]
            move_commands = c[45]
            moves = c[46]
            machine_incidents = StoreRows.int(c[47], 0...10_000_000) ?? 0
            last_incident = c[48]
            assessment_mode = c[49]
        }

        /// A row none of whose values can be read: shown, so that no seat is missing.
        init(unreadable session: String?) {
            self.session = session ?? "?"
            status = "unreadable"
        }
    }

    /// Whether the seat of session `s` holds its advisory lock now (`heldLocks` names them).
    /// A hashed look-up, not a join: the planner cannot know how many locks `pg_locks` lists
    /// (it guesses one), and a join on that guess compared every session with every lock —
    /// 70 ms for a room of 1 000 seats, seconds for a store flooded with made-up sessions.
    static let holdsLock = "coalesce(s.lock_key IN (SELECT key FROM held), false)"

    /// The advisory locks held now, each as the session key it was taken under
    /// (`hashtextextended(session, 0)`): a session whose key is here has a live seat.
    static let heldLocks = """
        WITH held AS (
          SELECT (l.classid::bigint << 32) | l.objid::bigint AS key FROM pg_locks l
          WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
        """

    /// The most seats one reading returns: a store flooded with made-up sessions (a seat's
    /// role can add any) keeps the console responsive, and the seats with a live connection
    /// (which a flood cannot make up: the seat role's connections are limited) come first.
    public static let seatLimit = 2000

    /// Every seat of `room` (every room when nil), trouble first. The seats are chosen first
    /// (`seatLimit`, live ones first) and only they are read in full. Each value is read on its
    /// own (`RawSeat(cells:)`): a value that cannot be read shows as nothing (0, or an empty
    /// text), a row that cannot be read shows as a seat whose status is "unreadable"; no seat
    /// is left out because of what it sent.
    public func seats(room: String?) async throws -> [SeatView] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 10) { try await StoreCall.rows(connection, """
            \(unescaped: Self.heldLocks),
            chosen AS (
              SELECT s.session FROM carrel_sessions s
              WHERE \(room)::text IS NULL OR s.room = \(room)::text
              ORDER BY \(unescaped: Self.holdsLock) DESC, s.last_seen DESC
              LIMIT \(Self.seatLimit))
            SELECT \(unescaped: RawSeat.columns)
            FROM chosen c JOIN carrel_sessions s ON s.session = c.session
              LEFT JOIN carrel_rooms r ON r.room = s.room AND r.closed_at IS NULL
              LEFT JOIN (SELECT pg_stat_get_backend_pid(b) AS pid FROM pg_stat_get_backend_idset() b) live
                ON live.pid = s.backend_pid
              LEFT JOIN LATERAL (SELECT c2.envelope, c2.signature FROM carrel_commands c2
                                 WHERE c2.session = s.session AND c2.action = 'start' ORDER BY c2.id LIMIT 1) st ON true
            """, logger: logger) }
        var seats: [SeatView] = []
        for row in rows {
            let raw = StoreRows.texts(row).map(RawSeat.init(cells:)) ?? RawSeat(unreadable: CopyPlan.firstCell(row))
            // A seat that left its start screen without beginning is gone, not waiting.
            if raw.status == "not_started" && !raw.connected { continue }
            // A spare's request the proctor granted: its session continues the moved one.
            if raw.status == "merged" { continue }
            seats.append(Self.view(raw))
        }
        Self.flagTwiceSeated(&seats)
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
        let left = running ? raw.time_allowed.map { whole($0 + raw.added - raw.elapsed) } : nil
        // A running seat reports every two seconds; a seat heard from longer ago is hung or cut off
        // even while its connection stays open.
        let quiet = raw.status == "not_started" && raw.connected ? 0 : whole(raw.quiet)
        var view = SeatView(
            session: raw.session, candidate: raw.candidate, seat: raw.seat, room: raw.room, assessment: raw.assessment,
            assessmentTitle: raw.assessment_title, status: status, answered: raw.answered, total: raw.total,
            timeLeftSeconds: left, pasteAttempts: raw.paste_attempts, focusLosses: raw.focus_losses,
            exitAttempts: raw.exit_attempts, interruptions: raw.interruptions, lastSeen: raw.last_seen,
            lastHeardSeconds: quiet, connected: raw.connected)
        view.candidateNumber = raw.candidate_number
        view.lost = raw.status == "ended" && raw.end_reason == "seat_lost"
        view.waiting = raw.status == "not_started" && raw.connected && raw.room_start == "proctor"
        view.paused = raw.paused
        view.hand = raw.hand
        view.commandsPending = raw.pending
        view.carrelVersion = raw.version
        view.executableDigest = raw.digest
        view.fingerprint = raw.fingerprint
        view.terminal = raw.terminal
        view.policy = raw.policy
        view.passphraseFailures = raw.passphrase_failures
        view.commandsRefused = raw.refused
        view.lastRefusal = raw.last_refusal.map { TerminalSafety.visible($0, keepLineBreaks: false) }
        view.commandable = raw.room_start == nil || raw.room_key
        view.seatKey = raw.seat_key
        view.host = raw.host.map { TerminalSafety.visible($0, keepLineBreaks: false) }
        view.timing = SeatView.Timing(allowed: raw.time_allowed.map { whole($0) }, elapsed: Double(whole(raw.elapsed)))
        view.liveness = SeatView.Liveness(pid: raw.backend_pid, mac: raw.live_mac, alive: raw.process_alive,
                                          startEnvelope: raw.start_envelope, startSignature: raw.start_signature,
                                          age: raw.live_age)
        view.liveness.moves = StoreRows.signedCommands(raw.move_commands)
        view.moveRequest = raw.move_request.map { TerminalSafety.visible($0, keepLineBreaks: false) }
        view.moves = raw.moves.map { TerminalSafety.visible($0, keepLineBreaks: false) }.map { $0.components(separatedBy: ", ") } ?? []
        view.machineIncidents = raw.machine_incidents
        view.lastIncident = raw.last_incident.map { TerminalSafety.visible($0, keepLineBreaks: false) }
        view.assessmentMode = raw.assessment_mode.map { TerminalSafety.visible($0, keepLineBreaks: false) }
        if raw.refused > 0 {
            view.warnings.append("refused \(raw.refused) command\(raw.refused == 1 ? "" : "s")")
        }
        if status == "wrong_test" {
            view.warnings.append("wrong test")
        } else if status == "candidate_twice" {
            view.warnings.append("candidate seated twice")
        } else if let planned = raw.room_fingerprint, let own = raw.fingerprint, own != planned {
            view.warnings.append("wrong test")
        }
        if let planned = raw.room_digest, let own = raw.digest, own != planned, planned != "unknown" {
            view.warnings.append("executable differs from the room's")
        }
        return view
    }

    /// A candidate live in two sessions of a room (two seats, or two terminals at one): both are
    /// flagged. Flagged again (`public`) once
    /// the seats are checked: a seat whose claim to its candidate nothing proves (`unproven`)
    /// no longer counts as one of the two, so it cannot put the flag on a genuine seat.
    public static func flagTwiceSeated(_ seats: inout [SeatView], unproven: Set<String> = []) {
        for i in seats.indices { seats[i].warnings.removeAll { $0 == "candidate seated twice" } }
        var seen: [String: [Int]] = [:]
        // A seat refused for that candidate in the last ten minutes counts as one of the two.
        for (i, seat) in seats.enumerated()
        where ((["active", "not_started"].contains(seat.status) && seat.connected)
            || (seat.status == "candidate_twice" && seat.lastHeardSeconds < 600)) && !unproven.contains(seat.session) {
            guard let candidate = (seat.candidateNumber ?? seat.candidate)?.lowercased(), !candidate.isEmpty else { continue }
            seen[seat.room + "\u{0}" + candidate, default: []].append(i)
        }
        // Two live sessions of one candidate, at two seats or at the same one (two terminals).
        for indices in seen.values where Set(indices.map { seats[$0].session }).count > 1 {
            for i in indices where !seats[i].warnings.contains("candidate seated twice") {
                seats[i].warnings.append("candidate seated twice")
            }
        }
    }

    /// Whole seconds from 0 to ten million, whatever number the store holds.
    static func whole(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? 10_000_000 : 0 }
        return Int(min(max(value, 0), 10_000_000).rounded(.down))
    }

    /// Runs the store's janitor (`carrel_sweep`, schema version 9): seat connections idle in
    /// a transaction, stuck in one statement or holding more than one advisory lock are ended
    /// (at most once every 3 seconds for the whole store, whoever asks). Returns how many.
    public func sweep() async throws -> Int {
        let connection = self.connection
        let logger = self.logger
        return try await StoreCall.guarded(connection, timeout: 10) {
            try await StoreCall.value(connection, "SELECT carrel_sweep()", as: Int.self, logger: logger) ?? 0
        }
    }

    /// What the console reads of one seat's events at most: a seat can send any detail, and
    /// the report is for people to read.
    public static let eventLimit = 5000
    public static let detailLimit = 2000

    /// One session's events as its seat published them, oldest first (the first
    /// `eventLimit`, each detail cut to `detailLimit` characters). An event whose time
    /// cannot be read ends the read with why (the console shows it for this seat alone).
    public func events(session: String) async throws -> [JournalEvent] {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 10) { try await StoreCall.rows(connection, """
            SELECT session, seq::text AS seq_text, extract(epoch FROM at)::text, left(coalesce(body->>'kind', ''), 100),
                   left(coalesce(body->>'detail', ''), \(Self.detailLimit)::int)
            FROM carrel_records
            WHERE session = \(session) AND kind = 'event' ORDER BY seq LIMIT \(Self.eventLimit)
            """, logger: logger) }
        return try Self.events(from: rows)
    }

    /// The events of `rows`, or why one cannot be read. Kept out of the async function above:
    /// in a release build the optimiser crashed splitting that coroutine while it held this
    /// throwing closure (Swift 6.3.1, signal 11 in coro-split).
    static func events(from rows: [PostgresRow]) throws -> [JournalEvent] {
        var events: [JournalEvent] = []
        events.reserveCapacity(rows.count)
        for row in rows {
            guard let cells = StoreRows.texts(row) else { throw StoreRows.Unreadable("an event row cannot be read") }
            let event = try StoreRows.Event(cells)
            events.append(JournalEvent(at: event.at, kind: event.kind, detail: event.detail))
        }
        return events
    }
}
