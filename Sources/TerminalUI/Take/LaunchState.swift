import AssessmentKit
import SessionKit

/// The way from the start screen to a running session or an exit, as a value: the slow checks
/// after the first frame, the proctor's passphrase with its tries and waits, opening a sealed
/// package (by the passphrase or by the proctor's start), the confirmation, waiting for the
/// proctor, the begin, and every refusal with its exit code. `TakeApp` carries its effects out
/// through a `LaunchEnvironment`; what is shown stays `TakeModel`'s.
public struct LaunchState: Sendable, Equatable {
    public enum Stage: Sendable, Equatable {
        /// The start screen is on its way; the slow checks have not run.
        case starting
        /// The checks passed: the passphrase, the confirmation or the proctor's start is awaited.
        case ready
        /// A sealed package is being opened (by the passphrase, or by the proctor's start).
        case opening(Opening)
        /// The session runs.
        case running
        case exited(TakeApp.Exit)
    }

    public enum Opening: Sendable, Equatable {
        case passphrase
        case start
    }

    public internal(set) var stage: Stage = .starting
    /// The start screen's passphrase: tries and waits, by the one rule.
    public internal(set) var gate = PassphrasePrompt()
    /// The proctor's start that began this session.
    public internal(set) var startedBy: ProctorCommand?
    /// `resume`: the session continues, with no start screen before it.
    public internal(set) var resuming = false

    public init() {}

    public var exit: TakeApp.Exit? {
        if case let .exited(exit) = stage { return exit }
        return nil
    }

    /// Takes in `message`; returns what to do, in order.
    public mutating func update(_ message: LaunchMessage) -> [LaunchEffect] {
        if exit != nil { return [] }
        switch message {
        case let .terminalFailed(term):
            return end(ExitStatus.refused, "cannot start the terminal interface (TERM=\(term)); use a real terminal")
        case .resumed:
            // The model is already in the test: the session is resumed at once.
            stage = .ready
            resuming = true
            return [.begin]
        case .drawn:
            guard stage == .starting else { return [] }
            return [.prepare]
        case let .prepared(refusal):
            if let refusal { return end(refusal) }
            stage = .ready
            return []
        case let .passphraseTyped(typed, now):
            // During the wait after a wrong passphrase, typed keys are dropped before this.
            guard stage == .ready, gate.wait(now: now) == nil else { return [] }
            return [.checkPassphrase(typed)]
        case let .checked(verdict, typed, now):
            return checked(verdict, typed: typed, now: now)
        case let .opened(failure):
            guard case let .opening(how) = stage else { return [] }
            if let failure { return end(failure) }
            stage = .ready
            return how == .passphrase ? [.acceptPassphrase] : [.begin]
        case .confirmed:
            guard stage == .ready else { return [] }
            return [.begin]
        case let .startRead(command):
            guard stage == .ready, startedBy == nil, let command else { return [] }
            startedBy = command
            stage = .opening(.start)
            return [.openWithStart(command)]
        case let .began(outcome):
            switch outcome {
            case .notYet:
                return []
            case .running:
                stage = .running
                if resuming { return [.showSession] }
                return [.logPassphraseFailures(gate.failures), .showLockedBanner]
            case let .failed(exit):
                return end(exit)
            }
        }
    }

    /// A verdict on the start screen's passphrase.
    mutating func checked(_ verdict: PassphraseVerdict, typed: String, now: Double) -> [LaunchEffect] {
        switch gate.apply(verdict, now: now) {
        case .accepted:
            stage = .opening(.passphrase)
            return [.openWithPassphrase(typed)]
        case let .wrong(attempt, triesLeft, wait):
            if triesLeft == 0 {
                return end(ExitStatus.wrongPassphrase, "wrong proctor passphrase \(attempt) times; nothing was started (every attempt is recorded)")
            }
            return [.tellWrongPassphrase(attempt: attempt, triesLeft: triesLeft, wait: wait)]
        case let .mustWait(seconds):
            return [.tellWait(seconds)]
        case let .unavailable(why):
            return end(ExitStatus.cannotCreate, "the proctor passphrase cannot be checked: \(why)")
        }
    }

    mutating func end(_ status: ExitStatus, _ line: String) -> [LaunchEffect] {
        end(TakeApp.Exit(status, line))
    }

    mutating func end(_ exit: TakeApp.Exit) -> [LaunchEffect] {
        stage = .exited(exit)
        return [.exit(exit)]
    }
}

