import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing
@testable import TerminalUI

/// The store's news reaches a screen as an input, at once, not by being looked for.
@Suite("The loop's bell")
struct LoopBellTests {
    @Test func aBellRungFromAnotherThreadIsOneStoreInputAndOnlyOnce() async {
        let terminal = MemoryTerminal()
        terminal.input = [[], [], []]
        let reader = InputReader(canvas: terminal, monotonic: { 0 })
        let bell = LoopBell()
        #expect(bell.works)
        reader.bell = bell
        #expect(!reader.next(waitingAtMost: 0).contains(.store), "nothing rang")
        await Task.detached {
            bell.ring()
            bell.ring()
        }.value
        #expect(reader.next(waitingAtMost: 0).filter { $0 == .store }.count == 1, "two rings before a read are one input")
        #expect(!reader.next(waitingAtMost: 0).contains(.store), "and it is taken once")
    }

    @Test func aRingEndsTheCanvasWaitAtOnce() throws {
        // The pipe's read end is what the canvas polls beside the terminal: readable once rung.
        let bell = LoopBell()
        let fd = try #require(bell.readEnd)
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        #expect(poll(&fds, 1, 0) == 0, "nothing to read before a ring")
        bell.ring()
        #expect(poll(&fds, 1, 0) == 1, "readable at once after it")
        #expect(bell.drain())
        #expect(!bell.drain())
    }
}

/// A seat waiting for the proctor's start takes it once it can, whenever it came.
@Suite("The proctor's start at a waiting seat")
struct WaitingSeatStartTests {
    /// A launch whose proctor's start is there once `arrived` is set.
    final class Waiting: LaunchEnvironment {
        var arrived = false
        var asked = 0
        var begun = false
        func proctorStart() -> ProctorCommand? {
            asked += 1
            return arrived ? ProctorCommand(id: 3, action: .start) : nil
        }
        func begin(_ app: TakeApp) throws(SessionError) -> SessionRuntime? {
            begun = true
            return nil
        }
    }

    static func app(_ keys: [Key], arriveAfterRead arrival: Int) throws -> (TakeApp, Waiting) {
        let (assessment, _) = try MemoryWorld.assessment(TakeFlowTests.yaml)
        var model = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: false)
        model.waitingForProctor = true
        let terminal = MemoryTerminal()
        terminal.input = keys.map { MemoryTerminal.bytes($0) } + [[], [], []]
        // A key every 150 ms, as a person types (keys are judged against a paste by their pace).
        let clock = TestClock()
        let app = TakeApp(model: model, terminal: terminal, monotonic: clock.sessionClock.monotonic)
        let launch = Waiting()
        var reads = 0
        terminal.beforeRead = {
            clock.advance(0.15)
            reads += 1
            // The store's news, told the way the publisher tells it.
            if reads == arrival {
                launch.arrived = true
                app.bell.ring()
            }
        }
        _ = app.run(launch)
        return (app, launch)
    }

    @Test func aStartHeardWhileHelpIsOnScreenBeginsOnceHelpCloses() throws {
        // F1 opens help, the start arrives while it shows (and is not taken), F1 closes it.
        let (app, launch) = try Self.app([.function(1), .character("x"), .function(1)], arriveAfterRead: 2)
        #expect(launch.begun, "begun once help closed, with no second word from the store")
        #expect(app.startedBy?.id == 3)
    }

    @Test func aStartHeardAtTheStartScreenBeginsAtOnce() throws {
        let (app, launch) = try Self.app([], arriveAfterRead: 1)
        #expect(launch.begun)
        #expect(app.startedBy?.id == 3)
    }
}
