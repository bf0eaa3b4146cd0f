/// The one rule for the wait after wrong proctor passphrases, wherever one is asked (the
/// start screen, ending a session early, `resume`, `unlock`) and whoever keeps the count
/// (the session state, or the attempts file that holds across processes): 1 s after the
/// first wrong passphrase, then twice as long after each, up to 15 minutes.
public enum PassphraseBackoff {
    /// The longest wait, whatever the count.
    public static let maximumDelay = 900.0

    /// Seconds to wait after `failures` wrong passphrases in a row (0 after none).
    public static func delay(afterFailures failures: Int) -> Double {
        guard failures > 0 else { return 0 }
        // 2^(n-1), with the exponent capped well before the maximum so nothing overflows.
        return min(Double(1 << min(failures - 1, 20)), maximumDelay)
    }
}

/// A proctor passphrase prompt, as a pure value: how many tries are left, until when typing
/// waits, and what each verdict means. The start screen keeps one, the session state keeps
/// one for "ask your proctor"; the attempts file that holds across processes decides the
/// same way (`ProctorGate`), and a prompt without it (a test, practice) uses `verdict(correct:)`,
/// which follows the same rule.
public struct PassphrasePrompt: Sendable, Equatable {
    /// Tries each time the prompt opens.
    public static let tries = 3

    /// Wrong passphrases since the process began (the waits grow with them).
    public private(set) var failures = 0
    /// Wrong passphrases since the prompt last opened.
    public private(set) var failuresThisTime = 0
    /// Typing is refused until this instant (the caller's clock).
    public private(set) var blockedUntil = -Double.infinity

    public init() {}

    /// What one verdict came to, for the screen.
    public enum Step: Sendable, Equatable {
        case accepted
        /// Wrong: `attempt` of this opening, `triesLeft` before the prompt closes, a wait.
        case wrong(attempt: Int, triesLeft: Int, wait: Double)
        /// Not checked: typed during a wait.
        case mustWait(Double)
        /// Not checked: the attempts cannot be recorded.
        case unavailable(String)
    }

    /// Seconds still to wait before a passphrase may be checked; nil when it may be now.
    public func wait(now: Double) -> Double? {
        now < blockedUntil ? blockedUntil - now : nil
    }

    /// The verdict of a check made here (no attempts file): the rule the attempts file keeps,
    /// which makes every wrong passphrase wait, the last of a prompt's tries included (the
    /// prompt opened again is not a free try).
    public func verdict(correct: Bool) -> PassphraseVerdict {
        if correct { return .accepted }
        let left = max(0, Self.tries - failuresThisTime - 1)
        return .rejected(triesLeft: left, wait: PassphraseBackoff.delay(afterFailures: failures + 1))
    }

    /// Takes a verdict at `now`.
    public mutating func apply(_ verdict: PassphraseVerdict, now: Double) -> Step {
        switch verdict {
        case .accepted:
            failuresThisTime = 0
            return .accepted
        case let .rejected(triesLeft, wait):
            failures += 1
            failuresThisTime += 1
            blockedUntil = max(blockedUntil, now + wait)
            return .wrong(attempt: failuresThisTime, triesLeft: max(0, triesLeft), wait: wait)
        case let .mustWait(seconds):
            blockedUntil = max(blockedUntil, now + seconds)
            return .mustWait(seconds)
        case let .unavailable(why):
            return .unavailable(why)
        }
    }

    /// The prompt opens again (after its tries ran out): a new set of tries; a wait holds.
    public mutating func reopen() { failuresThisTime = 0 }
}
