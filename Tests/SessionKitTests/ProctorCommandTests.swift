import AssessmentKit
import Foundation
import Synchronization
import Testing
import SessionTestSupport
@testable import SessionKit

/// Commands that a seat's store edge hands over, as the publisher does after reading them.
final class CommandQueue: SessionPublishing, Sendable {
    let queued = Mutex<[ProctorCommand]>([])
    func progress(session: String, elapsed: Double) {}
    func start(journal: Journal) {}
    func commands(after: Int64) -> [ProctorCommand] {
        queued.withLock { q in
            q.removeAll { $0.id <= after }
            return q
        }
    }
    func add(_ commands: ProctorCommand...) { queued.withLock { $0 += commands } }
}

@Suite("The proctor's commands at a seat")
struct ProctorCommandTests {
    static func begin(_ world: MemoryWorld, queue: CommandQueue, limit: String = "10m", start: RoomStart? = nil) throws -> SessionRuntime {
        let (assessment, source) = try MemoryWorld.assessment(RuntimeTests.yaml(limit: limit))
        var context = world.context
        context.publisher = queue
        return try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                        options: SessionOptions(shared: SharedLabel(room: "lab", seat: "A1")),
                                        context: context, start: start)
    }

    @Test func aPauseStopsTheClockSavesTheTypingAndHoldsAnswerKeysUntilResumed() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue()
        let r = try Self.begin(world, queue: queue)
        world.clock.advance(10)
        _ = r.pump()
        _ = r.send(.edit("t1", .text("half typed")))
        let before = try #require(r.state.remaining)
        queue.add(ProctorCommand(id: 1, action: .pause))
        let paused = r.pump()
        #expect(r.state.room.paused)
        #expect(paused.notices.contains(SessionState.pausedWords))
        #expect(try r.journal.answers(session: r.record.id)["t1"] == .text("half typed"), "what was typed is saved at the pause")
        // A minute paused: no time used.
        world.clock.advance(60)
        _ = r.pump()
        #expect(abs((r.state.remaining ?? 0) - before) < 0.01)
        #expect(r.send(.answer("c1", .choice("a"))).notices == [SessionState.pausedWords])
        #expect(r.state.answer("c1") == nil)
        queue.add(ProctorCommand(id: 2, action: .resume))
        _ = r.pump()
        #expect(!r.state.room.paused)
        world.clock.advance(5)
        _ = r.pump()
        #expect(abs((r.state.remaining ?? 0) - (before - 5)) < 0.01, "only the time after the resume counts")
        #expect(!r.send(.answer("c1", .choice("a"))).saved.isEmpty)
    }

    @Test func addedTimeShowsAtOnceAndStaysWithinTheSessionCap() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue()
        let r = try Self.begin(world, queue: queue)
        queue.add(ProctorCommand(id: 3, action: .addTime(seconds: 600)))
        let reaction = r.pump()
        #expect(r.state.timeAllowed == 1200)
        #expect(reaction.notices.first?.hasPrefix("The proctor added 10m") == true)
        // The cap is 8 hours: no more than that is ever allowed.
        queue.add(ProctorCommand(id: 4, action: .addTime(seconds: 86_400)))
        _ = r.pump()
        #expect(r.state.timeAllowed == r.state.plan.maxDuration)
    }

    @Test func aCommandSeenTwiceIsAppliedOnceAndOlderOnesNotAtAll() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue()
        let r = try Self.begin(world, queue: queue, start: RoomStart(seen: 10))
        // Commands up to 10 came before this session began.
        queue.add(ProctorCommand(id: 9, action: .message("old")), ProctorCommand(id: 11, action: .addTime(seconds: 60)))
        _ = r.pump()
        queue.add(ProctorCommand(id: 11, action: .addTime(seconds: 60)))
        _ = r.pump()
        #expect(r.state.room.addedSeconds == 60)
        #expect(r.state.room.message == nil)
        let details = try r.journal.events(session: r.record.id).filter { $0.kind == "proctor_command" }.map(\.detail)
        #expect(details == ["#10 before this session", "#11 time 60"])
    }

    @Test func aMessageWaitsForAKeyAndIsMadeSafe() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue()
        let r = try Self.begin(world, queue: queue)
        let action = try #require(ProctorAction(name: "message", argument: "Question 3\u{1B}[2J has a misprint"))
        queue.add(ProctorCommand(id: 1, action: action))
        let reaction = r.pump()
        let shown = try #require(r.state.room.message)
        #expect(!shown.contains("\u{1B}"))
        #expect(reaction.bell)
        _ = r.send(.dismissMessage)
        #expect(r.state.room.message == nil)
        #expect(ProctorAction(name: "message", argument: "  ") == nil)
        #expect(ProctorAction(name: "time", argument: "-5") == nil)
        #expect(ProctorAction(name: "shutdown", argument: nil) == nil)
    }

    @Test func theProctorsEndScoresTheAnswersAndARaisedHandIsAnswered() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue()
        let r = try Self.begin(world, queue: queue)
        _ = r.send(.answer("c1", .choice("a")))
        #expect(r.send(.raiseHand).notices == ["The proctor has been called"])
        #expect(r.state.room.hand == .raised)
        queue.add(ProctorCommand(id: 5, action: .acknowledge))
        #expect(r.pump().notices.contains("The proctor is coming"))
        queue.add(ProctorCommand(id: 6, action: .end))
        let reaction = r.pump()
        guard case let .finished(result, _, _)? = reaction.outcome else {
            Issue.record("the session did not end: \(String(describing: reaction.outcome))")
            return
        }
        #expect(result.status == .endedByProctor)
        #expect(result.items.contains { $0.id == "c1" && $0.outcome != .unanswered })
    }

    @Test func withoutAStoreTheHandKeySaysNoConsoleWatches() throws {
        let world = try MemoryWorld()
        let (assessment, source) = try MemoryWorld.assessment(RuntimeTests.yaml())
        let r = try SessionRuntime.begin(assessment: assessment, source: source, candidate: nil, extraTime: .none, context: world.context)
        #expect(r.send(.raiseHand).notices == ["No proctor console watches this room: raise your hand"])
        #expect(r.state.room.hand == .down)
    }

    @Test func aResumedSessionKeepsItsPauseAddedTimeAndLastCommand() throws {
        let events = [
            JournalEvent(at: Date(), kind: "proctor_command", detail: "#3 before this session"),
            JournalEvent(at: Date(), kind: "proctor_command", detail: "#4 time 300"),
            JournalEvent(at: Date(), kind: "hand_raised", detail: ""),
            JournalEvent(at: Date(), kind: "proctor_command", detail: "#7 pause"),
            JournalEvent(at: Date(), kind: "proctor_command", detail: "#8 message Hello there"),
            JournalEvent(at: Date(), kind: "proctor_command", detail: "#bad pause"),
        ]
        let control = RoomControl.replay(events, watched: true)
        #expect(control.paused)
        #expect(control.addedSeconds == 300)
        #expect(control.lastCommand == 8)
        #expect(control.hand == .raised)
        #expect(control.message == nil, "a message already shown is not shown again")
    }
}
