import AssessmentKit
import Foundation
import GRDB

/// What the proctor signs to move a session to a spare seat: the session that continues there,
/// the seat it leaves, and the keys earlier seats held it with (each wrapped to the spare's key,
/// `MoveOrder.historyLabel`), oldest first, so that the spare verifies every record the store
/// kept of it. The start that carries it wraps the session's new key, derived for the spare.
public struct MoveOrder: Codable, Sendable, Equatable {
    public var session: String
    public var from: String
    public var history: [String]
    /// The time the session had used when its old seat last reported it (its pulse, every two
    /// seconds, which only that seat could send once started): the spare goes on from it when
    /// its records saved less (they save the time every five seconds).
    public var elapsed: Double?

    public init(session: String, from: String, history: [String], elapsed: Double? = nil) {
        self.elapsed = elapsed
        self.session = session
        self.from = from
        self.history = history
    }

    /// What earlier keys are wrapped for (never a session's own id, which its new key is for).
    public static func historyLabel(_ session: String) -> String { session + "\nhistory" }
}

/// One record of a session as the store keeps it, with the moment it was written.
public struct StoreRecord: Sendable, Equatable {
    public var seq: Int64
    public var kind: String
    public var at: Date
    public var body: String?
    public var mac: String?

    public init(seq: Int64, kind: String, at: Date, body: String?, mac: String?) {
        self.seq = seq
        self.kind = kind
        self.at = at
        self.body = body
        self.mac = mac
    }
}

