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

/// A journal that cannot be read here, and what to do.
public struct JournalUnreadable: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
    public init(reason: String) { self.reason = reason }
}

/// The SQLite journal, the only place answers live: WAL, `synchronous=FULL`, one
/// transaction per session message. The database connection is injected (a file opened by
/// the state storage, or an in-memory queue in tests).
public final class Journal: Sendable {
    /// Only `Journal`'s own methods write the journal's tables (and the tests, through
    /// `@testable`): every other module goes through them.
    let writer: any DatabaseWriter

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

    /// Opens a journal to read only (`readOnlyConfiguration`): it is never migrated, so one
    /// written by an older Carrel is refused with what to do.
    public init(reading writer: any DatabaseWriter) throws {
        self.writer = writer
        let migrator = Self.migrator
        guard try writer.read({ try migrator.hasCompletedMigrations($0) }) else {
            throw JournalUnreadable(reason: "it was written by an older Carrel and cannot be updated here (the state directory cannot be written); copy the state directory somewhere writable and run the command there")
        }
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

    /// A connection that reads only: SQLite opens the file read-only and sets nothing.
    public static func readOnlyConfiguration() -> Configuration {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        return config
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

    /// True for a journal opened to read only (`init(reading:)` over a read-only connection).
    public var isReadOnly: Bool { writer.configuration.readonly }

    /// Rung after every commit that added to the outbox (the publisher waits on it).
    public let outboxBell = Doorbell()

    /// Whether each session seen by this journal publishes. A session publishes or not from
    /// its creation on, so the answer is looked up once per session: a lookup on every
    /// commit cost a fifth of the durable answers per second.
    let publishing = PublishingCache()
}
