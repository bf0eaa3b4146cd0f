import AssessmentKit
import Foundation
import PostgresNIO
import SessionKit

/// A finished session's result as the console reads it, before it is scored.
public enum FinishedResult: Sendable, Equatable {
    /// The result its own seat wrote, as the proctor's key checks its records.
    case verified(ResultDocument)
    /// The store's copy, for a session nothing can check (no passphrase given, a room without a
    /// proctor key, a session begun without the console's start): the console says so.
    case unchecked(ResultDocument)
    /// The proctor's key finds no result its seat wrote (a record that fails its check, a hole
    /// in the chain, or no result record yet).
    case notVerified
    /// The store has no result for it (yet), or none that can be read.
    case missing

    /// A result read is its seat's last word (a seat sends a new one only after taking a mark,
    /// and marks are read apart); a result missing or not verified may still arrive (its
    /// records are on their way).
    public var settled: Bool {
        switch self {
        case .verified, .unchecked: return true
        case .notVerified, .missing: return false
        }
    }
}

extension SharedReader {
    /// The results of these finished sessions, for the console's scores. With `keys`, each
    /// session the proctor's start gave a key is read from its seat's own records, and has a
    /// result only when they verify; a session nothing can check (and every session without
    /// `keys`) has the store's copy, which the console shows as unverified.
    public func finishedResults(_ sessions: [(id: String, room: String)], keys: RoomKeys?) async throws -> [String: FinishedResult] {
        guard !sessions.isEmpty else { return [:] }
        var out: [String: FinishedResult] = [:]
        var unchecked: [String] = []
        if let keys {
            let found = try await sessionChecks(sessions, keys: keys)
            for (id, _) in sessions {
                guard let entry = found[id], let genuine = entry.genuine else {
                    unchecked.append(id)
                    continue
                }
                if entry.check.verified, let json = genuine.result, let document = Self.document(json, session: id) {
                    out[id] = .verified(document)
                } else {
                    out[id] = .notVerified
                }
            }
        } else {
            unchecked = sessions.map(\.id)
        }
        guard !unchecked.isEmpty else { return out }
        let connection = self.connection
        let logger = self.logger
        let ids = unchecked
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            SELECT session, json FROM carrel_results WHERE session = ANY(\(ids)::text[])
            """, logger: logger) }
        for id in unchecked { out[id] = FinishedResult.missing }
        for row in rows {
            guard let cells = StoreRows.texts(row), cells.count == 2, let id = cells[0], let json = cells[1],
                  out[id] == FinishedResult.missing else { continue }
            if let document = Self.document(json, session: id) { out[id] = .unchecked(document) }
        }
        return out
    }

    /// A result read by the one strict parser, and only when it is the session's own; nil
    /// otherwise: a result that does not read, or names another session, is no result to score
    /// (the console then shows none, and `results` names it).
    static func document(_ json: String, session: String) -> ResultDocument? {
        do throws(StrictJSON.Problem) {
            let document = try ResultDocument.read(json)
            return document.session == session ? document : nil
        } catch {
            return nil
        }
    }

    /// The marks the proctor gave in the store to these sessions, oldest first.
    public func storeMarks(sessions: [String]) async throws -> [StoreMark] {
        try await marks(sessions: sessions)
    }
}

extension SeatScore {
    /// A finished session's score from its result: a result its seat scored is scored as it is;
    /// one whose seat had no answer key is scored with `scoring` (the sealed test the proctor's
    /// passphrase opened) or is not scored yet. The proctor's marks in the store follow, as
    /// `results --shared` applies them; a mark never scores a result that has no score.
    public static func of(_ found: FinishedResult, marks: [StoreMark], scoring: ResultScoring?) -> SeatScore? {
        var document: ResultDocument
        switch found {
        case let .verified(d), let .unchecked(d): document = d
        case .notVerified: return .unverified
        case .missing: return nil
        }
        if document.unscored == true {
            guard let scored = scoring?(document), scored.unscored != true else { return .notScored }
            document = scored
        }
        for mark in marks where mark.session == document.session {
            // A mark the seat's result carries already (it took it from the store), or one
            // older than the mark it carries, is not given again (its time is kept to the second).
            if let item = document.items.first(where: { $0.id == mark.item }), let carried = item.mark,
               let at = Timestamp.date(carried.at), at.timeIntervalSince(mark.at) > -1 { continue }
            // A mark that does not fit this result (an item it lacks, points over the item's
            // worth) changes nothing here: `results mark` refuses such a mark when it is given.
            guard let marked = try? document.marking(mark.item, points: mark.points, comment: mark.comment, at: mark.at) else { continue }
            document = marked.result
        }
        return .scored(points: document.score.points, max: document.score.max, pending: document.score.pending)
    }
}
