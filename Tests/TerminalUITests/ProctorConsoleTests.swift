import AssessmentKit
import Foundation
import Localization
import SessionKit
import Testing
@testable import TerminalUI

@Suite("The proctor's console")
struct ProctorConsoleTests {
    static func seat(_ name: String, status: String, answered: Int = 3, paste: Int = 0, focus: Int = 0, exit: Int = 0,
                     heard: Int = 0, connected: Bool = true, candidate: String? = nil) -> SeatView {
        SeatView(session: "s-\(name)", candidate: candidate ?? "Cand \(name)", seat: name, room: "lab", assessment: "geo",
                 assessmentTitle: "Geography", status: status, answered: answered, total: 12,
                 timeLeftSeconds: ["active", "interrupted"].contains(status) ? 754 : nil,
                 pasteAttempts: paste, focusLosses: focus, exitAttempts: exit, interruptions: 0,
                 lastSeen: "2026-11-24T10:00:00Z", lastHeardSeconds: heard, connected: connected)
    }

    static let room: [SeatView] = [
        seat("A1", status: "submitted", answered: 12),
        seat("A2", status: "active"),
        seat("A3", status: "interrupted", heard: 14, connected: false),
        seat("A4", status: "active", paste: 2, focus: 1),
        seat("A5", status: "not_started", answered: 0),
        seat("A6", status: "timed_out", answered: 7),
    ].sorted(by: SeatView.troubleFirst)

    @Test func troubleComesFirst() {
        #expect(Self.room.map(\.seat) == ["A3", "A4", "A2", "A5", "A1", "A6"])
    }

    /// Seats of the same state keep their place by name whenever they were last heard from
    /// (a refresh a second later does not reorder them), in natural order (A2 before A10).
    @Test func seatsOfTheSameStateStayInPlaceAcrossRefreshes() {
        var rng = SystemRandomNumberGenerator()
        let names = (1...12).map { "A\($0)" }
        var orders: Set<[String]> = []
        for _ in 0..<20 {
            let seats = names.shuffled(using: &rng).map { Self.seat($0, status: "active", heard: Int.random(in: 0...3, using: &rng)) }
            orders.insert(seats.sorted(by: SeatView.troubleFirst).map(\.seat))
        }
        #expect(orders == [names], "\(orders)")
        // A seat moves when its state changes: an incident puts it with the seats to look at.
        var seats = names.map { Self.seat($0, status: "active") }
        seats[7].pasteAttempts = 1
        #expect(seats.sorted(by: SeatView.troubleFirst).first?.seat == "A8")
    }

    /// The room's count says paused seats, raised hands and held-back seats as their lines do.
    @Test func theCountsSayPausedSeatsHandsAndSeatsHeldBack() {
        var seats = (1...6).map { Self.seat("A\($0)", status: "active") }
        for i in 0..<4 { seats[i].paused = true }
        seats[4].hand = "raised"
        var waiting = Self.seat("A7", status: "not_started", answered: 0)
        waiting.warnings = ["unknown machine, held back"]
        let line = ProctorView.summary(seats + [waiting])
        #expect(line == "7 seats: 2 active, 4 paused, 1 not started, 1 asks for help, 1 held back", "\(line)")
    }

