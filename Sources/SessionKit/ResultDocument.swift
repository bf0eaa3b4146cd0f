import AssessmentKit
import Foundation

/// A JSON value, for responses whose shape depends on the item type.
public enum JSONValue: Sendable, Equatable, Codable {
    case string(String)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        // Each `try?` tries one JSON shape; the last one reports what matched none. Text,
        // the commonest response, is tried first: a shape that does not match costs an error.
        if c.decodeNil() { self = .null }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case let .string(s): try c.encode(s)
        case let .bool(b): try c.encode(b)
        case let .array(a): try c.encode(a)
        case let .object(o): try c.encode(o)
        case .null: try c.encodeNil()
        }
    }

    /// The response as a teacher reads it: text, true/false, a list, or left → right.
    public init(_ response: Response?) {
        switch response {
        case nil: self = .null
        case let .choice(s)?, let .text(s)?, let .numeric(s)?, let .essay(s)?: self = .string(s)
        case let .trueFalse(b)?: self = .bool(b)
        case let .multiple(picks)?: self = .array(picks.map(JSONValue.string))
        case let .order(entries)?: self = .array(entries.map(JSONValue.string))
        case let .match(pairs)?: self = .object(pairs.mapValues(JSONValue.string))
        case let .gaps(entries)?: self = .array(entries.map(JSONValue.init(gapEntry:)))
        }
    }

    /// One gap's entry: what was typed or picked, a list for several picks, null when open.
    public init(gapEntry entry: [String]) {
        switch entry.count {
        case 0: self = .null
        case 1: self = .string(entry[0])
        default: self = .array(entry.map(JSONValue.string))
        }
    }
}

/// The result of one session, as `results/SESSION.json` and `carrel results export --format
/// json` give it (its keys are a contract with outside tools: add, never rename).
public struct ResultDocument: Sendable, Equatable, Codable {
    public struct AssessmentRef: Sendable, Equatable, Codable {
        public var id: String
        public var title: String
        public var fingerprint: String
    }

    public struct ItemResult: Sendable, Equatable, Codable {
        public var id: String
        public var type: String
        public var response: JSONValue
        public var points: Double
        public var max: Double
        public var flagged: Bool
        public var outcome: Outcome
        /// A person's mark, which `points` and `outcome` follow; absent until someone marks
        /// the item, so results written before marking existed read the same.
        public var mark: Mark?
        /// Each gap of a `gaps` item, in gap order (absent for other items).
        public var gaps: [GapResult]?
    }

    /// How one gap of a `gaps` item fared.
    public struct GapResult: Sendable, Equatable, Codable {
        /// 1-based, as `{1}` in the prompt.
        public var gap: Int
        public var response: JSONValue
        public var points: Double
        public var max: Double
        public var outcome: Outcome
    }

    /// What a person gave an item with `carrel results mark`.
    public struct Mark: Sendable, Equatable, Codable {
        public var points: Double
        public var comment: String?
        /// ISO-8601 UTC.
        public var at: String
    }

    public struct Event: Sendable, Equatable, Codable {
        public var at: String
        public var kind: String
        public var detail: String
    }

    public var session: String
    public var candidate: String?
    public var status: EndReason
    public var assessment: AssessmentRef
    public var startedAt: String
    public var endedAt: String
    public var timeUsedSeconds: Int
    public var interruptions: Int
    public var score: ScoreSummary
    public var items: [ItemResult]
    public var events: [Event]
    /// The room and seat of a session that ran in a lab, and the candidate's number on the
    /// room's roster (absent otherwise).
    public var room: String?
    public var seat: String?
    public var candidateNumber: String?
    /// The ids of the items this session was given, in file order, when its test draws from
    /// pools (absent otherwise: every item was given).
    public var drawn: [String]?
    /// True when the seat had no answer key (a sealed test's student part, as the proctor's
    /// start opens it): every answered item is `pending` with no points, and the score is
    /// given where the proctor's passphrase is (`scored(with:)`). Absent otherwise.
    public var unscored: Bool?
    /// The whole time the candidate had (the test's limit with the roster's extra time and
    /// the time the proctor added), seconds; absent without a limit and in results written
    /// before it was kept.
    public var timeAllowedSeconds: Int?
    /// The roster's extra time (`1.5x`, `+15m`, `unlimited`, "" for none); absent in results
    /// written before it was kept, as are the fields after it.
    public var extraTime: String?
    public var timeAddedSeconds: Int?
    /// Each addition of time the seat applied (`proctor time`).
    public var timeAdded: [TimeAddition]?
    /// Pause commands the seat applied.
    public var pauses: Int?

