import AssessmentKit
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GRDB

/// The SQLite journal: WAL, `synchronous=FULL`, file mode 0600.
public final class Journal: SessionStore, @unchecked Sendable {
    private let queue: DatabaseQueue
    public let path: String

    public enum OpenError: Error, CustomStringConvertible {
        case cannotOpen(String, String)
        public var description: String {
            switch self {
            case let .cannotOpen(path, why): return "cannot open the journal \(path): \(why)"
            }
        }
    }

    /// Opens (creating) the journal. The caller has made the directory 0700 and the file 0600
    /// with no symlink; SQLite gives the -wal and -shm files the same mode.
    public init(path: String) throws {
        self.path = path
        var config = Configuration()
        config.busyMode = .timeout(10)
        // GRDB's own WAL set-up lowers `synchronous` to NORMAL, which can lose the last
        // commits on power loss; an acknowledged answer must survive that, so both are set here.
        config.prepareDatabase { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else { throw DatabaseError(message: "could not switch the journal to WAL mode") }
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        // Seats that start together may create a new journal at the same moment: GRDB checks
        // which migrations ran outside the write lock, and the WAL switch can lose to a
        // lock. A short retry sees the other process's finished schema.
        var attempt = 0
        while true {
            do {
                let opened = try DatabaseQueue(path: path, configuration: config)
                try Self.migrator.migrate(opened)
                queue = opened
                break
            } catch {
                attempt += 1
                if attempt >= 8 { throw OpenError.cannotOpen(path, "\(error)") }
                usleep(UInt32(25_000 * attempt))
            }
        }
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.create(table: "session") { t in
                t.primaryKey("id", .text)
                t.column("assessment_id", .text).notNull()
                t.column("assessment_title", .text).notNull()
                t.column("fingerprint", .text).notNull()
                t.column("assessment_source", .text).notNull()
                t.column("assessment_path", .text).notNull()
                t.column("candidate", .text)
                t.column("status", .text).notNull()
                t.column("end_reason", .text)
                t.column("seed", .integer).notNull()
                t.column("extra_time", .text).notNull()
                t.column("position", .integer).notNull().defaults(to: 0)
                t.column("elapsed", .double).notNull().defaults(to: 0)
                t.column("started_at", .datetime).notNull()
                t.column("ended_at", .datetime)
                t.column("interruptions", .integer).notNull().defaults(to: 0)
                t.column("pid", .integer).notNull()
                t.column("host", .text).notNull()
                t.column("tty", .text)
                t.column("result_json", .text)
            }
            try db.create(table: "answer") { t in
                t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
                t.column("item_id", .text).notNull()
                t.column("response", .text)
                t.column("updated_at", .datetime).notNull()
                t.primaryKey(["session_id", "item_id"])
            }
            try db.create(table: "answer_history") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
                t.column("item_id", .text).notNull()
                t.column("response", .text)
                t.column("at", .datetime).notNull()
            }
            try db.create(table: "flag") { t in
                t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
                t.column("item_id", .text).notNull()
                t.primaryKey(["session_id", "item_id"])
            }
            try db.create(table: "event") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("session_id", .text).notNull().indexed()
                t.column("at", .datetime).notNull()
                t.column("kind", .text).notNull()
                t.column("detail", .text).notNull()
            }
        }
        return m
    }

    static func encode(_ response: Response?) -> String? {
        guard let response, let data = try? JSONEncoder().encode(response) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String?) -> Response? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(Response.self, from: Data(text.utf8))
    }

    public func createSession(_ r: SessionRecord) throws {
        let extra = String(decoding: try JSONEncoder().encode(r.extraTime), as: UTF8.self)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO session (id, assessment_id, assessment_title, fingerprint, assessment_source,
                  assessment_path, candidate, status, end_reason, seed, extra_time, position, elapsed,
                  started_at, ended_at, interruptions, pid, host, tty)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    r.id, r.assessmentID, r.assessmentTitle, r.fingerprint, r.assessmentSource, r.assessmentPath,
                    r.candidate, r.status.rawValue, r.endReason?.rawValue, Int64(bitPattern: r.seed), extra,
                    r.position, r.elapsed, r.startedAt, r.endedAt, r.interruptions, Int(r.pid), r.host, r.tty,
                ])
        }
    }

    public func saveAnswer(session: String, item: String, response: Response?, at: Date) throws {
        let json = Self.encode(response)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO answer (session_id, item_id, response, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(session_id, item_id) DO UPDATE SET response = excluded.response, updated_at = excluded.updated_at
                """, arguments: [session, item, json, at])
            try db.execute(sql: "INSERT INTO answer_history (session_id, item_id, response, at) VALUES (?, ?, ?, ?)",
                           arguments: [session, item, json, at])
        }
    }

    public func saveFlag(session: String, item: String, flagged: Bool) throws {
        try queue.write { db in
            if flagged {
                try db.execute(sql: "INSERT OR IGNORE INTO flag (session_id, item_id) VALUES (?, ?)", arguments: [session, item])
            } else {
                try db.execute(sql: "DELETE FROM flag WHERE session_id = ? AND item_id = ?", arguments: [session, item])
            }
        }
    }

    public func savePosition(session: String, position: Int) throws {
        try queue.write { try $0.execute(sql: "UPDATE session SET position = ? WHERE id = ?", arguments: [position, session]) }
    }

    public func saveTime(session: String, elapsed: Double) throws {
        try queue.write { try $0.execute(sql: "UPDATE session SET elapsed = ? WHERE id = ?", arguments: [elapsed, session]) }
    }

    public func log(session: String, kind: EventKind, detail: String, at: Date) throws {
        try queue.write { db in
            try db.execute(sql: "INSERT INTO event (session_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                           arguments: [session, at, kind.rawValue, detail])
        }
    }

    public func setStatus(session: String, status: SessionStatus, endReason: EndReason?, endedAt: Date?) throws {
        try queue.write { db in
            try db.execute(sql: "UPDATE session SET status = ?, end_reason = ?, ended_at = ? WHERE id = ?",
                           arguments: [status.rawValue, endReason?.rawValue, endedAt, session])
        }
    }

    public func noteResumed(session: String, pid: Int32) throws {
        try queue.write { db in
            try db.execute(sql: "UPDATE session SET status = 'active', interruptions = interruptions + 1, pid = ? WHERE id = ?",
                           arguments: [Int(pid), session])
        }
    }

    public func saveResult(session: String, json: String) throws {
        try queue.write { try $0.execute(sql: "UPDATE session SET result_json = ? WHERE id = ?", arguments: [json, session]) }
    }

    static func record(_ row: Row) -> SessionRecord? {
        guard let status = SessionStatus(rawValue: row["status"]) else { return nil }
        let extraText: String = row["extra_time"]
        let extra = (try? JSONDecoder().decode(ExtraTime.self, from: Data(extraText.utf8))) ?? .none
        let seed: Int64 = row["seed"]
        let reason: String? = row["end_reason"]
        let pid: Int = row["pid"]
        return SessionRecord(
            id: row["id"], assessmentID: row["assessment_id"], assessmentTitle: row["assessment_title"],
            fingerprint: row["fingerprint"], assessmentSource: row["assessment_source"],
            assessmentPath: row["assessment_path"], candidate: row["candidate"], status: status,
            endReason: reason.flatMap(EndReason.init(rawValue:)), seed: UInt64(bitPattern: seed), extraTime: extra,
            position: row["position"], elapsed: row["elapsed"], startedAt: row["started_at"], endedAt: row["ended_at"],
            interruptions: row["interruptions"], pid: Int32(truncatingIfNeeded: pid), host: row["host"], tty: row["tty"])
    }

    public func session(_ id: String) throws -> SessionRecord? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [id]).flatMap(Self.record)
        }
    }

    public func sessions(status: [SessionStatus]?) throws -> [SessionRecord] {
        try queue.read { db in
            let rows: [Row]
            if let status {
                let marks = status.map { _ in "?" }.joined(separator: ", ")
                rows = try Row.fetchAll(db, sql: "SELECT * FROM session WHERE status IN (\(marks)) ORDER BY started_at, id",
                                        arguments: StatementArguments(status.map(\.rawValue)))
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT * FROM session ORDER BY started_at, id")
            }
            return rows.compactMap(Self.record)
        }
    }

    public func answers(session: String) throws -> [String: Response] {
        try queue.read { db in
            var out: [String: Response] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT item_id, response FROM answer WHERE session_id = ?", arguments: [session]) {
                if let r = Self.decode(row["response"]) { out[row["item_id"]] = r }
            }
            return out
        }
    }

    public func flags(session: String) throws -> Set<String> {
        try queue.read { db in
            Set(try String.fetchAll(db, sql: "SELECT item_id FROM flag WHERE session_id = ?", arguments: [session]))
        }
    }

    public func events(session: String) throws -> [JournalEvent] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT at, kind, detail FROM event WHERE session_id = ? ORDER BY id", arguments: [session])
                .map { JournalEvent(at: $0["at"], kind: $0["kind"], detail: $0["detail"]) }
        }
    }

    public func result(session: String) throws -> String? {
        try queue.read { try String.fetchOne($0, sql: "SELECT result_json FROM session WHERE id = ?", arguments: [session]) }
    }

    /// SQLite's own view of the settings, for tests and `status`.
    public func pragmas() throws -> (journalMode: String, synchronous: Int) {
        try queue.read { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
            let sync = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return (mode, sync)
        }
    }
}
