import AssessmentKit
import Foundation
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
    /// What the last command sent did, once it is known ("pause sent to 3 seats").
    func takeSent() -> String?
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
    }

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

    /// Readings arrive from another task, so the loop looks for one ten times a second.
    public var readWait: Double { 0.1 }
    public var readsSecret: Bool { false }
    public var finished: Bool { model.quit }

    public func draw(on terminal: any Terminal) {
        let (w, h) = terminal.size
        terminal.paint(ProctorView.render(model, width: w, height: h))
    }

    public func step(on terminal: any Terminal) {
        if let reading = source.takeReading() {
            if let seats = reading.seats {
                if model.update(seats) { terminal.bell() }
                lastGood = reading.at
                model.storeLine = model.screenReader ? "store connected" : "updated \(clock(reading.at))"
            } else {
                let since = lastGood.map { "; seats as of \(clock($0))" } ?? ""
                model.storeLine = "store not reachable: \(reading.problem ?? "no answer"); retrying\(since)"
            }
        }
        if let sent = source.takeSent() { model.notice = sent }
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
                case .none: break
                }
            }
        case .lost:
            model.quit = true
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

    func reportLines(events: [JournalEvent]?, problem: String?, check: [String]? = nil) -> [String] {
        guard let seat = model.selectedSeat else { return [] }
        let name = ProctorView.name
        // Everything a seat sent is shown as the list shows it: invisible characters spelled out.
        var lines = ["Integrity report — seat \(name(seat.seat))" + (seat.candidate.map { ", \(name($0))" } ?? ""),
                     "Session \(name(seat.session)) · \(name(seat.assessment)) — \(name(seat.assessmentTitle))",
                     ProctorView.sentence(seat, coarse: model.screenReader), ""]
        if let problem {
            return lines + ["The events cannot be read now: \(problem). Esc, then Enter to try again."]
        }
        guard let events else { return lines + ["Reading the seat's events…"] }
        if let check { lines += check.map(name) + [""] }
        lines += IntegrityReport(events: events, interruptions: seat.interruptions).lines
        lines += ["", "Timeline"]
        for e in events { lines.append("\(Timestamp.iso(e.at))  \(name(e.kind))  \(name(e.detail))") }
        return lines
    }
}
