import AssessmentKit
import Foundation

/// What a proctor can tell a seat from the console or `carrel proctor ACTION`.
public enum ProctorAction: Sendable, Equatable {
    /// Begin a seat waiting for the proctor (`--start proctor`); a running seat ignores it.
    case start
    /// Stop the clock; answers are saved and answer keys wait until `resume`.
    case pause
    case resume
    /// Seconds added to the time allowed (kept within the session cap).
    case addTime(seconds: Int)
    /// One line shown in a box until the student presses a key, and spoken.
    case message(String)
    /// End the seat's session: answers kept and scored, "ended by the proctor".
    case end
    /// The proctor saw the raised hand and is coming.
    case acknowledge

    /// The longest message a proctor may send, in characters.
    public static let messageLimit = 500

    /// The name used in the store and the journal.
    public var name: String {
        switch self {
        case .start: return "start"
        case .pause: return "pause"
        case .resume: return "resume"
        case .addTime: return "time"
        case .message: return "message"
        case .end: return "end"
        case .acknowledge: return "acknowledge"
        }
    }

    /// The action's argument as stored (seconds added, or the message's text).
    public var argument: String? {
        switch self {
        case let .addTime(seconds): return String(seconds)
        case let .message(text): return text
        default: return nil
        }
    }

    /// An action read back from the store or the journal: anything malformed is nil. A
    /// message is made safe to show (no escape sequence, control or invisible character acts
    /// on the terminal) and cut to the limit.
    public init?(name: String, argument: String?) {
        switch name {
        case "start": self = .start
        case "pause": self = .pause
        case "resume": self = .resume
        case "end": self = .end
        case "acknowledge": self = .acknowledge
        case "time":
            guard let argument, let seconds = Int(argument), seconds > 0, seconds <= 86_400 * 7 else { return nil }
            self = .addTime(seconds: seconds)
        case "message":
            guard let argument else { return nil }
            let safe = TerminalSafety.visible(String(argument.prefix(Self.messageLimit)), keepLineBreaks: false)
            guard !safe.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            self = .message(String(safe.prefix(Self.messageLimit * 2)))
        default: return nil
        }
    }
}

/// A proctor's command as a seat applies it: numbered by the store, in the order issued,
/// with the sequence number the proctor signed (0 only in tests and rehearsals).
public struct ProctorCommand: Sendable, Equatable {
    public var id: Int64
    public var action: ProctorAction
    public var sequence: Int64
    /// A start's secrets, wrapped to this seat (never journalled), and the seat key they were
    /// wrapped to.
    public var keys: String?
    public var seatKey: String?
    /// A start that moves another session here (its keys are that session's).
    public var move: MoveOrder?

    public init(id: Int64, action: ProctorAction, sequence: Int64 = 0, keys: String? = nil, seatKey: String? = nil,
                move: MoveOrder? = nil) {
        self.move = move
        self.id = id
        self.action = action
        self.sequence = sequence
        self.keys = keys
        self.seatKey = seatKey
    }

    /// The journal's detail for an applied command: `#ID[.SEQUENCE] NAME[ ARGUMENT]`.
    public var journalDetail: String {
        "#\(id)" + (sequence > 0 ? ".\(sequence)" : "") + " \(action.name)" + (action.argument.map { " \($0)" } ?? "")
    }

    /// The journal's detail for the room's commands a session skips because they came before
    /// it began.
    public static func seenDetail(_ id: Int64) -> String { "#\(id) before this session" }

    static func seenBefore(_ detail: String) -> Int64? {
        guard detail.hasPrefix("#"), detail.hasSuffix(" before this session") else { return nil }
        return Int64(detail.dropFirst().dropLast(" before this session".count))
    }

    /// The journal's detail for a command the seat refused: `#ID refused: REASON`.
    public static func refusedDetail(_ id: Int64, _ reason: CommandRefusal) -> String { "#\(id) refused: \(reason)" }

    static func refused(_ detail: String) -> Int64? {
        guard detail.hasPrefix("#"), let space = detail.firstIndex(of: " "),
              detail[space...].hasPrefix(" refused: ") else { return nil }
        return Int64(detail[detail.index(after: detail.startIndex)..<space])
    }

    /// Reads `journalDetail` back (nil when it is not one).
    public init?(journalDetail detail: String) {
        guard detail.hasPrefix("#") else { return nil }
        let rest = detail.dropFirst()
        let parts = rest.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        let numbers = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = Int64(numbers[0]), id > 0 else { return nil }
        var sequence: Int64 = 0
        if numbers.count == 2 {
            guard let signed = Int64(numbers[1]), signed > 0 else { return nil }
            sequence = signed
        }
        guard let action = ProctorAction(name: String(parts[1]), argument: parts.count > 2 ? String(parts[2]) : nil)
        else { return nil }
        self.init(id: id, action: action, sequence: sequence)
    }
}

/// A raised hand, as the seat shows it.
public enum RaisedHand: Sendable, Equatable {
    case down
    /// "The proctor has been called".
    case raised
    /// "The proctor is coming".
    case acknowledged
}

/// What the proctor's commands have made of a session: paused, time added, a message
/// waiting to be read, a raised hand, and the last command applied (each is applied once).
public struct RoomControl: Sendable, Equatable {
    public var paused = false
    public var addedSeconds = 0
    public var message: String?
    public var hand: RaisedHand = .down
    public var lastCommand: Int64 = 0
    /// The proctor's sequence number of the last command applied: a command signed with a
    /// number not above it is refused (a replay, or one issued before this session).
    public var lastSequence: Int64 = 0
    /// A proctor's console watches this session (it publishes to a shared store).
    public var watched = false

    public init(watched: Bool = false) {
        self.watched = watched
    }

    /// The state a session's journal events leave (for `resume`): commands applied, in order.
    /// A message already shown is not shown again.
    public static func replay(_ events: [JournalEvent], watched: Bool) -> RoomControl {
        var control = RoomControl(watched: watched)
        for event in events {
            if event.kind == EventKind.handRaised.rawValue {
                control.hand = .raised
                continue
            }
            if event.kind == EventKind.commandRefused.rawValue, let refused = ProctorCommand.refused(event.detail) {
                control.lastCommand = max(control.lastCommand, refused)
                continue
            }
            guard event.kind == EventKind.proctorCommand.rawValue else { continue }
            if let seen = ProctorCommand.seenBefore(event.detail) {
                control.lastCommand = max(control.lastCommand, seen)
                continue
            }
            guard let command = ProctorCommand(journalDetail: event.detail) else { continue }
            control.lastCommand = max(control.lastCommand, command.id)
            control.lastSequence = max(control.lastSequence, command.sequence)
            switch command.action {
            case .pause: control.paused = true
            case .resume: control.paused = false
            case let .addTime(seconds): control.addedSeconds += seconds
            case .acknowledge: if control.hand == .raised { control.hand = .acknowledged }
            case .start, .message, .end: break
            }
        }
        return control
    }
}

/// How a session in a room began: by the proctor's start command, or by the candidate after
/// the room's commands numbered up to `seen` (which are not this session's).
public struct RoomStart: Sendable, Equatable {
    public var command: ProctorCommand?
    public var seen: Int64

    public init(command: ProctorCommand? = nil, seen: Int64 = 0) {
        self.command = command
        self.seen = seen
    }
}
