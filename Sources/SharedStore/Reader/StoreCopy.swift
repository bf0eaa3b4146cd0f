import AssessmentKit
import Foundation
import GRDB
import Logging
import PostgresNIO
import SessionKit

/// The sessions of a room copied from the shared store into an in-memory journal, for
/// `results --shared`, and those left out because something of theirs cannot be read.
public struct StoreCopy: Sendable {
    public var journal: Journal
    /// Sessions interrupted, or running while their seat holds no connection.
    public var waiting: Set<String>
    /// Each session left out, with why, ordered by id.
    public var skipped: [SkippedSession]
    /// Each session's check with the proctor's key (only when asked for: `verifying`).
    public var checks: [String: SessionCheck] = [:]
    /// The status `results` gives each session whose store status its record cannot hold: a
    /// refused attempt (`wrong_test`, `candidate_twice`), an end reason such as `seat_lost`,
    /// or a word a later Carrel writes.
    public var statuses: [String: String] = [:]
    /// The roster's extra time of each session that has some (`1.5x`, `+15m`, `unlimited`).
    public var extraTimes: [String: String] = [:]
    /// Who issued each `time` command, and when, by its number.
    public var issues: [Int64: CommandIssue] = [:]
    /// Each moved session's moves to another seat, in order (schema version 10).
    public var moves: [String: [SeatMove]] = [:]
}

/// Whether a session's records were written by its seat, as the proctor's key shows.
public struct SessionCheck: Sendable, Equatable {
    /// The proctor's start gave the session its key, and its seat's result is among the
    /// records authenticated with it.
    public var verified: Bool
    /// Why not, in words: why the session could not be checked, or has no result of its seat.
    public var problems: [String]
    /// Records stored under the session that its seat did not write (their MAC fails): named,
    /// never applied, and never a reason to doubt the records that verify.
    public var outside: [String]
    /// The proctor's start gave the session a key (false: nothing the proctor signed began it).
    public var keyed = true

    public init(verified: Bool, problems: [String], outside: [String] = []) {
        self.verified = verified
        self.problems = problems
        self.outside = outside
    }
}

/// The proctor's keys of a room's test (its public key, and the signing key the passphrase
/// derives for it), or nil when the room's seats cannot be checked.
public typealias RoomKeys = @Sendable (String) -> (ProctorKey, ProctorSigningKey)?

/// A result whose seat had no answer key, scored with the whole test (`ResultDocument.scored`),
/// or nil when the test is not at hand.
public typealias ResultScoring = @Sendable (ResultDocument) -> ResultDocument?

/// One record as the store holds it, for checking.
struct StoredRecord: Sendable {
    var session: String
    var seq: Int64
    var kind: String
    var at: String?
    var body: String?
    var mac: String?
}

