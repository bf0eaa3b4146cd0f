import AssessmentKit
import Foundation
import GRDB

/// A session copied from a lab's shared store into a journal that is only read (`results
/// --shared`): its record, and the events and result its seat published. No assessment source
/// and no answers come with it.
public struct CopiedSession: Sendable {
    public var record: SessionRecord
    public var events: [JournalEvent]
    /// The result document (JSON) and its digest for gradebooks, as `JournalWrite.result` has them.
    public var result: (json: String, digest: ResultDigest)?

    public init(record: SessionRecord, events: [JournalEvent], result: (json: String, digest: ResultDigest)?) {
        self.record = record
        self.events = events
        self.result = result
    }
}

extension Journal {
    /// Writes sessions copied from a shared store, each in a savepoint of its own: one that
    /// cannot be written is left out whole and the others stay. Returns the ids of those left
    /// out, in order. A session's assessment is recorded once per fingerprint, with no source:
    /// its path (the record's `assessmentPath`) says where the copy came from.
    public func importCopies(_ copies: [CopiedSession]) throws -> [String] {
        try writer.write { db in
            var failed: [String] = []
            for copy in copies {
                do {
                    try db.inSavepoint {
                        try Self.insert(copy, db)
                        return .commit
                    }
                } catch {
                    failed.append(copy.record.id)
                }
            }
            return failed
        }
    }

    static func insert(_ copy: CopiedSession, _ db: Database) throws {
        let record = copy.record
        try db.execute(sql: """
            INSERT OR IGNORE INTO assessment (fingerprint, assessment_id, title, path, format, source)
              VALUES (?, ?, ?, ?, 'yaml', x'')
            """, arguments: [record.fingerprint, record.assessmentID, record.assessmentTitle, record.assessmentPath])
        try StoredSessionRow(record).insert(db)
        try ProgressRow(sessionID: record.id, position: record.position, elapsed: record.elapsed).insert(db)
        for event in copy.events {
            try EventRow(sessionID: record.id, at: event.at, kind: event.kind, detail: event.detail).insert(db)
        }
        if let result = copy.result {
            try ResultRow(sessionID: record.id, json: result.json, digest: result.digest).insert(db)
        }
    }

    /// Folds the write-ahead log into the database and cuts the log back to nothing (the
    /// journal benchmark measures each step's log from empty).
    public func checkpoint() throws {
        try writer.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
    }
}
