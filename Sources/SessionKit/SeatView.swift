import AssessmentKit
import Foundation

/// One seat as the proctor's console shows it (and `proctor --json` prints it): what the shared
/// store's triggers keep of it live (counts, hand, commands, liveness), which no journal holds.
public struct SeatView: Sendable, Equatable, Codable {
    public var session: String
    public var candidate: String?
    public var seat: String
    public var room: String
    public var assessment: String
    public var assessmentTitle: String
    /// not_started, active, interrupted, submitted, timed_out or ended.
    public var status: String
    public var answered: Int
    public var total: Int
    public var timeLeftSeconds: Int?
    public var pasteAttempts: Int
    public var focusLosses: Int
    public var exitAttempts: Int
    public var interruptions: Int
    /// ISO-8601 UTC: the last time the seat was heard from.
    public var lastSeen: String
    /// Seconds since then (a running seat reports every two seconds).
    public var lastHeardSeconds: Int
    public var connected: Bool
    /// The candidate's number on the room's roster.
    public var candidateNumber: String?
    /// Waiting at its start screen for the proctor's start (a room with `--start proctor`).
    public var waiting = false
    /// Paused by the proctor.
    public var paused = false
    /// down, raised (asks for help) or acknowledged.
    public var hand = "down"
    /// The proctor's commands issued to this seat since it began that it has not applied yet.
    public var commandsPending = 0
    /// What the seat says of itself (nil when it said nothing).
    public var carrelVersion: String?
    public var executableDigest: String?
    public var fingerprint: String?
    public var terminal: String?
    public var policy: String?
    public var passphraseFailures = 0
    /// Commands the seat refused (unsigned, a signature that does not verify, for another
    /// room, seat or test, expired, replayed), and the last one's number and reason.
    public var commandsRefused = 0
    public var lastRefusal: String?
    /// What assessment mode saw on the seat's machine (logins, devices, other programs), and
    /// the last one; and the mode's state as the seat last said it ("began: network: …",
    /// "not begun: no assessment-mode service …", "ended").
    public var machineIncidents = 0
    public var lastIncident: String?
    public var assessmentMode: String?
    /// The room's test has a proctor key: its seats can be commanded (watched only without).
    public var commandable = true
    /// The seat's public key for the proctor's start, and its host, as it announced them.
    public var seatKey: String?
    public var host: String?
    /// What proves the seat live, to a console that holds the proctor's key: its claim to a
    /// server process (with its session's MAC), whether that process lives, and the start
    /// that gave the session its key. Never written to `--json`.
    public var liveness = Liveness()
    /// Whether the session's liveness and records were checked with the proctor's key: nil
    /// when not checked (no passphrase given), true when they verify, false when not.
    public var verified: Bool?
    /// A finished session's score as the console read it from its result (nil: not finished,
    /// or no result read yet).
    public var score: SeatScore?

    public struct Liveness: Sendable, Equatable {
        public var pid: Int?
        public var mac: String?
        public var alive = false
        public var startEnvelope: String?
        public var startSignature: String?
        /// The starts that moved this session to another seat, in order (`SessionKeyChain`).
        public var moves: [SignedCommand] = []
        /// Seconds since the seat last made its claim (with every pulse).
        public var age: Double?

        public init(pid: Int? = nil, mac: String? = nil, alive: Bool = false, startEnvelope: String? = nil,
                    startSignature: String? = nil, age: Double? = nil) {
            self.age = age
            self.pid = pid
            self.mac = mac
            self.alive = alive
            self.startEnvelope = startEnvelope
            self.startSignature = startSignature
        }
    }
    /// What the store's row says of the seat's time: allowed, and used (the seat's pulse).
    /// Never written to `--json` (its `timeLeftSeconds` is).
    public var timing = Timing()
    /// The proctor's start gave this session its key (checked with the proctor's key): what
    /// the console shows of it comes from its verified records. Never written to `--json`.
    public var keyed = false
    /// Records stored under the session that its seat did not write (counted with the
    /// proctor's key; 0 when not checked).
    public var recordsNotCounted = 0
    /// A spare seat waiting for the proctor to move a candidate's session here: the seat the
    /// candidate asks to move from.
    public var moveRequest: String?
    /// The seats this session was moved between, in order (`A5 → S1`).
    public var moves: [String] = []
    /// The proctor ended the session as lost (`carrel proctor lost`): the store fenced its seat.
    public var lost = false

    public struct Timing: Sendable, Equatable {
        public var allowed: Int?
        public var elapsed: Double

        public init(allowed: Int? = nil, elapsed: Double = 0) {
            self.allowed = allowed
            self.elapsed = elapsed
        }
    }
    /// What the console flags, in words: "wrong test", "executable differs from the room's",
    /// "candidate seated twice".
    public var warnings: [String] = []

