import Foundation

/// What a session and the assessment-mode service say to each other over the service's Unix
/// socket (`/run/carrel/assessmentd.sock`, or `CARREL_ASSESSMENTD_SOCKET`): one JSON object a
/// line, at most `ModeWire.maximumLine` bytes. The service answers as `AEAssessmentSession`
/// does: began, failed to begin (with the reason), interrupted, ended.
public enum ModeRequest: Sendable, Equatable, Codable {
    /// Which restrictions this machine can enforce (`carrel seat check`).
    case capabilities
    /// Begin assessment mode for a session; the connection that asks owns the mode.
    case begin(ModeBegin)
    /// End the mode this connection owns: the session ended as it should.
    case end
    /// A Carrel resuming an interrupted session takes the mode over (the proctor's passphrase).
    case resume(session: String, passphrase: String)
    /// End an interrupted mode early (the proctor's passphrase, never the student's word).
    case unlock(session: String, passphrase: String)
    /// The mode that runs, if any.
    case status
}

/// What a session asks for.
public struct ModeBegin: Sendable, Equatable, Codable {
    public var session: String
    public var candidate: String?
    public var seat: String?
    public var policy: MachinePolicy
    /// The lab's store: the only place `network: store-only` lets the seat's account reach.
    public var store: [Endpoint]
    /// Seconds: the mode ends by itself after this, as the session does.
    public var maxDuration: Int
    /// `scrypt$…` of the proctor's passphrase, which `resume` and `unlock` must match; nil
    /// when the test has none (then only the session's own end, `maxDuration` or root ends it).
    public var passphraseHash: String?

    public init(session: String, candidate: String? = nil, seat: String? = nil, policy: MachinePolicy, store: [Endpoint],
                maxDuration: Int, passphraseHash: String?) {
        self.session = session
        self.candidate = candidate
        self.seat = seat
        self.policy = policy
        self.store = store
        self.maxDuration = maxDuration
        self.passphraseHash = passphraseHash
    }
}

/// A host (a name or an address) and a TCP port.
public struct Endpoint: Sendable, Hashable, Codable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The service's answers and news.
public enum ModeReply: Sendable, Equatable, Codable {
    case capabilities([Capability])
    /// The mode runs: every step, applied or (where the policy allows) reported as not possible.
    case began(session: String, steps: [StepReport])
    /// The mode did not begin: why, in words; nothing was left changed.
    case failed(reason: String)
    /// The mode outlived the Carrel that owned it: the machine stays restricted until a
    /// resume, an unlock, or `maxDuration`.
    case interrupted(session: String)
    case ended(session: String, reason: EndReason)
    case incident(Incident)
    case status(ModeStatus?)
    /// A caller that is not the installed Carrel run by a student account, or a request that
    /// cannot be read or is not this connection's to make.
    case refused(reason: String)
}

public enum EndReason: String, Sendable, Equatable, Codable {
    /// The owner ended it (the session ended).
    case ended
    /// The proctor's passphrase ended it early.
    case unlocked
    /// `maxDuration` passed.
    case timeLimit = "time_limit"
    /// The service found it on disk after its own crash or a restart, and undid it.
    case restored
}

/// One restriction of the mode.
public enum StepKind: String, Sendable, Hashable, Codable, CaseIterable {
    case network, logins, sessions, consoles, devices, processes
}

/// A step as it went: applied, or not possible on this machine (and why).
public struct StepReport: Sendable, Equatable, Codable {
    public var kind: StepKind
    public var applied: Bool
    /// What it does or why it could not: "only 127.0.0.1:5432 and name resolution for uid 1001".
    public var detail: String

    public init(kind: StepKind, applied: Bool, detail: String) {
        self.kind = kind
        self.applied = applied
        self.detail = detail
    }
}

/// Whether this machine can enforce a restriction, and why not.
public struct Capability: Sendable, Equatable, Codable {
    public var kind: StepKind
    public var available: Bool
    public var reason: String

    public init(kind: StepKind, available: Bool, reason: String) {
        self.kind = kind
        self.available = available
        self.reason = reason
    }
}

/// Something that happened on the machine while the mode ran.
public struct Incident: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Equatable, Codable { case login, session, device, process }
    public var kind: Kind
    /// In words, with what identifies it: "process 4242 of carrel1: python3 -m http.server".
    public var detail: String
    /// Seconds since 1970.
    public var at: Double
    /// What the policy did about it: "reported", "ended", "stopped".
    public var action: String

    public init(kind: Kind, detail: String, at: Double, action: String) {
        self.kind = kind
        self.detail = detail
        self.at = at
        self.action = action
    }
}

/// The mode that runs.
public struct ModeStatus: Sendable, Equatable, Codable {
    public var session: String
    public var uid: UInt32
    public var began: Double
    public var endsBy: Double
    public var interrupted: Bool
    public var steps: [StepReport]
    /// What happened while it ran, the latest 200 (the service keeps them on disk): nil from
    /// a service that does not say.
    public var incidents: [Incident]?

    public init(session: String, uid: UInt32, began: Double, endsBy: Double, interrupted: Bool, steps: [StepReport],
                incidents: [Incident]? = nil) {
        self.session = session
        self.uid = uid
        self.began = began
        self.endsBy = endsBy
        self.interrupted = interrupted
        self.steps = steps
        self.incidents = incidents
    }
}

/// The line framing both ends use.
public enum ModeWire {
    /// How the service begins the reason it refuses a second mode, and a resume or unlock of a
    /// session that has none: one definition, which the session reads them by.
    public static let heldByAnother = "assessment mode already runs for session"
    public static let noMode = "no assessment mode runs for session"
    /// How the service begins a refusal of the machine as it finds it (not of what the machine
    /// can do): a session does not begin, whatever its `machine` key says.
    public static let refusedHere = "assessment mode refuses to begin here:"

    public static let maximumLine = 64 * 1024
    public static let defaultSocket = "/run/carrel/assessmentd.sock"

    /// The socket a session asks: `CARREL_ASSESSMENTD_SOCKET`, else the installed one.
    public static func socketPath(_ environment: [String: String]) -> String {
        if let path = environment["CARREL_ASSESSMENTD_SOCKET"], !path.isEmpty { return path }
        return defaultSocket
    }

    public static func line<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var data = try encoder.encode(value)
        data.append(0x0A)
        return data
    }

    public static func decode<T: Decodable>(_ type: T.Type, line: Data) throws -> T {
        try JSONDecoder().decode(type, from: line)
    }
}
