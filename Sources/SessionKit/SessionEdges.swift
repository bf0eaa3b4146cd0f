#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AssessmentKit
import Foundation
import GRDB

// The operating-system edges a session runs against. SessionKit only describes them; the
// Lockdown module implements them for real, and tests pass in-memory or failing ones.

/// Who holds the session lock; written into the lock file, read by `carrel status`.
public struct LockHolder: Codable, Sendable, Equatable {
    public var session: String
    public var pid: Int32
    public var host: String
    public var tty: String?
    public var candidate: String?
    public var assessment: String
    public var started: String

    public init(session: String, pid: Int32, host: String, tty: String?, candidate: String?, assessment: String, started: String) {
        self.session = session
        self.pid = pid
        self.host = host
        self.tty = tty
        self.candidate = candidate
        self.assessment = assessment
        self.started = started
    }

    /// "pid 4242, candidate Ada, assessment geo, since 2026-11-22T10:02:00Z".
    public var summary: String {
        var parts = ["pid \(pid)"]
        if let candidate, !candidate.isEmpty { parts.append("candidate \(candidate)") }
        parts.append("assessment \(assessment)")
        parts.append("since \(started)")
        return parts.joined(separator: ", ")
    }
}

public enum LockState: Sendable, Equatable {
    case free
    /// Held; the holder record is nil while the holder is still writing it.
    case held(LockHolder?)
}

public enum LockError: Error, Sendable {
    case held(LockHolder?)
    case unusable(String)
}

/// The lock while this process holds it.
public protocol HeldSessionLock: AnyObject, Sendable {
    /// Safe to call twice.
    func release()
}

/// One session per journal: the lock beside it.
public protocol SessionLocking: Sendable {
    func acquire(_ holder: LockHolder) throws(LockError) -> any HeldSessionLock
    func inspect() -> LockState
}

/// Clears every pasteboard it knows; one line per backend ("tmux: cleared 2 buffers").
public protocol PasteboardClearer: Sendable {
    func clearAndDescribe() -> [String]
}

/// A signal as the session sees it.
public enum SessionSignal: Sendable, Equatable {
    /// Ctrl-C, Ctrl-Z, Ctrl-\ sent as signals: the student tried to leave.
    case exitAttempt(String)
    /// SIGHUP, SIGTERM and every other catchable signal that would end the process.
    case hangUp(String)
}

/// Turns signals into messages for the session loop, never acting inside a handler.
public protocol SignalSource: AnyObject {
    func install() throws
    func remove()
    func drain() -> [SessionSignal]
    /// A descriptor that becomes readable when a signal arrived (-1 when there is none).
    var readEnd: Int32 { get }
}

/// The state directory: private directories, the journal's database, result files.
public protocol StateStorage: Sendable {
    var location: StateLocation { get }
    /// Creates the state directories (0700) and opens the journal's database, refusing
    /// symlinks. `create: false` returns nil when no journal exists yet.
    func openJournal(create: Bool) throws -> (any DatabaseWriter)?
    /// Writes a result file atomically (0600); returns its path.
    func writeResult(_ data: Data, session: String) throws -> String
}

/// Why the environment refuses a session (multiplexer, injected code, tracer, …).
public protocol EnvironmentGate: Sendable {
    func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String]
    /// A tracer attached since the session began (pid), checked while it runs.
    func attachedTracer() -> Int?
}

/// What one proctor passphrase attempt came to.
public enum PassphraseVerdict: Sendable, Equatable {
    case accepted
    /// Wrong; `wait` seconds before the next try (no tries left when `triesLeft` is 0).
    case rejected(triesLeft: Int, wait: Double)
    /// Not checked: a wait from earlier wrong passphrases (in any process) is running.
    case mustWait(Double)
    /// Not checked: the attempts cannot be recorded.
    case unavailable(String)
}

/// Checks proctor passphrases with a limited number of tries and waits that hold across
/// processes (kept in the state directory).
public protocol PassphraseChecker: AnyObject {
    func check(_ typed: String) -> PassphraseVerdict
}

/// Time for the session: wall time for timestamps, a monotonic clock for time used.
public struct SessionClock: Sendable {
    public var now: @Sendable () -> Date
    public var monotonic: @Sendable () -> Double

