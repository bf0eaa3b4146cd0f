import AssessmentKit
import Foundation
import SessionKit
import Synchronization

/// Copies a seat's journal records to the lab's shared store from a task of its own (`run`, a
/// child task of the command, beside the session's thread): the session never waits for it.
/// It reads the journal's outbox (filled in the same transaction as each write), inserts
/// records keyed by session and sequence (a record sent twice is kept once), and forgets them
/// locally once the store has them. While the store is down, slow or restarting, records wait
/// in the outbox and the publisher tries again (0.2 s, doubling to 2 s). Its connection holds
/// an advisory lock named after the running session, so the proctor's console sees at once
/// when the seat's process is gone.
///
/// Every decision is `PublisherState`'s; this class keeps that value behind one lock, tells it
/// what the session and the store said, and carries out what it asks over a `StoreLink`.
public final class SeatPublisher: SessionPublishing, Sendable {
    public enum StoreState: Sendable, Equatable {
        case connecting
        case connected
        case unreachable(String)
        /// The store answers but did not keep a record as this seat sent it (something
        /// written there first took its place): the journal keeps it, the proctor must know.
        case notKept(String)

        public var words: String {
            switch self {
            case .connecting: return "connecting"
            case .connected: return "connected"
            case let .unreachable(why): return "not reachable (\(why))"
            case let .notKept(why): return "did not keep what this seat sent (\(why)); tell the proctor"
            }
        }
    }

    /// A seat waiting at its start screen: shown to the proctor as "not started" under the
    /// session id it will begin with, until it begins.
    public struct Announcement: Sendable {
        public var session: String
        public var label: SharedLabel
        public var candidate: String?
        public var assessmentID: String
        public var assessmentTitle: String
        /// The seat's public key for the proctor's start (`SeatBox`), when it waits for one.
        public var boxKey: String?
        /// The token the session is proven with (the label's, or a fresh one).
        public var token: String

        public init(session: String, label: SharedLabel, candidate: String?, assessmentID: String, assessmentTitle: String,
                    boxKey: String? = nil) {
            self.boxKey = boxKey
            self.token = label.storeToken ?? SessionMAC.randomToken()
            self.session = session
            self.label = label
            self.candidate = candidate
            self.assessmentID = assessmentID
            self.assessmentTitle = assessmentTitle
        }

        var body: String {
            let string = JSONLiteral.string
            return """
                {"room":\(string(label.room)),"seat":\(string(label.seat)),"candidate":\(JSONLiteral.optional(candidate)),\
                "assessment_id":\(string(assessmentID)),"assessment_title":\(string(assessmentTitle)),"total":\(label.total),\
                "time_allowed_seconds":\(label.timeAllowed.map(String.init) ?? "null"),"pid":\(getpid()),\
                "candidate_number":\(JSONLiteral.optional(label.candidateNumber)),"box_key":\(JSONLiteral.optional(boxKey))\
                \(JSONLiteral.attestationField(label.attestation))}
                """
        }
    }

    /// Where the publisher's time comes from: the session clock's monotonic seconds, and its
    /// waits (until a bell rings, or for a fixed time).
    public struct Clock: Sendable {
        public var now: @Sendable () -> Double
        /// Waits up to `seconds`, or until `bell` rings (nil: the whole time).
        public var wait: @Sendable (_ seconds: Double, _ bell: Doorbell?) async -> Void

        public init(now: @escaping @Sendable () -> Double, wait: @escaping @Sendable (Double, Doorbell?) async -> Void) {
            self.now = now
            self.wait = wait
        }

        public static let system = Clock(now: SessionClock.system.monotonic) { seconds, bell in
            if let bell {
                await bell.wait(seconds: seconds)
            } else {
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
            }
        }
    }

    public let url: SharedURL
    let opener: any StoreLinkOpener
    let clock: Clock
    private let shared: Mutex<Inner>
    private struct Inner {
        var state: PublisherState
        var journal: Journal?
        /// Where this seat's result files are: marks a proctor gave in the store are taken
        /// into the journal (and the file) when set.
        var resultStorage: (any StateStorage)?
        /// Told when the proctor's start or commands arrive (the session's loop wakes).
        var news: (@Sendable () -> Void)?
        /// What the store says became of sessions it no longer takes from this seat.
        var fates: [String: SessionFate] = [:]
    }

    /// Wakes the loop (a journal attached, a session changed, finish); the journal's own bell
    /// wakes it for new records.
    let bell = Doorbell()
    /// Wakes `finish` when the loop found the outbox empty.
    let drainedBell = Doorbell()
    /// Signalled when the store's state changes (`firstAnswer` waits on it).
    private let answered = NSCondition()
    /// Rung when a start has been read (`starts`).
    public let startBell = Doorbell()