    enum CodingKeys: String, CodingKey {
        case session, candidate, status, assessment
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case timeUsedSeconds = "time_used_seconds"
        case interruptions, score, items, events, room, seat
        case candidateNumber = "candidate_number"
        case drawn, unscored
        case timeAllowedSeconds = "time_allowed_seconds"
        case extraTime = "extra_time"
        case timeAddedSeconds = "time_added_seconds"
        case timeAdded = "time_added"
        case pauses
    }

    /// The time and the proctor's commands this result records, or nil for a result written
    /// before they were kept.
    public var account: SessionAccount? {
        guard let extraTime else { return nil }
        return SessionAccount(timeAllowedSeconds: timeAllowedSeconds, extraTime: extraTime, timeAdded: timeAdded ?? [],
                              pauses: pauses ?? 0)
    }

    /// This result with `account`'s time and commands.
    public mutating func record(_ account: SessionAccount) {
        timeAllowedSeconds = account.timeAllowedSeconds
        extraTime = account.extraTime
        timeAddedSeconds = account.timeAddedSeconds
        timeAdded = account.timeAdded
        pauses = account.pauses
    }

    /// Items in file order, so results of shuffled sessions line up.
    public static func make(assessment: Assessment, record: SessionRecord, reason: EndReason, endedAt: Date,
                            elapsed: Double, responses: [String: Response], flags: Set<String>,
                            events: [JournalEvent]) -> ResultDocument {
        let drawn = SessionPlan.drawn(assessment, seed: record.seed)
        let items = assessment.items.map { item -> ItemResult in
            if let drawn, !drawn.contains(item.id) {
                return ItemResult(id: item.id, type: item.type.rawValue, response: .null, points: 0, max: 0, flagged: false,
                                  outcome: .notDrawn)
            }
            if assessment.keyless {
                // No key here: what was answered, and nothing about how well.
                let answered = !(responses[item.id]?.isEmpty ?? true)
                return ItemResult(id: item.id, type: item.type.rawValue, response: JSONValue(responses[item.id]), points: 0,
                                  max: 0, flagged: flags.contains(item.id), outcome: answered ? .pending : .unanswered)
            }
            let s = Scoring.score(item, responses[item.id])
            return ItemResult(id: item.id, type: item.type.rawValue, response: JSONValue(responses[item.id]),
                              points: s.points, max: s.max, flagged: flags.contains(item.id), outcome: s.outcome,
                              gaps: gapResults(item, responses[item.id]))
        }
        var document = ResultDocument(
            session: record.id, candidate: record.candidate, status: reason,
            assessment: AssessmentRef(id: assessment.id, title: assessment.title, fingerprint: record.fingerprint),
            startedAt: Timestamp.iso(record.startedAt), endedAt: Timestamp.iso(endedAt),
            timeUsedSeconds: TimeUsed.seconds(elapsed), interruptions: record.interruptions,
            score: Scoring.summary(items.map { ItemScore(points: $0.points, max: $0.max, outcome: $0.outcome) }),
            items: items, events: events.map { Event(at: Timestamp.iso($0.at), kind: $0.kind, detail: $0.detail) },
            room: record.options.shared?.room, seat: record.options.shared?.seat,
            candidateNumber: record.options.shared?.candidateNumber,
            drawn: drawn.map { ids in items.map(\.id).filter(ids.contains) },
            unscored: assessment.keyless ? true : nil)
        let limit = record.extraTime.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) }
        document.record(SessionAccount(events: events, limit: limit, extraTime: record.extraTime))
        return document
    }

    /// The items the student was given (all but those a pool left out), and of them those
    /// answered: the receipt's and the proctor's "answered N of M".
    public var given: Int { items.filter { $0.outcome != .notDrawn }.count }
    public var answered: Int { items.filter { $0.outcome != .notDrawn && $0.outcome != .unanswered }.count }

    static func gapResults(_ item: Item, _ response: Response?) -> [GapResult]? {
        guard case .gaps = item.kind else { return nil }
        var entries: [[String]] = []
        if case let .gaps(given)? = response { entries = given }
        return Scoring.gapScores(item, response).enumerated().map { i, score in
            GapResult(gap: i + 1, response: JSONValue(gapEntry: i < entries.count ? entries[i] : []),
                      points: score.points, max: score.max, outcome: score.outcome)
        }
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// ISO-8601 UTC, to the second.
public enum Timestamp {
    public static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
    }

    /// A time `iso` wrote, or nil.
    public static func parse(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current).parse(text)
    }
}