    public init(now: @escaping @Sendable () -> Date, monotonic: @escaping @Sendable () -> Double) {
        self.now = now
        self.monotonic = monotonic
    }

    public static let system = SessionClock(now: { Date() }, monotonic: {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    })
}

/// Session ids and shuffle seeds.
public struct SessionIDs: Sendable {
    public var sessionID: @Sendable () -> String
    public var seed: @Sendable () -> UInt64

    public init(sessionID: @escaping @Sendable () -> String, seed: @escaping @Sendable () -> UInt64) {
        self.sessionID = sessionID
        self.seed = seed
    }

    public static let random = SessionIDs(sessionID: { UUID().uuidString.lowercased() }, seed: { UInt64.random(in: 0 ... .max) })
}

/// Where a session's journal is copied for a lab's proctor (the shared store). It works on
/// its own thread from the journal's outbox; the session only tells it the time used.
public protocol SessionPublishing: AnyObject, Sendable {
    /// The session's time used, on every tick of its loop (cheap: no waiting, no I/O).
    func progress(session: String, elapsed: Double)
    /// Publishes `journal`'s outbox from now on: this session's records and any an earlier
    /// session left waiting. The begin step `publish` calls it once the journal is open.
    func start(journal: Journal)
    /// The commands received for this seat numbered after `after`, in order, as the store
    /// holds them (no waiting, no I/O: the publisher's own task reads them from the store).
    /// Nothing in them is trusted: the session verifies each before it applies it.
    func commands(after: Int64) -> [SignedCommand]
    /// What the store says became of `session` when it no longer takes this seat's records for
    /// it: "moved SEAT" (the proctor moved it to another seat) or "lost" (the proctor ended it);
    /// nil otherwise. No waiting, no I/O.
    func fate(session: String) -> String?
}

extension SessionPublishing {
    public func commands(after: Int64) -> [SignedCommand] { [] }
    public func fate(session: String) -> String? { nil }
}

/// Everything a session needs from outside, injected by the command that runs it.
public struct SessionContext: Sendable {
    public var storage: any StateStorage
    public var lock: any SessionLocking
    public var pasteboards: any PasteboardClearer
    public var gate: any EnvironmentGate
    /// Makes the signal source for one session (nil: signals are not guarded, in tests).
    public var signals: @Sendable () throws -> (any SignalSource)?
    /// The terminal UI needs a capable TERM; a headless driver does not.
    public var needsTerminal: Bool
    public var clock: SessionClock
    public var ids: SessionIDs
    /// Makes the passphrase checker for a hash and what it unlocks ("end 1a2b3c4d"); nil
    /// checks in this process only.
    public var passphrases: (@Sendable (PassphraseHash, String) -> any PassphraseChecker)?
    public var pid: Int32
    public var host: String
    public var tty: String?
    /// Copies the session to a lab's shared store (nil: not shared).
    public var publisher: (any SessionPublishing)?
    /// The assessment-mode service of this machine (nil: never asked, in tests).
    public var assessmentMode: (any AssessmentModeLink)?
    /// Where the lab's store is (the only place `network: store-only` lets the seat reach).
    public var storeEndpoints: [Endpoint] = []
    /// The proctor's passphrase `resume` and `unlock` accepted, for the service to check.
    public var modePassphrase: String?

    public init(storage: any StateStorage, lock: any SessionLocking, pasteboards: any PasteboardClearer,
                gate: any EnvironmentGate, signals: @escaping @Sendable () throws -> (any SignalSource)?, needsTerminal: Bool,
                clock: SessionClock = .system, ids: SessionIDs = .random, pid: Int32 = getpid(),
                host: String = SessionContext.hostName(), tty: String? = SessionContext.terminalName()) {
        self.storage = storage
        self.lock = lock
        self.pasteboards = pasteboards
        self.gate = gate
        self.signals = signals
        self.needsTerminal = needsTerminal
        self.clock = clock
        self.ids = ids
        self.passphrases = nil
        self.publisher = nil
        self.assessmentMode = nil
        self.pid = pid
        self.host = host
        self.tty = tty
    }

    public var location: StateLocation { storage.location }

    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func terminalName() -> String? {
        guard isatty(0) == 1, let name = ttyname(0) else { return nil }
        return String(cString: name)
    }
}
