import AssessmentKit
import Foundation
import Localization
import SessionKit

/// One reading of a room from the store: the seats, or why they could not be read.
public struct ConsoleReading: Sendable, Equatable {
    public var seats: [SeatView]?
    public var problem: String?
    public var at: Date

    public init(seats: [SeatView]?, problem: String?, at: Date) {
        self.seats = seats
        self.problem = problem
        self.at = at
    }
}

/// One seat's events from the store, or why they could not be read.
public struct ConsoleSeatReport: Sendable, Equatable {
    public var session: String
    public var events: [JournalEvent]?
    public var problem: String?
    /// The session's records checked with the proctor's key, in words (nil: not checked).
    public var check: [String]?

    public init(session: String, events: [JournalEvent]?, problem: String?, check: [String]? = nil) {
        self.session = session
        self.events = events
        self.problem = problem
        self.check = check
    }
}

/// Where the console's readings come from: the lab's store, read apart from the loop so that
/// keys are answered at once even while the store is slow or gone; a list in tests.
public protocol ConsoleSource: AnyObject, Sendable {
    /// The reading since the last call, if any.
    func takeReading() -> ConsoleReading?
    /// The report asked for with `wantReport`, once it has been read.
    func takeReport() -> ConsoleSeatReport?
    /// Read the room again now, not at the next second.
    func refreshNow()
    /// Read this seat's events.
    func wantReport(_ session: String)
    /// Send a command to these seats (in their rooms).
    func send(_ action: ProctorAction, to seats: [SeatView])
    /// Move `from`'s session to the spare `to` (`carrel proctor move`).
    func move(from: SeatView, to: SeatView)
    /// End `seat`'s session as lost (`carrel proctor lost`).
    func endLost(_ seat: SeatView)
    /// What the last command sent did, once it is known ("pause sent to 3 seats").
    func takeSent() -> String?
    /// Rings `bell` whenever a reading, a report or what a command did is ready to take.
    func ring(_ bell: LoopBell)
}

/// The proctor's console in the app loop: keys, the latest reading of the store, a frame
/// painted only when it differs. It never waits for the store.
public final class ConsoleApp: LoopedScreen {
    public var model: ProctorModel
    let source: any ConsoleSource
    var lastGood: Date?
    /// The time of day a reading is shown with ("updated 10:02:03").
    let clock: (Date) -> String

    public init(source: any ConsoleSource, room: String?, screenReader: Bool, clock: @escaping (Date) -> String = ConsoleApp.localClock) {
        self.model = ProctorModel(room: room, screenReader: screenReader)
        self.source = source
        self.clock = clock
        source.ring(bell)
    }

    /// Rung by the source when it has news for the console.
    public let bell = LoopBell()

    /// Runs the console on `terminal` until the proctor quits or the terminal goes.
    public func run(on terminal: any Terminal, monotonic: @escaping @Sendable () -> Double = SessionClock.system.monotonic) {
        guard terminal.start() else { return }
        defer { terminal.stop() }
        AppLoop(terminal: terminal, monotonic: monotonic).run(self)
    }

