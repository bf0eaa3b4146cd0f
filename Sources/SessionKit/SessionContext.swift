#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AssessmentKit
import Foundation
import Lockdown

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

/// The operating-system edges a session runs against; tests substitute pieces of it.
public struct SessionContext: Sendable {
    public var location: StateLocation
    public var pasteboards: Pasteboards
    public var facts: EnvironmentFacts
    /// The terminal UI needs a capable TERM; a headless driver does not.
    public var needsTerminal: Bool
    public var clock: SessionClock
    public var pid: Int32
    public var host: String
    public var tty: String?
    /// Makes the named begin step fail before it runs, to prove the undo path.
    public var failAt: String?

    public init(location: StateLocation, pasteboards: Pasteboards, facts: EnvironmentFacts, needsTerminal: Bool,
                clock: SessionClock = .system, pid: Int32 = getpid(), host: String = SessionContext.hostName(),
                tty: String? = SessionContext.terminalName(), failAt: String? = nil) {
        self.location = location
        self.pasteboards = pasteboards
        self.facts = facts
        self.needsTerminal = needsTerminal
        self.clock = clock
        self.pid = pid
        self.host = host
        self.tty = tty
        self.failAt = failAt
    }

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

/// Why a session could not begin, resume or be unlocked, with the sysexits code to use.
public enum SessionError: Error, Sendable, CustomStringConvertible {
    case refused([PreflightRefusal])
    case lockHeld(LockHolder?)
    case interruptedSessions([SessionRecord])
    case noSuchSession(String)
    case nothingToResume
    case ambiguous([SessionRecord])
    case state(String)
    case storedAssessment(String)
    case injected(String)
    case frontEnd(String)

    public var exitCode: Int32 {
        switch self {
        case .refused, .frontEnd: return 69
        case .lockHeld, .interruptedSessions: return 75
        case .noSuchSession, .nothingToResume, .ambiguous: return 64
        case .state: return 73
        case .storedAssessment, .injected: return 70
        }
    }

    public var description: String {
        switch self {
        case let .refused(reasons):
            return "refused by the assessment's policy: " + reasons.map(\.description).joined(separator: "; ")
        case let .lockHeld(holder?):
            return "another session holds the lock (\(holder.summary), session \(holder.session)); wait for it to end, or check `carrel status`"
        case .lockHeld(nil):
            return "another session holds the lock and is starting up; check `carrel status`"
        case let .interruptedSessions(records):
            let list = records.map { "\($0.id) (\($0.candidate ?? "no candidate"), \($0.assessmentID))" }.joined(separator: ", ")
            return "an interrupted session awaits the proctor: \(list); continue it with `carrel resume`, or end it with `carrel unlock`"
        case let .noSuchSession(id):
            return "no interrupted session \(id); `carrel status` lists the sessions waiting"
        case .nothingToResume:
            return "there is no interrupted session to continue; `carrel status` shows what is running"
        case let .ambiguous(records):
            return "several interrupted sessions: \(records.map(\.id).joined(separator: ", ")); name the one to use"
        case let .state(why):
            return "cannot use the state directory: \(why); choose another with --state-dir"
        case let .storedAssessment(why):
            return "the journal's copy of the assessment cannot be read: \(why)"
        case let .injected(step):
            return "begin step \(step) failed (injected)"
        case let .frontEnd(why):
            return why
        }
    }
}