/// A session rebuilt from the records its seats wrote, as the spare seat that continues it
/// keeps it: its record (order and draw, accommodations, launch choices), answers, flags,
/// events, position and time used, where its chain stands, and what did not verify. Records
/// that do not verify with any of its keys are named and never applied.
public struct MovedSession: Sendable {
    public var record: SessionRecord
    public var answers: [(item: String, response: Response?, at: Date)] = []
    public var flags: Set<String> = []
    public var events: [JournalEvent] = []
    /// The highest store number and chain place of its records.
    public var lastSeq: Int64 = 0
    public var links: Set<Int64> = []
    public var outside: [String] = []
    /// Its seat's last word (ended sessions are not moved).
    public var ended = false

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case noStart
        case olderSeat
        case otherTest
        case unreadable(String)
        public var description: String {
            switch self {
            case .noStart: return "the store holds no verified start record of that session"
            case .olderSeat: return "that session was begun by an older Carrel, which did not publish its draw: it cannot continue on another seat (its own seat can resume it)"
            case .otherTest: return "that session is of another test than this seat's"
            case let .unreadable(what): return "its record \(what) cannot be read"
            }
        }
    }

    /// The places missing from its chain (`3, 7–9`), or "" for none.
    public var holes: String { ChainPlaces.holes(links) }

    /// Rebuilds `session` from `records` (in store order), verified with `keys`, for `label`
    /// (the room and the spare's seat) and the test with `fingerprint`.
    public static func rebuild(session: String, records: [StoreRecord], keys: [[UInt8]], label: SharedLabel,
                               fingerprint: String, path: String, host: String, pid: Int32) throws(Failure) -> MovedSession {
        var moved: MovedSession?
        var verified: [(StoreRecord, [String: Any])] = []
        var outside: [String] = []
        for record in records {
            let link = SessionMAC.link(of: record.mac)
            guard let body = record.body, keys.contains(where: { key in
                SessionMAC.matches(record.mac, SessionMAC.record(key: key, session: session, seq: record.seq, link: link,
                                                                 kind: record.kind, body: body))
            }) else {
                if outside.count < SeatChain.namedLimit {
                    outside.append("\(TerminalSafety.visible(String(record.kind.prefix(40)), keepLineBreaks: false)) record \(record.seq) was not written by the session's seats: not counted")
                }
                continue
            }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] else { continue }
            verified.append((record, object))
            if record.kind == "session", moved == nil {
                moved = try start(session: session, object, at: record.at, label: label, fingerprint: fingerprint, path: path,
                                  host: host, pid: pid)
            }
        }
        guard var session = moved else { throw .noStart }
        session.outside = outside
        for (record, body) in verified { session.apply(record, body) }
        return session
    }

    static func start(session: String, _ body: [String: Any], at: Date, label: SharedLabel, fingerprint: String, path: String,
                      host: String, pid: Int32) throws(Failure) -> MovedSession {
        guard let carry = body["continue"] as? [String: Any], let seedText = carry["seed"] as? String,
              let seed = UInt64(seedText) else { throw .olderSeat }
        guard (body["fingerprint"] as? String) == fingerprint else { throw .otherTest }
        let decoder = JSONDecoder()
        func decoded<T: Decodable>(_ type: T.Type, _ key: String) throws(Failure) -> T {
            guard let value = carry[key], let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]),
                  let result = try? decoder.decode(T.self, from: data) else { throw .unreadable("continue.\(key)") }
            return result
        }
        let extra = try decoded(ExtraTime.self, "extra_time")
        guard StoredSessionRow.isPlausible(extra) else { throw .unreadable("continue.extra_time") }
        var options = try decoded(SessionOptions.self, "options")
        var shared = options.shared ?? label
        shared.room = label.room
        shared.seat = label.seat
        shared.store = label.store
        shared.attestation = label.attestation
        shared.storeToken = nil
        options.shared = shared
        let candidate = (body["candidate"] as? String).map { String($0.prefix(200)) }
        let started = (body["started_at"] as? String).flatMap(Timestamp.parse) ?? at
        let record = SessionRecord(
            id: session, assessmentID: String((body["assessment_id"] as? String ?? "").prefix(200)),
            assessmentTitle: String((body["assessment_title"] as? String ?? "").prefix(500)), fingerprint: fingerprint,
            assessmentPath: path, candidate: candidate, status: .interrupted, seed: seed, extraTime: extra, options: options,
            startedAt: started, pid: pid, host: host, tty: nil)
        return MovedSession(record: record)
    }

    mutating func apply(_ record: StoreRecord, _ body: [String: Any]) {
        lastSeq = max(lastSeq, record.seq)
        if let link = SessionMAC.link(of: record.mac) { links.insert(link) }
        if let seconds = SeatChain.number(body["elapsed"]), seconds.isFinite, seconds >= 0 {
            self.record.elapsed = min(seconds, StoredSessionRow.elapsedSeconds.upperBound)
        }
        switch record.kind {
        case "answer":
            guard let item = body["item"] as? String else { return }
            var response: Response?
            if let value = body["response"], !(value is NSNull) {
                // An answer its seat wrote that this Carrel cannot read is named, never taken as a
                // cleared answer (the one before it stands).
                guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]),
                      let read = try? JSONDecoder().decode(Response.self, from: data) else {
                    outside.append("answer record \(record.seq) to \(TerminalSafety.visible(String(item.prefix(60)), keepLineBreaks: false)) cannot be read: not applied")
                    return
                }
                response = read
            }
            // Every answer in the order its seats gave it: the journal keeps the last and the history.
            answers.append((item, response, record.at))
        case "flag":
            guard let item = body["item"] as? String else { return }
            if (body["on"] as? Bool) == true { flags.insert(item) } else { flags.remove(item) }
        case "progress":
            if let position = SeatChain.number(body["position"]), position.isFinite, position >= 0 {
                self.record.position = Int(min(position, Double(StoredSessionRow.positions.upperBound)))
            }
        case "event":
            guard let kind = body["kind"] as? String, let detail = body["detail"] as? String else { return }
            events.append(JournalEvent(at: record.at, kind: kind, detail: detail))
        case "resumed":
            self.record.interruptions += 1
        case "status":
            let words = body["status"] as? String
            ended = words == "ended" || words == "abandoned"
        default:
            break
        }
    }
}

extension MovedSession {
    /// The result of a session whose seat will not come back, made from its verified records
    /// with its test (`carrel proctor lost`): ended by the proctor, seat lost, at `now`; and the
    /// records that close its chain (an event saying so, its status, its result), each as
    /// (kind, body) in the order its seat would have written them.
    public func lostResult(assessment: Assessment, now: Date) throws -> (result: ResultDocument, records: [(kind: String, body: String)]) {
        var ended = record
        ended.status = .ended
        ended.endReason = .seatLost
        ended.endedAt = now
        var responses: [String: Response] = [:]
        for answer in answers { responses[answer.item] = answer.response }
        let events = self.events + [JournalEvent(at: now, kind: "seat_lost", detail: "ended by the proctor, seat lost")]
        let result = ResultDocument.make(assessment: assessment, record: ended, reason: .seatLost, endedAt: now, elapsed: ended.elapsed,
                                         responses: responses, flags: flags, events: events)
        let json = String(decoding: try result.json(), as: UTF8.self)
        let writes: [JournalWrite] = [.event(.ended, "ended by the proctor, seat lost", at: now),
                                      .status(.ended, .seatLost, endedAt: now), .result(json: json, digest: ResultDigest(result))]
        let records = try writes.compactMap { try Outbox.body(of: $0) }.map { (kind: $0.0, body: Outbox.carrying(ended.elapsed, in: $0.1)) }
        return (result, records)
    }
}

