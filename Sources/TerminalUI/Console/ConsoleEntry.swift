import AssessmentKit
import Localization
import SessionKit

extension ProctorModel {
    /// The question line open now: minutes to add, a message, or a confirmation that names how
    /// many seats and which.
    public struct Entry: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case minutes, message, confirmEnd, confirmStart
            /// A command to several seats, asked before it goes.
            case confirmSend(ProctorAction)
            /// The spare seat to move the session (by id) to, typed.
            case moveTo(from: String)
            /// Moving a session to a spare (by session ids); `seats` names both.
            case confirmMove(from: String, to: String)
            /// Ending a seat's session as lost.
            case confirmLost(String)
        }
        public var kind: Kind
        public var text: String
        /// The seats a confirmation names (their names as the seats gave them).
        public var seats: [String] = []

        public init(kind: Kind, text: String, seats: [String] = []) {
            self.kind = kind
            self.text = text
            self.seats = seats
        }

        /// The question, in English.
        public var prompt: String { prompt(Localizer.english) }

        /// The question in the console's language, ending with a space before the answer. A
        /// confirmation names how many seats and which.
        public func prompt(_ say: Localizer) -> String {
            let yes = say("⟨key⟩y")
            let n = seats.count
            let names = Self.names(seats, say: say)
            switch kind {
            case .minutes: return say("Minutes to add:") + " "
            case .message: return say("Message:") + " "
            case .confirmEnd:
                return say("End the sessions of {0, plural, one {# seat} other {# seats}} (answers are kept and scored): {1}? {2}/N",
                           .n(n), .s(names), .s(yes)) + " "
            case .confirmStart:
                return say("Start {0, plural, one {# seat} other {# seats}} and send each its keys: {1}? {2}/N", .n(n), .s(names), .s(yes)) + " "
            case .moveTo:
                return say("Move the session at {0} to the waiting seat:", .s(names)) + " "
            case .confirmMove:
                let from = seats.first.map(ProctorView.name) ?? ""
                let to = seats.dropFirst().first.map(ProctorView.name) ?? ""
                return say("Move the session from {0} to {1} (its keys go to {1}; {0} can write nothing more)? {2}/N",
                           .s(from), .s(to), .s(yes)) + " "
            case .confirmLost:
                return say("End the session at {0} as lost (the seat will not come back; its result is made from the store)? {1}/N",
                           .s(names), .s(yes)) + " "
            case let .confirmSend(action):
                switch action {
                case .pause: return say("Pause {0, plural, one {# seat} other {# seats}}: {1}? {2}/N", .n(n), .s(names), .s(yes)) + " "
                case .resume: return say("Continue {0, plural, one {# seat} other {# seats}}: {1}? {2}/N", .n(n), .s(names), .s(yes)) + " "
                case .acknowledge:
                    return say("Acknowledge the hands of {0, plural, one {# seat} other {# seats}}: {1}? {2}/N", .n(n), .s(names), .s(yes)) + " "
                case let .addTime(seconds):
                    return say("Add {0} min for {1, plural, one {# seat} other {# seats}}: {2}? {3}/N",
                               .n(seconds / 60), .n(n), .s(names), .s(yes)) + " "
                case .message:
                    return say("Send the message to {0, plural, one {# seat} other {# seats}}: {1}? {2}/N", .n(n), .s(names), .s(yes)) + " "
                case .start, .end:
                    return say("Send {0} to {1, plural, one {# seat} other {# seats}}: {2}? {3}/N",
                               .s(ProctorModel.commandWords(action.name, say)), .n(n), .s(names), .s(yes)) + " "
                }
            }
        }

        /// The most seats a confirmation names one by one.
        static let namedSeats = 12

        /// "A1 A2 A3", or the first twelve and how many more.
        static func names(_ seats: [String], say: Localizer) -> String {
            let shown = seats.prefix(namedSeats).map(ProctorView.name).joined(separator: " ")
            guard seats.count > namedSeats else { return shown }
            return say("{0} and {1} more", .s(shown), .n(seats.count - namedSeats))
        }
    }
}
