import AssessmentKit
import Foundation
import GRDB

extension Journal {
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

    static func decode(_ text: String?, item: String, session: String) throws -> Response? {
        guard let text else { return nil }
        do {
            return try JSONDecoder().decode(Response.self, from: Data(text.utf8))
        } catch {
            throw JournalCorruption(what: "session \(session): the saved answer to \(item) cannot be read")
        }
    }
}
