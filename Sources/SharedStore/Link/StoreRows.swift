import AssessmentKit
import Foundation
import PostgresNIO
import SessionKit

/// Rows of the shared store read defensively. A seat's role can add any record, so every value
/// the store holds is data to check: each is selected as text, parsed here (numbers, times),
/// and a row whose value Carrel cannot use is named with its reason, never dropped in silence
/// and never the end of the whole read.
enum StoreRows {
    /// A row's cells as text (NULL as nil); nil when a cell is not text (which every query
    /// here asks for, so this is a damaged or unexpected reply).
    static func texts(_ row: PostgresRow) -> [String?]? {
        var out: [String?] = []
        for cell in row {
            do {
                out.append(try cell.decode(String?.self))
            } catch {
                return nil
            }
        }
        return out
    }

    /// The longest session id kept (a seat's are UUIDs; a made-up one may be anything).
    static let longestSession = 200

    /// A time as `extract(epoch FROM …)::text` gives it, within the years a journal keeps.
    /// Signed commands as `json_agg(json_build_array(id, envelope, signature))` gives them;
    /// anything else is none.
    static func signedCommands(_ text: String?) -> [SignedCommand] {
        guard let text, let rows = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[Any]] else { return [] }
        return rows.compactMap { row in
            guard row.count == 3, let id = (row[0] as? NSNumber)?.int64Value else { return nil }
            return SignedCommand(id: id, envelope: row[1] as? String, signature: row[2] as? String)
        }
    }

    static func date(_ text: String?) -> Date? {
        guard let text, let seconds = Double(text), seconds.isFinite else { return nil }
        let date = Date(timeIntervalSince1970: seconds)
        return Timestamp.readable.contains(date) ? date : nil
    }

    /// A whole number within `range`.
    static func int(_ text: String?, _ range: ClosedRange<Int>) -> Int? {
        guard let text, let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    /// A finite number.
    static func number(_ text: String?) -> Double? {
        guard let text, let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// One session row, as `journalCopy` selects it: the record its journal copy holds, read
    /// from cells a seat's role may have written. A shape of its own only for what no journal
    /// keeps: whether the seat holds a connection to the store now.
    struct Session: Sendable {
        var record: SessionRecord
        var connected: Bool
        /// The status and end reason as the store holds them (a refusal, or a word a later
        /// Carrel writes, that the record's own status cannot say).
        var storeStatus: String
        var storeEndReason: String?

        var session: String { record.id }
        /// The room the store's row names (kept in the record's label, which `init` always sets).
        var room: String { record.options.shared?.room ?? "" }

        static let statuses: Set<SessionStatus> = [.active, .review, .ending, .ended, .interrupted, .abandoned]

        /// The assessment path of every copied session: the store keeps no assessment source.
        static let copiedPath = "(shared store)"

        /// The columns `journalCopy` selects, in order.
        static let columns = """
            s.session, s.candidate, s.room, s.seat, s.assessment_id, s.assessment_title, s.fingerprint, s.status,
            s.end_reason, extract(epoch FROM s.started_at)::text, extract(epoch FROM s.ended_at)::text,
            s.saved_elapsed_seconds::text, s.interruptions::text, s.pid::text, s.host, \(SharedReader.holdsLock)::text,
            s.time_allowed_seconds::text, s.candidate_number
            """

        /// Reads the cells, or throws why the session cannot be shown.
        init(_ c: [String?]) throws(Unreadable) {
            guard c.count == 18 else { throw Unreadable("its row has \(c.count) columns, not 18") }
            guard let session = c[0], !session.isEmpty else { throw Unreadable("it has no session id") }
            guard session.count <= StoreRows.longestSession else {
                throw Unreadable("its id is longer than \(StoreRows.longestSession) characters")
            }
            guard let room = c[2], let seat = c[3], let assessmentID = c[4], let title = c[5], let fingerprint = c[6] else {
                throw Unreadable("its room, seat or assessment is missing")
            }
            // A status this record cannot hold (a refused attempt, or one a later Carrel writes) is
            // kept as the store says it, and the session shown as over: never a reason to leave it out.
            guard let storeStatus = c[7], !storeStatus.isEmpty, storeStatus.count <= 64 else {
                throw Unreadable("it has no status")
            }
            let known = SessionStatus(rawValue: storeStatus).flatMap { Self.statuses.contains($0) ? $0 : nil }
            let status = known ?? .abandoned
            self.storeStatus = storeStatus
            storeEndReason = c[8].map { String($0.prefix(64)) }
            guard let startedAt = StoreRows.date(c[9]) else { throw Unreadable("its start time is out of range") }
            let endedAt = StoreRows.date(c[10])
            if c[10] != nil && endedAt == nil { throw Unreadable("its end time is out of range") }
            guard let elapsed = StoreRows.number(c[11]) else { throw Unreadable("its time used is not a number") }
            guard let interruptions = StoreRows.int(c[12], 0...1_000_000) else { throw Unreadable("its count of interruptions is out of range") }
            var pid: Int32 = 0
            if let text = c[13] {
                guard let value = StoreRows.int(text, 0...Int(Int32.max)) else { throw Unreadable("its process id is out of range") }
                pid = Int32(clamping: value)
            }
            // An end reason the journal does not know is no reason (the status still says it ended).
            record = SessionRecord(
                id: session, assessmentID: assessmentID, assessmentTitle: title, fingerprint: fingerprint,
                assessmentPath: Self.copiedPath, candidate: c[1], status: status, endReason: c[8].flatMap(EndReason.init(rawValue:)),
                seed: 0, extraTime: .none, options: SessionOptions(shared: Self.label(room: room, seat: seat, c[16], c[17])),
                elapsed: Double(SharedReader.whole(elapsed)), startedAt: startedAt, endedAt: endedAt,
                interruptions: interruptions, pid: pid, host: c[14] ?? "", tty: nil)
            connected = c[15] == "true"
        }

        /// The room and seat, with the time allowed and roster number the store keeps.
        static func label(room: String, seat: String, _ allowed: String?, _ number: String?) -> SharedLabel {
            var label = SharedLabel(room: room, seat: seat)
            label.timeAllowed = StoreRows.number(allowed).flatMap { $0 >= 0 && $0 <= 1e7 ? Int($0.rounded()) : nil }
            label.candidateNumber = number.map { String($0.prefix(64)) }
            return label
        }

        /// Interrupted, or running while its seat holds no connection.
        var waiting: Bool {
            let running: Set<SessionStatus> = [.active, .review, .beginning, .ending]
            return record.status == .interrupted || (running.contains(record.status) && !connected)
        }
    }

    /// One event row: session, seq, time, kind, detail.
    struct Event: Sendable {
        var session: String
        var at: Date
        var kind: String
        var detail: String

        /// The columns selected, in order (the body is the store's jsonb, read by PostgreSQL alone).
        /// The sequence as text is named apart, so that `ORDER BY seq` orders by the number.
        static let columns = """
            session, seq::text AS seq_text, extract(epoch FROM at)::text, coalesce(body->>'kind', ''), coalesce(body->>'detail', '')
            """

        /// Reads the cells; throws why the event cannot be read (its session is named then).
        init(_ c: [String?]) throws(Unreadable) {
            guard c.count == 5, let session = c[0] else { throw Unreadable("an event row cannot be read") }
            self.session = session
            guard let at = StoreRows.date(c[2]) else { throw Unreadable("the time of its event \(c[1] ?? "?") is out of range") }
            self.at = at
            kind = c[3] ?? ""
            detail = c[4] ?? ""
        }
    }

    /// Why a row cannot be used, in Carrel's words (no value from the row quoted).
    struct Unreadable: Error, Sendable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
