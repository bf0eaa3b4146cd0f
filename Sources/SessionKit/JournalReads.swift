import AssessmentKit
import Foundation
import GRDB

extension Journal {
    public func session(_ id: String) throws -> SessionRecord? {
        try writer.read { db in try Self.records(db, sql: "WHERE s.id = ?", [id]).first }
    }

    /// Sessions with one of these statuses (all when nil), oldest first. A session the journal
    /// cannot give back as written is an error naming it (`sessionReport` reads the rest).
    public func sessions(status: [SessionStatus]?) throws -> [SessionRecord] {
        let report = try sessionReport(status: status)
        if let damage = report.damaged.first { throw damage }
        return report.sessions
    }

    static func records(_ db: Database, sql: String, _ arguments: [String]) throws -> [SessionRecord] {
        try sessionRows(db, sql: sql, arguments).map { row throws(JournalCorruption) in try StoredSessionRow.record(row) }
    }

    /// Sessions with one of these statuses (all when nil), oldest first, apart from those the
    /// journal cannot give back as written: each of those is named with what is wrong, and
    /// every other session is still read.
    public func sessionReport(status: [SessionStatus]?) throws -> (sessions: [SessionRecord], damaged: [JournalCorruption]) {
        try writer.read { db in
            var sql = "ORDER BY s.started_at, s.id"
            if let status { sql = "WHERE s.status IN (\(status.map { _ in "?" }.joined(separator: ", "))) " + sql }
            var out: (sessions: [SessionRecord], damaged: [JournalCorruption]) = ([], [])
            for row in try Self.sessionRows(db, sql: sql, status?.map(\.rawValue) ?? []) {
                do throws(JournalCorruption) {
                    out.sessions.append(try StoredSessionRow.record(row))
                } catch {
                    out.damaged.append(error)
                }
            }
            return out
        }
    }

    static func sessionRows(_ db: Database, sql: String, _ arguments: [String]) throws -> [Row] {
        try Row.fetchAll(db, sql: """
            SELECT s.*, a.path AS assessment_path, p.position AS position, p.elapsed AS elapsed
            FROM session s LEFT JOIN assessment a ON a.fingerprint = s.fingerprint
            LEFT JOIN progress p ON p.session_id = s.id \(sql)
            """, arguments: StatementArguments(arguments))
    }

    /// The assessment a session was launched with, exactly as it was read.
    public func storedAssessment(fingerprint: String) throws -> StoredAssessment {
        try writer.read { db in
            let found = try Self.checked("the assessment \(fingerprint)", "a column") { try AssessmentRow.fetchOne(db, key: fingerprint) }
            guard let row = found else {
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
            let rows = try Self.checked("session \(session)", "a saved answer") {
                try AnswerRow.filter(Column("session_id") == session).fetchAll(db)
            }
            for row in rows {
                if let r = try Self.decode(row.response, item: row.itemID, session: session) { out[row.itemID] = r }
            }
            return out
        }
    }

    /// Every saved version of every answer, oldest first.
    public func history(session: String) throws -> [(item: String, response: Response?, at: Date)] {
        try writer.read { db in
            try Self.checked("session \(session)", "the history of its answers") {
                try AnswerHistoryRow.filter(Column("session_id") == session).order(Column("id")).fetchAll(db)
            }.map {
                ($0.itemID, try Self.decode($0.response, item: $0.itemID, session: session), $0.at)
            }
        }
    }

    public func flags(session: String) throws -> Set<String> {
        try writer.read { db in
            Set(try Self.checked("session \(session)", "a flag") {
                try FlagRow.filter(Column("session_id") == session).fetchAll(db)
            }.map(\.itemID))
        }
    }

    public func events(session: String) throws -> [JournalEvent] {
        try writer.read { db in
            try Self.checked("session \(session)", "an event") {
                try EventRow.filter(Column("session_id") == session).order(Column("id")).fetchAll(db)
            }.map { JournalEvent(at: $0.at, kind: $0.kind, detail: $0.detail) }
        }
    }

    public func result(session: String) throws -> String? {
        try writer.read { db in try Self.checked("session \(session)", "the result") { try ResultRow.fetchOne(db, key: session)?.json } }
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
                let fields = JournalFields(row: row, owner: "the result of session \(session)")
                rows.append(StoredGradebookRow(session: session, heading: try fields.optionalText("heading"),
                                               items: try fields.optionalText("items"), csv: try fields.optionalText("csv"),
                                               json: try fields.optionalText("json")))
            }
            return rows
        }
    }

    /// The stored spreadsheet-safe cells of one result (a JSON list), for a gradebook whose
    /// columns differ from the result's own items.
    public func gradebookCells(session: String) throws -> String? {
        try writer.read { db in
            try Self.checked("the result of session \(session)", "cells") {
                try String.fetchOne(db, sql: "SELECT cells FROM result WHERE session_id = ?", arguments: [session])
            }
        }
    }

    /// Every result's score, read by SQLite from the stored heading (or the whole JSON of an
    /// older result) without decoding the items: `results list` of a thousand 5 000-item
    /// results reads a few numbers each. A result whose score cannot be read is left out (its
    /// session shows no score, as one without a result), a document that is not JSON included;
    /// so is a result not scored yet (its seat had no answer key), rather than shown as 0 of 0.
    public func scores() throws -> [String: ScoreSummary] {
        try writer.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT session_id, json_extract(document, '$.score.points') AS points,
                       json_extract(document, '$.score.max') AS max, json_extract(document, '$.score.pending') AS pending
                FROM (SELECT session_id, COALESCE(heading, json) AS document FROM result) WHERE json_valid(document)
                  AND coalesce(json_extract(document, '$.unscored'), 0) = 0
                """)
            var out: [String: ScoreSummary] = [:]
            while let row = try rows.next() {
                let fields = JournalFields(row: row, owner: "a result")
                let any = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
                guard let session = try? fields.text("session_id"), let points = try? fields.number("points", in: any),
                      let max = try? fields.number("max", in: any), let pending = try? fields.number("pending", in: any) else {
                    // Left out, as documented above: the session is listed without a score.
                    continue
                }
                out[session] = ScoreSummary(points: points, max: max, pending: pending)
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
