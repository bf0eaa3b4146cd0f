import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing
@testable import TerminalUI

/// The demo and the proctor's console run in the same app loop as `take`, on a terminal in
/// memory: keys in, frames out, the real session runtime behind the demo.
@Suite("The app loop: demo and console in memory")
struct AppLoopTests {
    static let themes: [Theme] = [.standard, .mono, .contrast]

    /// A world whose session id is fixed, so frames that show it are the same every run.
    static func demo(_ keys: [[UInt8]], world: MemoryWorld, theme: Theme = .mono) throws -> (DemoApp, MemoryTerminal) {
        let (assessment, source) = try MemoryWorld.assessment(DemoApp.sessionYAML)
        var context = world.context
        context.ids = SessionIDs(sessionID: { "demo-0001" }, seed: { 42 })
        let terminal = MemoryTerminal()
        terminal.input = keys.map { Optional($0) }
        // A key every 150 ms, as a person types; after the last one the terminal is gone.
        terminal.beforeRead = { world.clock.advance(0.15) }
        let app = DemoApp(assessment: assessment, source: source, context: context, theme: theme, terminal: terminal,
                          workshopAvailable: false, monotonic: world.clock.sessionClock.monotonic,
                          wallClock: world.clock.sessionClock.now)
        app.run()
        return (app, terminal)
    }

    static func key(_ k: Key) -> [UInt8] { MemoryTerminal.bytes(k) }
    static func typed(_ text: String) -> [[UInt8]] { text.map { key(.character($0)) } }
    /// Reads that bring nothing: a person pausing (a key right after a paste would be judged
    /// part of it).
    static let pause: [[UInt8]] = [[], [], [], []]
    static let paste = Array("\u{1B}[200~a pasted secret\u{1B}[201~".utf8)

    @Test func aDemoSessionBeginsLogsABlockedPasteAndAnExitAttemptAndEnds() throws {
        let world = try MemoryWorld()
        let keys = [Self.key(.function(7))] + Self.typed("hi") + [Self.paste] + Self.pause + [Self.key(.control("c"))]
            + Self.pause + [Self.key(.function(8)), Self.key(.function(9))]
        let (app, terminal) = try Self.demo(keys, world: world)
        #expect(app.controller == nil, "the session ended with the demo")
        let last = try #require(terminal.screen).text
        #expect(last.contains("○ No session"))
        #expect(last.contains("Paste blocked") || last.contains("paste"), "the paste is in the log:\n\(last)")
        let journal = try world.journal()
        let session = try #require(try journal.sessions(status: nil).first)
        #expect(session.status == .ended)
        let kinds = try journal.events(session: session.id).map(\.kind)
        #expect(kinds.contains(EventKind.pasteBlocked.rawValue))
        #expect(try journal.events(session: session.id).contains { $0.kind == EventKind.exitAttempt.rawValue && $0.detail.contains("Ctrl-C") })
        #expect(terminal.frames.contains { $0.text.contains("Leaving blocked: Ctrl-C") }, "the blocked Ctrl-C is in the log")
        #expect(try journal.answers(session: session.id)["try-field"] == .text("hi"))
        #expect(world.pasteboards.clears == 2, "cleared on entry and on exit")
        #expect(!terminal.reports, "paste and focus reports are off after the session")
        #expect(terminal.frames.contains { $0.text.contains("● Session active") })
    }

    /// The tracer check runs in the demo's loop too: one that attaches while a demo session
    /// runs is in its log.
    @Test func aTracerThatAttachesDuringADemoSessionIsLogged() throws {
        let world = try MemoryWorld()
        let keys = [Self.key(.function(7))] + Self.typed("abc") + [[], [], [], [], [], [], [], []]
        let (assessment, source) = try MemoryWorld.assessment(DemoApp.sessionYAML)
        let terminal = MemoryTerminal()
        terminal.input = keys.map { Optional($0) }
        let tracing = TracingGate()
        var context = world.context
        context.gate = tracing
        terminal.beforeRead = {
            world.clock.advance(0.3)
            if terminal.input.count == 6 { tracing.attach(4321) }
        }
        let app = DemoApp(assessment: assessment, source: source, context: context, theme: .mono, terminal: terminal,
                          workshopAvailable: false, monotonic: world.clock.sessionClock.monotonic,
                          wallClock: world.clock.sessionClock.now)
        app.run()
        let journal = try world.journal()
        let session = try #require(try journal.sessions(status: nil).first)
        let events = try journal.events(session: session.id)
        #expect(events.contains { $0.kind == EventKind.tracerAttached.rawValue && $0.detail.contains("4321") }, "\(events.map(\.kind))")
    }

