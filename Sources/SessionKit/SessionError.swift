import AssessmentKit

/// Why a session could not begin, resume, be saved or be unlocked, with the sysexits code.
public enum SessionError: Error, Sendable, CustomStringConvertible {
    /// The environment refused by the policy; each entry says what and how to relax it.
    case refused([String])
    case lockHeld(LockHolder?)
    case interruptedSessions([SessionRecord])
    case noSuchSession(String)
    case nothingToResume
    case ambiguous([SessionRecord])
    /// The state directory or journal cannot be used (missing, read-only, full, a symlink).
    case state(String)
    case storedAssessment(String)
    /// A sealed assessment that cannot be opened: a wrong passphrase (77) or a damaged package (65).
    case sealed(file: String, SealedAssessment.Failure)
    case frontEnd(String)

    public var exitCode: Int32 { exitStatus.rawValue }

    public var exitStatus: ExitStatus {
        switch self {
        case .refused, .frontEnd: return .refused
        case .lockHeld, .interruptedSessions: return .lockActive
        case .noSuchSession, .nothingToResume, .ambiguous: return .usage
        case .state: return .cannotCreate
        case .storedAssessment: return .internalError
        case let .sealed(_, failure): return failure.isWrongPassphrase ? .wrongPassphrase : .invalidAssessment
        }
    }

    public var description: String {
        switch self {
        case let .refused(reasons):
            return "refused by the assessment's policy: " + reasons.joined(separator: "; ")
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
            return "cannot use the state directory: \(why); free space there or choose another with --state-dir"
        case let .storedAssessment(why):
            return "the journal's copy of the assessment cannot be read: \(why)"
        case let .sealed(file, failure):
            return failure.isWrongPassphrase ? "\(file): \(failure)" : "\(file): error: \(failure)"
        case let .frontEnd(why):
            return why
        }
    }
}
