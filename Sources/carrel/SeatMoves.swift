import AssessmentKit
import Crypto
import Foundation
import SessionKit
import SharedStore

/// Moving a candidate's session to a spare seat, and ending a seat that will not come back:
/// what the console and `carrel proctor move` / `lost` sign and send.
enum SeatMoves {
    /// The session at seat `from` that moves and the spare at `to` that takes it. Only a session
    /// the proctor's start keyed can move (`keyed`: its keys, `SessionKeyChain`), so a session
    /// anyone announced under that seat's name is never the one chosen; a seat still connected
    /// moves only when the proctor says so (`whileConnected`). The spare must be one a start
    /// would not hold back (`SeatMoves.check`); when several wait at `to`, the proctor names the
    /// one by the seat key on its screen (`seatKey`).
    static func pick(_ seats: [SeatView], from: String, to: String, room: String, seatKey: String?, keyed: (SeatView) -> Bool,
                     machines: MachineRoom?, whileConnected: Bool) throws(CarrelFailure) -> (moving: SeatView, spare: SeatView) {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        guard from != to else { throw CarrelFailure(status: .usage, message: "--from and --to name the same seat") }
        let running = seats.filter { $0.seat == from && $0.room == room && ["active", "interrupted"].contains($0.status) }
        guard let moving = running.filter(keyed).sorted(by: { $0.lastSeen > $1.lastSeen }).first else {
            if !running.isEmpty {
                throw CarrelFailure(status: .refused, message: "no session at seat \(v(from)) was begun by the proctor's start with keys, so none can move (a spare could not verify its records); resume it at its own seat (`carrel resume`)")
            }
            throw CarrelFailure(status: .refused, message: "seat \(v(from)) of room \(v(room)) has no running or interrupted session to move")
        }
        var waiting = seats.filter { $0.seat == to && $0.room == room && $0.status == "not_started" && $0.connected }
        if let seatKey {
            waiting = waiting.filter { $0.seatKey.flatMap(SeatBox.fingerprint) == seatKey }
            guard !waiting.isEmpty else {
                throw CarrelFailure(status: .refused, message: "no seat waiting at \(v(to)) shows seat key \(v(seatKey))")
            }
        }
        guard !waiting.isEmpty else {
            throw CarrelFailure(status: .refused, message: "no seat waits at \(v(to)) in room \(v(room)): start `carrel take` there for the room, let the candidate identify, and move them when it waits")
        }
        guard waiting.count == 1 else {
            let lines = waiting.map { "  \(v($0.seat))  seat key \($0.seatKey.flatMap(SeatBox.fingerprint) ?? "none")  host \(v($0.host ?? "-"))  candidate \(v($0.candidateNumber ?? "-"))" }
            throw CarrelFailure(status: .refused, message: "\(waiting.count) sessions wait at seat \(v(to)); read the seat key on the spare's screen and name it with --seat-key:\n" + lines.joined(separator: "\n"))
        }
        try check(moving: moving, spare: waiting[0], machines: machines, whileConnected: whileConnected)
        return (moving, waiting[0])
    }

    /// Refuses a move the proctor did not mean: a seat still connected (unless said so), a spare
    /// claiming another candidate, or one a start would hold back (in a room with codes, one
    /// whose own session did not find the candidate with the code; an unknown machine).
    static func check(moving: SeatView, spare: SeatView, machines: MachineRoom?, whileConnected: Bool) throws(CarrelFailure) {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        if moving.connected && moving.status == "active" && !whileConnected {
            throw CarrelFailure(status: .refused, message: "seat \(v(moving.seat)) is still connected (heard \(moving.lastHeardSeconds) s ago): a move is for a seat that died; end the session there, or give --while-connected (that seat then stops and says where the session went)")
        }
        if let asked = spare.candidateNumber, let theirs = moving.candidateNumber, asked != theirs {
            throw CarrelFailure(status: .refused, message: "the seat waiting at \(v(spare.seat)) is candidate \(v(asked))'s, not \(v(theirs))'s (the session at \(v(moving.seat)))")
        }
        if let standing = machines?.standingForMove(of: spare), !standing.startable {
            throw CarrelFailure(status: .refused, message: "the seat waiting at \(v(spare.seat)) would be held back (\(standing.words)); after reading its seat key on its screen: carrel proctor admit --room \(v(spare.room)) --seat \(v(spare.seat)) --seat-key KEY, then move again")
        }
    }

