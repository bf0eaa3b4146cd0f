import AssessmentKit
import Foundation
import GRDB

extension Journal {
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
