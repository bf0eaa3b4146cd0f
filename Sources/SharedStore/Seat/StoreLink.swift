import AssessmentKit
import Crypto
import Foundation
import SessionKit

/// A record as a seat sends it: its body as the store takes it, its MAC with the session's
/// key (empty for a session the proctor did not start) and the digest the store compares.
public struct SentRecord: Sendable, Equatable {
    public var session: String
    public var seq: Int64
    public var kind: String
    public var at: Date
    public var body: String
    public var mac: String
    public var digest: String
    /// The seat's proof that the session is its own (`SeatProof`): the store keeps a record
    /// only with it.
    public var token: String
    public var previous: String?

    public init(session: String, seq: Int64, kind: String, at: Date, body: String, mac: String, token: String = "",
                previous: String? = nil) {
        self.session = session
        self.seq = seq
        self.kind = kind
        self.at = at
        self.body = body
        self.mac = mac
        self.digest = Self.digest(body)
        self.token = token
        self.previous = previous
    }

    /// `record` as sent, authenticated with its session's key when there is one, with the
    /// proof of its session.
    public init(_ record: OutboxRecord, keys: [String: [UInt8]], proofs: [String: SeatProof] = [:]) {
        let body = Self.storable(record.body)
        let mac = keys[record.session].map {
            SessionMAC.record(key: $0, session: record.session, seq: record.seq, link: record.link, kind: record.kind, body: body)
        } ?? ""
        let proof = proofs[record.session]
        self.init(session: record.session, seq: record.seq, kind: record.kind, at: record.at, body: body, mac: mac,
                  token: proof?.token ?? "", previous: proof?.previous)
    }

    /// SHA-256 of a record's text as sent, in hex (what `carrel_seat_kept` compares).
    public static func digest(_ text: String) -> String {
        Fingerprint.hex(SHA256.hash(data: Array(text.utf8)))
    }

    /// A record's JSON as PostgreSQL's jsonb takes it: a NUL character (`\u0000`, which jsonb
    /// refuses, and which would hold the seat's outbox back for good) becomes U+FFFD. Other
    /// escapes, an escaped backslash before "u0000" included, are left as they are.
    public static func storable(_ json: String) -> String {
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

    /// The batch without the time saves that a later one of the same session replaces: the
    /// journal itself keeps only a session's latest, so the store loses nothing by it, and a
    /// backlog after an outage shrinks to what matters.
    public static func latestProgressOnly(_ batch: [OutboxRecord]) -> [OutboxRecord] {
        var lastProgress: [String: Int64] = [:]
        for r in batch where r.kind == "progress" { lastProgress[r.session] = r.seq }
        guard batch.count > lastProgress.count else { return batch }
        return batch.filter { $0.kind != "progress" || lastProgress[$0.session] == $0.seq }
    }
}

/// What a seat shows the store to act for a session: the session and the token whose SHA-256
/// the store keeps for it (schema version 5). `previous` is the token this one replaces (the
/// first, random token, once the proctor's start gave a key): the first call with both moves
/// the store to the new one.
public struct SeatProof: Sendable, Equatable, Hashable {
    public var session: String
    public var token: String
    public var previous: String?

    public init(session: String, token: String, previous: String? = nil) {
        self.session = session
        self.token = token
        self.previous = previous
    }
}

/// What the store did with a batch: how many of its records it holds as sent, and why it kept
/// out others (a session this seat did not prove, one at its quota), if it did.
public struct StoreKept: Sendable, Equatable {
    public var kept: Int64
    public var refused: String?