    @Test func everySeatFitsAt80By24AndTheFocusedSeatIsSaidInWordsWithTheCursorOnIt() {
        var model = ProctorModel(room: "lab", screenReader: false)
        model.update(Self.room)
        let screen = ProctorView.render(model, width: 80, height: 24)
        let text = screen.lines
        #expect(text.allSatisfy { TextWidth.of($0) <= 80 })
        #expect(text[0].contains("room lab"))
        let summary = text[1] + " " + text[2]
        #expect(summary.contains("6 seats (1 active with incidents)") && summary.contains("1 interrupted") && summary.contains("1 timed out"))
        // Status in words on every row (never only a colour or a symbol).
        for s in Self.room { #expect(text.contains { $0.hasPrefix(s.seat) && $0.contains(s.statusWords) }) }
        // The cursor sits on the focused row, which is the first (trouble) seat.
        #expect(text[screen.cursor.row].hasPrefix("A3"))
        #expect(screen.cells[screen.cursor.row][0].role == .focus)
        let words = text[21] + " " + text[22]
        #expect(words.contains("Seat A3, Cand A3: interrupted, unverified, 3 of 12 answered, 12:34 left"), "what no proctor key checked is said to be unverified")
        #expect(words.contains("last heard 14 s ago"))
        // Moving down keeps the cursor and the words on the new seat.
        _ = model.handle(.down, pageSize: 10)
        let next = ProctorView.render(model, width: 80, height: 24)
        #expect(next.lines[next.cursor.row].hasPrefix("A4"))
        #expect((next.lines[21] + " " + next.lines[22]).contains("2 paste attempts, 1 focus loss"))
    }

    @Test func theSelectionFollowsItsSeatWhenARefreshReordersTheRoom() {
        var model = ProctorModel(room: nil, screenReader: false)
        model.update(Self.room)
        _ = model.handle(.end, pageSize: 10)
        #expect(model.selectedSeat?.seat == "A6")
        var changed = Self.room
        changed.insert(Self.seat("A7", status: "interrupted", connected: false), at: 0)
        model.update(changed)
        #expect(model.selectedSeat?.seat == "A6")
    }

    @Test func enterOpensTheReportAndEscapeCloses() {
        var model = ProctorModel(room: "lab", screenReader: false)
        model.update(Self.room)
        #expect(model.handle(.enter, pageSize: 10) == .openReport)
        model.report = ["Integrity report — seat A3", "paste attempts 0"]
        let screen = ProctorView.render(model, width: 80, height: 24)
        #expect(screen.lines.contains { $0.hasPrefix("Integrity report — seat A3") })
        _ = model.handle(.escape, pageSize: 10)
        #expect(model.report == nil)
        _ = model.handle(.character("q"), pageSize: 10)
        #expect(model.quit)
    }

    @Test func inScreenReaderModeTheFrameDoesNotChangeWithEverySecond() {
        var model = ProctorModel(room: "lab", screenReader: true)
        model.update([Self.seat("B1", status: "active")])
        let before = ProctorView.render(model, width: 80, height: 24)
        var later = Self.seat("B1", status: "active")
        later.timeLeftSeconds = 740
        model.update([later])
        #expect(ProctorView.render(model, width: 80, height: 24) == before)
        #expect(before.lines.joined().contains("12 min left"))
        // The cursor is on the line that says the seat in words.
        #expect(before.lines[before.cursor.row].hasPrefix("Seat B1, Cand B1: active"))
    }

    @Test func namesFromTheStoreCannotWriteEscapeSequences() {
        var model = ProctorModel(room: "lab\u{1B}[2J", screenReader: false)
        model.update([Self.seat("S\u{1B}]0;x\u{07}", status: "active", candidate: "Eve\u{1B}[31m\u{202E}")])
        let screen = ProctorView.render(model, width: 80, height: 24)
        for line in screen.lines {
            #expect(!line.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        }
    }

    @Test func invisibleCharactersInNamesAreShownSoNoSeatPassesForAnother() {
        var model = ProctorModel(room: "lab", screenReader: false)
        model.update([Self.seat("A\u{200B}1", status: "active", candidate: "Ada\u{FEFF}")])
        let text = ProctorView.render(model, width: 80, height: 24).lines.joined(separator: "\n")
        #expect(text.contains("A\\u{200B}1") && text.contains("Ada\\u{FEFF}"))
        #expect(!text.unicodeScalars.contains { $0.value == 0x200B || $0.value == 0xFEFF })
    }

    @Test func aTinyWindowAsksForRoomInsteadOfOverlapping() {
        var model = ProctorModel(room: "lab", screenReader: false)
        model.update(Self.room)
        let screen = ProctorView.render(model, width: 20, height: 5)
        #expect(screen.lines.joined().contains("Make this"))
        #expect(screen.lines.allSatisfy { TextWidth.of($0) <= 20 })
    }

    @Test func aRunningSeatNotHeardFromForSecondsComesFirst() {
        let hung = Self.seat("H1", status: "active", heard: 30)
        let fine = Self.seat("F1", status: "active")
        #expect([fine, hung].sorted(by: SeatView.troubleFirst).map(\.seat) == ["H1", "F1"])
        #expect(ProctorView.sentence(hung, coarse: false).contains("last heard 30 s ago"))
    }

    @Test func recordsNotCountedAreSaidInWordsInEveryLanguage() {
        var seat = Self.seat("A1", status: "active")
        seat.warnings = ["4 records not counted"]
        seat.verified = true
        #expect(ProctorView.sentence(seat, coarse: false).contains("4 records not counted (not written by the seat)"))
        #expect(ProctorView.sentence(seat, coarse: false, say: Localizer(.fr)).contains("4 enregistrements non comptés"))
        seat.warnings = ["1 record not counted"]
        #expect(ProctorView.sentence(seat, coarse: false, say: Localizer(.de)).contains("1 Eintrag nicht gezählt"))
    }

    /// A finished seat says its score in words on its line; a seat whose result has no score
    /// (no answer key, no test given) says what to do, never a score of 0.
    @Test func aFinishedSeatSaysItsScoreInWordsAndAKeylessOneSaysItIsNotScoredYet() {
        var done = Self.seat("A1", status: "submitted", answered: 12)
        done.verified = true
        done.score = .scored(points: 7, max: 10, pending: 2)
        let scored = ProctorView.sentence(done, coarse: false)
        #expect(scored.contains("Seat A1, Cand A1: submitted, 12 of 12 answered, score 7 of 10, 2 to mark, 0 paste attempts"), "\(scored)")
        done.score = .scored(points: 7.5, max: 10, pending: 0)
        let marked = ProctorView.sentence(done, coarse: false)
        #expect(marked.contains("score 7.5 of 10, 0 paste attempts") && !marked.contains("to mark"), "\(marked)")
        done.score = .notScored
        let keyless = ProctorView.sentence(done, coarse: false)
        #expect(keyless.contains("12 of 12 answered, not scored yet (give --test)"), "\(keyless)")
        #expect(!keyless.contains("score 0") && !keyless.contains("0 of 0"), "\(keyless)")
        done.score = .unverified
        #expect(ProctorView.sentence(done, coarse: false).contains("no score: its result does not verify"))
        done.score = nil
        #expect(!ProctorView.sentence(done, coarse: false).contains("score"), "no result read: nothing said of a score")
        // A seat still running has no score to say, whatever it carries.
        var running = Self.seat("A2", status: "active")
        running.score = .scored(points: 1, max: 2, pending: 0)
        #expect(!ProctorView.sentence(running, coarse: false).contains("score"))
        // In the proctor's language, points as that language writes them.
        done.score = .scored(points: 7.5, max: 10, pending: 2)
        let french = ProctorView.sentence(done, coarse: false, say: Localizer(.fr))
        #expect(french.contains("note 7,5 sur 10, 2 à corriger"), "\(french)")
        done.score = .notScored
        for language in Language.offered where language != .en {
            let words = ProctorView.sentence(done, coarse: false, say: Localizer(language))
            #expect(words.contains("--test") && !words.contains("not scored yet"), "\(language.rawValue): \(words)")
        }
    }

    /// The score is on the focused seat's line of the 80 × 24 console, said in words there (the
    /// line a screen reader reads), with the table as it was.
    @Test func theFocusedFinishedSeatsLineSaysItsScoreAt80By24() {
        var room = Self.room
        for i in room.indices where room[i].seat == "A1" { room[i].score = .scored(points: 7, max: 10, pending: 2) }
        for i in room.indices where room[i].seat == "A6" { room[i].score = .notScored }
        for reader in [false, true] {
            var model = ProctorModel(room: "lab", screenReader: reader)
            model.update(room)
            model.selected = "s-A1"
            let screen = ProctorView.render(model, width: 80, height: 24)
            #expect(screen.lines.allSatisfy { TextWidth.of($0) <= 80 })
            let words = screen.lines[21...22].joined(separator: " ")
            #expect(words.contains("score 7 of 10, 2 to mark"), "\(screen.lines)")
            if reader { #expect(screen.cursor.row == 21, "the cursor is on the seat's sentence") }
            model.selected = "s-A6"
            let next = ProctorView.render(model, width: 80, height: 24)
            #expect(next.lines[21...22].joined(separator: " ").contains("not scored yet (give --test)"), "\(next.lines)")
            // The table's rows are the same with a score as without one.
            var plain = ProctorModel(room: "lab", screenReader: reader)
            plain.update(Self.room)
            plain.selected = "s-A6"
            #expect(Array(next.lines[0..<20]) == Array(ProctorView.render(plain, width: 80, height: 24).lines[0..<20]))
        }
    }

    @Test func anEmptyRoomSaysHowSeatsJoin() {
        let screen = ProctorView.render(ProctorModel(room: "lab", screenReader: false), width: 80, height: 24)
        #expect(screen.lines[4].contains("No seats yet") && screen.lines[4].contains("--room lab"))
    }
}

@Suite("The proctor's console acts")
struct ProctorConsoleActionTests {
    static func model() -> ProctorModel {
        var m = ProctorModel(room: "lab", screenReader: false)
        m.update(ProctorConsoleTests.room)
        return m
    }

    @Test func aCommandGoesToTheMarkedSeatsElseTheSelectedOne() {
        var m = Self.model()
        let selected = m.selectedSeat?.session
        guard case let .send(.pause, seats) = m.handle(.character("p"), pageSize: 5) else {
            Issue.record("p sends no pause")
            return
        }
        #expect(seats.map(\.session) == [selected].compactMap { $0 })
        #expect(m.handle(.character(" "), pageSize: 5) == .none)
        _ = m.handle(.character("j"), pageSize: 5)
        _ = m.handle(.character(" "), pageSize: 5)
        // To several seats, a command is asked first, naming how many and which.
        #expect(m.handle(.character("c"), pageSize: 5) == .none)
        let names = m.seats.filter { m.marked.contains($0.session) }.map(\.seat)
        #expect(m.entry?.prompt == "Continue 2 seats: \(names.joined(separator: " "))? y/N ", "\(String(describing: m.entry))")
        guard case let .send(.resume, marked) = m.handle(.character("y"), pageSize: 5) else {
            Issue.record("c then y sends no resume")
            return
        }
        #expect(marked.count == 2)
        // Sent: the marks are cleared, and the next command goes to the selected seat alone.
        #expect(m.marked.isEmpty)
        guard case let .send(.pause, alone) = m.handle(.character("p"), pageSize: 5) else {
            Issue.record("p sends no pause")
            return
        }
        #expect(alone.count == 1)
        #expect(ProctorView.sentence(m.selectedSeat ?? ProctorConsoleTests.room[0], coarse: false, marked: true).contains("marked"))
        _ = m.handle(.character("*"), pageSize: 5)
        #expect(m.marked.count == ProctorConsoleTests.room.count)
        _ = m.handle(.character("*"), pageSize: 5)
        #expect(m.marked.isEmpty)
    }

    /// A start sends each seat its keys: the console asks first, and anything but y sends nothing.
    @Test func startingAsksFirst() {
        var m = Self.model()
        let selected = [m.selectedSeat].compactMap { $0 }
        #expect(m.handle(.character("s"), pageSize: 5) == .none)
        #expect(m.entry?.kind == .confirmStart)
        let seat = selected.first?.seat ?? "?"
        #expect(ProctorView.render(m, width: 80, height: 24).lines[23].hasPrefix("Start 1 seat and send each its keys: \(seat)? y/N"))
        #expect(m.handle(.character("n"), pageSize: 5) == .none)
        #expect(m.entry == nil && m.notice == "Nothing started")
        _ = m.handle(.character("s"), pageSize: 5)
        #expect(m.handle(.character("y"), pageSize: 5) == .send(.start, selected))
    }

    @Test func addingTimeAsksTheMinutesAndEndingAsksFirst() {
        var m = Self.model()
        #expect(m.handle(.character("t"), pageSize: 5) == .none)
        #expect(m.entry?.kind == .minutes)
        for ch in "1x0" { _ = m.handle(.character(ch), pageSize: 5) }
        let screen = ProctorView.render(m, width: 80, height: 24)
        #expect(screen.lines[23].hasPrefix("Minutes to add: 1x0"))
        #expect(screen.cursor.row == 23)
        _ = m.handle(.enter, pageSize: 5)
        #expect(m.notice == "Give whole minutes from 1 to 600", "letters are not minutes")
        _ = m.handle(.character("t"), pageSize: 5)
        for ch in "10" { _ = m.handle(.character(ch), pageSize: 5) }
        let selected = [m.selectedSeat].compactMap { $0 }
        let added = m.handle(.enter, pageSize: 5)
        #expect(added == .send(.addTime(seconds: 600), selected))
        _ = m.handle(.character("x"), pageSize: 5)
        #expect(m.handle(.character("n"), pageSize: 5) == .none)
        #expect(m.entry == nil && m.notice == "Nothing ended")
        _ = m.handle(.character("x"), pageSize: 5)
        let ended = m.handle(.character("y"), pageSize: 5)
        #expect(ended == .send(.end, selected))
        _ = m.handle(.character("m"), pageSize: 5)
        _ = m.handle(.escape, pageSize: 5)
        #expect(m.entry == nil && m.notice == "Cancelled")
    }

    @Test func aRaisedHandComesFirstIsSaidInWordsAndRingsOnce() {
        var m = Self.model()
        var seats = ProctorConsoleTests.room
        seats[4].hand = "raised"
        let asking = seats[4].seat
        let rang = m.update(seats.sorted(by: SeatView.troubleFirst))
        #expect(rang, "a new hand rings")
        #expect(m.seats.first?.seat == asking)
        #expect(ProctorView.sentence(m.seats[0], coarse: false).contains("asks for help"))
        let again = m.update(seats.sorted(by: SeatView.troubleFirst))
        #expect(!again, "the same hand rings once")
    }

    @Test func aNameWithAnEmojiSequenceKeepsEveryColumnInPlace() {
        var m = Self.model()
        var seats = ProctorConsoleTests.room
        seats[0].candidate = "E👍🏽"
        seats[1].candidate = "👩‍💻 Ada"
        m.update(seats)
        let screen = ProctorView.render(m, width: 80, height: 24)
        // Every cell holds one scalar and its marks: what ncurses draws is what the layout counted.
        for row in screen.cells {
            for cell in row where !cell.text.isEmpty {
                let extra = cell.text.unicodeScalars.dropFirst().filter {
                    ![.nonspacingMark, .enclosingMark].contains($0.properties.generalCategory)
                }
                #expect(extra.isEmpty, "\(cell.text) would take more columns than counted")
            }
        }
        // The status column starts at column 28 on every seat's row (seat 12 + candidate 16).
        for row in 4..<(4 + seats.count) {
            #expect(screen.cells[row][27].text == " " && screen.cells[row][28].text != " ", "row \(row): \(screen.lines[row])")
        }
    }
}