    public convenience init(url: SharedURL, queryTimeout: Double = 5) {
        self.init(opener: PostgresLink.Opener(url: url, timeout: queryTimeout), url: url)
    }

    /// A publisher over any store (the in-memory one in tests), with its own clock and timing;
    /// `url` is what the seat's label names.
    public init(opener: any StoreLinkOpener, url: SharedURL, clock: Clock = .system,
                timing: PublisherState.Timing = .init(), seed: UInt64 = UInt64.random(in: 0 ... .max)) {
        self.url = url
        self.opener = opener
        self.clock = clock
        self.shared = Mutex(Inner(state: PublisherState(timing: timing, seed: seed)))
    }

    /// What the publisher knows of the store now.
    public var storeState: StoreState { shared.withLock { $0.state.storeState } }
    /// The publisher's whole state now (for tests and `status`).
    public var state: PublisherState { shared.withLock { $0.state } }

    /// Runs `body` on the state, under its lock.
    func withState<T: Sendable>(_ body: (inout PublisherState) -> T) -> T {
        shared.withLock { body(&$0.state) }
    }

    var resultStorage: (any StateStorage)? { shared.withLock { $0.resultStorage } }

    /// Wakes `firstAnswer`: the store's state changed.
    func signalAnswered() {
        answered.lock()
        answered.broadcast()
        answered.unlock()
    }

    /// Tells the state a fact from the session, and wakes the loop.
    private func tell(_ fact: PublisherFact) {
        _ = shared.withLock { $0.state.update(fact, now: clock.now()) }
        ring()
    }

    /// Publishes the seat before its session begins (`start` sends it).
    public func announce(_ a: Announcement) { tell(.announced(a)) }

    /// Lets the loop connect. Without a journal it announces the seat and keeps its
    /// connection; `start(journal:)` adds the outbox.
    public func start() { tell(.started(journal: false)) }

    /// Publishes `journal`'s outbox from now on.
    public func start(journal: Journal) {
        shared.withLock { $0.journal = journal }
        tell(.started(journal: true))
    }

    var journal: Journal? { shared.withLock { $0.journal } }

    /// Reads the proctor's commands for this room and seat from now on, after command
    /// number `after` (the room's commands before this seat's session are not its own).
    public func follow(room: String, seat: String, after: Int64) { tell(.follow(room: room, seat: seat, after: after)) }

    /// Commands received for this seat numbered after `after`, in order, unverified; those
    /// up to `after` (applied or refused) are forgotten. No I/O.
    public func commands(after: Int64) -> [SignedCommand] {
        shared.withLock { $0.state.commands(after: after) }
    }

    /// Takes the marks a proctor gave in the lab's store to this journal's ended sessions into
    /// the journal and their result files (`carrel results mark --shared`).
    public func keepResults(in storage: any StateStorage) {
        shared.withLock { $0.resultStorage = storage }
        tell(.keepMarks)
    }

    /// Calls `tell` (from the publisher's task) whenever the proctor's start or new commands
    /// arrive, so that the session takes them at once instead of looking for them.
    public func onNews(_ tell: @escaping @Sendable () -> Void) {
        shared.withLock { $0.news = tell }
    }

    func newsArrived() { shared.withLock { $0.news }?() }

    /// What the store said became of `session` (moved to another seat, or ended as lost), once
    /// it no longer takes this seat's proof of it.
    public func fate(of session: String) -> SessionFate? { shared.withLock { $0.fates[session] } }

    /// When the store no longer takes this seat's proof of `session`: asks what became of it
    /// (once), and tells the session when the proctor moved it or ended it as lost.
    func askFate(_ session: String, proof: SeatProof, link: any StoreLink) async throws {
        guard fate(of: session) == nil, let words = try await link.fate(proof), let fate = SessionFate(words: words) else { return }
        settle(session, fate)
    }

    func settle(_ session: String, _ fate: SessionFate) {
        shared.withLock { $0.fates[session] = fate }
        newsArrived()
    }

    /// `SessionPublishing`: the fate in words the session shows (`SessionFate.words`).
    public func fate(session: String) -> String? { fate(of: session)?.words }

    /// The last command number read for this seat (applied or waiting).
    public var lastReceived: Int64 { shared.withLock { $0.state.received } }

    /// The starts read for this seat since it joined, newest first, unverified: the seat
    /// begins with the first that verifies (`SignedCommand.verify`).
    public var starts: [SignedCommand] { shared.withLock { $0.state.starts } }