/// What happened on the way to the session.
public enum LaunchMessage: Sendable, Equatable {
    case terminalFailed(term: String)
    /// `resume`: the model is already in the test.
    case resumed
    /// The first frame is on screen.
    case drawn
    /// The slow checks ran: nil when they passed, else the refusal.
    case prepared(TakeApp.Exit?)
    case passphraseTyped(String, now: Double)
    case checked(PassphraseVerdict, typed: String, now: Double)
    /// A sealed package was opened (nil), or could not be.
    case opened(TakeApp.Exit?)
    /// The student confirmed the lock.
    case confirmed
    /// What a look for the proctor's start found.
    case startRead(ProctorCommand?)
    case began(Begun)

    public enum Begun: Sendable, Equatable {
        /// Nothing began (the checks have not made the session ready).
        case notYet
        case running
        case failed(TakeApp.Exit)
    }
}

/// What the launch asks `TakeApp` to do.
public enum LaunchEffect: Sendable, Equatable {
    /// The slow checks (probes, lock, journal, the store): answered by `.prepared`.
    case prepare
    /// Answered by `.checked`.
    case checkPassphrase(String)
    /// Opens a sealed package with the accepted passphrase (nothing to open: done at once):
    /// answered by `.opened`.
    case openWithPassphrase(String)
    /// Opens a sealed package with what the proctor's start carried: answered by `.opened`.
    case openWithStart(ProctorCommand)
    /// The start screen moves on to the confirmation (or the wait for the proctor).
    case acceptPassphrase
    case tellWrongPassphrase(attempt: Int, triesLeft: Int, wait: Double)
    case tellWait(Double)
    /// Begins (or resumes) the session: answered by `.began`.
    case begin
    /// The wrong passphrases typed before the session existed go into its journal.
    case logPassphraseFailures(Int)
    /// The resumed session is shown as it stands.
    case showSession
    /// The new session is shown, under the banner that says it is locked.
    case showLockedBanner
    case exit(TakeApp.Exit)
}

/// What a launch needs from its command: the checks, the proctor's passphrase and start, the
/// sealed package and the session. `carrel take` implements it; tests give closures.
public protocol LaunchEnvironment: AnyObject {
    /// The slow checks, after the first frame and before the first key: nil when they passed.
    func prepare() -> TakeApp.Exit?
    /// The verdict on a start-screen passphrase from the attempts kept across processes; nil
    /// to check it against the test's hash here, by the same rule.
    func checkPassphrase(_ typed: String) -> PassphraseVerdict?
    /// The real test of a sealed package opened with the accepted passphrase; nil when there
    /// is nothing to open.
    func open(passphrase: String, model: TakeModel) throws(SessionError) -> TakeModel?
    /// The proctor's start for this seat once one verifies; nil until then, or when the seat
    /// does not wait for one.
    func proctorStart() -> ProctorCommand?
    /// The real test of a sealed package the proctor's start opens; nil when there is none.
    func open(start: ProctorCommand, model: TakeModel) throws(SessionError) -> TakeModel?
    /// Begins (or resumes) the session; nil when it is not ready to.
    func begin(_ app: TakeApp) throws(SessionError) -> SessionRuntime?
}

extension LaunchEnvironment {
    public func prepare() -> TakeApp.Exit? { nil }
    public func checkPassphrase(_ typed: String) -> PassphraseVerdict? { nil }
    public func open(passphrase: String, model: TakeModel) throws(SessionError) -> TakeModel? { nil }
    public func proctorStart() -> ProctorCommand? { nil }
    public func open(start: ProctorCommand, model: TakeModel) throws(SessionError) -> TakeModel? { nil }
}

/// A launch from two closures: the checks and the begin (`resume`, tests).
public final class SimpleLaunch: LaunchEnvironment {
    let checks: (() -> TakeApp.Exit?)?
    let beginning: (TakeApp) throws(SessionError) -> SessionRuntime?

    public init(prepare: (() -> TakeApp.Exit?)? = nil, begin: @escaping (TakeApp) throws(SessionError) -> SessionRuntime?) {
        checks = prepare
        beginning = begin
    }

    public func prepare() -> TakeApp.Exit? { checks?() }
    public func begin(_ app: TakeApp) throws(SessionError) -> SessionRuntime? { try beginning(app) }
}