extension Journal {
    /// Keeps `moved` as this seat's own interrupted session, ready for `SessionRuntime.resume`:
    /// its test (`source`), row, time, answers, flags and events; its chain goes on after its
    /// highest place and the store's numbers after its highest; `seatKey` is the key this
    /// seat announced (so that `resume` here derives its key again). Nothing of it is sent
    /// again: the store has it. One transaction.
    public func adopt(_ moved: MovedSession, source: StoredAssessment, seatKey: String, event: String, at: Date) throws {
        let record = moved.record
        guard let label = record.options.shared else { return }
        try foldingTheLogWhenFull { try writer.write { db in
            try db.execute(sql: """
                INSERT INTO assessment (fingerprint, assessment_id, title, path, format, source) VALUES (?, ?, ?, ?, ?, ?)
                  ON CONFLICT(fingerprint) DO UPDATE SET path = excluded.path, format = excluded.format, source = excluded.source
                """, arguments: [record.fingerprint, record.assessmentID, record.assessmentTitle, source.path,
                                 source.format.rawValue, source.bytes])
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [record.id])
            try StoredSessionRow(record).insert(db)
            try ProgressRow(sessionID: record.id, position: record.position, elapsed: record.elapsed).insert(db)
            for answer in moved.answers {
                try Self.apply(.answer(item: answer.item, response: answer.response), session: record.id, at: answer.at, db)
            }
            for item in moved.flags.sorted() { try Self.apply(.flag(item: item, on: true), session: record.id, at: at, db) }
            for event in moved.events {
                try db.execute(sql: "INSERT INTO event (session_id, at, kind, detail) VALUES (?, ?, ?, ?)",
                               arguments: [record.id, JournalTime.text(event.at), event.kind, event.detail])
            }
            try db.execute(sql: "INSERT INTO publication (session_id, room, seat, links) VALUES (?, ?, ?, ?)",
                           arguments: [record.id, label.room, label.seat, moved.links.max() ?? 0])
            // The store's numbers of this session go on above the highest it holds.
            try db.execute(sql: """
                INSERT INTO outbox (seq, session_id, kind, at, body)
                  SELECT ?, '', '.published', ?, '{}' WHERE NOT EXISTS (SELECT 1 FROM outbox WHERE seq >= ?)
                """, arguments: [moved.lastSeq, JournalTime.text(at), moved.lastSeq])
            publishing.set(record.id, true)
            try Self.apply(.event(.seatKey, seatKey, at: at), session: record.id, at: at, published: true, db)
            try Self.apply(.event(.moved, event, at: at), session: record.id, at: at, published: true, db)
        } }
        outboxBell.ring()
    }
}

/// The keys a session has had, oldest first: the one its first start the proctor signed with
/// keys gave it, then one for each seat the proctor moved it to (a start carrying a
/// `MoveOrder` for it). Its records verify with any of them; its liveness with the last.
public enum SessionKeyChain {
    public static func keys(session: String, room: String, start: SignedCommand, moves: [SignedCommand],
                            publicKey: ProctorKey, signing: ProctorSigningKey) -> [[UInt8]] {
        guard let first = start.envelope(signedBy: publicKey), first.action == "start", first.session == session,
              first.room == room, first.keys != nil, first.move == nil else { return [] }
        var keys = [signing.sessionKey(session, seatKey: first.seatKey ?? "")]
        for command in moves {
            guard let envelope = command.envelope(signedBy: publicKey), envelope.action == "start", envelope.room == room,
                  envelope.keys != nil, envelope.move?.session == session else { continue }
            keys.append(signing.sessionKey(session, seatKey: envelope.seatKey ?? ""))
        }
        return keys
    }

    /// Whether `mac` is one of `keys`' MACs of the record.
    public static func verifies(_ keys: [[UInt8]], session: String, seq: Int64, kind: String, body: String?, mac: String?) -> Bool {
        guard let body else { return false }
        let link = SessionMAC.link(of: mac)
        return keys.contains { SessionMAC.matches(mac, SessionMAC.record(key: $0, session: session, seq: seq, link: link, kind: kind, body: body)) }
    }
}