extension SharedReader {
    /// The sessions of `room` (every room when nil) copied into an in-memory journal: their
    /// rows, events and results, as `results` reads them from a seat's own journal. A session
    /// any of whose rows cannot be read is left out and named in `skipped`; the others are
    /// copied whole.
    /// `scoring` scores the results of seats that had no answer key, before the store's marks
    /// are applied.
    public func journalCopy(room: String?, verifying keys: RoomKeys? = nil, scoring: ResultScoring? = nil) async throws -> StoreCopy {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            \(unescaped: Self.heldLocks)
            SELECT \(unescaped: StoreRows.Session.columns)
            FROM carrel_sessions s
            WHERE (\(room)::text IS NULL OR s.room = \(room)::text)
              AND s.status NOT IN ('not_started', 'merged')
            ORDER BY s.started_at, s.session
            """, logger: logger) }
        var copy = CopyPlan()
        for row in rows { copy.add(session: row) }
        let ids = copy.sessions.map(\.session)
        for row in try await StoreCall.guarded(connection, timeout: 60, { try await StoreCall.rows(connection, """
            SELECT \(unescaped: StoreRows.Event.columns)
            FROM carrel_records WHERE kind = 'event' AND session = ANY(\(ids)::text[]) ORDER BY session, seq
            """, logger: logger) }) {
            copy.add(event: row)
        }
        for row in try await StoreCall.guarded(connection, timeout: 120, { try await StoreCall.rows(connection, """
            SELECT session, json FROM carrel_results WHERE session = ANY(\(ids)::text[])
            """, logger: logger) }) {
            copy.add(result: row)
        }
        var checks: [String: SessionCheck] = [:]
        var unstarted: Set<String> = []
        if let keys {
            checks = try await verify(&copy, ids: ids, keys: keys)
            // In a room the proctor starts, a session no start of the proctor's keyed is no
            // candidate's session (anyone with the seat role's password can make one): listed as
            // refused, its result not counted.
            unstarted = try await unstartedInProctorRooms(copy, checks: checks)
            for session in unstarted { copy.results[session] = nil }
        }
        if let scoring { copy.score(with: scoring) }
        let journal = try Journal(writer: try DatabaseQueue())
        try copy.write(to: journal)
        // Marks given in the store that the seat's own result does not carry yet. Anyone who can
        // write the store could have written one, and none is signed: a verified session with
        // such a mark is shown with it, and no longer as verified.
        for mark in try await marks(sessions: ids) where !((try? journal.hasMark(session: mark.session, item: mark.item, at: mark.at)) ?? true) {
            if checks[mark.session]?.verified == true {
                checks[mark.session]?.verified = false
                let item = TerminalSafety.visible(String(mark.item.prefix(60)), keepLineBreaks: false)
                checks[mark.session]?.problems.append("mark of \(item) on session \(mark.session.prefix(8)) was given in the store, where nothing proves who gave it")
            }
            // A mark that does not fit the copied result (an item it lacks) changes nothing in
            // this copy, which is for reading: the store keeps the mark as given.
            _ = try? journal.recordMark(session: mark.session, item: mark.item, points: mark.points, comment: mark.comment,
                                        at: mark.at, storage: NoResultFiles())
        }
        var out = StoreCopy(journal: journal, waiting: copy.waiting, skipped: copy.skipped.sorted { $0.session < $1.session },
                            checks: checks)
        for session in copy.kept where checks[session.session]?.verified != true { out.statuses[session.session] = session.reportedStatus }
        let kept = copy.kept.map(\.session)
        out.extraTimes = try await rosterExtraTimes(kept)
        out.issues = try await timeCommandIssues(kept)
        out.moves = try await sessionMoves(kept)
        for session in unstarted { out.statuses[session] = "no_proctor_start" }
        return out
    }

    /// Checks every session of `copy` with its room's keys, and keeps in the copy only what
    /// its seat wrote: a session the proctor's start gave a key has each record's MAC checked;
    /// its events and result are the ones that verify, and each record that does not is named.
    /// A session begun without that start is unverified, whatever its records say.
    func verify(_ copy: inout CopyPlan, ids: [String], keys: RoomKeys) async throws -> [String: SessionCheck] {
        let found = try await sessionChecks(copy.sessions.map { ($0.session, $0.room) }, keys: keys)
        var checks: [String: SessionCheck] = [:]
        for (session, found) in found {
            if let genuine = found.genuine {
                copy.events[session] = genuine.events
                copy.results[session] = nil
                if let result = genuine.result { copy.add(result: session, json: result) }
            }
            var check = found.check
            // A result that cannot be read is no verified result.
            if check.verified && copy.results[session] == nil { check.verified = false }
            if check.verified, let document = copy.results[session]?.document,
               let i = copy.sessions.firstIndex(where: { $0.session == session }) {
                // What the list shows of a verified session comes from its seat's own result,
                // not from the store's summary row (which records anyone sent have changed).
                var record = copy.sessions[i].record
                record.candidate = document.candidate
                record.status = .ended
                record.endReason = document.status
                record.endedAt = Timestamp.date(document.endedAt) ?? record.endedAt
                record.elapsed = Double(document.timeUsedSeconds)
                record.interruptions = document.interruptions
                record.assessmentID = document.assessment.id
                record.assessmentTitle = document.assessment.title
                record.fingerprint = document.assessment.fingerprint
                record.startedAt = Timestamp.date(document.startedAt) ?? record.startedAt
                if let room = document.room { record.options.shared?.room = room }
                if let seat = document.seat { record.options.shared?.seat = seat }
                copy.sessions[i].record = record
            }
            checks[session] = check
        }
        return checks
    }

    /// One session checked with its room's keys (the console's integrity report).
    public func check(session: String, room: String, keys: RoomKeys) async throws -> SessionCheck? {
        try await sessionChecks([(session, room)], keys: keys)[session]?.check
    }

    /// Each session's check, and for a session its start gave a key, the events and result
    /// its own seat wrote (read from its records, never from the store's summary tables).
    /// Each session's starts, and the starts that moved it to another seat (`SessionKeyChain`), in order.
    func startsAndMoves(_ ids: [String]) async throws -> (starts: [String: [SignedCommand]], moves: [String: [SignedCommand]]) {
        let connection = self.connection
        let logger = self.logger
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            SELECT coalesce(move_from, session), envelope, signature, (move_from IS NOT NULL)::text FROM carrel_commands
            WHERE (action = 'start' AND session = ANY(\(ids)::text[])) OR move_from = ANY(\(ids)::text[]) ORDER BY id
            """, logger: logger) }
        var starts: [String: [SignedCommand]] = [:]
        var moves: [String: [SignedCommand]] = [:]
        for row in rows {
            guard let t = StoreRows.texts(row), t.count == 4, let session = t[0] else { continue }
            let command = SignedCommand(id: 0, envelope: t[1], signature: t[2])
            if t[3] == "true" { moves[session, default: []].append(command) } else { starts[session, default: []].append(command) }
        }
        return (starts, moves)
    }

    func sessionChecks(_ sessions: [(id: String, room: String)], keys: RoomKeys) async throws
        -> [String: (check: SessionCheck, genuine: (events: [StoreRows.Event], result: String?)?)] {
        let ids = sessions.map(\.id)
        let connection = self.connection
        let logger = self.logger
        let (starts, moves) = try await startsAndMoves(ids)
        let recordRows = try await StoreCall.guarded(connection, timeout: 120) { try await StoreCall.rows(connection, """
            SELECT session, seq::text AS seq_text, kind, extract(epoch FROM at)::text, body_text, mac FROM carrel_records
            WHERE session = ANY(\(ids)::text[]) ORDER BY session, seq, received_at
            """, logger: logger) }
        var records: [String: [StoredRecord]] = [:]
        for row in recordRows {
            guard let t = StoreRows.texts(row), t.count == 6, let session = t[0], let seq = t[1].flatMap({ Int64($0) }) else { continue }
            records[session, default: []].append(StoredRecord(session: session, seq: seq, kind: t[2] ?? "", at: t[3], body: t[4], mac: t[5]))
        }
        var out: [String: (check: SessionCheck, genuine: (events: [StoreRows.Event], result: String?)?)] = [:]
        for (session, room) in sessions {
            let short = String(session.prefix(8))
            guard let (publicKey, signing) = keys(room) else {
                out[session] = (SessionCheck(verified: false, problems: ["session \(short) cannot be checked: its room's test has no proctor key, or the passphrase is not its proctor's"]), nil)
                continue
            }
            // The session's first start the proctor signed with keys: its key depends on the seat
            // key that start was wrapped to (a later start, to a key swapped in, vouches for nothing).
            let keyedStart = (starts[session] ?? []).first { command in
                command.envelope(signedBy: publicKey).map { envelope in
                    envelope.action == "start" && envelope.session == session && envelope.keys != nil && envelope.room == room
                } ?? false
            }
            guard let keyedStart else {
                var check = SessionCheck(verified: false, problems: ["session \(short) was begun without the console's start, so nothing proves its records are its seat's"])
                check.keyed = false
                out[session] = (check, nil)
                continue
            }
            // Every key the session had: one more for each seat it was moved to.
            let sessionKeys = SessionKeyChain.keys(session: session, room: room, start: keyedStart, moves: moves[session] ?? [],
                                                   publicKey: publicKey, signing: signing)
            var outside: [String] = []
            var events: [StoreRows.Event] = []
            var result: String?
            var links: Set<Int64> = []
            for record in records[session] ?? [] {
                let link = SessionMAC.link(of: record.mac)
                guard SessionKeyChain.verifies(sessionKeys, session: session, seq: record.seq, kind: record.kind, body: record.body,
                                               mac: record.mac) else {
                    let what = record.kind == "result" ? "a result" : "\(TerminalSafety.visible(String(record.kind.prefix(40)), keepLineBreaks: false)) record \(record.seq)"
                    outside.append("\(what) under session \(short) was not written by its seat: not counted")
                    continue
                }
                if let link { links.insert(link) }
                // An authenticated body that does not parse adds no event and no result: the
                // session then has no verified result, and is not verified.
                let body = (try? JSONSerialization.jsonObject(with: Data((record.body ?? "").utf8))) as? [String: Any]
                if record.kind == "event", let body, let event = try? StoreRows.Event([
                    session, String(record.seq), record.at, body["kind"] as? String ?? "", body["detail"] as? String ?? "",
                ]) {
                    events.append(event)
                } else if record.kind == "result", let json = body?["json"] as? String {
                    result = json
                }
            }
            // The chain its seat wrote has no hole: a record the store lost or withheld is missing
            // from the session's own count, and the session is not verified without it.
            let missing = Self.holes(links)
            let problems = missing.isEmpty ? [] : ["session \(short) is missing records its seat sent (\(missing))"]
            out[session] = (SessionCheck(verified: result != nil && missing.isEmpty, problems: problems, outside: outside),
                            (events, result))
        }
        return out
    }
}

