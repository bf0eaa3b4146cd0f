import AssessmentKit
import Foundation
import GRDB

/// Why a mark was not recorded; when one is thrown, nothing was written.
public enum MarkRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownSession(String)
    /// Only an ended session has a score to mark.
    case notFinished(session: String, status: String)
    case noResult(session: String)
    case unknownItem(String, known: [String])
    case pointsOutOfRange(item: String, max: Double)
    /// A pool left the item out of the session: there is nothing to mark.
    case notDrawn(item: String)
    /// The session's seat had no answer key: its result has no points to mark against yet.
    case unscored(session: String)

    /// Items named in a message, so a long test still gives one readable line.
    static let itemsNamed = 12

    public var description: String {
        switch self {
        case let .unknownSession(id):
            return "no session \(id) in the journal"
        case let .notFinished(id, status):
            return "session \(id) has not ended (it is \(status)); mark it once it has a result"
        case let .noResult(id):
            return "session \(id) ended without a result, so there is nothing to mark"
        case let .unknownItem(item, known):
            let named = known.prefix(Self.itemsNamed).joined(separator: ", ")
            let more = known.count > Self.itemsNamed ? " … (\(known.count) in all)" : ""
            return "no item \(item); its items are \(named)\(more)"
        case let .notDrawn(item):
            return "\(item) was not drawn for this session (its pool gave the student other items), so there is nothing to mark"
        case let .unscored(id):
            return "session \(id) ran without the answer key, so its result has no score to mark yet; mark it in the lab's store with its sealed test (`results mark … --shared URL --passphrase-stdin --test FILE.carrel`), where the proctor's passphrase scores it"
        case let .pointsOutOfRange(item, max):
            return "\(item) takes a mark from 0 to \(PointsText.format(max)) point\(max == 1 ? "" : "s")"
        }
    }
}

/// One mark as the journal keeps it: every mark stays, the newest of an item counts.
public struct JournalMark: Sendable, Equatable {
    public var item: String
    public var points: Double
    public var comment: String?
    public var at: Date
}

extension ResultDocument {
    /// This result with a person's mark on `item`: the item's points and outcome follow the
    /// mark (replacing an earlier mark or the automatic score), the totals are added up again
    /// from the items, and a `marked` event says what changed. Returns the event's detail too.
    public func marking(_ item: String, points: Double, comment: String?,
                        at: Date) throws(MarkRefusal) -> (result: ResultDocument, detail: String) {
        guard let index = items.firstIndex(where: { $0.id == item }) else {
            throw .unknownItem(item, known: items.map(\.id))
        }
        let before = items[index]
        guard before.outcome != .notDrawn else { throw .notDrawn(item: item) }
        guard unscored != true else { throw .unscored(session: session) }
        guard points.isFinite, points >= 0, points <= before.max else {
            throw .pointsOutOfRange(item: item, max: before.max)
        }
        let score = Scoring.marked(points, max: before.max)
        var copy = self
        copy.items[index].points = score.points
        copy.items[index].outcome = score.outcome
        copy.items[index].mark = Mark(points: score.points, comment: comment, at: Timestamp.iso(at))
        copy.score = Scoring.summary(copy.items.map { ItemScore(points: $0.points, max: $0.max, outcome: $0.outcome) })
        let was = before.outcome == .pending ? "pending" : "\(PointsText.format(before.points)) \(before.outcome.rawValue)"
        var detail = "\(item): \(PointsText.format(score.points)) of \(PointsText.format(before.max)), was \(was)"
        if let comment { detail += " — \"\(comment)\"" }
        copy.events.append(Event(at: Timestamp.iso(at), kind: EventKind.marked.rawValue, detail: detail))
        return (copy, detail)
    }
}