    /// Whether a seat's session was keyed by the proctor's start (`SessionKeyChain`), with the
    /// room's public key and the proctor's signing key.
    static func keyed(plan: RoomPlan, key: ProctorSigningKey) throws(CarrelFailure) -> (SeatView) -> Bool {
        guard let text = plan.proctorKey, let publicKey = try? ProctorKey(parsing: text) else {
            throw CarrelFailure(status: .refused, message: "room \(TerminalSafety.visible(plan.room, keepLineBreaks: false))'s test has no proctor key: its sessions cannot be moved or ended as lost")
        }
        return { seat in
            let start = SignedCommand(id: 0, envelope: seat.liveness.startEnvelope, signature: seat.liveness.startSignature)
            return !SessionKeyChain.keys(session: seat.session, room: seat.room, start: start, moves: seat.liveness.moves,
                                         publicKey: publicKey, signing: key).isEmpty
        }
    }

    /// The start that moves `moving`'s session to `spare`: the session's new key (derived for
    /// the spare's announced key) and its earlier keys wrapped to the spare, and the hash of the
    /// token the new key derives (the store fences the old one with it).
    static func target(moving: SeatView, spare: SeatView, plan: RoomPlan, package: [UInt8]?, key: ProctorSigningKey) throws(CarrelFailure) -> CommandTarget {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        guard let text = plan.proctorKey, let publicKey = try? ProctorKey(parsing: text) else {
            throw CarrelFailure(status: .refused, message: "room \(v(plan.room))'s test has no proctor key: its sessions cannot be moved")
        }
        let start = SignedCommand(id: 0, envelope: moving.liveness.startEnvelope, signature: moving.liveness.startSignature)
        let history = SessionKeyChain.keys(session: moving.session, room: moving.room, start: start, moves: moving.liveness.moves,
                                           publicKey: publicKey, signing: key)
        guard !history.isEmpty else {
            throw CarrelFailure(status: .refused, message: "the session at \(v(moving.seat)) was not begun by the proctor's start with keys, so no spare could verify its records; resume it at its own seat (`carrel resume`)")
        }
        guard let spareKey = spare.seatKey else {
            throw CarrelFailure(status: .refused, message: "the seat waiting at \(v(spare.seat)) announced no seat key")
        }
        let session = moving.session
        let newKey = key.sessionKey(session, seatKey: spareKey)
        do {
            let keys = try KeyWrap.wrap(SeatSecrets(sessionKey: newKey, packageKey: package), to: spareKey, session: session)
            let earlier = try history.map {
                try KeyWrap.wrap(SeatSecrets(sessionKey: $0), to: spareKey, session: MoveOrder.historyLabel(session))
            }
            let token = SessionMAC.storeToken(key: newKey, session: session)
            let hash = SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
            return CommandTarget(seat: spare.seat, session: spare.session, keys: keys, seatKey: spareKey,
                                 move: MoveOrder(session: session, from: moving.seat, history: earlier, elapsed: moving.timing.elapsed),
                                 moveToken: hash)
        } catch {
            throw CarrelFailure(status: .refused, message: "the seat waiting at \(v(spare.seat)) announced a key that is not one: nothing was sent")
        }
    }

    /// The lines a proctor checks before the session's keys go to the spare.
    static func summary(moving: SeatView, spare: SeatView) -> [String] {
        let v = { (t: String?) in TerminalSafety.visible(t ?? "-", keepLineBreaks: false) }
        let who = [moving.candidate, moving.candidateNumber].compactMap { $0 }.map(v).joined(separator: ", ")
        let key = spare.seatKey.flatMap(SeatBox.fingerprint) ?? "no key"
        return [
            "Move \(who.isEmpty ? "the session" : who) from \(v(moving.seat)) to \(v(spare.seat)):",
            "  \(v(moving.seat))  session \(moving.session.prefix(8))  \(moving.answered) of \(moving.total) answered  \(moving.statusWords), last heard \(moving.lastHeardSeconds) s ago",
            "  (a seat cut off from the store may have gone on without it: move a seat you saw die)",
            "  \(v(spare.seat))  seat key \(key)  host \(v(spare.host))",
            "The session's keys go to \(v(spare.seat)) (check the seat key on its screen); \(v(moving.seat)) can write nothing more.",
        ]
    }
}
