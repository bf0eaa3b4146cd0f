import AssessmentKit
import Foundation
import GRDB

/// One write of a session message; all writes of one message commit in one transaction.
public enum JournalWrite: Sendable, Equatable {
    case answer(item: String, response: Response?)
    case flag(item: String, on: Bool)
    case progress(position: Int, elapsed: Double)
    case event(EventKind, String, at: Date)
    case status(SessionStatus, EndReason?, endedAt: Date?)
    case resumed(pid: Int32)
    /// The result document (JSON) and its digest for gradebooks.
    case result(json: String, digest: ResultDigest)
}

/// A journal row that does not read back as what was written: never guessed around.
public struct JournalCorruption: Error, Sendable, CustomStringConvertible {
    public var what: String
    public var description: String { "the journal is damaged: \(what)" }
    public init(what: String) { self.what = what }
}

/// The SQLite journal, the only place answers live: WAL, `synchronous=FULL`, one
/// transaction per session message. The database connection is injected (a file opened by
/// the state storage, or an in-memory queue in tests).
public final class Journal: Sendable {
    public let writer: any DatabaseWriter

    /// Opens the journal over `writer`, migrating an older schema.
    public init(writer: any DatabaseWriter) throws {
        self.writer = writer
        let migrator = Self.migrator
        let current = try writer.read { try migrator.hasCompletedMigrations($0) }
        guard !current else { return }
        // Migrations rewrite many pages once: they fold the log into the database every few
        // pages and cut it back, so on a small disk the log never holds more than the
        // database needs (the schema and the folds are written to the disk either way).
        let shape = try writer.read { try LogShape.current($0) }
        try writer.writeWithoutTransaction { db in
            try LogShape(foldEvery: 8, sizeLimit: 0).apply(db)
        }
        try migrator.migrate(writer)
        // Folding the last of them in at once keeps the log small too. Only an optimisation:
        // every change is already durable in the log, so a fold that cannot run now changes
        // nothing.
        try? writer.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        try writer.writeWithoutTransaction { try shape.apply($0) }
    }

    /// How often the write-ahead log is folded into the database, and the size it is cut
    /// back to after a fold. The log is written again from its start after each fold, keeping
    /// its size (the limit is a little above it): a commit that only overwrites the log's
    /// existing bytes waits for one flush, one that grows the file also waits for its size
    /// to be written, and each fold waits for two more.
    public struct LogShape: Equatable, Sendable {
        public var foldEvery: Int
        public var sizeLimit: Int

        /// Where the disk has room: a fold every 256 pages (1 MiB). Folding every 16 pages
        /// cost an answer 1.4 flushes on average, about a fifth of the durable answers per
        /// second (measured side by side, `scripts/bench-journal`).
        public static let roomy = LogShape(foldEvery: 256, sizeLimit: 1032 * 1024)
        /// On a small or nearly full disk: a fold every 16 pages (64 KiB). A large log there
        /// can take the room a fold needs to grow the database, and a result could then not be
        /// saved even after some space is freed.
        public static let tight = LogShape(foldEvery: 16, sizeLimit: 72 * 1024)
        /// The free space below which a journal keeps its log tight.
        public static let roomNeeded: UInt64 = 64 * 1024 * 1024

        public init(foldEvery: Int, sizeLimit: Int) {
            self.foldEvery = foldEvery
            self.sizeLimit = sizeLimit
        }

        /// The shape for a disk with `freeBytes` available (nil: unknown, taken as tight).
        public static func forDisk(freeBytes: UInt64?) -> LogShape {
            guard let freeBytes, freeBytes >= roomNeeded else { return tight }
            return roomy
        }

        func apply(_ db: Database) throws {
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(foldEvery)")
            try db.execute(sql: "PRAGMA journal_size_limit = \(sizeLimit)")
        }