extension SharedReader {
    /// The places missing from a chain of places 1…highest, in words (`3, 7–9`); "" for none.
    static func holes(_ links: Set<Int64>) -> String { ChainPlaces.holes(links) }
}

/// What `journalCopy` read, session by session, before it writes the copy.
struct CopyPlan: Sendable {
    var sessions: [StoreRows.Session] = []
    var events: [String: [StoreRows.Event]] = [:]
    /// Each result re-encoded from its one reading, with its gradebook digest made here again:
    /// a seat's role can add records, so what it sent is data to check, not to trust.
    var results: [String: (document: ResultDocument, json: String, digest: ResultDigest)] = [:]
    /// Why each session left out was left out (the first reason found).
    var damaged: [String: String] = [:]

    mutating func add(session row: PostgresRow) {
        guard let cells = StoreRows.texts(row) else {
            damage(Self.firstCell(row) ?? "?", "its row cannot be read")
            return
        }
        do {
            sessions.append(try StoreRows.Session(cells))
        } catch {
            damage(cells.first.flatMap { $0 } ?? "?", error.description)
        }
    }

    mutating func add(event row: PostgresRow) {
        guard let cells = StoreRows.texts(row) else {
            damage(Self.firstCell(row) ?? "?", "an event row cannot be read")
            return
        }
        do {
            let event = try StoreRows.Event(cells)
            events[event.session, default: []].append(event)
        } catch {
            damage(cells.first.flatMap { $0 } ?? "?", error.description)
        }
    }

