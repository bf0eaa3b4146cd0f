#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing
@testable import TerminalUI

/// A resize is an input like a key: the frame drawn right after the read that saw it is at
/// the new size, in take, the demo and the console alike; and the signal itself wakes a wait
/// on the terminal, whichever thread of the process it lands on.
@Suite("Resizes are drawn on the turn they are read")
struct ResizeTests {
    /// What the terminal showed at the start of each read, and resizes made at given reads.
    final class Reads {
        let terminal: MemoryTerminal
        var shown: [Screen?] = []
        /// Read number (from 1) → the size the terminal takes during that read.
        let resizes: [Int: (width: Int, height: Int)]

        init(_ terminal: MemoryTerminal, resizes: [Int: (width: Int, height: Int)]) {
            self.terminal = terminal
            self.resizes = resizes
        }

        func read() {
            shown.append(terminal.screen)
            if let size = resizes[shown.count] { terminal.resize(width: size.width, height: size.height) }
        }

        /// The frame on screen when read `n` began (from 1).
        func frame(atRead n: Int) -> Screen? { shown.indices.contains(n - 1) ? shown[n - 1] : nil }
    }

    /// Too small at read 8, back to 80×24 at read 9 (the keys before have all acted by then).
    static func smallThenBack(_ width: Int, _ height: Int) -> [Int: (width: Int, height: Int)] { [8: (width, height), 9: (80, 24)] }
    /// Reads that bring nothing, enough for both resizes and the frames after them.
    static let quiet: [[UInt8]?] = Array(repeating: [], count: 10)

    /// Checks that the read after each resize began with a frame of the new size, the small
    /// one asking for room and the grown one the whole screen again.
    static func expectDrawnAtOnce(_ reads: Reads, small size: (Int, Int), asking: String, whole: (Screen) -> Bool,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reads.frame(atRead: 8).map(whole) == true, "the whole screen before", sourceLocation: sourceLocation)
        let small = reads.frame(atRead: 9)
        #expect(small?.width == size.0 && small?.height == size.1, "drawn small on the next turn", sourceLocation: sourceLocation)
        #expect(small?.text.contains(asking) == true, "\(small?.text ?? "no frame")", sourceLocation: sourceLocation)
        let grown = reads.frame(atRead: 10)
        #expect(grown?.width == 80 && grown?.height == 24, "drawn whole on the next turn", sourceLocation: sourceLocation)
        #expect(grown.map(whole) == true, "\(grown?.text ?? "no frame")", sourceLocation: sourceLocation)
    }

    @Test func aTestQuestionComesBackOnTheTurnTheTerminalGrows() throws {
        let world = try MemoryWorld()
        let (assessment, source) = try MemoryWorld.assessment(TakeFlowTests.yaml)
        let model = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: false)
        let terminal = MemoryTerminal()
        // Start screen, lock question, banner, then the first question.
        terminal.type([.enter, .character("y"), .enter])
        terminal.input += Self.quiet
        let reads = Reads(terminal, resizes: Self.smallThenBack(60, 20))
        terminal.beforeRead = {
            world.clock.advance(0.15)
            reads.read()
        }
        let app = TakeApp(model: model, terminal: terminal, monotonic: world.clock.sessionClock.monotonic)
        _ = app.run(begin: world.beginning(assessment, source))
        Self.expectDrawnAtOnce(reads, small: (60, 20), asking: "enlarge") {
            $0.text.contains("Question 1 of 2") && $0.text.contains("Capital of Canada?")
        }
    }

    @Test func theDemoComesBackOnTheTurnTheTerminalGrows() throws {
        let world = try MemoryWorld()
        let (assessment, source) = try MemoryWorld.assessment(DemoApp.sessionYAML)
        let terminal = MemoryTerminal()
        terminal.input = Self.quiet
        let reads = Reads(terminal, resizes: Self.smallThenBack(60, 20))
        terminal.beforeRead = {
            world.clock.advance(0.15)
            reads.read()
        }
        let app = DemoApp(assessment: assessment, source: source, context: world.context, theme: .mono, terminal: terminal,
                          workshopAvailable: false, monotonic: world.clock.sessionClock.monotonic,
                          wallClock: world.clock.sessionClock.now)
        app.run()
        Self.expectDrawnAtOnce(reads, small: (60, 20), asking: "enlarge") { $0.text.contains("No session") }
    }

    @Test func theConsoleComesBackOnTheTurnTheTerminalGrows() {
        let source = AppLoopTests.ListedReadings([ConsoleReading(seats: ProctorConsoleTests.room, problem: nil, at: AppLoopTests.at)],
                                                 events: [])
        let terminal = MemoryTerminal()
        terminal.input = Self.quiet
        let clock = TestClock()
        let reads = Reads(terminal, resizes: Self.smallThenBack(30, 8))
        terminal.beforeRead = {
            clock.advance(0.1)
            reads.read()
        }
        let app = ConsoleApp(source: source, room: "lab", screenReader: false, clock: { _ in "10:02:03" })
        app.run(on: terminal, monotonic: clock.sessionClock.monotonic)
        let seat = ProctorConsoleTests.room[0].seat
        Self.expectDrawnAtOnce(reads, small: (30, 8), asking: "Make this window") { $0.text.contains(seat) }
    }

    /// The signal goes to any thread of the process; the pipe the loop watches is readable at
    /// once all the same.
    @Test func aResizeSignalWakesAWaitOnTheTerminal() throws {
        let readEnd = try #require(ResizeSignal.readEnd)
        _ = ResizeSignal.drain()
        let replaced = try #require(ResizeSignal.install())
        defer { ResizeSignal.restore(replaced) }
        let sender = Thread { kill(getpid(), SIGWINCH) }
        sender.start()
        var fds = [pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
        // Generous: a busy machine may be slow to run the sender; the point is that it wakes.
        #expect(poll(&fds, 1, 10_000) == 1)
        #expect(ResizeSignal.drain())
        #expect(!ResizeSignal.drain(), "drained: the next wait waits")
    }
}
