import AssessmentKit

/// Kinds of journal events (SPEC.md, "Session lifecycle").
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
}

/// Something that happened to a session: a key's meaning, a tick, a signal.
public enum SessionEvent: Sendable, Equatable {
    case began
    case next
    case previous
    case jump(Int)
    case answer(String, Response?)
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
    case passphrase(correct: Bool)
    /// Practice mode: the student confirmed ending early.
    case endConfirmed
    /// SIGHUP, SIGTERM, or the terminal went away.
    case hangUp(String)
}

/// What the controller must do after an update; journal writes first, in order.
public enum SessionEffect: Sendable, Equatable {
    case saveAnswer(String, Response?)
    case saveFlag(String, Bool)
    case savePosition(Int)
    case saveTime(Double)
    case log(EventKind, String)
    /// A short message for the student that does not block typing.
    case notice(String)
    /// Ignore passphrase attempts for this long.
    case passphraseBackoff(seconds: Int)
    /// Score, write the result, and run the end steps.
    case finish(EndReason)
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
