import AssessmentKit
import Foundation
import GRDB

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

/// The `session` table's row as SQLite holds it (text and JSON columns), apart from the record
/// because each value is checked (`JournalFields`) before it becomes a `SessionRecord`.
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

    /// The row as `Journal.records` selects it, every value checked (`JournalFields`).
    init(checking fields: JournalFields) throws(JournalCorruption) {
        id = try fields.text("id")
        fingerprint = try fields.text("fingerprint")
        assessmentID = try fields.text("assessment_id")
        assessmentTitle = try fields.text("assessment_title")
        candidate = try fields.optionalText("candidate")
        status = try fields.text("status")
        endReason = try fields.optionalText("end_reason")
        seed = try fields.integer("seed", in: .min ... .max)
        extraTime = try fields.text("extra_time")
        options = try fields.text("options")
        startedAt = try fields.date("started_at")
        endedAt = try fields.optionalDate("ended_at")
        interruptions = Int(try fields.integer("interruptions", in: 0...Int64(Int32.max)))
        pid = try fields.integer("pid", in: 0...Int64(Int32.max))
        host = try fields.text("host")
        tty = try fields.optionalText("tty")
    }

    /// Extra time as `--extra-time` gives it: a multiplier from 1 to 10, or at most ten years
    /// added (so applying it to any time limit stays a number of seconds).
    static func isPlausible(_ extra: ExtraTime) -> Bool {
        switch extra {
        case let .multiplier(m): return m.isFinite && (1...10).contains(m)
        case let .add(seconds): return (0...Int(elapsedSeconds.upperBound)).contains(seconds)
        case .none, .unlimited: return true
        }
    }

    /// The furthest position and the most time used a journal can hold: more than any
    /// assessment has items, and more seconds than ten years.
    static let positions: ClosedRange<Int64> = 0...10_000_000
    static let elapsedSeconds: ClosedRange<Double> = 0...315_360_000

    /// The session of one row of `Journal.records`, or the damage that keeps it from being read.
    static func record(_ row: Row) throws(JournalCorruption) -> SessionRecord {
        let id = JournalFields(row: row, owner: "a session").value("id")
        let owner = String.fromDatabaseValue(id).map { "session \($0)" } ?? "a session whose id is \(JournalFields.describe(id))"
        let fields = JournalFields(row: row, owner: owner)
        let session = try StoredSessionRow(checking: fields)
        // A session has no progress row only before its first save: it is at the start.
        let position = fields.isNull("position") ? 0 : try fields.integer("position", in: positions)
        let elapsed = fields.isNull("elapsed") ? 0 : try fields.number("elapsed", in: elapsedSeconds)
        guard !fields.isNull("assessment_path") else {
            throw JournalCorruption(what: "\(owner): its assessment \(session.fingerprint) is missing from the journal")
        }
        return try session.record(path: try fields.text("assessment_path"), position: Int(position), elapsed: elapsed)
    }

    func record(path: String, position: Int, elapsed: Double) throws(JournalCorruption) -> SessionRecord {
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
        guard Self.isPlausible(extra) else {
            throw JournalCorruption(what: "session \(id) has an extra time out of range \(extraTime)")
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