extension Journal {
    /// Records a person's mark for one item of an ended session in one transaction: the mark,
    /// a `marked` event and the rewritten result. The result file is rewritten (atomically,
    /// by `storage`) before the transaction commits, so a file that cannot be written leaves
    /// nothing recorded, and two marks at once are written one after the other.
    /// Whether the journal has a mark of this item given at this moment (to the millisecond):
    /// a mark taken from the lab's store is recorded once.
    public func hasMark(session: String, item: String, at: Date) throws -> Bool {
        try writer.read { db in
            try MarkRow.filter(Column("session_id") == session && Column("item_id") == item).fetchAll(db)
                .contains { abs($0.at.timeIntervalSince(at)) < 0.001 }
        }
    }

    public func recordMark(session: String, item: String, points: Double, comment: String?, at: Date,
                           storage: any StateStorage) throws -> ResultDocument {
        // The file as it was, once the new one has been written and until the commit.
        var replaced: Data?
        do {
            return try writer.writeWithoutTransaction { db in
                var marked: ResultDocument?
                // IMMEDIATE: the result read here cannot change before this transaction writes it.
                try db.inTransaction(.immediate) {
                    let (old, oldJSON) = try Self.endedResult(session, db)
                    let (new, detail) = try old.marking(item, points: points, comment: comment, at: at)
                    let data = try new.json()
                    try ResultRow(sessionID: session, json: String(decoding: data, as: UTF8.self), digest: ResultDigest(new)).upsert(db)
                    try MarkRow(sessionID: session, itemID: item, points: points, comment: comment, at: at).insert(db)
                    try EventRow(sessionID: session, at: at, kind: EventKind.marked.rawValue, detail: detail).insert(db)
                    // A session that publishes sends the new result to the shared store too,
                    // the next time a publisher runs on this journal.
                    if try Outbox.isPublished(session, db) {
                        for write: JournalWrite in [.event(.marked, detail, at: at),
                                                    .result(json: String(decoding: data, as: UTF8.self), digest: ResultDigest(new))] {
                            if let (kind, body) = try Outbox.body(of: write) { try Outbox.add(body, kind: kind, session: session, at: at, db) }
                        }
                    }
                    _ = try storage.writeResult(data + Data("\n".utf8), session: session)
                    replaced = Data(oldJSON.utf8) + Data("\n".utf8)
                    marked = new
                    return .commit
                }
                guard let marked else { throw JournalCorruption(what: "the mark of session \(session) was not kept") }
                return marked
            }
        } catch {
            if let replaced {
                // The commit failed after the new file was written: the journal's result goes
                // back into the file. Should that fail too, the error below still says the mark
                // was not recorded, and marking again rewrites the file from the journal.
                _ = try? storage.writeResult(replaced, session: session)
            }
            throw error
        }
    }

    /// The result of an ended session, and its JSON as the journal holds it.
    static func endedResult(_ session: String, _ db: Database) throws -> (ResultDocument, String) {
        guard let status = try String.fetchOne(db, sql: "SELECT status FROM session WHERE id = ?", arguments: [session]) else {
            throw MarkRefusal.unknownSession(session)
        }
        guard status == SessionStatus.ended.rawValue else { throw MarkRefusal.notFinished(session: session, status: status) }
        guard let json = try ResultRow.fetchOne(db, key: session)?.json else { throw MarkRefusal.noResult(session: session) }
        do {
            return (try JSONDecoder().decode(ResultDocument.self, from: Data(json.utf8)), json)
        } catch {
            throw JournalCorruption(what: "the result of session \(session) cannot be read (\(error))")
        }
    }

    /// Every mark given in a session, oldest first.
    public func marks(session: String) throws -> [JournalMark] {
        try writer.read { db in
            try MarkRow.filter(Column("session_id") == session).order(Column("id")).fetchAll(db)
                .map { JournalMark(item: $0.itemID, points: $0.points, comment: $0.comment, at: $0.at) }
        }
    }
}

struct MarkRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "mark"
    var sessionID: String
    var itemID: String
    var points: Double
    var comment: String?
    var at: Date
    enum CodingKeys: String, CodingKey {
        case points, comment, at
        case sessionID = "session_id"
        case itemID = "item_id"
    }
}