    public init(kept: Int64, refused: String? = nil) {
        self.kept = kept
        self.refused = refused
    }
}

/// A session's liveness claim as the store takes it: the proof, the MAC naming this
/// connection's server process, the time used.
public struct StoreLiveClaim: Sendable {
    public var proof: SeatProof
    public var mac: String
    public var elapsed: Double?
    public init(proof: SeatProof, mac: String, elapsed: Double?) {
        self.proof = proof
        self.mac = mac
        self.elapsed = elapsed
    }
}

/// The store refused a call: it says this seat is not the session's.
public struct StoreRefusal: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One connection to the lab's store, as a seat uses it: every call the seat's publisher makes.
/// Each call ends, with an error, within the link's own deadline; an error means the
/// connection is gone (the publisher closes it and makes a new one).
public protocol StoreLink: AnyObject, Sendable {
    /// Announces a seat waiting at its start screen (`body`: the announcement's JSON) with the
    /// token of its session; false when the store holds the session for another token.
    func hello(session: String, body: String, token: String) async throws -> Bool
    /// Holds the proven session's advisory lock on this connection (false: another connection
    /// holds it, or the proof failed). The store takes it for the seat (`carrel_seat_lock`,
    /// schema version 9): one a connection.
    func lock(_ proof: SeatProof) async throws -> Bool
    func unlock(session: String) async throws
    /// The room's commands for this seat numbered after `after`, in order, as stored.
    /// (PostgreSQL finds the room and seat from the proven session's row.)
    func commands(room: String, seat: String, proof: SeatProof, after: Int64) async throws -> [SignedCommand]
    /// The proctor's starts for this seat given after `after`, newest first.
    func starts(room: String, seat: String, proof: SeatProof, after: Int64) async throws -> [SignedCommand]
    /// Tells the console that a waiting seat refused a start.
    func refused(_ proof: SeatProof, detail: String) async throws
    /// Marks given in the store to these sessions, numbered after `after`.
    func marks(_ proofs: [SeatProof], after: Int64) async throws -> [StoreMark]
    /// This connection's server process (what a session's liveness claim names).
    func serverProcess() async throws -> Int64
    /// The session's liveness claim (with its MAC) and time used.
    func live(_ proof: SeatProof, mac: String, elapsed: Double?) async throws
    /// A session without a key: its time used.
    func pulse(_ proof: SeatProof, elapsed: Double) async throws
    /// Inserts records in order, durably, a record already stored skipped; says how many of
    /// them the store holds as sent.
    func insert(_ records: [SentRecord]) async throws -> StoreKept
    /// The same, with a session's liveness claim made first (in one call where the link can).
    func insert(_ records: [SentRecord], claim: StoreLiveClaim?) async throws -> StoreKept
    /// Runs what a begin will run and keeps none of it (`SeatPublisher.rehearse`).
    func rehearse(_ proof: SeatProof, records: [SentRecord]) async throws
    /// Listens for notices of new commands until the connection ends: `started` once
    /// listening, `heard` for each notice.
    func listen(started: @escaping @Sendable () -> Void, heard: @escaping @Sendable () -> Void) async
    func close() async
    /// What became of a session whose proof the store no longer takes ("moved S1", "lost";
    /// schema version 10), or nil.
    func fate(_ proof: SeatProof) async throws -> String?
    /// A waiting seat's read: the commands after `after` and the starts after `startsAfter`
    /// (`commands` and `starts`, in one call where the link can).
    func commandsAndStarts(room: String, seat: String, proof: SeatProof, after: Int64,
                           startsAfter: Int64) async throws -> (commands: [SignedCommand], starts: [SignedCommand])
}

extension StoreLink {
    public func fate(_ proof: SeatProof) async throws -> String? { nil }

    public func insert(_ records: [SentRecord], claim: StoreLiveClaim?) async throws -> StoreKept {
        if let claim { try await live(claim.proof, mac: claim.mac, elapsed: claim.elapsed) }
        return try await insert(records)
    }

    public func commandsAndStarts(room: String, seat: String, proof: SeatProof, after: Int64,
                                  startsAfter: Int64) async throws -> (commands: [SignedCommand], starts: [SignedCommand]) {
        let commands = try await self.commands(room: room, seat: seat, proof: proof, after: after)
        return (commands, try await starts(room: room, seat: seat, proof: proof, after: startsAfter))
    }
}

/// Makes connections to the store.
public protocol StoreLinkOpener: Sendable {
    func open() async throws -> any StoreLink
    /// The longest `open` and one call may take together (`firstAnswer` waits that long).
    var answerDeadline: Double { get }
}
