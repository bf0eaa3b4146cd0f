import Foundation
import GRDB

// MARK: schema and migrations

extension Journal {
    /// Every schema version, oldest first; a journal is migrated up to the newest when opened.
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1", migrate: migrateV1)
        m.registerMigration("v2", migrate: migrateV2)
        m.registerMigration("v3", migrate: migrateV3)
        m.registerMigration("v4", migrate: migrateV4)
        m.registerMigration("v5", migrate: migrateV5)
        m.registerMigration("v6", migrate: migrateV6)
        m.registerMigration("v7", migrate: migrateV7)
        return m
    }

    /// v1: sessions with their assessment text, answers and their history, flags and events.
    static func migrateV1(_ db: Database) throws {
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

    /// v2: the assessment text is stored once, apart from the session; position and time
    /// used live in a small progress row, so a Tab or a time save writes a few bytes
    /// whatever the size of the assessment; results have their own table.
    static func migrateV2(_ db: Database) throws {
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

    /// v3: marks people give after a session; every mark stays, the newest one counts.
    static func migrateV3(_ db: Database) throws {
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

    /// v4: each result's digest (`ResultDigest`), what a gradebook reads, ahead of the
    /// document in the same row: SQLite reaches a column by walking the pages of those
    /// before it, so a digest after a megabyte of JSON would cost reading the JSON. One row
    /// and one key per result keep a small disk's journal as small as before. Results
    /// recorded before it have no digest and are read whole.
    static func migrateV4(_ db: Database) throws {
        try db.create(table: "result_v4") { t in
            t.primaryKey("session_id", .text).references("session", onDelete: .cascade)
            t.column("heading", .text)
            t.column("items", .text)
            t.column("csv", .text)
            t.column("cells", .text)
            t.column("json", .text).notNull()
        }
        try replace("result", with: "result_v4", copying: "session_id, json", in: db)
    }

    /// v5: an answer touches as few pages as it can, since every page is written to the log
    /// and waited for: the latest answers live in their key's own b-tree (no separate
    /// index), and the history is a plain rowid table with no index and no AUTOINCREMENT
    /// counter (its rows are never deleted one by one, so ids still only grow; the history
    /// of one session, read for its integrity report, is found by a scan).
    static func migrateV5(_ db: Database) throws {
        try db.create(table: "answer_v5", options: .withoutRowID) { t in
            t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
            t.column("item_id", .text).notNull()
            t.column("response", .text)
            t.column("updated_at", .datetime).notNull()
            t.primaryKey(["session_id", "item_id"])
        }
        try replace("answer", with: "answer_v5", copying: "session_id, item_id, response, updated_at", in: db)
        try db.create(table: "answer_history_v5") { t in
            t.primaryKey("id", .integer)
            t.column("session_id", .text).notNull().references("session", onDelete: .cascade)
            t.column("item_id", .text).notNull()
            t.column("response", .text)
            t.column("at", .datetime).notNull()
        }
        try replace("answer_history", with: "answer_history_v5", copying: "id, session_id, item_id, response, at", in: db)
    }

    /// Puts `built` (a table the migration just made) in the place of `table`, with the rows
    /// of `table` in `columns` (a fixed list of this file's own column names).
    static func replace(_ table: String, with built: String, copying columns: String, in db: Database) throws {
        try db.execute(sql: "INSERT INTO \(built) (\(columns)) SELECT \(columns) FROM \(table)")
        try db.drop(table: table)
        try db.rename(table: built, to: table)
    }

    /// v6: sessions that publish to a lab's shared store, and the outbox their records wait
    /// in until the store has them. The outbox's rowid is each record's sequence number:
    /// rows are deleted once published, except the newest, so numbers only ever grow.
    static func migrateV6(_ db: Database) throws {
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

    /// v7: a session's records form a chain. Each record the session publishes (its time
    /// saves aside, which a later one replaces) takes the next number of its session
    /// (`publication.links`, `outbox.link`); the seat's MAC covers it, so the proctor's check
    /// finds a record the store lost or withheld, and a record from elsewhere is in no place
    /// of the chain.
    static func migrateV7(_ db: Database) throws {
        try db.alter(table: "publication") { t in t.add(column: "links", .integer).notNull().defaults(to: 0) }
        try db.alter(table: "outbox") { t in t.add(column: "link", .integer) }
    }
}