    /// The newest start read for this seat that verifies against `check` (its test's key, room,
    /// seat, session and fingerprint, the clock, and the floor of what it may apply), with the
    /// secrets it carries opened by `box` (a start whose keys this seat cannot open is refused);
    /// nil until there is one. Each start that fails is reported to the console once, with why.
    public func verifiedStart(_ check: SignedCommand.Check, box: SeatBox?) -> (command: ProctorCommand, secrets: SeatSecrets?)? {
        for start in starts {
            var outcome = start.verify(check)
            var secrets: SeatSecrets?
            if case let .success(command) = outcome, let keys = command.keys {
                // A move's keys are those of the session it moves here.
                secrets = box.flatMap { $0.open(keys, session: command.move?.session ?? check.session ?? "") }
                if secrets == nil { outcome = .failure(.notForThisSeat) }
            }
            switch outcome {
            case let .success(command):
                return (command, secrets)
            case let .failure(refusal):
                let first = shared.withLock { $0.state.refusedStart(start.id) }
                if first { reportRefusal(ProctorCommand.refusedDetail(start.id, refusal)) }
            }
        }
        return nil
    }

    /// Authenticates `session`'s records and liveness with `key` from now on (the key its
    /// proctor's start gave it).
    public func authenticate(session: String, key: [UInt8]) { tell(.authenticated(session: session, key: key)) }

    /// Proves `session` to the store with `token` (the journal's, for a session resumed or
    /// published by a later run) until a key says otherwise.
    public func prove(session: String, token: String) { tell(.proven(session: session, token: token)) }

    /// A seat waiting at its start screen refused a start (`detail`: `#ID refused: REASON`):
    /// the loop tells the console.
    public func reportRefusal(_ detail: String) { tell(.refusal(detail)) }

    /// The session this publisher spoke for is over and no other follows yet (the workshop
    /// test opened from the demo, ended or never begun): the seat stops being shown as live
    /// or waiting. Records still waiting are sent on a new connection.
    public func leave() {
        tell(.left)
        signalAnswered()
    }

    /// For a policy that requires the store before a session begins, from the session's own
    /// thread after `start`: waits, up to the store's connect and call deadlines, for the
    /// loop's first answer. nil when the store answered, else why not.
    public func firstAnswer() -> String? {
        // The deadline is on the session's clock, which a step of the wall clock does not move;
        // each wait is short, so a wall-clock step cannot stretch it either.
        let deadline = clock.now() + opener.answerDeadline
        answered.lock()
        defer { answered.unlock() }
        while true {
            switch storeState {
            case .connected: return nil
            case let .unreachable(why): return why
            case let .notKept(why): return why
            case .connecting:
                let left = deadline - clock.now()
                if left <= 0 { return "no answer in time" }
                _ = answered.wait(until: Date(timeIntervalSinceNow: min(left, 0.25)))
            }
        }
    }

    /// From the session's loop: which session runs and its time used (no I/O here).
    public func progress(session: String, elapsed: Double) {
        let changed = shared.withLock { inner in
            let changed = inner.state.session != session
            _ = inner.state.update(.progress(session: session, elapsed: elapsed), now: clock.now())
            return changed
        }
        if changed { ring() }
    }

    func ring() {
        bell.ring()
        journal?.outboxBell.ring()
    }

    /// Waits up to `seconds` for every waiting record to reach the store, then asks the loop
    /// to stop and close its connection (which lets the console know the seat has left).
    /// Records still waiting stay in the journal's outbox for the next session on this seat
    /// (or `resume`). Returns true when nothing was left waiting.
    @discardableResult
    public func finish(within seconds: Double) async -> Bool {
        let (running, journal) = shared.withLock { ($0.state.started, $0.journal) }
        // Nothing to send (no session began, or everything is in the store already): no wait.
        // A count that cannot be read is taken as something to send.
        let waiting = journal.map { (try? $0.outboxWaiting().records) ?? 1 } ?? 0
        var empty = waiting == 0
        if running && !empty {
            let asked = shared.withLock { inner in
                _ = inner.state.update(.drainAsked, now: clock.now())
                return inner.state.drainAsked
            }
            let deadline = clock.now() + seconds
            while !empty {
                ring()
                let left = deadline - clock.now()
                if left <= 0 || Task.isCancelled { break }
                await clock.wait(left, drainedBell)
                empty = shared.withLock { $0.state.drainAnswered >= asked }
            }
        }
        tell(.finishing)
        return empty
    }
}
