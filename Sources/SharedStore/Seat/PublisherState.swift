import AssessmentKit
import Foundation
import SessionKit

/// What a seat's publisher has learnt, as a value: the facts below go in, the actions to carry
/// out come back. Every rule of the seat's link to the store lives here (what it tells the
/// store first after an outage, when it reads the proctor's commands, when it pulses, backs off
/// or stops) and none of its I/O: `SeatPublisher` carries the actions out over a `StoreLink`.
///
/// One call to `update` returns local actions (notes for the journal, bells to ring) followed
/// by exactly one action that waits for an answer: a call to the store, a wait, a sleep, or
/// `stop`. Its answer is the next fact.
public struct PublisherState: Sendable {
    /// What the session tells the publisher, and what the store told it.
    public var session: String?
    public var elapsed: Double?
    public var announcement: SeatPublisher.Announcement?
    public internal(set) var started = false
    public internal(set) var stopping = false
    public internal(set) var hasJournal = false
    public internal(set) var storeState: SeatPublisher.StoreState = .connecting
    /// `finish` asks for the outbox to be empty (a number it raises); the publisher answers
    /// with the number it read before it found the outbox empty.
    public internal(set) var drainAsked = 0
    public internal(set) var drainAnswered = 0
    /// The room and seat whose commands are read, and the last command number read.
    public internal(set) var follow: (room: String, seat: String)?
    public internal(set) var received: Int64 = 0
    /// The room's last command when the seat joined: a start up to it was another session's.
    public internal(set) var startAfter: Int64 = 0
    /// Commands received and not yet applied or refused, in order, unverified.
    public internal(set) var inbox: [SignedCommand] = []
    /// The starts for this seat read while it waits, newest first, as the store holds them.
    public internal(set) var starts: [SignedCommand] = []
    /// Refusals a seat waiting at its start screen reports (a running session journals its own).
    public internal(set) var refusals: [String] = []
    var refusedStarts: Set<Int64> = []
    /// The keys of sessions the proctor's start gave one: their records and liveness are
    /// authenticated with it.
    public internal(set) var sessionKeys: [String: [UInt8]] = [:]
    /// The tokens sessions are proven with to the store before they have a key (announced,
    /// or kept in the journal).
    public internal(set) var tokens: [String: String] = [:]
    /// A notice of new commands came since they were last read; a listener is live.
    var commandsTold = false
    public internal(set) var listening = false
    /// Marks a proctor gave in the store are taken into the journal.
    var keepsMarks = false
    var dropConnection = false

    /// The link's own schedule.
    public internal(set) var connected = false
    /// Counts connections: a listener belongs to one.
    public internal(set) var connection = 0
    var listenerOn: Int?
    var backoff: Double
    /// The last outbox number the store confirmed.
    public internal(set) var confirmed: Int64 = 0
    var claimed = Claimed()
    var notedSession: String?
    var lastPulse = -Double.infinity
    var lastCommandRead = -Double.infinity
    var lastMarkRead = -Double.infinity
    var marksAfter: Int64 = 0
    /// When this connection may rehearse a waiting seat's begin; nil once it did. At once on
    /// the first connection; after a reconnection a few seconds later, drawn anew, so that a
    /// room's seats that lost the store together do not rehearse together when it returns.
    var rehearseAt: Double?
    var reconnecting = false
    /// A connection just made reads the proctor's commands before anything else: after an
    /// outage they are what the room waits for, and the backlog can follow them.
    var readCommandsFirst = false
    var round = Round()
    var random: SplitMix
    public let timing: Timing

    /// What proves `session` to the store: the token derived from its key once it has one
    /// (naming the token it replaces), else its own token; nil when this seat knows neither.
    public func proof(_ session: String) -> SeatProof? {
        if let key = sessionKeys[session] {
            return SeatProof(session: session, token: SessionMAC.storeToken(key: key, session: session), previous: tokens[session])
        }
        return tokens[session].map { SeatProof(session: session, token: $0) }
    }

    public init(timing: Timing = Timing(), seed: UInt64 = UInt64.random(in: 0 ... .max)) {
        self.timing = timing
        self.backoff = timing.firstBackoff
        self.random = SplitMix(seed: seed)
    }

    /// The intervals the publisher keeps (seconds). Tests shorten them.
    public struct Timing: Sendable {
        public var firstBackoff = 0.2
        /// The longest wait between two tries to reach the store: a seat of a room tries again
        /// within a second (its proctor's commands, queued while it was cut off, apply within
        /// about a second of the store's return).
        public var longestBackoff = 2.0
        public var longestBackoffInRoom = 1.0
        /// How often a running seat reports its time when it sent nothing else.
        public var pulse = SeatView.pulseInterval
        /// How often a seat of a room reads its commands with no notice; the same while a
        /// listener is live (the notices come, and a thousand seats asking every two seconds
        /// would be the store's busiest work).
        public var commandFallback = 2.0
        public var commandFallbackListening = 30.0
        /// Notices coalesce: however many come, a seat reads its commands at most once in this
        /// long for them (anyone with the seat role may NOTIFY the channel in a loop).
        public var commandNoticeGap = 0.5
        /// The longest the publisher sleeps with nothing due.
        public var idleWait = 5.0
        /// How often the marks given in the store are looked for.
        public var marks = 30.0
        /// How far apart the seats of a room rehearse after an outage.
        public var rehearsalSpread = 3.0
        /// Records sent in one batch.
        public var batchSize = 500