/// The one rounding of time used, so the receipt, `results list`, `status`, JSON and CSV never
/// differ by a second: to the nearest whole second.
public enum TimeUsed {
    public static func seconds(_ elapsed: Double) -> Int {
        guard elapsed.isFinite, elapsed > 0 else { return 0 }
        return Int(min(elapsed, Double(Int32.max)).rounded())
    }
}

/// What a gradebook needs of a result, stored beside it in four columns: the document's
/// heading (no items, no events), its item ids, each item's response as one spreadsheet-safe
/// cell, and those cells already written as CSV fields. `results export --format csv` of a
/// thousand 5 000-item results copies the ready fields instead of decoding a gigabyte of
/// full documents; `results list` reads the score from the small heading.
public struct ResultDigest: Sendable, Equatable {
    public var heading: ResultHeading
    public var items: [String]
    /// Each response as `CSV.cell` joins it, made safe for a spreadsheet (`CSV.safeCell`).
    public var cells: [String]

    public init(_ document: ResultDocument) {
        heading = ResultHeading(document)
        items = document.items.map(\.id)
        cells = document.items.map { CSV.safeCell(CSV.cell($0)) }
    }

    /// The stored form: heading, items and cells as JSON, and the cells as CSV fields.
    public func columns() throws -> (heading: String, items: String, cells: String, csv: String) {
        let encoder = JSONEncoder()
        func text<T: Encodable>(_ value: T) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        return (try text(heading), try text(items), try text(cells), CSV.fields(cells))
    }
}

/// A result without its items and events: who, what, when, and the score.
public struct ResultHeading: Sendable, Equatable, Codable {
    public var session: String
    public var candidate: String?
    public var status: EndReason
    public var assessment: ResultDocument.AssessmentRef
    public var startedAt: String
    public var endedAt: String
    public var timeUsedSeconds: Int
    public var interruptions: Int
    public var score: ScoreSummary
    public var room: String?
    public var seat: String?
    public var candidateNumber: String?
    /// As the document's: no score yet, the seat had no key.
    public var unscored: Bool?

    enum CodingKeys: String, CodingKey {
        case session, candidate, status, assessment
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case timeUsedSeconds = "time_used_seconds"
        case interruptions, score, room, seat
        case candidateNumber = "candidate_number"
        case unscored
    }

    public init(_ document: ResultDocument) {
        session = document.session
        candidate = document.candidate
        status = document.status
        assessment = document.assessment
        startedAt = document.startedAt
        endedAt = document.endedAt
        timeUsedSeconds = document.timeUsedSeconds
        interruptions = document.interruptions
        score = document.score
        room = document.room
        seat = document.seat
        candidateNumber = document.candidateNumber
        unscored = document.unscored
    }
}
