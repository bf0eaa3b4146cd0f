import AssessmentKit
import Foundation

extension ExtraTime {
    /// The roster's accommodation as the results give it: `1.5x`, `+15m`, `unlimited`, or ""
    /// for none.
    public var rosterText: String {
        switch self {
        case .none: return ""
        case let .multiplier(m): return "\(PointsText.format(m))x"
        case let .add(seconds): return "+\(DurationText.format(seconds))"
        case .unlimited: return "unlimited"
        }
    }
}

/// Time a proctor added to one session (`proctor time`), as its seat applied it.
public struct TimeAddition: Sendable, Equatable, Codable {
    public var seconds: Int
    /// The store's number of the command.
    public var command: Int64
    /// When the seat applied it (ISO-8601 UTC).
    public var appliedAt: String
    /// Who issued it and when, as the shared store recorded the command (nil where only the
    /// seat's journal is read).
    public var issuedBy: String?
    public var issuedAt: String?

    enum CodingKeys: String, CodingKey {
        case seconds, command
        case appliedAt = "applied_at"
        case issuedBy = "issued_by"
        case issuedAt = "issued_at"
    }

    public init(seconds: Int, command: Int64, appliedAt: String, issuedBy: String? = nil, issuedAt: String? = nil) {
        self.seconds = seconds
        self.command = command
        self.appliedAt = appliedAt
        self.issuedBy = issuedBy
        self.issuedAt = issuedAt
    }

    /// `10m by ann at 2026-11-28T07:00:00Z` (the seat's time when no issuer is known; no
    /// leading `+`, which a spreadsheet would take for a formula).
    public var text: String {
        DurationText.format(seconds) + (issuedBy.map { " by \($0)" } ?? "") + " at \(issuedAt ?? appliedAt)"
    }
}

/// A session moved from one seat to another (`carrel proctor move`), as the store's `moves` keep it.
public struct SeatMove: Sendable, Equatable, Codable {
    public var from: String
    public var to: String
    public var at: String
    public var by: String?

    public init(from: String, to: String, at: String, by: String?) {
        self.from = from
        self.to = to
        self.at = at
        self.by = by
    }

    /// `A1 → B2 at … by …`.
    public var text: String { "\(from) → \(to) at \(at)" + (by.map { " by \($0)" } ?? "") }
}

/// What every results export says of a session's time and of the proctor's hand in it: the
/// time allowed, the roster's extra time, the time the proctor added (each addition), the
/// pauses, and the moves to another seat.
public struct SessionAccount: Sendable, Equatable {
    /// The whole time the candidate had, in seconds: the test's limit with the roster's extra
    /// time, plus the time the proctor added; nil without a limit (or unlimited).
    public var timeAllowedSeconds: Int?
    /// The roster's extra time (`ExtraTime.rosterText`), "" for none.
    public var extraTime: String
    public var timeAdded: [TimeAddition]
    /// Pause commands the seat applied.
    public var pauses: Int
    public var moves: [SeatMove]

    public var timeAddedSeconds: Int { timeAdded.reduce(0) { $0 + $1.seconds } }

    public init(timeAllowedSeconds: Int? = nil, extraTime: String = "", timeAdded: [TimeAddition] = [], pauses: Int = 0,
                moves: [SeatMove] = []) {
        self.timeAllowedSeconds = timeAllowedSeconds
        self.extraTime = extraTime
        self.timeAdded = timeAdded
        self.pauses = pauses
        self.moves = moves
    }

    /// From a session's events: the proctor's commands it applied (`#ID[.SEQ] time N`,
    /// `#ID[.SEQ] pause`); `limit` is the time allowed before any was added (the test's
    /// limit with the extra time), nil for none.
    public init(events: [JournalEvent], limit: Int?, extraTime: ExtraTime) {
        self.init(extraTime: extraTime.rosterText)
        for event in events where event.kind == EventKind.proctorCommand.rawValue {
            guard let command = ProctorCommand(journalDetail: event.detail) else { continue }
            switch command.action {
            case let .addTime(seconds):
                timeAdded.append(TimeAddition(seconds: seconds, command: command.id, appliedAt: Timestamp.iso(event.at)))
            case .pause: pauses += 1
            default: break
            }
        }
        timeAllowedSeconds = limit.map { $0 + timeAddedSeconds }
    }

    /// Each addition with who issued it and when, from the store's commands by number.
    public mutating func issued(_ commands: [Int64: (by: String, at: String)]) {
        for i in timeAdded.indices {
            guard let issued = commands[timeAdded[i].command] else { continue }
            timeAdded[i].issuedBy = issued.by
            timeAdded[i].issuedAt = issued.at
        }
    }

    /// The CSV cells of the columns `SessionAccount.columns` names, in order.
    public var cells: [String] {
        [timeAllowedSeconds.map(String.init) ?? "", extraTime, "\(timeAddedSeconds)",
         timeAdded.map(\.text).joined(separator: "; "), "\(pauses)", moves.map(\.text).joined(separator: "; ")]
    }

    public static let columns = ["time_allowed_seconds", "extra_time", "time_added_seconds", "time_added", "pauses", "moves"]
}

/// A session's status in words, the same in every export: what became of it (`outcome`:
/// finished, interrupted, ended, refused, running, or the store's own word for a status
/// this Carrel does not know) and a phrase for people (`words`).
public struct SessionStanding: Sendable, Equatable {
    public var outcome: String
    public var words: String

    /// `status` is the status as `results` reports it: an end reason (`submitted`,
    /// `timed_out`, `ended_by_proctor`, `ended_by_candidate`, `seat_lost`), `interrupted`,
    /// `active`, a refusal (`wrong_test`, `candidate_twice`), or any other word.
    public init(status: String, hasResult: Bool) {
        let none = hasResult ? "" : "; no result"
        switch status {
        case "submitted": (outcome, words) = ("finished", "finished, submitted")
        case "timed_out": (outcome, words) = ("finished", "finished, time ran out")
        case "ended_by_proctor": (outcome, words) = ("ended", "ended by the proctor" + none)
        case "ended_by_candidate": (outcome, words) = ("ended", "ended by the candidate" + none)
        case "seat_lost": (outcome, words) = ("ended", "ended by the proctor, seat lost" + none)
        case "interrupted": (outcome, words) = ("interrupted", "interrupted, never resumed" + none)
        case "active", "review", "ending", "beginning": (outcome, words) = ("running", "running" + none)
        case "abandoned": (outcome, words) = ("ended", "interrupted, then ended with carrel unlock" + none)
        case "wrong_test": (outcome, words) = ("refused", "refused attempt: the seat had another test")
        case "candidate_twice": (outcome, words) = ("refused", "refused attempt: the candidate was seated twice")
        case "moved": (outcome, words) = ("moved", "moved to another seat" + none)
        case "no_proctor_start": (outcome, words) = ("refused", "refused: no start signed by the proctor (its result, if any, is not counted)")
        default:
            let word = TerminalSafety.visible(String(status.prefix(60)), keepLineBreaks: false)
            (outcome, words) = (word, word.replacingOccurrences(of: "_", with: " ") + none)
        }
    }
}