    public static func localClock(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone.current).time(includingFractionalSeconds: false).timeSeparator(.colon))
    }

    // MARK: the app loop

    /// Readings arrive from another task, which rings the bell; without a bell the loop looks
    /// for one ten times a second. A second at most either way: the ages in words move on.
    public var readWait: Double { bell.works ? 1 : 0.1 }
    public var readsSecret: Bool { false }
    public var finished: Bool { model.quit }

    public func draw(on terminal: any Terminal) {
        let (w, h) = terminal.size
        terminal.paint(ProctorView.render(model, width: w, height: h))
    }

    public func step(on terminal: any Terminal) {
        if !bell.works { takeNews(terminal) }
    }

    /// Takes what the source has ready: a reading, what a command did, a seat's report.
    func takeNews(_ terminal: any Terminal) {
        if let reading = source.takeReading() {
            if let seats = reading.seats {
                if model.update(seats) { terminal.bell() }
                lastGood = reading.at
                model.storeLine = model.screenReader ? say("store connected") : say("updated {0}", .s(clock(reading.at)))
            } else {
                let problem = reading.problem ?? say("no answer")
                if let lastGood {
                    model.storeLine = say("store not reachable: {0}; retrying; seats as of {1}", .s(problem), .s(clock(lastGood)))
                } else {
                    model.storeLine = say("store not reachable: {0}; retrying", .s(problem))
                }
            }
        }
        if let sent = source.takeSent() { model.notice = Self.sentWords(sent, say: say) }
        if let report = source.takeReport(), model.report != nil, model.selectedSeat?.session == report.session {
            model.report = reportLines(events: report.events, problem: report.problem, check: report.check)
        }
    }

    public func handle(_ input: TerminalInput, on terminal: any Terminal) {
        switch input {
        case let .keys(keys):
            let pageSize = max(1, terminal.size.height - 8)
            for key in keys {
                switch model.handle(key, pageSize: pageSize) {
                case .openReport: openReport()
                case .refresh: source.refreshNow()
                case let .send(action, seats): source.send(action, to: seats)
                case let .move(from, to): source.move(from: from, to: to)
                case let .lost(seat): source.endLost(seat)
                case .none: break
                }
            }
        case .lost:
            model.quit = true
        case .store:
            takeNews(terminal)
        case .resize, .paste, .focus:
            // A resize is followed by the next frame; a proctor's paste or focus is no event.
            break
        }
    }

    func openReport() {
        guard let seat = model.selectedSeat else { return }
        model.report = reportLines(events: nil, problem: nil)
        model.reportScroll = 0
        source.wantReport(seat.session)
    }

    /// The console's language.
    var say: Localizer { model.say }

    func reportLines(events: [JournalEvent]?, problem: String?, check: [String]? = nil) -> [String] {
        guard let seat = model.selectedSeat else { return [] }
        let name = ProctorView.name
        // Everything a seat sent is shown as the list shows it: invisible characters spelled out.
        let title = seat.candidate.map { say("Integrity report — seat {0}, {1}", .s(name(seat.seat)), .s(name($0))) }
            ?? say("Integrity report — seat {0}", .s(name(seat.seat)))
        var lines = [title,
                     say("Session {0} · {1} — {2}", .s(name(seat.session)), .s(name(seat.assessment)), .s(name(seat.assessmentTitle))),
                     ProctorView.sentence(seat, coarse: model.screenReader, say: say), ""]
        if let problem {
            return lines + [say("The events cannot be read now: {0}. Esc, then Enter to try again.", .s(problem))]
        }
        guard let events else { return lines + [say("Reading the seat's events…")] }
        if let check { lines += check.map { Self.checkWords(name($0), say: say) } + [""] }
        lines += integrityLines(IntegrityReport(events: events, interruptions: seat.interruptions))
        lines += ["", say("Timeline")]
        // The journal's own record: its event kinds and details are shown as they were written.
        for e in events { lines.append("\(Timestamp.iso(e.at))  \(name(e.kind))  \(name(e.detail))") }
        return lines
    }

    /// The integrity report's counts, their names lined up, then what clearing each pasteboard did.
    func integrityLines(_ report: IntegrityReport) -> [String] {
        let counts = [(say("⟨integrity report⟩paste attempts"), report.pasteAttempts),
                      (say("⟨integrity report⟩focus losses"), report.focusLosses),
                      (say("⟨integrity report⟩exit attempts"), report.exitAttempts),
                      (say("⟨integrity report⟩wrong passphrases"), report.wrongPassphrases),
                      (say("⟨integrity report⟩interruptions"), report.interruptions)]
        let column = max(20, (counts.map { TextWidth.of($0.0) }.max() ?? 0) + 2)
        var out = counts.map { label, n in label + String(repeating: " ", count: column - TextWidth.of(label)) + String(n) }
        for move in report.moves {
            // The seat's own words of the move (which seats, which command, which records never came).
            let label = say("⟨integrity report⟩moved")
            out.append(label + String(repeating: " ", count: max(1, column - TextWidth.of(label))) + ProctorView.name(move))
        }
        for (label, lines) in [(say("⟨integrity report⟩assessment mode"), report.assessmentMode),
                               (say("⟨integrity report⟩machine incident"), report.machineIncidents)] {
            for line in lines {
                out.append(label + String(repeating: " ", count: max(1, column - TextWidth.of(label))) + ProctorView.name(line))
            }
        }
        out.append(say("⟨integrity report⟩pasteboards"))
        for backend in report.pasteboards.keys.sorted() {
            for line in report.pasteboards[backend] ?? [] { out.append("  " + DemoModel.clearedWords(line, say: say)) }
        }
        return out
    }

    /// The records' check (the feed's lines, in English) in the console's language; the
    /// problems it names are shown as they are.
    static func checkWords(_ line: String, say: Localizer) -> String {
        switch line {
        case "Records: verified — every record and the result were written by this seat":
            return say("Records: verified — every record and the result were written by this seat")
        case "Records: every record so far was written by this seat (no result yet)":
            return say("Records: every record so far was written by this seat (no result yet)")
        case "Records: NOT verified": return say("Records: NOT verified")
        default: return line
        }
    }

    /// What the feed says a command did ("pause sent to 3 seats (command 7, 8, 9)", "pause not
    /// sent: REASON") in the console's language; the reason is shown as it is.
    static func sentWords(_ note: String, say: Localizer) -> String {
        // Seats a start held back (not enrolled machines, or another Carrel), named after it.
        if let held = note.range(of: "; held back: ") {
            return say("{0}; held back: {1}", .s(sentWords(String(note[..<held.lowerBound]), say: say)),
                       .s(String(note[held.upperBound...])))
        }
        guard let space = note.firstIndex(of: " ") else { return note }
        let command = String(note[..<space])
        guard ProctorModel.commandNames.contains(command) else { return note }
        let what = ProctorModel.commandWords(command, say)
        let rest = note[note.index(after: space)...]
        if rest.hasPrefix("not sent: ") {
            return say("{0} not sent: {1}", .s(what), .s(String(rest.dropFirst("not sent: ".count))))
        }
        guard rest.hasPrefix("sent to "), rest.hasSuffix(")"), let open = rest.range(of: " (command ", options: .backwards) else { return note }
        let target = rest[rest.index(rest.startIndex, offsetBy: "sent to ".count)..<open.lowerBound]
        let ids = String(rest[open.upperBound..<rest.index(before: rest.endIndex)])
        if target.hasPrefix("seat ") {
            return say("{0} sent to seat {1} (command {2})", .s(what), .s(String(target.dropFirst("seat ".count))), .s(ids))
        }
        let words = target.split(separator: " ")
        if words.count == 2, words[1] == "seats", let n = Int(words[0]) {
            return say("{0} sent to {1, plural, one {# seat} other {# seats}} (command {2})", .s(what), .n(n), .s(ids))
        }
        return note
    }
}