    @Test(arguments: themes)
    func demoFrames(theme: Theme) throws {
        let world = try MemoryWorld()
        let keys = [Self.key(.function(7))] + Self.typed("hi") + [Self.paste] + Self.pause
            + [Self.key(.control("c"))] + Self.pause + [Self.key(.function(9))]
        let (_, terminal) = try Self.demo(keys, world: world, theme: theme)
        try Self.check(terminal.frames, theme: theme, [
            ("demo-start", { $0.text.contains("○ No session") && $0.text.contains("Nothing yet") }),
            ("demo-running", { $0.text.contains("● Session active") && !$0.text.contains("Quitting ends it") }),
            ("demo-confirm-quit", { $0.text.contains("Quitting ends it") }),
        ])
    }

    /// Compares the last frame that matches each condition with its golden file; a frame that
    /// never appeared fails, and so does a run that checked fewer frames than named.
    static func check(_ frames: [Screen], theme: Theme, _ wanted: [(String, (Screen) -> Bool)],
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        var checked = 0
        for (name, matches) in wanted {
            let frame = try #require(frames.last(where: matches), "no frame for \(name)", sourceLocation: sourceLocation)
            try GoldenFrameTests().check("\(name)-\(theme.name)", frame, theme: theme, sourceLocation: sourceLocation)
            checked += 1
        }
        #expect(checked == wanted.count && checked > 0, sourceLocation: sourceLocation)
    }

    // MARK: the console

    final class ListedReadings: ConsoleSource, @unchecked Sendable {
        private let lock = NSLock()
        private var readings: [ConsoleReading]
        private var report: ConsoleSeatReport?
        let events: [JournalEvent]
        private(set) var refreshes = 0
        private(set) var reportsWanted: [String] = []
        /// The console's bell, rung whenever something is ready, as the store's feed does.
        private var bell: LoopBell?

        init(_ readings: [ConsoleReading], events: [JournalEvent]) {
            self.readings = readings
            self.events = events
        }

        func ring(_ bell: LoopBell) {
            lock.withLock { self.bell = bell }
            bell.ring()
        }

        func move(from: SeatView, to: SeatView) {}
        func endLost(_ seat: SeatView) {}

        func takeReading() -> ConsoleReading? {
            let (reading, more) = lock.withLock { () -> (ConsoleReading?, Bool) in
                let reading = readings.isEmpty ? nil : readings.removeFirst()
                return (reading, !readings.isEmpty)
            }
            if more { lock.withLock { bell }?.ring() }
            return reading
        }

        func takeReport() -> ConsoleSeatReport? {
            lock.withLock {
                defer { report = nil }
                return report
            }
        }

        func refreshNow() { lock.withLock { refreshes += 1 } }

        func wantReport(_ session: String) {
            lock.withLock {
                reportsWanted.append(session)
                report = ConsoleSeatReport(session: session, events: events, problem: nil)
            }
            lock.withLock { bell }?.ring()
        }

        private(set) var sent: [(ProctorAction, [String])] = []
        private var lastSent: String?

        func send(_ action: ProctorAction, to seats: [SeatView]) {
            lock.withLock {
                sent.append((action, seats.map(\.seat)))
                lastSent = "\(action.name) sent to \(seats.count) seats"
            }
            lock.withLock { bell }?.ring()
        }

        func takeSent() -> String? {
            lock.withLock {
                defer { lastSent = nil }
                return lastSent
            }
        }
    }

