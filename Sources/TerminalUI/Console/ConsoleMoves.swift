import AssessmentKit
import Localization
import SessionKit

extension ProctorModel {
    /// `v`: on a spare waiting with a candidate's request, asks to move the session from the
    /// seat it names; on a running or interrupted seat (one that died), asks for the spare.
    mutating func askMove() {
        guard let seat = selectedSeat else { return }
        if seat.status == "not_started", let from = seat.moveRequest {
            guard let moving = movable(at: from) else {
                notice = say("Nothing to move: seat {0} has no running or interrupted session", .s(ProctorView.name(from)))
                return
            }
            guard !stillConnected(moving) else { return }
            entry = Entry(kind: .confirmMove(from: moving.session, to: seat.session), text: "", seats: [moving.seat, seat.seat])
        } else if ["active", "interrupted"].contains(seat.status) {
            guard !stillConnected(seat) else { return }
            entry = Entry(kind: .moveTo(from: seat.session), text: "", seats: [seat.seat])
        } else {
            notice = say("Select the seat that died, or a spare that asks to move")
        }
    }

    /// A seat still connected did not die: the console moves none (a request for it may be
    /// anyone's); `carrel proctor move --while-connected` does, on purpose. Says so.
    mutating func stillConnected(_ seat: SeatView) -> Bool {
        guard seat.status == "active", seat.connected else { return false }
        notice = say("Nothing moved: seat {0} is still connected (it did not die)", .s(ProctorView.name(seat.seat)))
        return true
    }

    /// `l`: asks before ending the selected running or interrupted seat's session as lost.
    mutating func askLost() {
        guard let seat = selectedSeat, ["active", "interrupted"].contains(seat.status) else {
            notice = say("Nothing ended: select a running or interrupted seat")
            return
        }
        entry = Entry(kind: .confirmLost(seat.session), text: "", seats: [seat.seat])
    }

    /// The running or interrupted session at `seat`, the latest heard.
    func movable(at seat: String) -> SeatView? {
        seats.filter { $0.seat == seat && ["active", "interrupted"].contains($0.status) }.max { $0.lastSeen < $1.lastSeen }
    }

    /// Enter in a move's or a lost seat's question line.
    mutating func moveEntry(_ e: Entry) -> Action {
        switch e.kind {
        case let .moveTo(from):
            let name = e.text.trimmingCharacters(in: .whitespaces)
            guard let moving = seats.first(where: { $0.session == from }) else { return .none }
            guard let spare = seats.filter({ $0.seat == name && $0.status == "not_started" && $0.connected })
                .max(by: { $0.lastSeen < $1.lastSeen }) else {
                notice = say("Nothing moved: no seat {0} waits in the room", .s(ProctorView.name(name)))
                return .none
            }
            entry = Entry(kind: .confirmMove(from: moving.session, to: spare.session), text: "", seats: [moving.seat, spare.seat])
            return .none
        case let .confirmMove(from, to):
            guard e.text.lowercased() == "y", let moving = seats.first(where: { $0.session == from }),
                  let spare = seats.first(where: { $0.session == to }) else { return .none }
            notice = say("Moving the session from {0} to {1}…", .s(ProctorView.name(moving.seat)), .s(ProctorView.name(spare.seat)))
            return .move(moving, spare)
        case let .confirmLost(session):
            guard e.text.lowercased() == "y", let lost = seats.first(where: { $0.session == session }) else { return .none }
            notice = say("Ending the session at {0} as lost…", .s(ProctorView.name(lost.seat)))
            return .lost(lost)
        default:
            return .none
        }
    }
}
