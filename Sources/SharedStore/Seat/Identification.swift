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
    /// The roster gives each candidate a code, asked after the number.
    public let codes: Bool
    /// The number typed, while its code is asked.
    var number: String?
    /// The seat where the candidate found has a session, while they are asked whether to move it here.
    public internal(set) var movingFrom: String?

    public init(codes: Bool = false) {
        self.codes = codes
    }

    public enum Message: Sendable, Equatable {
        case start
        /// What was typed (nil: the input ended).
        case typed(String?)
        /// The code typed (nil: the input ended).
        case typedCode(String?)
        case lookedUp(number: String, RosterMatch?)
        /// Too many wrong codes for this candidate: the proctor releases them.
        case held(candidate: String)
        case lookupFailed(String)
        /// The candidate's answer to "is this you?".
        case answered(Bool)
    }

    public enum Effect: Sendable, Equatable {
        case askNumber
        /// Asked without echo.
        case askCode
        case lookUp(String, code: String?)
        case tell(Line)
        /// The console is shown both seats of a candidate seated twice.
        case reportSeatedTwice(RosterMatch)
        case askConfirmation(RosterMatch)
        /// The candidate has a session at another seat: asked whether to ask the proctor to
        /// move it to this one (`answered` says).
        case askMove(RosterMatch, from: String)
        case identified(RosterMatch)
        /// The candidate asks the proctor to move their session from that seat to this one.
        case identifiedToMove(RosterMatch, from: String)
        case fail(ExitStatus, String)
    }

    /// What the seat says between two tries.
    public enum Line: Sendable, Equatable {
        case typeTheCardNumber
        case notOnRoster(number: String)
        /// With codes: the store does not say which of the two was wrong.
        case numberOrCodeWrong
        case held(candidate: String)
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
            if codes {
                number = typed
                return [.askCode]
            }
            return [.lookUp(typed, code: nil)]
        case let .typedCode(code):
            guard let number else { return [] }
            self.number = nil
            guard let code else { return fail(.refused, "no candidate code was given; nothing was started") }
            return [.lookUp(number, code: code)]
        case let .held(candidate):
            return [.tell(.held(candidate: candidate))] + fail(.refused, "candidate \(TerminalSafety.visible(candidate, keepLineBreaks: false)) is held after too many wrong codes; nothing was started — ask the proctor")
        case let .lookupFailed(why):
            return fail(.cannotOpenInput, "cannot read the room's roster (\(why)); nothing was started")
        case let .lookedUp(number, match):
            guard let match else { return [.tell(codes ? .numberOrCodeWrong : .notOnRoster(number: number))] + next() }
            found = match
            if let elsewhere = match.seatedAt {
                movingFrom = elsewhere
                return [.askMove(match, from: elsewhere)]
            }
            return [.askConfirmation(match)]
        case let .answered(yes):
            guard let match = found else { return [] }
            found = nil
            if let from = movingFrom {
                movingFrom = nil
                if yes {
                    done = true
                    return [.identifiedToMove(match, from: from)]
                }
                return [.reportSeatedTwice(match), .tell(.seatedElsewhere(candidate: match.candidate, seat: from))] + next()
            }
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
