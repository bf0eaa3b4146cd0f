import AssessmentKit
import Foundation
import PostgresNIO
import SessionKit
import Synchronization

/// The console's view of each seat the proctor's start gave a key, from its verified records
/// only (`SeatChain`), kept between readings: each reading asks the store for the records after
/// the last that verified, so a room's console reads each record about once.
public final class SeatChains: Sendable {
    struct Entry: Sendable {
        /// The session's keys (`SessionKeyChain`): more than one once it was moved.
        var key: [[UInt8]]
        var chain: SeatChain
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The most records one reading takes of one session (the rest come at the next).
    static let perSession = 2000

    public init() {}

    /// Replaces what the store's rows say of each keyed seat of `seats` with what its verified
    /// records say (`SeatView.apply`). In a room the proctor starts (`proctorStarts`), a session
    /// the start did not key has nothing of its own that verifies: it is shown as not started,
    /// whatever its records claim (a session anyone with the seat role's password could
    /// announce under a real seat's name), and flagged when they claim more. Other seats with no
    /// key (a room whose candidates start, or whose key `keys` lacks) are left as they are: the
    /// liveness check marks them unverified.
    public func apply(_ seats: inout [SeatView], reader: SharedReader, keys: RoomKeys, proctorStarts: Set<String> = []) async throws {
        var keyed: [String: (index: Int, key: [[UInt8]])] = [:]
        for i in seats.indices {
            let seat = seats[i]
            guard let (publicKey, signing) = keys(seat.room) else { continue }
            let start = SignedCommand(id: 0, envelope: seat.liveness.startEnvelope, signature: seat.liveness.startSignature)
            guard let envelope = start.envelope(signedBy: publicKey), envelope.action == "start",
                  envelope.session == seat.session, envelope.room == seat.room, envelope.keys != nil else {
                if proctorStarts.contains(seat.room) { Self.notStarted(&seats[i]) }
                continue
            }
            seats[i].keyed = true
            let chain = SessionKeyChain.keys(session: seat.session, room: seat.room, start: start, moves: seat.liveness.moves,
                                             publicKey: publicKey, signing: signing)
            keyed[seat.session] = (i, chain.isEmpty ? [signing.sessionKey(seat.session, seatKey: envelope.seatKey ?? "")] : chain)
        }
        // Sessions no longer read are forgotten; a session whose key changed starts again.
        var known = entries.withLock { current in
            current = current.filter { keyed[$0.key]?.key == $0.value.key }
            return current
        }
        for (session, found) in keyed where known[session] == nil {
            known[session] = Entry(key: found.key, chain: SeatChain())
        }
        let after = keyed.keys.sorted().map { ($0, known[$0]?.chain.lastSeq ?? 0) }
        if !after.isEmpty {
            for record in try await reader.records(after: after, limit: Self.perSession) {
                guard var entry = known[record.session] else { continue }
                entry.chain.add(session: record.session, keys: entry.key, seq: record.seq, kind: record.kind,
                                body: record.body, mac: record.mac)
                known[record.session] = entry
            }
        }
        let kept = known
        entries.withLock { $0 = kept }
        for (session, found) in keyed {
            if let chain = kept[session]?.chain { seats[found.index].apply(chain) }
        }
        // A session shown not started for want of the proctor's start makes no genuine seat
        // "seated twice".
        let unstarted = Set(seats.filter {
            $0.warnings.contains(Self.unstartedWarning) || $0.warnings.contains(MachineRoom.unidentifiedWarning)
        }.map(\.session))
        if !unstarted.isEmpty { SharedReader.flagTwiceSeated(&seats, unproven: unstarted) }
    }
}

extension SeatChains {
    /// A session of a room the proctor starts that no start of the proctor's keyed: not started,
    /// with nothing it says of answers, hands, pauses or refusals; flagged when it claims more.
    static func notStarted(_ seat: inout SeatView) {
        guard !["wrong_test", "candidate_twice"].contains(seat.status) else { return }
        let claims = seat.status != "not_started" || seat.answered > 0 || seat.hand != "down" || seat.paused
            || seat.commandsRefused > 0 || seat.incidents > 0
        seat.apply(SeatChain())
        seat.commandsPending = 0
        if claims && !seat.warnings.contains(Self.unstartedWarning) { seat.warnings.append(Self.unstartedWarning) }
    }

    /// What the console says of a session that claims to run with no start of the proctor's.
    public static let unstartedWarning = "no start signed by the proctor"
}

extension SharedReader {
    /// Each session's records numbered after its given number, in store order, at most `limit`
    /// of each (so one session's many records never keep another's out of a reading).
    func records(after: [(session: String, seq: Int64)], limit: Int) async throws -> [StoredRecord] {
        let connection = self.connection
        let logger = self.logger
        let sessions = after.map(\.session)
        let numbers = after.map(\.seq)
        let rows = try await StoreCall.guarded(connection, timeout: 30) { try await StoreCall.rows(connection, """
            SELECT w.session, r.seq::text, r.kind, r.body_text, r.mac
            FROM unnest(\(sessions)::text[], \(numbers)::int8[]) AS w(session, after)
            CROSS JOIN LATERAL (
              SELECT seq, kind, body_text, mac FROM carrel_records r
              WHERE r.session = w.session AND r.seq > w.after ORDER BY seq, received_at LIMIT \(limit)) r
            """, logger: logger) }
        var records: [StoredRecord] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            // A row that cannot be read is no record of anyone's: the seat's own come in rows
            // that read.
            guard let t = StoreRows.texts(row), t.count == 5, let session = t[0], let seq = t[1].flatMap({ Int64($0) }) else { continue }
            records.append(StoredRecord(session: session, seq: seq, kind: t[2] ?? "", at: nil, body: t[3], mac: t[4]))
        }
        return records
    }
}
