import AssessmentKit
import Crypto
import Foundation
import SessionKit
import SharedStore

/// Moving a candidate's session to a spare seat, and ending a seat that will not come back:
/// what the console and `carrel proctor move` / `lost` sign and send.
enum SeatMoves {
    /// The session at seat `from` that can move, and the spare seat waiting at `to`.
    static func pick(_ seats: [SeatView], from: String, to: String, room: String) throws(CarrelFailure) -> (moving: SeatView, spare: SeatView) {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        guard from != to else { throw CarrelFailure(status: .usage, message: "--from and --to name the same seat") }
        let movable = seats.filter { $0.seat == from && $0.room == room && ["active", "interrupted"].contains($0.status) }
        guard let moving = movable.sorted(by: { $0.lastSeen > $1.lastSeen }).first else {
            throw CarrelFailure(status: .refused, message: "seat \(v(from)) of room \(v(room)) has no running or interrupted session to move")
        }
        let waiting = seats.filter { $0.seat == to && $0.room == room && $0.status == "not_started" && $0.connected }
        guard let spare = waiting.sorted(by: { $0.lastSeen > $1.lastSeen }).first else {
            throw CarrelFailure(status: .refused, message: "no seat waits at \(v(to)) in room \(v(room)): start `carrel take` there for the room, let the candidate identify, and move them when it waits")
        }
        if let asked = spare.candidateNumber, let theirs = moving.candidateNumber, asked != theirs {
            throw CarrelFailure(status: .refused, message: "the seat waiting at \(v(to)) is candidate \(v(asked))'s, not \(v(theirs))'s (the session at \(v(from)))")
        }
        return (moving, spare)
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
            "  \(v(moving.seat))  session \(moving.session.prefix(8))  \(moving.answered) of \(moving.total) answered  \(moving.statusWords)",
            "  \(v(spare.seat))  seat key \(key)  host \(v(spare.host))",
            "The session's keys go to \(v(spare.seat)) (check the seat key on its screen); \(v(moving.seat)) can write nothing more.",
        ]
    }
}