    /// Paste attempts, focus losses and exit attempts together.
    public var incidents: Int { pasteAttempts + focusLosses + exitAttempts }

    /// Status words for people: "timed out", "not started", "ended, seat lost".
    public var statusWords: String { lost ? "ended, seat lost" : status.replacingOccurrences(of: "_", with: " ") }

    /// How often a running seat reports its time to the store (seconds).
    public static let pulseInterval = 2.0

    /// Trouble first: interrupted seats, then running seats with incidents, running seats,
    /// seats not started, and finished ones last.
    public var rank: Int {
        // A raised hand and anything flagged come first of all.
        if hand == "raised" || !warnings.isEmpty || machineIncidents > 0 || (moveRequest != nil && status == "not_started") { return -1 }
        switch status {
        case "interrupted": return 0
        case "wrong_test", "candidate_twice": return 0
        // A running seat reports every two seconds: one not heard from for 5 s needs a look too.
        case "active": return incidents > 0 || lastHeardSeconds > 5 ? 1 : 2
        case "not_started": return 3
        default: return 4
        }
    }

    public init(session: String, candidate: String?, seat: String, room: String, assessment: String, assessmentTitle: String,
                status: String, answered: Int, total: Int, timeLeftSeconds: Int?, pasteAttempts: Int, focusLosses: Int,
                exitAttempts: Int, interruptions: Int, lastSeen: String, lastHeardSeconds: Int, connected: Bool) {
        self.session = session
        self.candidate = candidate
        self.seat = seat
        self.room = room
        self.assessment = assessment
        self.assessmentTitle = assessmentTitle
        self.status = status
        self.answered = answered
        self.total = total
        self.timeLeftSeconds = timeLeftSeconds
        self.pasteAttempts = pasteAttempts
        self.focusLosses = focusLosses
        self.exitAttempts = exitAttempts
        self.interruptions = interruptions
        self.lastSeen = lastSeen
        self.lastHeardSeconds = lastHeardSeconds
        self.connected = connected
    }

    enum CodingKeys: String, CodingKey {
        case session, candidate, seat, room, assessment, assessmentTitle, status, answered, total, timeLeftSeconds
        case pasteAttempts, focusLosses, exitAttempts, interruptions, lastSeen, lastHeardSeconds, connected
    }

    /// Every key is written, `null` included (scripts read a fixed set of keys).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(session, forKey: .session)
        try c.encode(candidate, forKey: .candidate)
        try c.encode(seat, forKey: .seat)
        try c.encode(room, forKey: .room)
        try c.encode(assessment, forKey: .assessment)
        try c.encode(assessmentTitle, forKey: .assessmentTitle)
        try c.encode(status, forKey: .status)
        try c.encode(answered, forKey: .answered)
        try c.encode(total, forKey: .total)
        try c.encode(timeLeftSeconds, forKey: .timeLeftSeconds)
        try c.encode(pasteAttempts, forKey: .pasteAttempts)
        try c.encode(focusLosses, forKey: .focusLosses)
        try c.encode(exitAttempts, forKey: .exitAttempts)
        try c.encode(interruptions, forKey: .interruptions)
        try c.encode(lastSeen, forKey: .lastSeen)
        try c.encode(lastHeardSeconds, forKey: .lastHeardSeconds)
        try c.encode(connected, forKey: .connected)
        var room = encoder.container(keyedBy: RoomKeys.self)
        try room.encode(candidateNumber, forKey: .candidateNumber)
        try room.encode(waiting, forKey: .waiting)
        try room.encode(paused, forKey: .paused)
        try room.encode(hand, forKey: .hand)
        try room.encode(commandsPending, forKey: .commandsPending)
        try room.encode(carrelVersion, forKey: .carrelVersion)
        try room.encode(executableDigest, forKey: .executableDigest)
        try room.encode(fingerprint, forKey: .fingerprint)
        try room.encode(terminal, forKey: .terminal)
        try room.encode(policy, forKey: .policy)
        try room.encode(passphraseFailures, forKey: .passphraseFailures)
        try room.encode(commandsRefused, forKey: .commandsRefused)
        try room.encode(lastRefusal, forKey: .lastRefusal)
        try room.encode(commandable, forKey: .commandable)
        try room.encode(host, forKey: .host)
        try room.encode(verified, forKey: .verified)
        try room.encode(warnings, forKey: .warnings)
        try room.encode(recordsNotCounted, forKey: .recordsNotCounted)
        try room.encode(moveRequest, forKey: .moveRequest)
        try room.encode(moves, forKey: .moves)
        try room.encode(machineIncidents, forKey: .machineIncidents)
        try room.encode(lastIncident, forKey: .lastIncident)
        try room.encode(assessmentMode, forKey: .assessmentMode)
        // The score's keys are always there: null until a finished session's result is read.
        try room.encode(score?.state, forKey: .scoring)
        try room.encode(score?.scored?.points, forKey: .scorePoints)
        try room.encode(score?.scored?.max, forKey: .scoreMax)
        try room.encode(score?.scored?.pending, forKey: .scorePending)
    }

    /// The room's keys of `--json` (written, not read back: a snapshot read back has none).
    enum RoomKeys: String, CodingKey {
        case candidateNumber, waiting, paused, hand, commandsPending, carrelVersion, executableDigest, fingerprint, terminal, policy
        case passphraseFailures, commandsRefused, lastRefusal, commandable, host, verified, warnings, recordsNotCounted
        case scoring, scorePoints, scoreMax, scorePending, moveRequest, moves
        case machineIncidents = "machine_incidents", lastIncident = "last_incident", assessmentMode = "assessment_mode"
    }

    /// Trouble first (`rank`), then by seat name: a seat moves only when its state changes,
    /// never because it was heard from a second later than another (j and k stay on the seat
    /// the proctor meant).
    public static func troubleFirst(_ a: SeatView, _ b: SeatView) -> Bool {
        if a.rank != b.rank { return a.rank < b.rank }
        switch a.seat.localizedStandardCompare(b.seat) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return a.seat != b.seat ? a.seat < b.seat : a.session < b.session
        }
    }
}

