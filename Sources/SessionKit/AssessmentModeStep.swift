import AssessmentKit
@_exported import AssessmentMode
import Foundation

/// The assessment-mode service as a session sees it (an OS edge: the real one speaks to
/// `carrel-assessmentd` over its socket; tests give their own).
public protocol AssessmentModeLink: Sendable {
    /// Asks the service to begin the mode; the link owns it until `end` or `leave`.
    func begin(_ request: ModeBegin) -> ModeOutcome
    /// Takes over the mode an interrupted session left (the proctor's passphrase).
    func resume(session: String, passphrase: String) -> ModeOutcome
    /// Ends an interrupted session's mode early (the proctor's passphrase).
    func unlock(session: String, passphrase: String) -> ModeOutcome
    /// Ends the mode this link owns: nil when the service said ended, else why not.
    func end() -> String?
    /// Lets go of the mode without ending it (the session was interrupted): the machine stays
    /// restricted, as AAC keeps a Mac after its app crashed.
    func leave()
    /// What happened on the machine since the last call.
    func incidents() -> [Incident]
}

public enum ModeOutcome: Sendable, Equatable {
    case began([StepReport])
    case ended
    case failed(String)
    /// No service on this machine (or it could not be asked): why, in words.
    case unavailable(String)
}

extension SessionLifecycle {
    /// The begin step of assessment mode: asked for unless the policy says `machine: off`. A
    /// test that says `machine: lock` does not begin without it (exit 69); `prefer` begins and
    /// says in the journal why the machine was not locked.
    func assessmentModeStep() -> OperationSequence.Step {
        .init("assessment_mode", perform: { [self] in try beginAssessmentMode() }, undo: { [self] in endAssessmentMode() })
    }

    func beginAssessmentMode() throws {
        let policy = assessment.policy.machinePolicy
        guard policy.machineMode != .off, let link = context.assessmentMode else { return }
        let request = ModeBegin(
            session: record.id, candidate: record.candidate, seat: record.options.shared?.seat, policy: policy,
            store: context.storeEndpoints, maxDuration: assessment.policy.maxDuration,
            passphraseHash: assessment.proctor.passphrase?.description)
        var outcome: ModeOutcome
        switch mode {
        case .begin:
            outcome = link.begin(request)
        case .resume:
            outcome = link.resume(session: record.id, passphrase: context.modePassphrase ?? "")
            // The mode did not outlive the interruption (the service was restarted, the machine
            // rebooted, or it never began): the resumed session asks for it afresh.
            if case let .failed(why) = outcome, why.hasPrefix(Self.noMode) { outcome = link.begin(request) }
        case .unlock:
            outcome = link.unlock(session: record.id, passphrase: context.modePassphrase ?? "")
        }
        // The machine held by another session's mode (one the account began itself, before the
        // exam) is never a quiet `prefer`: the session would run on a machine locked to other
        // rules. It does not begin, and says who holds the machine.
        if mode != .unlock, case let .failed(why) = outcome, why.hasPrefix(Self.heldByAnother) {
            log(.assessmentMode, "not begun: \(why)")
            throw SessionError.refused(["this machine is held in assessment mode by another session (\(why)); ask your proctor: "
                + "an administrator frees it with `systemctl restart carrel-assessmentd`"])
        }
        // The service refused the machine as it found it (a program of the student's between
        // the login and Carrel under `processes: end`): a `prefer` would run the exam unwatched.
        if mode != .unlock, case let .failed(why) = outcome, why.hasPrefix(ModeWire.refusedHere) {
            log(.assessmentMode, "not begun: \(why)")
            throw SessionError.refused([why])
        }
        switch outcome {
        case let .began(steps):
            modeHeld = true
            log(.assessmentMode, "began: " + Self.words(steps))
        case .ended:
            log(.assessmentMode, "ended on unlock")
        case let .failed(why), let .unavailable(why):
            // Unlocking a session whose machine was never locked, or was restored, is not a failure.
            if mode == .unlock {
                log(.assessmentMode, "not ended: \(why)")
                if !why.hasPrefix(Self.noMode) && !why.hasPrefix("no assessment-mode service") { modeNote = why }
                return
            }
            log(.assessmentMode, "not begun: \(why)")
            if policy.machineMode == .lock {
                throw SessionError.refused(["assessment mode (policy machine: lock): \(why)"])
            }
        }
    }

    static let heldByAnother = ModeWire.heldByAnother
    static let noMode = ModeWire.noMode

    /// Ends the mode with the session; an interrupted session leaves it running.
    func endAssessmentMode() {
        guard modeHeld, let link = context.assessmentMode else { return }
        modeHeld = false
        if case .interrupted = finalization {
            log(.assessmentMode, "left running: the session was interrupted")
            link.leave()
            return
        }
        if let problem = link.end() {
            log(.assessmentMode, "not ended: \(problem)")
        } else {
            log(.assessmentMode, "ended")
        }
    }

    /// "network: carrel1 (uid 1001) reaches 10.0.0.5:5432 only; consoles: not applied (no virtual console)".
    static func words(_ steps: [StepReport]) -> String {
        guard !steps.isEmpty else { return "no restriction asked" }
        return steps.map { "\($0.kind.rawValue): \($0.applied ? $0.detail : "not applied (\($0.detail))")" }.joined(separator: "; ")
    }
}