    static let at = Date(timeIntervalSince1970: 1_800_000_000)
    static let events = [
        JournalEvent(at: at, kind: EventKind.pasteBlocked.rawValue, detail: "42 characters"),
        JournalEvent(at: at.addingTimeInterval(30), kind: EventKind.focusLost.rawValue, detail: ""),
    ]

    static func console(_ keys: [[UInt8]?], readings: [ConsoleReading], screenReader: Bool = false)
        -> (ConsoleApp, MemoryTerminal, ListedReadings) {
        let source = ListedReadings(readings, events: events)
        let terminal = MemoryTerminal()
        terminal.input = keys
        let clock = TestClock()
        terminal.beforeRead = { clock.advance(0.1) }
        let app = ConsoleApp(source: source, room: "lab", screenReader: screenReader, clock: { _ in "10:02:03" })
        app.run(on: terminal, monotonic: clock.sessionClock.monotonic)
        return (app, terminal, source)
    }

    @Test func theConsoleShowsTheRoomOpensAReportRefreshesAndQuits() {
        let room = ProctorConsoleTests.room
        let readings = [ConsoleReading(seats: room, problem: nil, at: Self.at),
                        ConsoleReading(seats: nil, problem: "connection refused", at: Self.at)]
        let keys: [[UInt8]?] = [nil, nil, Self.key(.down), Self.key(.enter), nil, Self.key(.escape), Self.key(.character("r")),
                                Self.key(.character("q"))]
        let (app, terminal, source) = Self.console(keys, readings: readings)
        #expect(app.model.quit, "q quits")
        #expect(source.refreshes == 1, "r reads the store now")
        #expect(source.reportsWanted == [room[1].session], "Enter asks for the selected seat's events")
        #expect(terminal.frames.contains { $0.text.contains("Integrity report — seat \(room[1].seat)") && $0.text.contains("Timeline") })
        let last = terminal.frames.last?.text ?? ""
        #expect(last.contains("store not reachable: connection refused; retrying; seats as of 10:02:03"), "\(last)")
        #expect(last.contains(room[0].seat), "the last good seats stay on screen")
    }

    @Test func aConsoleWhoseTerminalGoesEndsAtOnce() {
        let (app, _, _) = Self.console([], readings: [])
        #expect(app.model.quit)
    }

    @Test(arguments: themes)
    func consoleFrames(theme: Theme) throws {
        let room = ProctorConsoleTests.room
        let readings = [ConsoleReading(seats: room, problem: nil, at: Self.at)]
        let keys: [[UInt8]?] = [nil, Self.key(.down), Self.key(.enter), nil, Self.key(.character("q")), Self.key(.character("q"))]
        let (_, terminal, _) = Self.console(keys, readings: readings)
        try Self.check(terminal.frames, theme: theme, [
            ("console-seats", { $0.text.contains("updated 10:02:03") && !$0.text.contains("Integrity report") }),
            ("console-report", { $0.text.contains("Integrity report") }),
        ])
    }

    @Test func theConsoleForAScreenReaderSaysTheStoreInWords() throws {
        let readings = [ConsoleReading(seats: ProctorConsoleTests.room, problem: nil, at: Self.at)]
        let (_, terminal, _) = Self.console([nil, nil, Self.key(.character("q"))], readings: readings, screenReader: true)
        let frame = try #require(terminal.frames.last)
        #expect(frame.text.contains("store connected"))
        #expect(frame.lines[frame.cursor.row].hasPrefix("Seat \(ProctorConsoleTests.room[0].seat)"), "the cursor is on the focused seat, said in words")
        try GoldenFrameTests().check("console-screen-reader", frame, theme: .mono)
    }
}

/// A gate whose tracer appears when the test says so.
final class TracingGate: EnvironmentGate, @unchecked Sendable {
    private let lock = NSLock()
    private var tracer: Int?

    func attach(_ pid: Int) { lock.withLock { tracer = pid } }
    func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String] { [] }
    func attachedTracer() -> Int? { lock.withLock { tracer } }
}
