import AssessmentKit
import Foundation

/// The proctor passphrase check for every place that asks it — the start screen, ending a
/// session early, `resume`, `unlock`: a limited number of tries, a wait after each wrong
/// passphrase that grows and holds across processes (`PassphraseAttempts`), and a record of
/// every attempt. It never sleeps and never reads input: the caller asks, shows the wait,
/// and logs the rejections to the journal when it has one.
public final class ProctorGate {
    /// What one attempt came to.
    public enum Outcome: Sendable, Equatable {
        case accepted
        /// Wrong; `wait` seconds must pass before the next try (none left when `triesLeft` is 0).
        case rejected(triesLeft: Int, wait: Double)
        /// Not checked: a wait from earlier wrong passphrases is still running.
        case mustWait(Double)
        /// Not checked: the attempts cannot be recorded (the reason says why and what to do).
        case unavailable(String)
    }

    let hash: PassphraseHash
    let attempts: PassphraseAttempts
    let action: String
    public private(set) var triesLeft: Int

    /// `action` names what the passphrase is for in the record ("unlock 1a2b3c4d").
    public init(hash: PassphraseHash, attempts: PassphraseAttempts, tries: Int = 3, action: String) {
        self.hash = hash
        self.attempts = attempts
        self.action = action
        self.triesLeft = tries
    }

    /// Seconds before a passphrase can be checked (0: now).
    public func waitNeeded() -> Double {
        guard let record = attempts.read() else { return 0 }
        return max(0, record.nextAllowed - Date().timeIntervalSince1970)
    }

    /// Checks one typed passphrase. A passphrase over `PassphraseHash.maximumBytes` counts
    /// as wrong (it is never cut to fit).
    public func check(_ typed: String) -> Outcome {
        guard triesLeft > 0 else { return .rejected(triesLeft: 0, wait: 0) }
        let turn: PassphraseAttempts.Turn
        do {
            turn = try attempts.claim()
        } catch {
            return .unavailable("the passphrase attempts cannot be recorded (\(error)); fix or remove that file and try again")
        }
        if case let .wait(seconds) = turn { return .mustWait(seconds) }
        let accepted = hash.verify(typed)
        do {
            try attempts.record(accepted: accepted, action: action)
        } catch {
            return .unavailable("the passphrase attempt cannot be recorded (\(error)); fix or remove that file and try again")
        }
        if accepted { return .accepted }
        triesLeft -= 1
        return .rejected(triesLeft: triesLeft, wait: triesLeft > 0 ? waitNeeded() : 0)
    }
}