        public init() {}

        /// Every interval divided by `factor` (tests that run the publisher in milliseconds).
        public func faster(_ factor: Double) -> Timing {
            var t = self
            t.firstBackoff /= factor
            t.longestBackoff /= factor
            t.longestBackoffInRoom /= factor
            t.pulse /= factor
            t.commandFallback /= factor
            t.commandFallbackListening /= factor
            t.commandNoticeGap /= factor
            t.idleWait /= factor
            t.marks /= factor
            t.rehearsalSpread /= factor
            return t
        }
    }

    /// What the current connection has told the store about the seat.
    struct Claimed: Equatable {
        /// The session announced as waiting at its start screen.
        var announced: String?
        /// The session whose advisory lock this connection holds (it is live while held).
        var locked: String?
        /// The session whose authenticated claim names this connection's server process.
        var live: String?
    }

    /// What was done in one pass over everything due (a pass ends with a wait).
    struct Round {
        var asked = 0
        var lockTried = false
        var outboxEmpty = false
        var refusalsSent = false
        var commandsChecked = false
        var marksChecked = false
    }

    /// A small seeded generator: the jitter and the rehearsal delay are drawn from it, so a
    /// table test can name them.
    public struct SplitMix: Sendable {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        /// A number in 0 ..< 1.
        mutating func unit() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(1 << 53)
        }
    }
}

/// What happened, for the publisher: told by the session, or the answer to an action.
public enum PublisherFact: Sendable {
    // From the session (any thread).
    case announced(SeatPublisher.Announcement)
    case started(journal: Bool)
    case progress(session: String, elapsed: Double)
    case follow(room: String, seat: String, after: Int64)
    case authenticated(session: String, key: [UInt8])
    case proven(session: String, token: String)
    case refusal(String)
    case left
    case keepMarks
    case drainAsked
    case finishing
    // From the listener of the current connection.
    /// The listener of a connection (by its number) started or ended.
    case listening(Bool, connection: Int)
    case commandsNoticed
    // Answers to actions.
    case woke
    case connected
    case connectFailed(String)
    case failed(String)
    case helloSent(session: String)
    case unlocked
    case locked(session: String, granted: Bool)
    case commandsRead(commands: [SignedCommand], starts: [SignedCommand]?)
    case rehearsed
    case pulsed(session: String, keyed: Bool)
    case outboxEmpty
    /// `claimed`: the session whose liveness claim went with the batch.
    case batchSent(through: Int64, sent: Int, kept: Int64, session: String?, refused: String? = nil, claimed: String? = nil)
    case refusalsSent(Int)
    case marksRead(last: Int64)
}

/// What the publisher does next. The local actions (`noteStore`, `answerDrain`, `forget`,
/// `startsRead`, `commandsArrived`, `listen`, `close`) need no answer; every other one is
/// answered by a fact.
public enum StoreAction: Sendable, Equatable {
    case noteStore(session: String, words: String)
    case answerDrain(Int)
    /// The store holds the outbox through this number: the journal forgets it.
    case forget(through: Int64)
    case startsRead
    /// New commands wait in the inbox: the session is told at once.
    case commandsArrived
    /// Listens for the proctor's commands on the current connection (a task of its own).
    case listen
    case connect
    /// Closes the current connection (a new one is made for what follows).
    case close
    case hello(SeatPublisher.Announcement)
    case unlock(session: String)
    case lock(session: String)
    case readCommands(room: String, seat: String, after: Int64, startsAfter: Int64?)
    case rehearse(SeatPublisher.Announcement)
    /// The session's time; with its key, its claim to this connection's server process.
    case pulse(session: String, elapsed: Double?, key: [UInt8]?)
    /// The outbox after `after`; with `claim`, the session's liveness claim in the same call.
    case sendBatch(after: Int64, limit: Int, keys: [String: [UInt8]], claim: LiveClaim? = nil)
    case sendRefusals(session: String, details: [String])
    case readMarks(after: Int64)
    /// Waits up to this long, or until rung.
    case wait(Double)
    /// Sleeps this long whatever happens (after a failure).
    case sleep(Double)
    case stop

    /// True for the action that ends a call to `update`: it is answered by a fact.
    public var awaitsAnswer: Bool {
        switch self {
        case .noteStore, .answerDrain, .forget, .startsRead, .commandsArrived, .listen, .close: return false
        default: return true
        }
    }
}

/// A session's liveness claim due: its time used and its key (the claim's MAC is made with it).
public struct LiveClaim: Sendable, Equatable {
    public var session: String
    public var elapsed: Double?
    public var key: [UInt8]
}

extension SeatPublisher.Announcement: Equatable {
    public static func == (a: Self, b: Self) -> Bool { a.session == b.session && a.body == b.body }
}
