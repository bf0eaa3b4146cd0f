import AssessmentMode
import Foundation

/// What the machine held before a change: what its revert puts back.
public enum Before: Sendable, Equatable, Codable {
    /// No such file, or a unit not masked: the revert removes what the change made.
    case nothing
    /// A file's bytes.
    case contents(Data)
    /// A kernel setting's value, or `masked` for a unit the administrator had masked already.
    case value(String)
}

/// One change as made: what it was, the step it belongs to, and what it replaced.
public struct AppliedChange: Sendable, Equatable, Codable {
    public var change: Change
    public var step: StepKind
    public var before: Before

    public init(change: Change, step: StepKind, before: Before) {
        self.change = change
        self.step = step
        self.before = before
    }
}

/// A process named so that a reused pid is never taken for it: its pid and its start time
/// (clock ticks after boot, /proc/PID/stat field 22).
public struct ProcessMark: Sendable, Hashable, Codable {
    public var pid: Int32
    public var start: UInt64

    public init(pid: Int32, start: UInt64) {
        self.pid = pid
        self.start = start
    }
}

/// The mode that runs, as the service keeps it on disk: every change it made (written before
/// each one is made, so a crash at any point leaves a record that reverts it), the processes
/// it stopped, and what happened.
public struct ModeRecord: Sendable, Equatable, Codable {
    public var begin: ModeBegin
    public var uid: UInt32
    public var account: String
    public var began: Double
    public var endsBy: Double
    /// The Carrel that owned it has gone without ending it.
    public var interrupted: Bool
    /// In the order made; the last one may have been under way when the service stopped.
    public var changes: [AppliedChange]
    public var steps: [StepReport]
    /// Processes of other login sessions stopped by `sessions: lock`; continued on revert.
    public var stopped: [ProcessMark]
    public var incidents: [Incident]

    public static let keptIncidents = 200

    public init(begin: ModeBegin, uid: UInt32, account: String, began: Double, endsBy: Double) {
        self.begin = begin
        self.uid = uid
        self.account = account
        self.began = began
        self.endsBy = endsBy
        interrupted = false
        changes = []
        steps = []
        stopped = []
        incidents = []
    }

    public var status: ModeStatus {
        ModeStatus(session: begin.session, uid: uid, began: began, endsBy: endsBy, interrupted: interrupted, steps: steps,
                   incidents: incidents)
    }
}

/// Why a change, a revert or the record on disk failed, in words.
public struct ChangeError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Makes and undoes the changes of a plan: the real one runs nft, writes files and calls
/// ioctl; the tests' one keeps the machine in memory.
public protocol ChangeExecutor {
    /// What the machine holds now where `change` will write.
    func before(_ change: Change) throws(ChangeError) -> Before
    func perform(_ change: Change) throws(ChangeError)
    /// Puts back `before`. Reverting a change that was never made (or only partly) is harmless.
    func revert(_ change: Change, before: Before) throws(ChangeError)
    /// Continues a process stopped by `sessions: lock`, if it is still that process.
    func resume(_ process: ProcessMark)
}

/// Where the record lives between the changes: written whole before every change.
public protocol ModeStore {
    func save(_ record: ModeRecord) throws(ChangeError)
    /// The record left on disk; nil when there is none. A record that cannot be read throws.
    func load() throws(ChangeError) -> ModeRecord?
    func remove() throws(ChangeError)
}
