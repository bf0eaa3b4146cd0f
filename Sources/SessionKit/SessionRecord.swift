import AssessmentKit
import Foundation

/// Launch choices that a resumed session keeps.
public struct SessionOptions: Sendable, Equatable, Codable {
    public var theme: String?
    public var screenReader: Bool?
    /// The language the student's screens speak (`en`, `fr`…): `resume` keeps it. nil in
    /// journals written before it was kept (English).
    public var language: String?
    /// Set when the session publishes to a lab's shared store.
    public var shared: SharedLabel?

    public init(theme: String? = nil, screenReader: Bool? = nil, shared: SharedLabel? = nil) {
        self.theme = theme
        self.screenReader = screenReader
        self.shared = shared
    }
}

/// A session that publishes its journal to a lab's shared store: the room and seat it is
/// shown under, and what the proctor's console shows of its test (filled in when it begins).
public struct SharedLabel: Sendable, Equatable, Codable {
    public var room: String
    public var seat: String
    public var total: Int
    /// Seconds the candidate has (their extra time included); nil without a time limit.
    public var timeAllowed: Int?
    /// The store the session publishes to, as a URL without its password
    /// (`postgresql://USER@HOST:PORT/DATABASE`), so that `resume` and `unlock` go on
    /// publishing there; nil in journals written before it was kept.
    public var store: String?
    /// What the seat says of itself to the proctor's console: its Carrel's version and the
    /// SHA-256 of its executable, the test's fingerprint, the effective policy and the
    /// terminal's size (`SeatAttestation`). nil in journals written before it was kept.
    public var attestation: [String: String]?
    /// The candidate's number on the room's roster (the candidate is their name).
    public var candidateNumber: String?
    /// The token this seat proves its session with to the store until the proctor's start
    /// gives the session a key (then one derived from the key, never stored), and with which
    /// it reads its own marks. Kept so that `resume` and later runs go on; nil in journals
    /// written before it was kept.
    public var storeToken: String?

    public init(room: String, seat: String, total: Int = 0, timeAllowed: Int? = nil, store: String? = nil) {
        self.room = room
        self.seat = seat
        self.total = total
        self.timeAllowed = timeAllowed
        self.store = store
    }
}

/// One session as the journal keeps it, in Carrel's own types: the shape every module works
/// with (the other shapes of a session are how a table, the shared store or an output holds it).
public struct SessionRecord: Sendable, Equatable {
    public var id: String
    public var assessmentID: String
    public var assessmentTitle: String
    public var fingerprint: String
    public var assessmentPath: String
    public var candidate: String?
    public var status: SessionStatus
    public var endReason: EndReason?
    public var seed: UInt64
    public var extraTime: ExtraTime
    public var options: SessionOptions
    public var position: Int
    public var elapsed: Double
    public var startedAt: Date
    public var endedAt: Date?
    public var interruptions: Int
    public var pid: Int32
    public var host: String
    public var tty: String?

    public init(id: String, assessmentID: String, assessmentTitle: String, fingerprint: String,
                assessmentPath: String, candidate: String?, status: SessionStatus,
                endReason: EndReason? = nil, seed: UInt64, extraTime: ExtraTime, options: SessionOptions = SessionOptions(),
                position: Int = 0, elapsed: Double = 0, startedAt: Date, endedAt: Date? = nil, interruptions: Int = 0,
                pid: Int32, host: String, tty: String?) {
        self.id = id
        self.assessmentID = assessmentID
        self.assessmentTitle = assessmentTitle
        self.fingerprint = fingerprint
        self.assessmentPath = assessmentPath
        self.candidate = candidate
        self.status = status
        self.endReason = endReason
        self.seed = seed
        self.extraTime = extraTime
        self.options = options
        self.position = position
        self.elapsed = elapsed
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.interruptions = interruptions
        self.pid = pid
        self.host = host
        self.tty = tty
    }
}

public struct JournalEvent: Sendable, Equatable, Codable {
    public var at: Date
    public var kind: String
    public var detail: String
    public init(at: Date, kind: String, detail: String) {
        self.at = at
        self.kind = kind
        self.detail = detail
    }
}
