import AssessmentKit
import Foundation
import GRDB
import Synchronization

/// A journal record waiting for the lab's shared store. `seq` orders a session's records and
/// keys them in the store (with the session), so sending one twice changes nothing there.
public struct OutboxRecord: Sendable, Equatable {
    public var seq: Int64
    public var session: String
    public var kind: String
    public var at: Date
    /// JSON.
    public var body: String
    /// The record's place in its session's chain (1, 2, 3 …); nil for a time save, and for
    /// records written before journals kept it.
    public var link: Int64?

    public init(seq: Int64, session: String, kind: String, at: Date, body: String, link: Int64? = nil) {
        self.seq = seq
        self.session = session
        self.kind = kind
        self.at = at
        self.body = body
        self.link = link
    }
}

/// What a publishing session writes to its outbox, in the transaction of the write itself:
/// the session's start, answers, flags, events, status changes, resumptions, saved progress
/// and result. (The running session also reports its time used every two seconds, outside the
/// outbox, for the proctor's console.)
enum Outbox {
    static func isPublished(_ session: String, _ db: Database) throws -> Bool {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM publication WHERE session_id = ?"), arguments: [session]) != nil
    }

    static func add(_ body: String, kind: String, session: String, at: Date, _ db: Database) throws {
        // Every record but a time save takes the next place in its session's chain.
        let link = kind == "progress" ? nil : try Int64.fetchOne(
            db.cachedStatement(sql: "UPDATE publication SET links = links + 1 WHERE session_id = ? RETURNING links"), arguments: [session])
        try db.cachedStatement(sql: "INSERT INTO outbox (session_id, kind, at, body, link) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [session, kind, JournalTime.text(at), body, link])
    }

    static func string(_ text: String) -> String { JSONLiteral.string(text) }
    static func optional(_ text: String?) -> String { JSONLiteral.optional(text) }

    static func stamp(_ date: Date?) -> String {
        guard let date else { return "null" }
        return "\"" + Timestamp.iso(date) + "\""
    }

    static func sessionBody(_ record: SessionRecord, label: SharedLabel) -> String {
        let allowed = label.timeAllowed.map(String.init) ?? "null"
        return """
            {"room":\(string(label.room)),"seat":\(string(label.seat)),"candidate":\(optional(record.candidate)),\
            "assessment_id":\(string(record.assessmentID)),"assessment_title":\(string(record.assessmentTitle)),\
            "fingerprint":\(string(record.fingerprint)),"total":\(label.total),"time_allowed_seconds":\(allowed),\
            "host":\(string(record.host)),"pid":\(record.pid),"started_at":\(stamp(record.startedAt)),\
            "candidate_number":\(optional(label.candidateNumber)),"continue":\(continuation(record))\
            \(JSONLiteral.attestationField(label.attestation))}
            """
    }

    /// What another seat needs to continue the session where this one stops (`MovedSession`):
    /// its draw and order (the seed), its accommodations and its launch choices — without the
    /// token it proved itself with, which stays in this seat's journal.
    static func continuation(_ record: SessionRecord) -> String {
        var options = record.options
        options.shared?.storeToken = nil
        options.shared?.attestation = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Both encode plain values (strings, numbers, booleans): they do not fail.
        let extra = (try? encoder.encode(record.extraTime)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        let launch = (try? encoder.encode(options)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        return "{\"seed\":\"\(record.seed)\",\"extra_time\":\(extra),\"options\":\(launch)}"
    }


    /// The record of one journal write; nil for what is not published.
    static func body(of write: JournalWrite) throws -> (String, String)? {
        switch write {
        case let .answer(item, response):
            let json = try Journal.encode(response) ?? "null"
            let answered = response.map { !$0.isEmpty } ?? false
            return ("answer", "{\"item\":\(string(item)),\"response\":\(json),\"answered\":\(answered)}")
        case let .flag(item, on):
            return ("flag", "{\"item\":\(string(item)),\"on\":\(on)}")
        case let .progress(position, elapsed):
            // The time used as the journal has it saved, so results read from the store say
            // what the seat's own journal says.
            let seconds = elapsed.isFinite ? elapsed : 0
            return ("progress", "{\"position\":\(position),\"elapsed\":\(seconds)}")
        case let .event(kind, detail, _):
            return ("event", "{\"kind\":\(string(kind.rawValue)),\"detail\":\(string(detail))}")
        case let .status(status, reason, endedAt):
            return ("status", "{\"status\":\(string(status.rawValue)),\"end_reason\":\(optional(reason?.rawValue)),\"ended_at\":\(stamp(endedAt))}")
        case let .resumed(pid):
            return ("resumed", "{\"pid\":\(pid)}")
        case let .result(json, _):
            // The document only: whoever reads the store makes the gradebook's digest again.
            return ("result", "{\"json\":\(string(json))}")
        }
    }

    /// `body` with the time used saved in the same commit (`"elapsed": seconds`).
    static func carrying(_ elapsed: Double?, in body: String) -> String {
        guard let elapsed, elapsed.isFinite, body.hasPrefix("{") else { return body }
        return "{\"elapsed\":\(elapsed)," + body.dropFirst()
    }

    static func time(of write: JournalWrite) -> Date? {
        if case let .event(_, _, at) = write { return at }
        return nil
    }
}

extension Journal {
    /// Records waiting for the shared store, oldest first, after `seq`.
    public func outbox(after seq: Int64, limit: Int) throws -> [OutboxRecord] {
        try writer.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, session_id, kind, at, body, link FROM outbox WHERE seq > ? AND kind <> '.published' ORDER BY seq LIMIT ?",
                             arguments: [seq, limit]).map {
                OutboxRecord(seq: $0["seq"], session: $0["session_id"], kind: $0["kind"], at: $0["at"], body: $0["body"], link: $0["link"])
            }
        }
    }

    /// How many records wait, and for how many sessions.
    public func outboxWaiting() throws -> (records: Int, sessions: Int) {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT count(*) AS n, count(DISTINCT session_id) AS s FROM outbox WHERE kind <> '.published'
                """) else { return (0, 0) }
            return (row["n"], row["s"])
        }
    }

    /// How many of one session's records wait.
    public func outboxWaiting(session: String) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox WHERE session_id = ? AND kind <> '.published'", arguments: [session]) ?? 0
        }
    }

    /// Forgets records the store has confirmed, up to `seq`. A marker row keeps the highest
    /// sequence number in the table, so numbers are never reused; it is never sent.
    /// Commits without waiting for the disk: after a crash, a record the store already has
    /// is sent again and changes nothing there.
    public func removePublished(through seq: Int64) throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            let outcome = Result {
                try db.inTransaction {
                    try db.execute(sql: "DELETE FROM outbox WHERE seq <= ?", arguments: [seq])
                    try db.execute(sql: """
                        INSERT INTO outbox (seq, session_id, kind, at, body)
                          SELECT ?, '', '.published', ?, '{}' WHERE NOT EXISTS (SELECT 1 FROM outbox WHERE seq >= ?)
                        """, arguments: [seq, JournalTime.text(Date()), seq])
                    return .commit
                }
            }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try outcome.get()
        }
    }

    /// Says how the shared store was last reached, for `carrel status` (a few bytes, only
    /// when the state changes).
    public func noteStore(session: String, state: String, since: Date) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE publication SET store_state = ?, store_since = ? WHERE session_id = ?",
                           arguments: [state, JournalTime.text(since), session])
        }
    }

    /// When the store last confirmed every record this journal had sent (the marker row the
    /// outbox keeps), or nil when it never has.
    public func lastPublished() throws -> Date? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT at FROM outbox WHERE kind = '.published' ORDER BY seq DESC LIMIT 1")
            else { return nil }
            return try JournalFields(row: row, owner: "the outbox's published marker").optionalDate("at")
        }
    }

    /// The shared-store label and last known state of a publishing session.
    public func publication(session: String) throws -> (room: String, seat: String, state: String?, since: Date?)? {
        try writer.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT room, seat, store_state, store_since FROM publication WHERE session_id = ?",
                                             arguments: [session]) else { return nil }
            let fields = JournalFields(row: row, owner: "the shared-store label of session \(session)")
            return (try fields.text("room"), try fields.text("seat"), try fields.optionalText("store_state"),
                    try fields.optionalDate("store_since"))
        }
    }
}

/// JSON literals for the small record bodies built by hand (the outbox, a seat's announcement).
public enum JSONLiteral {
    /// A JSON string literal.
    public static func string(_ text: String) -> String {
        // Encoding a String cannot fail.
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// A string literal, or `null`.
    public static func optional(_ text: String?) -> String { text.map(string) ?? "null" }

    /// An object of strings, keys sorted: `{"a":"1","b":"2"}`.
    public static func object(_ fields: [String: String]) -> String {
        "{" + fields.keys.sorted().map { "\(string($0)):\(string(fields[$0] ?? ""))" }.joined(separator: ",") + "}"
    }

    /// `,"attestation":{…}` to end a record's body with, or nothing without facts.
    public static func attestationField(_ facts: [String: String]?) -> String {
        guard let facts, !facts.isEmpty else { return "" }
        return ",\"attestation\":" + object(facts)
    }
}

/// Sessions known to publish or not (see `Journal.isPublished`).
final class PublishingCache: Sendable {
    private let known = Mutex<[String: Bool]>([:])
    func value(_ session: String) -> Bool? { known.withLock { $0[session] } }
    func set(_ session: String, _ published: Bool) { known.withLock { $0[session] = published } }
}

/// Wakes one waiter (the publisher) when something was added; a ring with nobody waiting is
/// kept for the next wait. `ring` is called from synchronous code (a journal write), `wait`
/// from the publisher's task.
public final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func ring() {
        let waiting = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let w = s.waiter else {
                s.rung = true
                return nil
            }
            s.waiter = nil
            return w
        }
        waiting?.resume(returning: true)
    }

    /// Returns when rung (or at once if rung since the last wait), after `seconds`, or when
    /// the task is cancelled: a deadline in a task group, never a timer left behind. True
    /// when it was rung.
    @discardableResult
    public func wait(seconds: Double) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.rang() }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
                return false
            }
            var rung = await group.next() ?? false
            group.cancelAll()
            // A ring that came after the deadline but before the cancellation resumed the
            // waiter: it counts (it was taken from the bell), so it is not lost.
            for await other in group { rung = rung || other }
            return rung
        }
    }

    /// Waits for a ring (true); ends at once, false, when cancelled.
    private func rang() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let (now, earlier) = state.withLock { s -> (Bool?, CheckedContinuation<Bool, Never>?) in
                    // Cancelled before waiting (the handler below ran first and found no waiter):
                    // a ring is left for the next wait.
                    if Task.isCancelled { return (false, nil) }
                    if s.rung {
                        s.rung = false
                        return (true, nil)
                    }
                    // A waiter left by an earlier wait would never be resumed: there is only one.
                    let earlier = s.waiter
                    s.waiter = continuation
                    return (nil, earlier)
                }
                earlier?.resume(returning: false)
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiting = state.withLock { s -> CheckedContinuation<Bool, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }
            waiting?.resume(returning: false)
        }
    }
}
