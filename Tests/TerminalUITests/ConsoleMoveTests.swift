import AssessmentKit
import Foundation
import Localization
import SessionKit
import Testing
@testable import TerminalUI

/// A machine died: the console shows a spare's request, moves the session there, or ends the
/// dead seat as lost, each asked first and naming the seats.
@Suite("The console moves a session to a spare, or ends a lost seat")
struct ConsoleMoveTests {
    static func room() -> ProctorModel {
        var dead = ProctorConsoleTests.seat("A5", status: "interrupted", heard: 300, connected: false, candidate: "Ada Lovelace")
        dead.candidateNumber = "1005"
        var spare = ProctorConsoleTests.seat("S1", status: "not_started", answered: 0, candidate: "Ada Lovelace")
        spare.candidateNumber = "1005"
        spare.moveRequest = "A5"
        spare.waiting = true
        var m = ProctorModel(room: "lab", screenReader: false)
        m.update(([dead, spare] + ProctorConsoleTests.room.filter { $0.seat != "A5" }).sorted(by: SeatView.troubleFirst))
        return m
    }

    @Test func aSparesRequestComesFirstAndIsSaidInWords() {
        let m = Self.room()
        #expect(m.seats.first?.seat == "S1", "a request waits for the proctor: first")
        let spare = m.seats.first { $0.seat == "S1" }
        #expect(spare.map { ProctorView.sentence($0, coarse: false) }?.hasPrefix("Seat S1, Ada Lovelace: 1005 asks to move from A5 to S1") == true)
        for language in Language.offered {
            let said = spare.map { ProctorView.sentence($0, coarse: false, say: Localizer(language)) } ?? ""
            #expect(said.contains("A5") && said.contains("1005"), "\(language): \(said)")
        }
    }

    @Test func vOnTheSpareAsksFirstNamingBothSeatsThenMoves() {
        var m = Self.room()
        m.selected = m.seats.first { $0.seat == "S1" }?.session
        #expect(m.handle(.character("v"), pageSize: 5) == .none)
        #expect(m.entry?.prompt == "Move the session from A5 to S1 (its keys go to S1; A5 can write nothing more)? y/N ")
        // At 80 columns the question takes the last two lines, whole.
        let lines = ProctorView.render(m, width: 80, height: 24).lines
        #expect(lines[22].hasPrefix("Move the session from A5 to S1") && lines[23].trimmingCharacters(in: .whitespaces).hasSuffix("? y/N"), "\(lines.suffix(2))")
        #expect(m.handle(.character("n"), pageSize: 5) == .none)
        #expect(m.entry == nil && m.notice == "Nothing moved")
        _ = m.handle(.character("v"), pageSize: 5)
        guard case let .move(from, to) = m.handle(.character("y"), pageSize: 5) else {
            Issue.record("v then y moves nothing")
            return
        }
        #expect(from.seat == "A5" && to.seat == "S1")
    }

    @Test func vOnTheDeadSeatAsksWhichSpareWithoutARequest() {
        var m = Self.room()
        m.selected = "s-A5"
        _ = m.handle(.character("v"), pageSize: 5)
        #expect(m.entry?.prompt == "Move the session at A5 to the waiting seat: ")
        for ch in "S9" { _ = m.handle(.character(ch), pageSize: 5) }
        _ = m.handle(.enter, pageSize: 5)
        #expect(m.notice == "Nothing moved: no seat S9 waits in the room" && m.entry == nil)
        _ = m.handle(.character("v"), pageSize: 5)
        for ch in "S1" { _ = m.handle(.character(ch), pageSize: 5) }
        _ = m.handle(.enter, pageSize: 5)
        #expect(m.entry?.kind == .confirmMove(from: "s-A5", to: "s-S1"))
        guard case .move = m.handle(.character("y"), pageSize: 5) else {
            Issue.record("no move after the spare was named")
            return
        }
    }

    @Test func lEndsTheDeadSeatAsLostAfterAsking() {
        var m = Self.room()
        m.selected = "s-A5"
        _ = m.handle(.character("l"), pageSize: 5)
        #expect(m.entry?.prompt.hasPrefix("End the session at A5 as lost") == true)
        #expect(m.handle(.character("n"), pageSize: 5) == .none)
        #expect(m.notice == "Nothing ended")
        _ = m.handle(.character("l"), pageSize: 5)
        guard case let .lost(seat) = m.handle(.character("y"), pageSize: 5) else {
            Issue.record("l then y ends nothing")
            return
        }
        #expect(seat.seat == "A5")
        // A seat ended as lost says so.
        var lost = seat
        lost.status = "ended"
        lost.lost = true
        #expect(ProctorView.sentence(lost, coarse: false).hasPrefix("Seat A5, Ada Lovelace: ended by the proctor, seat lost"))
    }

    /// A request may be anyone's (without codes, anyone may type a number): a seat still
    /// connected did not die, and the console moves none.
    @Test func aSeatStillConnectedIsNotMovedFromTheConsole() {
        var m = Self.room()
        var seats = m.seats
        if let i = seats.firstIndex(where: { $0.seat == "A5" }) {
            seats[i].status = "active"
            seats[i].connected = true
        }
        m.update(seats.sorted(by: SeatView.troubleFirst))
        m.selected = "s-S1"
        #expect(m.handle(.character("v"), pageSize: 5) == .none)
        #expect(m.entry == nil && m.notice == "Nothing moved: seat A5 is still connected (it did not die)")
        m.selected = "s-A5"
        _ = m.handle(.character("v"), pageSize: 5)
        #expect(m.entry == nil && m.notice == "Nothing moved: seat A5 is still connected (it did not die)")
    }

    @Test func whatAMoveOrALostSeatDidIsSaidInTheConsolesLanguage() {
        #expect(ConsoleApp.sentWords("move sent to seat S1 (command 12)", say: .english) == "move sent to seat S1 (command 12)")
        let french = ConsoleApp.sentWords("lost sent to seat A5 (command 9)", say: Localizer(.fr))
        #expect(french.contains("poste perdu") && french.contains("A5") && french.contains("9"), "\(french)")
        #expect(ConsoleApp.sentWords("move not sent: the room has no open plan", say: Localizer(.de)).contains("Verlegung"))
    }
}
