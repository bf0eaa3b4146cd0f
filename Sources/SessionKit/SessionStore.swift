import AssessmentKit
import Foundation

/// One session as the journal keeps it.
public struct SessionRecord: Sendable, Equatable {
    public var id: String
    public var assessmentID: String
    public var assessmentTitle: String
    public var fingerprint: String
    /// The assessment file's text at launch: a resumed session uses exactly what was sat.
    public var assessmentSource: String
    public var assessmentPath: String
    public var candidate: String?
    public var status: SessionStatus
    public var endReason: EndReason?
    public var seed: UInt64
    public var extraTime: ExtraTime
    public var position: Int
    public var elapsed: Double
    public var startedAt: Date
    public var endedAt: Date?
    public var interruptions: Int
    public var pid: Int32
    public var host: String
    public var tty: String?

    public init(id: String, assessmentID: String, assessmentTitle: String, fingerprint: String,
                assessmentSource: String, assessmentPath: String, candidate: String?, status: SessionStatus,
                endReason: EndReason? = nil, seed: UInt64, extraTime: ExtraTime, position: Int = 0,
                elapsed: Double = 0, startedAt: Date, endedAt: Date? = nil, interruptions: Int = 0,
                pid: Int32, host: String, tty: String?) {
        self.id = id
        self.assessmentID = assessmentID
        self.assessmentTitle = assessmentTitle
        self.fingerprint = fingerprint
        self.assessmentSource = assessmentSource
        self.assessmentPath = assessmentPath
        self.candidate = candidate
        self.status = status
        self.endReason = endReason
        self.seed = seed
        self.extraTime = extraTime
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

/// Where sessions, answers and events live. Every write is durable when it returns: an
/// answer is acknowledged to the student only after `saveAnswer` came back.
public protocol SessionStore: Sendable {
    func createSession(_ record: SessionRecord) throws
    func saveAnswer(session: String, item: String, response: Response?, at: Date) throws
    func saveFlag(session: String, item: String, flagged: Bool) throws
    func savePosition(session: String, position: Int) throws
    func saveTime(session: String, elapsed: Double) throws
    func log(session: String, kind: EventKind, detail: String, at: Date) throws
    func setStatus(session: String, status: SessionStatus, endReason: EndReason?, endedAt: Date?) throws
    func noteResumed(session: String, pid: Int32) throws
    func saveResult(session: String, json: String) throws

    func session(_ id: String) throws -> SessionRecord?
    func sessions(status: [SessionStatus]?) throws -> [SessionRecord]
    func answers(session: String) throws -> [String: Response]
    func flags(session: String) throws -> Set<String>
    func events(session: String) throws -> [JournalEvent]
    func result(session: String) throws -> String?
}