        static func current(_ db: Database) throws -> LogShape {
            LogShape(foldEvery: try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? tight.foldEvery,
                     sizeLimit: try Int.fetchOne(db, sql: "PRAGMA journal_size_limit") ?? tight.sizeLimit)
        }
    }

    /// The configuration every journal file is opened with, its log shaped for the room on
    /// its disk. GRDB's own WAL set-up lowers `synchronous` to NORMAL, which can lose the last
    /// commits on power loss; an acknowledged answer must survive that, so both are set here.
    public static func configuration(log: LogShape = .tight) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode == "wal" else { throw DatabaseError(message: "could not switch the journal to WAL mode") }
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // On a disk too full, a failed commit makes the log tight, folds and truncates it,
            // and tries once more (`foldingTheLogWhenFull`).
            try log.apply(db)
        }
        return config
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
        // v2: the assessment text is stored once, apart from the session; position and time
        // used live in a small progress row, so a Tab or a time save writes a few bytes
        // whatever the size of the assessment; results have their own table.
        m.registerMigration("v2") { db in
            try db.create(table: "assessment") { t in
                t.primaryKey("fingerprint", .text)
                t.column("assessment_id", .text).notNull()
                t.column("title", .text).notNull()
                t.column("path", .text).notNull()
                t.column("format", .text).notNull()
                t.column("source", .blob).notNull()
            }
            try db.execute(sql: """
                INSERT OR IGNORE INTO assessment (fingerprint, assessment_id, title, path, format, source)
                  SELECT fingerprint, assessment_id, assessment_title, assessment_path, 'yaml', CAST(assessment_source AS BLOB)
                  FROM session ORDER BY started_at
                """)
            try db.create(table: "session_v2") { t in
                t.primaryKey("id", .text)
                t.column("fingerprint", .text).notNull().references("assessment")
                t.column("assessment_id", .text).notNull()
                t.column("assessment_title", .text).notNull()
                t.column("candidate", .text)
                t.column("status", .text).notNull()
                t.column("end_reason", .text)
                t.column("seed", .integer).notNull()
                t.column("extra_time", .text).notNull()
                t.column("options", .text).notNull().defaults(to: "{}")
                t.column("started_at", .datetime).notNull()
                t.column("ended_at", .datetime)
                t.column("interruptions", .integer).notNull().defaults(to: 0)
                t.column("pid", .integer).notNull()
                t.column("host", .text).notNull()
                t.column("tty", .text)
            }
            try db.execute(sql: """
                INSERT INTO session_v2 (id, fingerprint, assessment_id, assessment_title, candidate, status, end_reason,
                  seed, extra_time, started_at, ended_at, interruptions, pid, host, tty)
                SELECT id, fingerprint, assessment_id, assessment_title, candidate, status, end_reason,
                  seed, extra_time, started_at, ended_at, interruptions, pid, host, tty FROM session
                """)
            try db.create(table: "progress") { t in
                t.primaryKey("session_id", .text).references("session", onDelete: .cascade)
                t.column("position", .integer).notNull()
                t.column("elapsed", .double).notNull()
            }
            try db.execute(sql: "INSERT INTO progress (session_id, position, elapsed) SELECT id, position, elapsed FROM session")
            try db.create(table: "result") { t in
                t.primaryKey("session_id", .text).references("session", onDelete: .cascade)
                t.column("json", .text).notNull()
            }
            try db.execute(sql: "INSERT INTO result (session_id, json) SELECT id, result_json FROM session WHERE result_json IS NOT NULL")
            try db.drop(table: "session")
            try db.rename(table: "session_v2", to: "session")
            try db.create(index: "answer_history_session", on: "answer_history", columns: ["session_id", "item_id"])
        }
        // v3: marks people give after a session; every mark stays, the newest one counts.
        m.registerMigration("v3") { db in
            try db.create(table: "mark") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
                t.column("item_id", .text).notNull()
                t.column("points", .double).notNull()
                t.column("comment", .text)
                t.column("at", .datetime).notNull()
            }
            try db.create(index: "mark_session", on: "mark", columns: ["session_id", "item_id"])
        }
        // v4: each result's digest (`ResultDigest`), what a gradebook reads, ahead of the
        // document in the same row: SQLite reaches a column by walking the pages of those
        // before it, so a digest after a megabyte of JSON would cost reading the JSON. One row
        // and one key per result keep a small disk's journal as small as before. Results
        // recorded before it have no digest and are read whole.
        m.registerMigration("v4") { db in
            try db.create(table: "result_v4") { t in
                t.primaryKey("session_id", .text).references("session", onDelete: .cascade)
                t.column("heading", .text)
                t.column("items", .text)
                t.column("csv", .text)
                t.column("cells", .text)
                t.column("json", .text).notNull()
            }
            try db.execute(sql: "INSERT INTO result_v4 (session_id, json) SELECT session_id, json FROM result")
            try db.drop(table: "result")
            try db.rename(table: "result_v4", to: "result")
        }
        // v5: an answer touches as few pages as it can, since every page is written to the log
        // and waited for: the latest answers live in their key's own b-tree (no separate
        // index), and the history is a plain rowid table with no index and no AUTOINCREMENT
        // counter (its rows are never deleted one by one, so ids still only grow; the history
        // of one session, read for its integrity report, is found by a scan).
        m.registerMigration("v5") { db in
            try db.create(table: "answer_v5", options: .withoutRowID) { t in
                t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
                t.column("item_id", .text).notNull()
                t.column("response", .text)
                t.column("updated_at", .datetime).notNull()
                t.primaryKey(["session_id", "item_id"])
            }
            try db.execute(sql: "INSERT INTO answer_v5 (session_id, item_id, response, updated_at) SELECT session_id, item_id, response, updated_at FROM answer")
            try db.drop(table: "answer")
            try db.rename(table: "answer_v5", to: "answer")
            try db.create(table: "answer_history_v5") { t in
                t.primaryKey("id", .integer)
                t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
                t.column("item_id", .text).notNull()
                t.column("response", .text)
                t.column("at", .datetime).notNull()
            }
            try db.execute(sql: "INSERT INTO answer_history_v5 (id, session_id, item_id, response, at) SELECT id, session_id, item_id, response, at FROM answer_history")
            try db.drop(table: "answer_history")
            try db.rename(table: "answer_history_v5", to: "answer_history")
        }
        // v6: sessions that publish to a lab's shared store, and the outbox their records wait
        // in until the store has them. The outbox's rowid is each record's sequence number:
        // rows are deleted once published, except the newest, so numbers only ever grow.
        m.registerMigration("v6") { db in
            try db.create(table: "publication") { t in
                t.primaryKey("session_id", .text).references("session", onDelete: .cascade)
                t.column("room", .text).notNull()
                t.column("seat", .text).notNull()
                t.column("store_state", .text)
                t.column("store_since", .datetime)
            }
            try db.create(table: "outbox") { t in
                t.primaryKey("seq", .integer)
                t.column("session_id", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("at", .datetime).notNull()
                t.column("body", .text).notNull()
            }
        }
        return m
    }

    // MARK: writing

    /// Records a new session, its assessment (once per fingerprint), its first progress row
    /// and the events that led to it, in one transaction. A sealed copy replaces a plain one
    /// of the same fingerprint, so once an assessment is sealed the journal keeps it sealed.
    public func createSession(_ record: SessionRecord, source: StoredAssessment, events: [JournalWrite] = []) throws {
        try foldingTheLogWhenFull { try writer.write { db in
            try db.execute(sql: """
                INSERT INTO assessment (fingerprint, assessment_id, title, path, format, source) VALUES (?, ?, ?, ?, ?, ?)
                  ON CONFLICT(fingerprint) DO UPDATE SET path = excluded.path, format = excluded.format, source = excluded.source
                  WHERE assessment.format = 'yaml' AND excluded.format = 'sealed'
                """, arguments: [record.fingerprint, record.assessmentID, record.assessmentTitle, source.path,
                                 source.format.rawValue, source.bytes])
            try StoredSessionRow(record).insert(db)
            try ProgressRow(sessionID: record.id, position: record.position, elapsed: record.elapsed).insert(db)
            let published = record.options.shared != nil
            publishing.set(record.id, published)
            if let label = record.options.shared {
                try db.execute(sql: "INSERT INTO publication (session_id, room, seat) VALUES (?, ?, ?)",
                               arguments: [record.id, label.room, label.seat])
                try Outbox.add(Outbox.sessionBody(record, label: label), kind: "session", session: record.id, at: record.startedAt, db)
            }
            for write in events { try Self.apply(write, session: record.id, at: record.startedAt, published: published, db) }
        } }
        if record.options.shared != nil { outboxBell.ring() }
    }

    /// Rung after every commit that added to the outbox (the publisher waits on it).
    public let outboxBell = Doorbell()

    /// Whether each session seen by this journal publishes. A session publishes or not from
    /// its creation on, so the answer is looked up once per session: a lookup on every
    /// commit cost a fifth of the durable answers per second.
    let publishing = PublishingCache()

    func isPublished(_ session: String, _ db: Database) throws -> Bool {
        if let known = publishing.value(session) { return known }
        let found = try Outbox.isPublished(session, db)
        publishing.set(session, found)
        return found
    }

    /// Runs `write`; when it fails on a full disk, folds the write-ahead log into the database,
    /// shrinks it, and runs it once more. The log can hold room the database does not need (it
    /// keeps its size between folds, and grows while a fold cannot finish). The fold's own
    /// failure changes nothing (every commit is already durable in the log); the second
    /// write's failure is reported.
    func foldingTheLogWhenFull(_ write: () throws -> Void) throws {
        do {
            try write()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            // The disk filled up: from now on the log stays small, so that what it holds can
            // still be folded into the database once a little space returns. Setting it only
            // changes the connection's flags; were that to fail, the fold below still runs.
            _ = try? writer.writeWithoutTransaction { try LogShape.tight.apply($0) }
            _ = try? writer.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try write()
        }
    }

    /// Commits every write of one message in one durable transaction, or none of them.
    public func commit(session: String, _ writes: [JournalWrite], at: Date) throws {
        guard !writes.isEmpty else { return }
        // A message that only moves the position or the clock (a Tab, the time saved every few
        // seconds) holds nothing the student was told is saved: it commits without waiting for
        // the disk (`synchronous = NORMAL`), so it survives the process being killed but not a
        // power cut, and the next durable commit carries it to the disk with everything else.
        // Answers, flags, events, status and results always wait for the disk.
        let relaxed = writes.allSatisfy { if case .progress = $0 { return true } else { return false } }
        var published = false
        func write() throws {
            guard relaxed else {
                try writer.write { db in
                    published = try isPublished(session, db)
                    guard published else {
                        for write in writes { try Self.apply(write, session: session, at: at, published: false, db) }
                        return
                    }
                    // The time saved with an answer or a flag rides in that record instead of a
                    // record of its own (the journal keeps only the latest time anyway).
                    let isProgress = { (w: JournalWrite) -> Bool in if case .progress = w { return true } else { return false } }
                    var elapsed: Double?
                    if let last = writes.last(where: isProgress), case let .progress(_, seconds) = last,
                       writes.contains(where: { !isProgress($0) }) {
                        elapsed = seconds
                    }
                    let carrier = elapsed == nil ? nil : writes.lastIndex { !isProgress($0) }
                    for (i, write) in writes.enumerated() {
                        try Self.apply(write, session: session, at: at, published: !(elapsed != nil && isProgress(write)),
                                       elapsed: i == carrier ? elapsed : nil, db)
                    }
                }
                return
            }
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                let outcome = Result {
                    try db.inTransaction {
                        published = try isPublished(session, db)
                        for write in writes { try Self.apply(write, session: session, at: at, published: published, db) }
                        return .commit
                    }
                }
                // Back to FULL before anything else commits on this connection (setting it only
                // changes a flag of the connection; were it to fail, the error is reported and
                // the message retried).
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try outcome.get()
            }
        }
        try foldingTheLogWhenFull(write)
        if published { outboxBell.ring() }
    }

    /// Applies one write; a session that publishes also gets the write in its outbox, in the
    /// same transaction.
    static func apply(_ write: JournalWrite, session: String, at: Date, published: Bool, elapsed: Double? = nil,
                      _ db: Database) throws {
        try apply(write, session: session, at: at, db)
        if published, let (kind, body) = try Outbox.body(of: write) {
            try Outbox.add(Outbox.carrying(elapsed, in: body), kind: kind, session: session, at: Outbox.time(of: write) ?? at, db)
        }
    }

    static func apply(_ write: JournalWrite, session: String, at: Date, _ db: Database) throws {
        switch write {
        case let .answer(item, response):
            // The commonest write: two prepared statements kept by the connection, no SQL
            // built and no row read back per answer.
            let json = try Self.encode(response)
            let stamp = JournalTime.text(at)
            try db.cachedStatement(sql: """
                INSERT INTO answer (session_id, item_id, response, updated_at) VALUES (?, ?, ?, ?)
                  ON CONFLICT (session_id, item_id) DO UPDATE SET response = excluded.response, updated_at = excluded.updated_at
                """).execute(arguments: [session, item, json, stamp])
            try db.cachedStatement(sql: "INSERT INTO answer_history (session_id, item_id, response, at) VALUES (?, ?, ?, ?)")
                .execute(arguments: [session, item, json, stamp])
        case let .flag(item, on):
            if on {
                try FlagRow(sessionID: session, itemID: item).insert(db, onConflict: .ignore)
            } else {
                _ = try FlagRow.deleteOne(db, key: ["session_id": session, "item_id": item])
            }
        case let .progress(position, elapsed):
            try ProgressRow(sessionID: session, position: position, elapsed: elapsed).upsert(db)
        case let .event(kind, detail, eventAt):
            try EventRow(sessionID: session, at: eventAt, kind: kind.rawValue, detail: detail).insert(db)
        case let .status(status, reason, endedAt):
            try db.execute(sql: "UPDATE session SET status = ?, end_reason = ?, ended_at = ? WHERE id = ?",
                           arguments: [status.rawValue, reason?.rawValue, endedAt, session])
            guard db.changesCount == 1 else { throw JournalCorruption(what: "session \(session) is missing") }
        case let .resumed(pid):
            try db.execute(sql: "UPDATE session SET status = 'active', interruptions = interruptions + 1, pid = ? WHERE id = ?",
                           arguments: [Int(pid), session])
            guard db.changesCount == 1 else { throw JournalCorruption(what: "session \(session) is missing") }
        case let .result(json, digest):
            try ResultRow(sessionID: session, json: json, digest: digest).upsert(db)
        }
    }

    static func encode(_ response: Response?) throws -> String? {
        guard let response else { return nil }
        return String(decoding: try JSONEncoder().encode(response), as: UTF8.self)
    }

    static func decode(_ text: String?, item: String) throws -> Response? {
        guard let text else { return nil }
        do {
            return try JSONDecoder().decode(Response.self, from: Data(text.utf8))
        } catch {
            throw JournalCorruption(what: "the saved answer to \(item) cannot be read")
        }
    }

    // MARK: reading

    public func session(_ id: String) throws -> SessionRecord? {
        try writer.read { db in try Self.records(db, sql: "WHERE s.id = ?", [id]).first }
    }

    /// Sessions with one of these statuses (all when nil), oldest first.
    public func sessions(status: [SessionStatus]?) throws -> [SessionRecord] {
        try writer.read { db in
            guard let status else { return try Self.records(db, sql: "ORDER BY s.started_at, s.id", []) }
            let marks = status.map { _ in "?" }.joined(separator: ", ")
            return try Self.records(db, sql: "WHERE s.status IN (\(marks)) ORDER BY s.started_at, s.id", status.map(\.rawValue))
        }
    }

    static func records(_ db: Database, sql: String, _ arguments: [String]) throws -> [SessionRecord] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT s.*, a.path AS assessment_path, p.position AS position, p.elapsed AS elapsed
            FROM session s JOIN assessment a ON a.fingerprint = s.fingerprint
            LEFT JOIN progress p ON p.session_id = s.id \(sql)
            """, arguments: StatementArguments(arguments))
        return try rows.map { row in
            let session = try StoredSessionRow(row: row)
            return try session.record(path: row["assessment_path"], position: row["position"] ?? 0, elapsed: row["elapsed"] ?? 0)
        }
    }

    /// The assessment a session was launched with, exactly as it was read.
    public func storedAssessment(fingerprint: String) throws -> StoredAssessment {
        try writer.read { db in
            guard let row = try AssessmentRow.fetchOne(db, key: fingerprint) else {
                throw JournalCorruption(what: "the assessment \(fingerprint) of a session is missing")
            }
            guard let format = StoredAssessment.Format(rawValue: row.format) else {
                throw JournalCorruption(what: "the assessment \(fingerprint) has an unknown format \(row.format)")
            }
            return StoredAssessment(bytes: row.source, path: row.path, format: format)
        }
    }

    public func answers(session: String) throws -> [String: Response] {
        try writer.read { db in
            var out: [String: Response] = [:]
            for row in try AnswerRow.filter(Column("session_id") == session).fetchAll(db) {
                if let r = try Self.decode(row.response, item: row.itemID) { out[row.itemID] = r }
            }
            return out
        }
    }

    /// Every saved version of every answer, oldest first.
    public func history(session: String) throws -> [(item: String, response: Response?, at: Date)] {
        try writer.read { db in
            try AnswerHistoryRow.filter(Column("session_id") == session).order(Column("id")).fetchAll(db).map {
                ($0.itemID, try Self.decode($0.response, item: $0.itemID), $0.at)
            }
        }
    }

    public func flags(session: String) throws -> Set<String> {
        try writer.read { db in
            Set(try FlagRow.filter(Column("session_id") == session).fetchAll(db).map(\.itemID))
        }
    }

    public func events(session: String) throws -> [JournalEvent] {
        try writer.read { db in
            try EventRow.filter(Column("session_id") == session).order(Column("id")).fetchAll(db)
                .map { JournalEvent(at: $0.at, kind: $0.kind, detail: $0.detail) }
        }
    }

    public func result(session: String) throws -> String? {
        try writer.read { db in try ResultRow.fetchOne(db, key: session)?.json }
    }

    /// Every result of these sessions as a gradebook reads it, in the order given: the stored
    /// heading, item ids and ready CSV fields, or the whole document of a result recorded
    /// before digests were kept. Sessions without a result are left out.
    public func gradebookRows(sessions: [String]) throws -> [StoredGradebookRow] {
        try writer.read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT heading, items, csv, CASE WHEN heading IS NULL THEN json END AS json FROM result WHERE session_id = ?
                """)
            var rows: [StoredGradebookRow] = []
            for session in sessions {
                guard let row = try Row.fetchOne(statement, arguments: [session]) else { continue }
                rows.append(StoredGradebookRow(session: session, heading: row["heading"], items: row["items"],
                                               csv: row["csv"], json: row["json"]))
            }
            return rows
        }
    }

    /// The stored spreadsheet-safe cells of one result (a JSON list), for a gradebook whose
    /// columns differ from the result's own items.
    public func gradebookCells(session: String) throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: "SELECT cells FROM result WHERE session_id = ?", arguments: [session]) }
    }

    /// Every result's score, read by SQLite from the stored heading (or the whole JSON of an
    /// older result) without decoding the items: `results list` of a thousand 5 000-item
    /// results reads a few numbers each. A result whose score cannot be read is left out (its
    /// session shows no score, as one without a result).
    public func scores() throws -> [String: ScoreSummary] {
        try writer.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT session_id, json_extract(COALESCE(heading, json), '$.score.points') AS points,
                       json_extract(COALESCE(heading, json), '$.score.max') AS max,
                       json_extract(COALESCE(heading, json), '$.score.pending') AS pending
                FROM result
                """)
            var out: [String: ScoreSummary] = [:]
            while let row = try rows.next() {
                guard let points: Double = row["points"], let max: Double = row["max"], let pending: Double = row["pending"] else {
                    continue
                }
                out[row["session_id"]] = ScoreSummary(points: points, max: max, pending: pending)
            }
            return out
        }
    }

    /// SQLite's own view of the settings, for tests and `status`.
    public func pragmas() throws -> (journalMode: String, synchronous: Int) {
        try writer.read { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
            let sync = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return (mode, sync)
        }
    }
}

/// An assessment as the journal keeps it: the bytes that were read (YAML, or a sealed
/// package that stays sealed at rest), and where they came from.
public struct StoredAssessment: Sendable, Equatable {
    public enum Format: String, Sendable {
        case yaml
        case sealed
    }

    public var bytes: Data
    public var path: String
    public var format: Format

    public init(bytes: Data, path: String, format: Format = .yaml) {
        self.bytes = bytes
        self.path = path
        self.format = format
    }
}

// MARK: records

struct AssessmentRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "assessment"
    var fingerprint: String
    var assessmentID: String
    var title: String
    var path: String
    var format: String
    var source: Data

    enum CodingKeys: String, CodingKey {
        case fingerprint, title, path, format, source
        case assessmentID = "assessment_id"
    }
}

struct StoredSessionRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "session"
    var id: String
    var fingerprint: String
    var assessmentID: String
    var assessmentTitle: String
    var candidate: String?
    var status: String
    var endReason: String?
    var seed: Int64
    var extraTime: String
    var options: String
    var startedAt: Date
    var endedAt: Date?
    var interruptions: Int
    var pid: Int64
    var host: String
    var tty: String?

    enum CodingKeys: String, CodingKey {
        case id, fingerprint, candidate, status, seed, options, interruptions, pid, host, tty
        case assessmentID = "assessment_id"
        case assessmentTitle = "assessment_title"
        case endReason = "end_reason"
        case extraTime = "extra_time"
        case startedAt = "started_at"
        case endedAt = "ended_at"
    }

    init(_ r: SessionRecord) throws {
        id = r.id
        fingerprint = r.fingerprint
        assessmentID = r.assessmentID
        assessmentTitle = r.assessmentTitle
        candidate = r.candidate
        status = r.status.rawValue
        endReason = r.endReason?.rawValue
        seed = Int64(bitPattern: r.seed)
        extraTime = String(decoding: try JSONEncoder().encode(r.extraTime), as: UTF8.self)
        options = String(decoding: try JSONEncoder().encode(r.options), as: UTF8.self)
        startedAt = r.startedAt
        endedAt = r.endedAt
        interruptions = r.interruptions
        pid = Int64(r.pid)
        host = r.host
        tty = r.tty
    }

    func record(path: String, position: Int, elapsed: Double) throws -> SessionRecord {
        guard let status = SessionStatus(rawValue: status) else {
            throw JournalCorruption(what: "session \(id) has an unknown status \(self.status)")
        }
        let reason: EndReason?
        if let endReason {
            guard let r = EndReason(rawValue: endReason) else {
                throw JournalCorruption(what: "session \(id) has an unknown end reason \(endReason)")
            }
            reason = r
        } else {
            reason = nil
        }
        let extra: ExtraTime
        let launch: SessionOptions
        do {
            extra = try JSONDecoder().decode(ExtraTime.self, from: Data(extraTime.utf8))
        } catch {
            throw JournalCorruption(what: "session \(id) has an unreadable extra time \(extraTime)")
        }
        do {
            launch = try JSONDecoder().decode(SessionOptions.self, from: Data(options.utf8))
        } catch {
            throw JournalCorruption(what: "session \(id) has unreadable launch options")
        }
        return SessionRecord(
            id: id, assessmentID: assessmentID, assessmentTitle: assessmentTitle, fingerprint: fingerprint,
            assessmentPath: path, candidate: candidate, status: status, endReason: reason,
            seed: UInt64(bitPattern: seed), extraTime: extra, options: launch, position: position, elapsed: elapsed,
            startedAt: startedAt, endedAt: endedAt, interruptions: interruptions, pid: Int32(truncatingIfNeeded: pid),
            host: host, tty: tty)
    }
}

struct ProgressRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "progress"
    var sessionID: String
    var position: Int
    var elapsed: Double
    enum CodingKeys: String, CodingKey {
        case position, elapsed
        case sessionID = "session_id"
    }
}

struct AnswerRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "answer"
    var sessionID: String
    var itemID: String
    var response: String?
    var updatedAt: Date
    enum CodingKeys: String, CodingKey {
        case response
        case sessionID = "session_id"
        case itemID = "item_id"
        case updatedAt = "updated_at"
    }
}

struct AnswerHistoryRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "answer_history"
    var sessionID: String
    var itemID: String
    var response: String?
    var at: Date
    enum CodingKeys: String, CodingKey {
        case response, at
        case sessionID = "session_id"
        case itemID = "item_id"
    }
}

struct FlagRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "flag"
    var sessionID: String
    var itemID: String
    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case itemID = "item_id"
    }
}

struct EventRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "event"
    var sessionID: String
    var at: Date
    var kind: String
    var detail: String
    enum CodingKeys: String, CodingKey {
        case at, kind, detail
        case sessionID = "session_id"
    }
}

/// One result as the journal holds it for a gradebook (see `Journal.gradebookRows`).
public struct StoredGradebookRow: Sendable {
    public var session: String
    public var heading: String?
    public var items: String?
    public var csv: String?
    /// The whole document, only when there is no digest.
    public var json: String?
}

struct ResultRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "result"
    var sessionID: String
    var heading: String?
    var items: String?
    var csv: String?
    var cells: String?
    var json: String
    enum CodingKeys: String, CodingKey {
        case heading, items, csv, cells, json
        case sessionID = "session_id"
    }

    init(sessionID: String, json: String, digest: ResultDigest) throws {
        self.sessionID = sessionID
        self.json = json
        (heading, items, cells, csv) = try digest.columns()
    }
}

/// A moment as the journal stores it: "yyyy-MM-dd HH:mm:ss.SSS" in UTC, the text GRDB writes
/// for a `Date`, made without a date formatter (which took a tenth of an answer's time).
/// Milliseconds are rounded to the nearest, as the formatter does.
enum JournalTime {
    static func text(_ date: Date) -> String {
        // As the formatter counts: milliseconds since 1970, from the seconds since 2001.
        let millis = ((date.timeIntervalSinceReferenceDate + 978_307_200) * 1000).rounded()
        guard millis.isFinite, abs(millis) < 2.5e14 else { return String.fromDatabaseValue(date.databaseValue) ?? "" }
        let total = Int64(millis)
        let ms = ((total % 1000) + 1000) % 1000
        var seconds = time_t((total - ms) / 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil, parts.tm_year + 1900 >= 1, parts.tm_year + 1900 <= 9999 else {
            return String.fromDatabaseValue(date.databaseValue) ?? ""
        }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = Int(parts.tm_year) + 1900
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        let msText = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(msText)"
    }
}