/// A finished session's score, as the console reads it from the session's result: scored
/// (by its seat, or where the proctor's passphrase opened the sealed test), not scored yet (its
/// seat had no answer key and the console was given no test for it), or not shown because the
/// proctor's key finds no result its seat wrote.
public enum SeatScore: Sendable, Equatable {
    /// `points` of `max`, with `pending` points of items still to mark by a person.
    case scored(points: Double, max: Double, pending: Double)
    /// Its seat had no answer key, and no sealed test (`--test`) given to the console is its test.
    case notScored
    /// With the proctor's passphrase: the session's records hold no result its seat wrote.
    case unverified

    /// `scoring` in `proctor --json`: scored, not_scored or unverified.
    public var state: String {
        switch self {
        case .scored: return "scored"
        case .notScored: return "not_scored"
        case .unverified: return "unverified"
        }
    }

    public var scored: (points: Double, max: Double, pending: Double)? {
        if case let .scored(points, max, pending) = self { return (points, max, pending) }
        return nil
    }

    /// Only a session that has ended has a result to score.
    public static func finished(_ status: String) -> Bool { ["submitted", "timed_out", "ended"].contains(status) }
}

extension SeatView {
    /// Checks, with the proctor's key for this seat's room, what proves the seat live: a
    /// session the proctor's start gave a key (the start verifies for this session and
    /// carries keys) is live only while the server process it claimed with its session's MAC
    /// lives and its claim is recent (made again with every pulse), whatever locks anyone
    /// holds. A session begun without that start is unverified; in a room the proctor starts,
    /// it is not counted live at all.
    public mutating func checkLiveness(key: ProctorKey, signing: ProctorSigningKey, proctorStarts: Bool) {
        let start = SignedCommand(id: 0, envelope: liveness.startEnvelope, signature: liveness.startSignature)
        let running = ["active", "interrupted"].contains(status)
        let signedStart = start.envelope(signedBy: key).flatMap { envelope in
            envelope.action == "start" && envelope.session == session && envelope.room == room ? envelope : nil
        }
        if signedStart != nil && signedStart?.keys == nil {
            // The proctor's start, sent without keys (the seat announced none): unverified, and
            // live as its lock says.
            if status != "not_started" { verified = false }
            return
        }
        guard let envelope = signedStart, envelope.keys != nil else {
            // Begun without the console's start (or waiting for it): nothing to prove it by.
            if status != "not_started" { verified = false }
            if proctorStarts && running {
                connected = false
                status = "interrupted"
                if !warnings.contains("no start signed by the proctor") { warnings.append("no start signed by the proctor") }
            }
            return
        }
        // A session moved to another seat is live by its latest key (`SessionKeyChain`).
        let sessionKey = SessionKeyChain.keys(session: session, room: room, start: start, moves: liveness.moves, publicKey: key,
                                              signing: signing).last ?? signing.sessionKey(session, seatKey: envelope.seatKey ?? "")
        let expected = SessionMAC.live(key: sessionKey, session: session, pid: Int64(liveness.pid ?? -1))
        let claimed = SessionMAC.matches(liveness.mac, expected)
        verified = claimed
        guard running else { return }
        // A claim from the future (a time the store made up) is no claim.
        let recent = (liveness.age ?? .infinity) < 3 * Self.pulseInterval && (liveness.age ?? -1) >= -1
        let live = claimed && liveness.alive && recent
        connected = live
        status = live ? "active" : "interrupted"
        if liveness.mac != nil && !claimed && !warnings.contains("liveness claimed by another connection") {
            warnings.append("liveness claimed by another connection")
        }
    }
}