    mutating func add(result row: PostgresRow) {
        guard let cells = StoreRows.texts(row), cells.count == 2, let session = cells[0], let json = cells[1] else {
            damage(Self.firstCell(row) ?? "?", "its result row cannot be read")
            return
        }
        add(result: session, json: json)
    }

    /// Each result its seat could not score, scored where the test is at hand.
    mutating func score(with scoring: ResultScoring) {
        for (session, result) in results where result.document.unscored == true {
            // A result that cannot be scored or written again stays as its seat sent it: unscored,
            // and said so; nothing of it is lost.
            guard let scored = scoring(result.document), let data = try? Self.encoded(scored) else { continue }
            add(result: session, json: String(decoding: data, as: UTF8.self))
        }
    }

    mutating func add(result session: String, json: String) {
        do throws(StrictJSON.Problem) {
            let document = try ResultDocument.read(json)
            guard document.session == session else {
                damage(session, "its result names another session")
                return
            }
            let canonical = String(decoding: try Self.encoded(document), as: UTF8.self)
            let digest = ResultDigest(document)
            // Checked here, so that a result whose gradebook row cannot be made is named with
            // that reason (the journal makes the row again from the digest).
            try Self.checkColumns(digest)
            results[session] = (document, canonical, digest)
        } catch {
            damage(session, "its result cannot be read: \(error.description)")
        }
    }

    static func encoded(_ document: ResultDocument) throws(StrictJSON.Problem) -> Data {
        do {
            return try document.json()
        } catch {
            throw StrictJSON.Problem(description: "it cannot be written again as JSON")
        }
    }

    static func checkColumns(_ digest: ResultDigest) throws(StrictJSON.Problem) {
        do {
            _ = try digest.columns()
        } catch {
            throw StrictJSON.Problem(description: "its gradebook row cannot be made")
        }
    }

    /// The first cell of a row as text, to name the session of a row that cannot be read.
    static func firstCell(_ row: PostgresRow) -> String? {
        var cells = row.makeIterator()
        // Only a name for a message: a first cell that is not text names no session.
        return cells.next().flatMap { (try? $0.decode(String?.self)) ?? nil }
    }

    mutating func damage(_ session: String, _ reason: String) {
        if damaged[session] == nil { damaged[session] = reason }
    }

    var kept: [StoreRows.Session] { sessions.filter { damaged[$0.session] == nil } }

    var waiting: Set<String> { Set(kept.filter(\.waiting).map(\.session)) }

    var skipped: [SkippedSession] { damaged.map { SkippedSession(session: $0.key, reason: $0.value) } }

    /// Writes every session kept into `journal`, each in a savepoint of its own: one that
    /// cannot be written is named and left out, and the others stay.
    mutating func write(to journal: Journal) throws {
        let copies = kept.map { raw in
            var record = raw.record
            let result = results[raw.session]
            // A finished session's time used is its result's; the store's own figure is the last
            // the running seat reported.
            if let result { record.elapsed = Double(result.document.timeUsedSeconds) }
            return CopiedSession(record: record,
                                 events: (events[raw.session] ?? []).map { JournalEvent(at: $0.at, kind: $0.kind, detail: $0.detail) },
                                 result: result.map { ($0.json, $0.digest) })
        }
        for session in try journal.importCopies(copies) { damage(session, "it cannot be copied into the report") }
    }
}
