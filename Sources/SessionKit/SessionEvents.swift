import Localization
import AssessmentKit

/// Kinds of journal events (docs/security-model.md, "The evidence it records").
public enum EventKind: String, Sendable, Codable, CaseIterable {
    case beginRequested = "begin_requested"
    case began
    case failedToBegin = "failed_to_begin"
    case interrupted, resumed, ended
    case pasteboardCleared = "pasteboard_cleared"
    case pasteBlocked = "paste_blocked"
    case exitAttempt = "exit_attempt"
    case passphraseFailed = "passphrase_failed"
    case focusLost = "focus_lost"
    case focusRegained = "focus_regained"
    case resized
    case timeWarning = "time_warning"
    case timedOut = "timed_out"
    case submitted
    case unlocked
    case tracerAttached = "tracer_attached"
    case saveFailed = "save_failed"
    /// A person marked an item (or overrode its score) after the session ended.
    case marked
    /// A proctor's command applied (`#ID NAME[ ARGUMENT]`, see `ProctorCommand`).
    case proctorCommand = "proctor_command"
    /// The student called the proctor.
    case handRaised = "hand_raised"
    /// A command the seat did not apply (`#ID refused: REASON`): unsigned, a signature that
    /// does not verify, for another room, seat or test, expired, or replayed.
    case commandRefused = "command_refused"
    /// The public key this seat announced and the proctor's start wrapped the session's key to
    /// (standard base64): `resume` derives the session's key again from it and the passphrase.
    case seatKey = "seat_key"
    /// The session continues at this seat, moved by the proctor from another (`MoveOrder`):
    /// from which seat, by which command, and which of its records the store never received.
    case moved
    /// Assessment mode for the whole machine: began (its steps), not begun (why), ended, or
    /// left running by an interrupted session.
    case assessmentMode = "assessment_mode"
    /// Something assessment mode saw on the machine: a login, a device, another program.
    case machineIncident = "machine_incident"
}

public enum SessionStatus: String, Sendable, Codable {
    case notStarted = "not_started"
    case beginning, active, review, ending, ended
    case failedToBegin = "failed_to_begin"
    case interrupted
    /// An interrupted session a proctor gave up with `carrel unlock`.
    case abandoned
}

public enum EndReason: String, Sendable, Codable, Equatable {
    case submitted
    case timedOut = "timed_out"
    case endedByProctor = "ended_by_proctor"
    /// A practice test (no proctor passphrase) the student ended early.
    case endedByCandidate = "ended_by_candidate"
    /// The proctor ended a session whose seat will not come back (`carrel proctor lost`): its
    /// result is made from the records the store kept of it.
    case seatLost = "seat_lost"
}

/// Something that happened to a session: a key's meaning, a tick, a signal.
public enum SessionMessage: Sendable, Equatable {
    case began
    case next
    case previous
    case jump(Int)
    /// A chosen answer (a choice, a flag of truth, an order, a match): saved at once.
    case answer(String, Response?)
    /// Typed text changed: kept as an unsaved draft, saved after a pause, at least every
    /// `SessionState.draftMaxAge` seconds while typing goes on, and before any way out.
    case edit(String, Response?)
    case toggleFlag(String)
    case openReview
    case closeReview
    case submitRequested
    case submitConfirmed
    case cancelPrompt
    /// Active seconds used so far, from the monotonic clock.
    case tick(elapsed: Double)
    case pasteAttempt(characters: Int)
    case focusLost
    case focusRegained
    case resized(columns: Int, rows: Int)
    /// Ctrl-C, Ctrl-Z, Ctrl-\, the quit key, or the matching signal.
    case exitAttempt(String)
    /// A passphrase checked here (no attempts file): the verdict follows `PassphrasePrompt`'s rule.
    case passphrase(correct: Bool)
    /// A passphrase checked by the attempts file that holds across processes, or refused
    /// unchecked (`mustWait`, `unavailable`).
    case passphraseChecked(PassphraseVerdict)
    /// Practice mode: the student confirmed ending early.
    case endConfirmed
    /// SIGHUP, SIGTERM, any other catchable terminating signal, or the terminal went away.
    case hangUp(String)
    /// A tracer (debugger, strace) attached to the running session.
    case tracerAttached(pid: Int)
    /// Assessment mode saw something on the machine (a login, a device, another program).
    case machineIncident(kind: String, detail: String, action: String)
    /// A proctor's command from the shared store (applied once: a command already applied is
    /// ignored).
    case proctor(ProctorCommand)
    /// The room's commands up to this number came before the session began: none is applied.
    case commandsBefore(Int64)
    /// A command read from the store that the seat refused (logged, never applied).
    case commandRefused(id: Int64, CommandRefusal)
    /// The student asked for the proctor (the raise-hand key).
    case raiseHand
    /// The student read the proctor's message (any key closes its box).
    case dismissMessage
    /// The end steps recorded the session's result: it has ended.
    case endRecorded
    /// The end steps ran without a result (a signal, a lost terminal, a way out that could
    /// not be recorded): the session waits for the proctor's `resume` or `unlock`.
    case leftForProctor
}

/// What the runtime must do after an update: the journal writes of one message commit in
/// one transaction before anything else happens.
public enum SessionEffect: Sendable, Equatable {
    case saveAnswer(String, Response?)
    case saveFlag(String, Bool)
    /// Position and active seconds used: a few bytes, whatever the assessment's size.
    case saveProgress(position: Int, elapsed: Double)
    case log(EventKind, String)
    /// A short message for the student that does not block typing.
    case notice(Phrase)
    /// Score, write the result, and run the end steps.
    case finish(EndReason)
    /// Ring the terminal bell (a time warning).
    case bell
    /// Save, mark interrupted, and run the end steps without a result.
    case interrupt(String)
}

/// A question the session is waiting on the student or proctor to answer.
public enum SessionPrompt: Sendable, Equatable {
    case confirmSubmit
    /// "Ask your proctor to end this session" with a passphrase field.
    case proctor
    /// Practice mode: "End the session now? y/N".
    case confirmEnd
}
