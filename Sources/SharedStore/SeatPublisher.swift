import AssessmentKit
import Crypto
import Foundation
import Logging
import PostgresNIO
import SessionKit
import Synchronization

/// Copies a seat's journal records to the lab's shared store from a task of its own (`run`,
/// a child task of the command, beside the session's thread): the session never waits for it. It reads the journal's outbox (filled in the same transaction
/// as each write), inserts records keyed by session and sequence (a record sent twice is kept
/// once), and forgets them locally once the store has them. While PostgreSQL is down, slow or
/// restarting, records wait in the outbox and the publisher tries again (0.2 s, doubling to
/// 2 s). Its connection holds an advisory lock named after the running session, so the
/// proctor's console sees at once when the seat's process is gone.
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

    public let url: SharedURL
    let logger: Logger
    /// The longest a query may take before the connection is dropped and made again.
    let queryTimeout: Double
    let batchSize = 500

    /// What the session's thread and the loop share.
    private struct Shared {
        var session: String?
        var elapsed: Double?
        var state: StoreState = .connecting
        var journal: Journal?
        var announcement: Announcement?
        /// Set by `start`: until then the loop waits, without a connection.
        var started = false
        var stopping = false
        /// `finish` asks for the outbox to be empty (a number it raises); the loop answers with
        /// the number it read before it found the outbox empty.
        var drainAsked = 0
        var drainAnswered = 0
        /// Set by `leave`: the loop closes its connection (the store sees the seat leave) and
        /// makes a new one for what is left to send.
        var dropConnection = false
        /// The room and seat whose commands the loop reads (`follow`), the last command
        /// received, what waits to be applied, and the proctor's latest start for the seat.
        var follow: (room: String, seat: String)?
        var received: Int64 = 0
        var inbox: [SignedCommand] = []
        /// The starts for this seat read while it waits, newest first, as the store holds them.
        var starts: [SignedCommand] = []
        /// Refusals a seat waiting at its start screen reports (a session that runs journals
        /// them instead).
        var refusals: [String] = []
        var refusedStarts: Set<Int64> = []
        /// The keys of sessions the proctor's start gave one: their records and liveness are
        /// authenticated with it.
        var sessionKeys: [String: [UInt8]] = [:]
        /// The room's last command when the seat joined: a start up to it was another
        /// session's (this seat's earlier one, say), never this one's.
        var startAfter: Int64 = 0
        /// A notice of new commands came since the loop last read them.
        var commandsTold = false
        /// A listener on the current connection hears the commands' notices.
        var listening = false
        /// Where this seat's result files are: marks a proctor gave in the store are taken
        /// into the journal (and the file) when set.
        var resultStorage: (any StateStorage)?
    }

    private let shared = Mutex(Shared())
    /// Wakes the loop (a journal attached, a session changed, finish); the journal's own bell
    /// wakes it for new records.
    private let bell = Doorbell()
    /// Wakes `finish` when the loop found the outbox empty.
    private let drained = Doorbell()

    public init(url: SharedURL, queryTimeout: Double = 5) {
        self.url = url
        self.logger = StoreCall.quietLogger
        self.queryTimeout = queryTimeout
    }

    /// What the publisher knows of the store now.
    public var storeState: StoreState { shared.withLock { $0.state } }

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

        public init(session: String, label: SharedLabel, candidate: String?, assessmentID: String, assessmentTitle: String,
                    boxKey: String? = nil) {
            self.boxKey = boxKey
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

    /// Publishes the seat before its session begins (`start` sends it).
    public func announce(_ a: Announcement) {
        // A seat announces itself only while no session of its runs (the start screen of
        // `take`, or the workshop test opened from the demo), so the session is this one.
        shared.withLock {
            $0.announcement = a
            $0.session = a.session
        }
        bell.ring()
    }

    /// Lets the loop connect. Without a journal it announces the seat and keeps its
    /// connection; `start(journal:)` adds the outbox.
    public func start() {
        shared.withLock { $0.started = true }
        bell.ring()
    }

    /// Publishes `journal`'s outbox from now on.
    public func start(journal: Journal) {
        shared.withLock {
            $0.journal = journal
            $0.started = true
        }
        bell.ring()
    }

    var journal: Journal? { shared.withLock { $0.journal } }

    /// The longest wait between two tries to reach the store: 2 s, or 1 s for a seat of a room
    /// (its proctor's commands, queued while it was cut off, apply within about a second of
    /// the store's return).
    var longestBackoff: Double { shared.withLock { $0.follow == nil } ? 2 : 1 }

    /// How often a seat in a room asks the store for its commands when no notice told it to
    /// (PostgreSQL's LISTEN tells it at once; a notice lost with a connection is made up for).
    public static let commandFallback = 2.0
    /// The same while a listener is live: a thousand seats asking every two seconds would
    /// be the store's busiest work, for notices that already come.
    public static let commandFallbackListening = 30.0

    /// How often a running seat reports its time (`carrel_pulse`) when it sent nothing else:
    /// any record it sends says it is alive too.
    public static let pulseInterval = SeatView.pulseInterval

    /// The longest the loop sleeps with nothing due (a proctor's mark, say, is read within it).
    static let idleWait = 5.0

    /// The wait before the next read of commands with no notice.
    var commandFallbackNow: Double {
        shared.withLock { $0.listening } ? Self.commandFallbackListening : Self.commandFallback
    }

    /// A notice said commands were issued: the loop reads them now.
    func commandsArrived() {
        shared.withLock { $0.commandsTold = true }
        ring()
    }

    /// Reads the proctor's commands for this room and seat from now on, after command
    /// number `after` (the room's commands before this seat's session are not its own).
    public func follow(room: String, seat: String, after: Int64) {
        shared.withLock {
            $0.follow = (room, seat)
            $0.received = max($0.received, after)
            $0.startAfter = max($0.startAfter, after)
        }
        ring()
    }

    /// Commands received for this seat numbered after `after`, in order, unverified; those
    /// up to `after` (applied or refused) are forgotten. No I/O.
    public func commands(after: Int64) -> [SignedCommand] {
        shared.withLock { s in
            s.inbox.removeAll { $0.id <= after }
            return s.inbox
        }
    }

    /// Takes the marks a proctor gave in the lab's store to this journal's ended sessions into
    /// the journal and their result files (`carrel results mark --shared`).
    public func keepResults(in storage: any StateStorage) {
        shared.withLock { $0.resultStorage = storage }
    }

    /// How often the marks given in the store are looked for.
    static let markInterval = 30.0

    /// The last command number read for this seat (applied or waiting).
    public var lastReceived: Int64 { shared.withLock { $0.received } }

    /// The starts read for this seat since it joined, newest first, unverified: the seat
    /// begins with the first that verifies (`SignedCommand.verify`).
    public var starts: [SignedCommand] { shared.withLock { $0.starts } }
    /// Rung when a start has been read (`starts`).
    public let startBell = Doorbell()

    /// The newest start read for this seat that verifies against `check` (its test's key, room,
    /// seat, session and fingerprint, the clock, and the floor of what it may apply), with the
    /// secrets it carries opened by `box` (a start whose keys this seat cannot open is refused);
    /// nil until there is one. Each start that fails is reported to the console once, with why.
    public func verifiedStart(_ check: SignedCommand.Check, box: SeatBox?) -> (command: ProctorCommand, secrets: SeatSecrets?)? {
        for start in starts {
            var outcome = start.verify(check)
            var secrets: SeatSecrets?
            if case let .success(command) = outcome, let keys = command.keys {
                secrets = box.flatMap { $0.open(keys, session: check.session ?? "") }
                if secrets == nil { outcome = .failure(.notForThisSeat) }
            }
            switch outcome {
            case let .success(command):
                return (command, secrets)
            case let .failure(refusal):
                let first = shared.withLock { $0.refusedStarts.insert(start.id).inserted }
                if first { reportRefusal(ProctorCommand.refusedDetail(start.id, refusal)) }
            }
        }
        return nil
    }

    /// Authenticates `session`'s records and liveness with `key` from now on (the key its
    /// proctor's start gave it).
    public func authenticate(session: String, key: [UInt8]) {
        shared.withLock { $0.sessionKeys[session] = key }
        ring()
    }

    /// A seat waiting at its start screen refused a start (`detail`: `#ID refused: REASON`):
    /// the loop tells the console.
    public func reportRefusal(_ detail: String) {
        shared.withLock { $0.refusals.append(detail) }
        ring()
    }

    /// The session this publisher spoke for is over and no other follows yet (the workshop
    /// test opened from the demo, ended or never begun): the seat stops being shown as live
    /// or waiting. Records still waiting are sent on a new connection.
    public func leave() {
        shared.withLock {
            $0.session = nil
            $0.elapsed = nil
            $0.announcement = nil
            $0.dropConnection = true
            // A store `required` by the next test is asked again, not taken from this connection.
            $0.state = .connecting
        }
        ring()
    }

    /// For a policy that requires the store before a session begins, from the session's own
    /// thread after `start`: waits, up to the URL's connect timeout and a little more, for
    /// the loop's first answer. nil when the store answered, else why not.
    public func firstAnswer(pollingEvery interval: Double = 0.02) -> String? {
        let deadline = ProcessInfo.processInfo.systemUptime + url.connectTimeout + queryTimeout
        while ProcessInfo.processInfo.systemUptime < deadline {
            switch storeState {
            case .connected: return nil
            case let .unreachable(why): return why
            case let .notKept(why): return why
            case .connecting: usleep(UInt32(interval * 1e6))
            }
        }
        return "no answer in time"
    }

    /// From the session's loop: which session runs and its time used (no I/O here).
    public func progress(session: String, elapsed: Double) {
        let changed = shared.withLock {
            let changed = $0.session != session
            $0.session = session
            $0.elapsed = elapsed
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
        let (running, journal) = shared.withLock { ($0.started, $0.journal) }
        // Nothing to send (no session began, or everything is in the store already): no wait.
        // A count that cannot be read is taken as something to send.
        let waiting = journal.map { (try? $0.outboxWaiting().records) ?? 1 } ?? 0
        var empty = waiting == 0
        if running && !empty {
            let asked = shared.withLock {
                $0.drainAsked += 1
                return $0.drainAsked
            }
            let deadline = ProcessInfo.processInfo.systemUptime + seconds
            while !empty {
                ring()
                let left = deadline - ProcessInfo.processInfo.systemUptime
                if left <= 0 || Task.isCancelled { break }
                await drained.wait(seconds: left)
                empty = shared.withLock { $0.drainAnswered >= asked }
            }
        }
        shared.withLock { $0.stopping = true }
        ring()
        return empty
    }

    var isStopping: Bool { shared.withLock { $0.stopping } }

    func current() -> (session: String?, elapsed: Double?, announcement: Announcement?, started: Bool, drainAsked: Int) {
        shared.withLock { ($0.session, $0.elapsed, $0.announcement, $0.started, $0.drainAsked) }
    }

    func note(_ new: StoreState, session: String?) {
        let (changed, journal) = shared.withLock {
            // Records the store did not keep stay said until this seat has gone.
            if case .notKept = $0.state, new == .connected { return (false, $0.journal) }
            let changed = $0.state != new
            $0.state = new
            return (changed, $0.journal)
        }
        // Recorded for `carrel status` only when it changes: a few bytes, and losing one
        // note costs nothing but a stale line in `status` (the outbox itself is untouched).
        if changed, let session { try? journal?.noteStore(session: session, state: new.words, since: Date()) }
    }

    /// The loop found the outbox empty after reading `asked`: a `finish` waiting for it is done.
    func drainedNow(_ asked: Int) {
        shared.withLock { $0.drainAnswered = max($0.drainAnswered, asked) }
        drained.ring()
    }

    // MARK: the loop

    /// The loop: runs until `finish` (or the task's cancellation) stops it, then closes its
    /// connection. The command runs it as a child task beside the session.
    public func run() async {
        // Nothing to do until a seat announces itself or a session starts publishing.
        while !current().started && !isStopping && !Task.isCancelled { await bell.wait(seconds: 1) }
        // A seat of a room listens for the proctor's commands (a child task per connection,
        // cancelled with it) and reads them when told, or every `commandFallback` seconds.
        await withTaskGroup(of: Void.self) { listeners in
            await loop(listeners: &listeners)
            listeners.cancelAll()
        }
    }

    func loop(listeners: inout TaskGroup<Void>) async {
        var listening: ObjectIdentifier?
        var backoff = 0.2
        var confirmed: Int64 = 0
        var connection: PostgresConnection?
        var claimed = Claimed()
        var notedSession: String?
        var lastPulse = 0.0
        var lastCommandRead = -Double.infinity
        var lastMarkRead = -Double.infinity
        var marksAfter: Int64 = 0
        // When this connection may rehearse a waiting seat's begin (`rehearseBegin`); nil once
        // it did. At once on the first connection; a few seconds after a reconnection, drawn
        // anew, so that a room's seats that lost the store together do not rehearse together
        // when it returns.
        var rehearseAt: Double?
        var reconnecting = false
        // A connection just made reads the proctor's commands before anything else: after an
        // outage they are what the room waits for, and the backlog can follow them.
        var readCommandsFirst = false
        while !isStopping && !Task.isCancelled {
            if shared.withLock({ s in defer { s.dropConnection = false }; return s.dropConnection }), let c = connection {
                // Closing ends the session's advisory lock: the console sees the seat leave.
                try? await c.close()
                connection = nil
            }
            let (session, elapsed, announcement, _, asked) = current()
            let journal = self.journal
            if let session, let journal, notedSession != session {
                notedSession = session
                // The state said before the session existed goes into its row now (a note for
                // `carrel status` only; the outbox does not depend on it).
                let state = storeState
                try? journal.noteStore(session: session, state: state.words, since: Date())
            }
            if connection == nil {
                do {
                    connection = try await StoreCall.open(url, as: "carrel seat", logger: logger, timeout: queryTimeout)
                    rehearseAt = ProcessInfo.processInfo.systemUptime + (reconnecting ? Double.random(in: 0...3) : 0)
                    reconnecting = true
                    claimed = Claimed()
                    backoff = 0.2
                    readCommandsFirst = true
                    note(.connected, session: session)
                } catch {
                    // Stopped while connecting: that says nothing about the store.
                    if isStopping || Task.isCancelled { break }
                    note(.unreachable(Self.describe(error)), session: session)
                    try? await Task.sleep(nanoseconds: Self.jittered(backoff))
                    backoff = min(backoff * 2, longestBackoff)
                    continue
                }
            }
            guard let c = connection else { continue }
            do {
                // A waiting seat says who it is first: its start is the one given after its
                // hello. A running session reads the commands it missed before anything else:
                // after an outage they are what the room waits for.
                let waitingSeat = journal == nil
                if waitingSeat {
                    try await claim(c, &claimed, session: session, announcement: announcement, journalOpen: false)
                }
                if readCommandsFirst, let follow = shared.withLock({ $0.follow }) {
                    readCommandsFirst = false
                    lastCommandRead = ProcessInfo.processInfo.systemUptime
                    try await readCommands(c, room: follow.room, seat: follow.seat, waiting: waitingSeat)
                }
                if !waitingSeat {
                    try await claim(c, &claimed, session: session, announcement: announcement, journalOpen: true)
                }
                // The server process the begin will use is the one to rehearse on: once per
                // connection. Not when a start has just been read: the begin itself is due.
                if waitingSeat, let waiting = announcement, claimed.announced == waiting.session, let due = rehearseAt,
                   ProcessInfo.processInfo.systemUptime >= due, shared.withLock({ $0.starts.isEmpty }) {
                    rehearseAt = nil
                    try await rehearseBegin(c, announcement: waiting)
                }
                try await claimLive(c, &claimed, session: session, elapsed: elapsed)
                let batch = try journal?.outbox(after: confirmed, limit: batchSize) ?? []
                if let journal, !batch.isEmpty {
                    let sent = Self.latestProgressOnly(batch)
                    try await guarded(c) { try await self.insert(sent, on: c) }
                    confirmed = batch[batch.count - 1].seq
                    // Forgetting is housekeeping: a record kept by mistake is sent again and
                    // changes nothing in the store.
                    try? journal.removePublished(through: confirmed)
                    // A long backlog does not hold the pulse back (a console would see the seat
                    // as gone).
                    if let session, let elapsed, ProcessInfo.processInfo.systemUptime - lastPulse >= Self.pulseInterval {
                        lastPulse = ProcessInfo.processInfo.systemUptime
                        try await pulse(c, &claimed, session: session, elapsed: elapsed)
                    }
                    continue
                }
                drainedNow(asked)
                if journal == nil, let waitingSession = announcement?.session {
                    try await sendRefusals(c, session: waitingSession)
                }
                if let follow = shared.withLock({ $0.follow }) {
                    if listening != ObjectIdentifier(c) {
                        // One listener per connection; it ends when its connection closes (a group
                        // once cancelled would cancel every listener added after, so none is
                        // cancelled before the loop ends).
                        listening = ObjectIdentifier(c)
                        listeners.addTask { [self] in
                            // A listener that ends (the connection went) leaves the fallback reads.
                            try? await c.listen(on: SharedSchema.commandChannel) { notices in
                                // Listening from now on: one read catches a command issued
                                // before the notices could be heard.
                                self.shared.withLock { $0.listening = true }
                                self.commandsArrived()
                                for try await _ in notices { self.commandsArrived() }
                            }
                            // The connection went: the loop, perhaps asleep, finds out and reconnects.
                            self.shared.withLock { $0.listening = false }
                            self.ring()
                        }
                    }
                    let told = shared.withLock { s in defer { s.commandsTold = false }; return s.commandsTold }
                    if told || ProcessInfo.processInfo.systemUptime - lastCommandRead >= commandFallbackNow {
                        lastCommandRead = ProcessInfo.processInfo.systemUptime
                        try await readCommands(c, room: follow.room, seat: follow.seat, waiting: journal == nil)
                    }
                }
                if let journal, let storage = shared.withLock({ $0.resultStorage }),
                   ProcessInfo.processInfo.systemUptime - lastMarkRead >= Self.markInterval {
                    lastMarkRead = ProcessInfo.processInfo.systemUptime
                    marksAfter = try await takeMarks(c, journal: journal, storage: storage, after: marksAfter)
                }
                let now = ProcessInfo.processInfo.systemUptime
                if let session, let elapsed, now - lastPulse >= Self.pulseInterval {
                    lastPulse = now
                    try await pulse(c, &claimed, session: session, elapsed: elapsed)
                }
                // Sleep until the next thing due: the pulse of a running session, the fallback
                // read of commands, at most `idleWait`. A seat waiting at its start screen has
                // no pulse to send and must not wake twenty times a second for nothing; what
                // changes what is due (a session begins, a notice, the end) rings the bell.
                let later = ProcessInfo.processInfo.systemUptime
                var pause = Self.idleWait
                if session != nil, elapsed != nil {
                    pause = min(pause, max(0.05, Self.pulseInterval - (later - lastPulse)))
                }
                if shared.withLock({ $0.follow != nil }) {
                    pause = min(pause, max(0.02, commandFallbackNow - (later - lastCommandRead)))
                }
                // A rehearsal put off after a reconnection is due then (one that is due now and
                // was not made, for a start read, is not waited for).
                if journal == nil, announcement != nil, let due = rehearseAt, due > later {
                    pause = min(pause, max(0.02, due - later))
                }
                if let journal { await journal.outboxBell.wait(seconds: pause) } else { await bell.wait(seconds: pause) }
            } catch {
                // Stopped mid-call (the deadline's clock ends at once when cancelled): the store
                // did nothing wrong, and `carrel status` must not say it did.
                if isStopping || Task.isCancelled { break }
                note(.unreachable(Self.describe(error)), session: session)
                try? await c.close()
                connection = nil
                try? await Task.sleep(nanoseconds: Self.jittered(backoff))
                backoff = min(backoff * 2, longestBackoff)
            }
        }
        // Closing a connection that is already gone has nothing left to report.
        if let connection { try? await connection.close() }
    }

    /// A wait of up to `seconds` (a twentieth of it at least), drawn anew each time: the seats
    /// of a room that lost the store together do not all knock at the same instant when it
    /// returns, and on average each finds it back in half the wait.
    static func jittered(_ seconds: Double) -> UInt64 {
        UInt64(seconds * Double.random(in: 0.05...1.0) * 1e9)
    }

    /// Reads the seat's new commands (and, while it waits to begin, the proctor's starts),
    /// as the store holds them: the session verifies each before it applies it.
    func readCommands(_ c: PostgresConnection, room: String, seat: String, waiting: Bool) async throws {
        let after = shared.withLock { $0.received }
        let rows = try await guarded(c) {
            try await StoreCall.rows(c, "SELECT id::text, envelope, signature FROM carrel_seat_signed_commands(\(room), \(seat), \(after))",
                                     logger: self.logger)
        }
        var fresh: [SignedCommand] = []
        var highest = after
        for row in rows {
            guard let t = StoreRows.texts(row), t.count == 3, let id = t[0].flatMap({ Int64($0) }), id > highest else { continue }
            highest = id
            fresh.append(SignedCommand(id: id, envelope: t[1], signature: t[2]))
        }
        var starts: [SignedCommand]?
        if waiting {
            let startAfter = shared.withLock { $0.startAfter }
            let found = try await guarded(c) {
                try await StoreCall.rows(c, "SELECT id::text, envelope, signature FROM carrel_seat_starts(\(room), \(seat), \(startAfter))",
                                         logger: self.logger)
            }
            starts = found.compactMap { row in
                guard let t = StoreRows.texts(row), t.count == 3, let id = t[0].flatMap({ Int64($0) }) else { return nil }
                return SignedCommand(id: id, envelope: t[1], signature: t[2])
            }
        }
        shared.withLock { s in
            if highest > s.received {
                s.received = highest
                s.inbox += fresh
            }
            if let starts { s.starts = starts }
        }
        if starts?.isEmpty == false { startBell.ring() }
    }

    /// Tells the console of the starts a waiting seat refused.
    func sendRefusals(_ c: PostgresConnection, session: String) async throws {
        let waiting = shared.withLock { $0.refusals }
        guard !waiting.isEmpty else { return }
        for detail in waiting {
            try await guarded(c) {
                try await StoreCall.run(c, "SELECT carrel_command_refused(\(session), \(detail))", logger: self.logger)
            }
        }
        shared.withLock { $0.refusals.removeFirst(min(waiting.count, $0.refusals.count)) }
    }

    /// Records in the journal the marks given in the store to its ended sessions, once each;
    /// returns the last mark number read.
    func takeMarks(_ c: PostgresConnection, journal: Journal, storage: any StateStorage, after: Int64) async throws -> Int64 {
        let ended = try journal.sessions(status: [.ended]).suffix(1000).map(\.id)
        guard !ended.isEmpty else { return after }
        let rows = try await guarded(c) {
            try await StoreCall.rows(c, """
                SELECT id::text, session, item, points::text, comment, at_epoch::text
                FROM carrel_seat_marks(\(ended)::text[], \(after))
                """, logger: self.logger)
        }
        var last = after
        for mark in rows.compactMap(SeatRoom.mark) {
            last = max(last, mark.id)
            guard try !journal.hasMark(session: mark.session, item: mark.item, at: mark.at) else { continue }
            // A mark the journal refuses (an item the session's test lacks, points above its
            // worth) is the proctor's to give again; one that failed to be written (a full
            // disk) is read again by the next publishing run, which reads every mark from the
            // start. The journal's own marks are untouched either way.
            _ = try? journal.recordMark(session: mark.session, item: mark.item, points: mark.points, comment: mark.comment,
                                        at: mark.at, storage: storage)
        }
        return last
    }

    /// What this connection has told the store about the seat.
    struct Claimed {
        /// The session announced as waiting at its start screen.
        var announced: String?
        /// The session whose advisory lock this connection holds (it is live while held).
        var locked: String?
        /// The session whose authenticated claim names this connection's server process.
        var live: String?
        /// This connection's server process.
        var pid: Int64?
    }

    /// Announces a seat at its start screen, and holds the running session's advisory lock,
    /// once per connection.
    func claim(_ c: PostgresConnection, _ claimed: inout Claimed, session: String?, announcement: Announcement?,
               journalOpen: Bool) async throws {
        if let announcement, claimed.announced != announcement.session, !journalOpen || session == announcement.session {
            // The row exists until the session's own record makes it active (after a restart
            // of the store, it is made again).
            try await guarded(c) {
                try await StoreCall.run(c, "SELECT carrel_hello(\(announcement.session), \(announcement.body)::jsonb)", logger: self.logger)
            }
            claimed.announced = announcement.session
        }
        guard let session, claimed.locked != session else { return }
        if let old = claimed.locked {
            // The seat moved on to another session (a demo): its old one is not live.
            try await guarded(c) {
                try await StoreCall.run(c, "SELECT pg_advisory_unlock(hashtextextended(\(old), 0))", logger: self.logger)
            }
            claimed.locked = nil
        }
        let granted = try await guarded(c) {
            try await StoreCall.value(c, "SELECT pg_try_advisory_lock(hashtextextended(\(session), 0))", as: Bool.self,
                                      logger: self.logger) ?? false
        }
        if granted { claimed.locked = session }
    }

    /// Liveness only this seat can claim: its connection's server process, with its session's
    /// MAC, made once a connection has read the commands it waits for, and again with every
    /// pulse (`pulse`), so that a claim someone else overwrote does not last.
    func claimLive(_ c: PostgresConnection, _ claimed: inout Claimed, session: String?, elapsed: Double?) async throws {
        guard let session, claimed.live != session, shared.withLock({ $0.sessionKeys[session] }) != nil else { return }
        try await pulse(c, &claimed, session: session, elapsed: elapsed)
        claimed.live = session
    }

    /// The session's time used; for a session with a key, with its claim to this connection.
    func pulse(_ c: PostgresConnection, _ claimed: inout Claimed, session: String, elapsed: Double?) async throws {
        guard let key = shared.withLock({ $0.sessionKeys[session] }) else {
            guard let elapsed else { return }
            try await guarded(c) {
                try await StoreCall.run(c, "SELECT carrel_pulse(\(session), \(elapsed))", logger: self.logger)
            }
            return
        }
        if claimed.pid == nil {
            claimed.pid = try await guarded(c) {
                try await StoreCall.value(c, "SELECT pg_backend_pid()::int8", as: Int64.self, logger: self.logger) ?? 0
            }
        }
        let mac = SessionMAC.live(key: key, session: session, pid: claimed.pid ?? 0)
        try await guarded(c) {
            try await StoreCall.run(c, "SELECT carrel_live(\(session), \(mac), \(elapsed))", logger: self.logger)
        }
    }

    func guarded<T: Sendable>(_ c: PostgresConnection, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await StoreCall.guarded(c, timeout: queryTimeout, work)
    }

    /// The batch without the time saves that a later one of the same session replaces: the
    /// journal itself keeps only a session's latest, so the store loses nothing by it, and a
    /// backlog after an outage shrinks to what matters.
    static func latestProgressOnly(_ batch: [OutboxRecord]) -> [OutboxRecord] {
        var lastProgress: [String: Int64] = [:]
        for r in batch where r.kind == "progress" { lastProgress[r.session] = r.seq }
        guard batch.count > lastProgress.count else { return batch }
        return batch.filter { $0.kind != "progress" || lastProgress[$0.session] == $0.seq }
    }

    /// Inserts records in order; one already there (same session and sequence, the only key)
    /// is skipped. `ON CONFLICT DO NOTHING` without naming the key needs nothing but INSERT
    /// privilege: a seat's role can add records and read none (docs/deployment.md).
    ///
    /// In an explicit transaction, and only COMMIT's own completion counts: PostgresNIO
    /// reports a statement done when the server says the statement finished, which for a
    /// statement outside a transaction comes before its commit; a connection lost between the
    /// two would lose the batch after the outbox had forgotten it. COMMIT's completion is sent
    /// once the commit is durable.
    func insert(_ batch: [OutboxRecord], on c: PostgresConnection) async throws {
        let keys = shared.withLock { $0.sessionKeys }
        let sessions = batch.map(\.session)
        let seqs = batch.map(\.seq)
        let kinds = batch.map(\.kind)
        let times = batch.map(\.at)
        let bodies = batch.map { Self.storable($0.body) }
        // An empty MAC stands for none (the store keeps NULL): a session the proctor did not start.
        let macs: [String] = batch.indices.map { i in
            keys[sessions[i]].map { SessionMAC.record(key: $0, session: sessions[i], seq: seqs[i], kind: kinds[i], body: bodies[i]) } ?? ""
        }
        let digests = bodies.map { Self.digest($0) }
        try await StoreCall.run(c, "BEGIN", logger: logger)
        let kept = try await write(sessions: sessions, seqs: seqs, kinds: kinds, times: times, bodies: bodies, macs: macs,
                                   digests: digests, on: c)
        try await StoreCall.run(c, "COMMIT", logger: logger)
        if kept < Int64(batch.count) {
            let missing = batch.count - Int(kept)
            note(.notKept("\(missing) of \(batch.count) record\(batch.count == 1 ? "" : "s") replaced by others written first"),
                 session: sessions.last)
        }
    }

    /// Writes records in the caller's transaction, and says how many of them the store holds
    /// as sent.
    func write(sessions: [String], seqs: [Int64], kinds: [String], times: [Date], bodies: [String], macs: [String],
               digests: [String], on c: PostgresConnection) async throws -> Int64 {
        try await StoreCall.run(c, """
            INSERT INTO carrel_records (session, seq, kind, at, body, body_text, mac)
              SELECT s, q, k, a, b::jsonb, b, nullif(m, '')
              FROM unnest(\(sessions)::text[], \(seqs)::int8[], \(kinds)::text[], \(times)::timestamptz[], \(bodies)::text[],
                          \(macs)::text[])
                WITH ORDINALITY AS r(s, q, k, a, b, m, n)
              ORDER BY n
            ON CONFLICT DO NOTHING
            """, logger: logger)
        // What the store kept is what was sent: a record written there first under the same
        // number (unauthenticated, or by anyone) would otherwise have taken this one's place.
        return try await StoreCall.value(c, """
            SELECT carrel_seat_kept(\(sessions)::text[], \(seqs)::int8[], \(digests)::text[], \(macs)::text[])
            """, as: Int64.self, logger: logger) ?? 0
    }

    /// What a seat waiting for the proctor's start does once per connection: the statements
    /// its begin will send on it (its first records, their check, its claim of liveness), in a
    /// transaction rolled back, so that nothing of it stays in the store. A server process
    /// runs a statement the first time it meets it several times slower than afterwards
    /// (it loads the tables' descriptions and compiles and plans the functions and triggers:
    /// about 6 ms a seat). A room's seats pay that now, one by one while they wait, instead
    /// of all at once on the store when the proctor starts them. Each statement is given a
    /// second on the server: a slow store cancels the rehearsal there, and the connection,
    /// its advisory lock and the seat's place in the console stay.
    func rehearseBegin(_ c: PostgresConnection, announcement: Announcement) async throws {
        let session = announcement.session
        let records: [(kind: String, body: String)] = [
            ("session", announcement.body),
            ("event", #"{"kind":"began","detail":""}"#),
            ("event", ##"{"kind":"proctor_command","detail":"#0 start"}"##),
            ("progress", #"{"position":0,"elapsed":0}"#),
        ]
        let bodies = records.map(\.body)
        try await guarded(c) {
            try await StoreCall.run(c, "BEGIN", logger: self.logger)
            try? await StoreCall.run(c, "SET LOCAL statement_timeout = '1s'", logger: self.logger)
            // A rehearsal that fails changes nothing and is not tried again on this connection:
            // the begin itself will meet whatever it met. Only a connection that cannot even
            // roll back is given up (the loop's error path), as any broken connection is.
            _ = try? await self.write(
                sessions: records.map { _ in session }, seqs: records.indices.map { Int64($0 + 1) },
                kinds: records.map(\.kind), times: records.map { _ in Date() }, bodies: bodies,
                macs: records.map { _ in "" }, digests: bodies.map { Self.digest($0) }, on: c)
            try? await StoreCall.run(c, "SELECT carrel_live(\(session), '', 0)", logger: self.logger)
            try await StoreCall.run(c, "ROLLBACK", logger: self.logger)
        }
    }

    /// SHA-256 of a record's text as sent, in hex (what `carrel_seat_kept` compares).
    static func digest(_ text: String) -> String {
        Fingerprint.hex(SHA256.hash(data: Array(text.utf8)))
    }

    /// A record's JSON as PostgreSQL's jsonb takes it: a NUL character (`\u0000`, which jsonb
    /// refuses, and which would hold the seat's outbox back for good) becomes U+FFFD. Other
    /// escapes, an escaped backslash before "u0000" included, are left as they are.
    static func storable(_ json: String) -> String {
        guard json.contains("\\u0000") else { return json }
        var out = ""
        var chars = Array(json)[...]
        while let ch = chars.popFirst() {
            out.append(ch)
            guard ch == "\\", let next = chars.popFirst() else { continue }
            if next == "u", chars.prefix(4).elementsEqual("0000") {
                out += "uFFFD"
                chars = chars.dropFirst(4)
            } else {
                out.append(next)
            }
        }
        return out
    }

    /// One line about a store error, without the URL's password (PostgresNIO's errors do not
    /// carry it) and without anything a terminal would act on.
    public static func describe(_ error: any Error) -> String {
        TerminalSafety.visible(String(rawDescription(error).prefix(300)), keepLineBreaks: false)
    }

    static func rawDescription(_ error: any Error) -> String {
        if let psql = error as? PSQLError {
            if let message = psql.serverInfo?[.message] { return "the server said: \(message)" }
            switch psql.code {
            case .authMechanismRequiresPassword:
                return "the server asks for a password and none was found (~/.pgpass, PGPASSFILE, PGPASSWORD or the URL)"
            case .sslUnsupported:
                return "the server does not offer TLS (add ?sslmode=disable for a server on this machine or a trusted network)"
            case .unsupportedAuthMechanism:
                return "the server asks for a way of logging in Carrel does not support (use scram-sha-256 or md5)"
            case .saslError:
                return "the password was refused"
            case .connectionError:
                let detail = psql.underlying.map { "\($0)" } ?? ""
                if detail.contains("refused") { return "the connection was refused (is PostgreSQL running there?)" }
                if detail.lowercased().contains("timed out") || detail.contains("timeout") { return "no answer in time" }
                if detail.contains("resolve") || detail.contains("NXDOMAIN") || detail.contains("getaddrinfo") { return "the host name cannot be found" }
                return "cannot connect"
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return "the connection was closed"
            default: return "\(psql.code)"
            }
        }
        if let problem = error as? SharedSchema.Problem { return problem.description }
        if let transaction = error as? PostgresTransactionError {
            return rawDescription(transaction.closureError ?? transaction.commitError ?? transaction.beginError ?? error)
        }
        return "\(error)"
    }
}
