import AssessmentKit
import SessionKit

/// A candidate identifying at a seat of a room with a roster, as a value: the number asked at
/// most five times, each looked up on the roster, a candidate seated elsewhere reported to the
/// console, the name confirmed by the candidate. `carrel take` asks and looks up; every rule
/// and refusal (with its exit code) is here.
public struct Identification: Sendable, Equatable {
    public static let tries = 5
    /// Numbers asked so far.
    public internal(set) var asked = 0
    /// The candidate found, waiting for the candidate's confirmation.
    public internal(set) var found: RosterMatch?
    public internal(set) var done = false

    public init() {}

    public enum Message: Sendable, Equatable {
        case start
        /// What was typed (nil: the input ended).
        case typed(String?)
        case lookedUp(number: String, RosterMatch?)
        case lookupFailed(String)
        /// The candidate's answer to "is this you?".
        case answered(Bool)
    }

    public enum Effect: Sendable, Equatable {
        case askNumber
        case lookUp(String)
        case tell(Line)
        /// The console is shown both seats of a candidate seated twice.
        case reportSeatedTwice(RosterMatch)
        case askConfirmation(RosterMatch)
        case identified(RosterMatch)
        case fail(ExitStatus, String)
    }

    /// What the seat says between two tries.
    public enum Line: Sendable, Equatable {
        case typeTheCardNumber
        case notOnRoster(number: String)
        case seatedElsewhere(candidate: String, seat: String)
    }

    public mutating func update(_ message: Message) -> [Effect] {
        if done { return [] }
        switch message {
        case .start:
            return next()
        case let .typed(typed):
            guard let typed = typed?.trimmingCharacters(in: .whitespaces) else {
                return fail(.refused, "no candidate number was given; nothing was started")
            }
            if typed.isEmpty || typed.count > 64 || TerminalSafety.firstUnsafe(in: typed) != nil {
                return [.tell(.typeTheCardNumber)] + next()
            }
            return [.lookUp(typed)]
        case let .lookupFailed(why):
            return fail(.cannotOpenInput, "cannot read the room's roster (\(why)); nothing was started")
        case let .lookedUp(number, match):
            guard let match else { return [.tell(.notOnRoster(number: number))] + next() }
            if let elsewhere = match.seatedAt {
                return [.reportSeatedTwice(match), .tell(.seatedElsewhere(candidate: match.candidate, seat: elsewhere))] + next()
            }
            found = match
            return [.askConfirmation(match)]
        case let .answered(yes):
            guard let match = found else { return [] }
            found = nil
            if yes {
                done = true
                return [.identified(match)]
            }
            return next()
        }
    }

    /// The next try, or the end of them.
    mutating func next() -> [Effect] {
        guard asked < Self.tries else {
            return fail(.refused, "the candidate was not identified; nothing was started — ask the proctor")
        }
        asked += 1
        return [.askNumber]
    }

    mutating func fail(_ status: ExitStatus, _ message: String) -> [Effect] {
        done = true
        return [.fail(status, message)]
    }
}
