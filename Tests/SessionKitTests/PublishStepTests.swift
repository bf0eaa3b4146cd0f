import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
import Testing
@testable import SessionKit

/// Publishing is a begin step: written once, in the lifecycle, for take, resume and demo.
@Suite("The publish step")
struct PublishStepTests {
    /// Counts how often a session asked to publish, and which journal.
    final class RecordingPublisher: SessionPublishing, @unchecked Sendable {
        let lock = NSLock()
        var startedWith: [ObjectIdentifier] = []
        func progress(session: String, elapsed: Double) {}
        func start(journal: Journal) { lock.withLock { startedWith.append(ObjectIdentifier(journal)) } }
        var starts: Int { lock.withLock { startedWith.count } }
    }

    static func begin(_ world: MemoryWorld, _ publisher: RecordingPublisher, shared: Bool) throws -> SessionRuntime {
        let (assessment, source) = try MemoryWorld.assessment(RuntimeTests.yaml(suspend: "allow"))
        var context = world.context
        context.publisher = publisher
        let options = SessionOptions(shared: shared ? SharedLabel(room: "lab1", seat: "A1", store: "postgresql://seat@db/carrel") : nil)
        return try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                        options: options, context: context)
    }

    @Test func aPublishingSessionStartsPublishingItsJournalOnceWhenItBegins() throws {
        let world = try MemoryWorld()
        let publisher = RecordingPublisher()
        let runtime = try Self.begin(world, publisher, shared: true)
        #expect(publisher.starts == 1)
        #expect(publisher.startedWith == [ObjectIdentifier(runtime.journal)], "the session's own journal")
    }

    @Test func aSessionThatDoesNotPublishNeverStartsThePublisher() throws {
        let world = try MemoryWorld()
        let publisher = RecordingPublisher()
        _ = try Self.begin(world, publisher, shared: false)
        #expect(publisher.starts == 0)
    }

    @Test func aResumedPublishingSessionPublishesAgain() throws {
        let world = try MemoryWorld()
        let first = RecordingPublisher()
        let runtime = try Self.begin(world, first, shared: true)
        let id = runtime.record.id
        // Leaves for the proctor (a Ctrl-C with `suspend: allow`), then is resumed.
        #expect(runtime.send(.exitAttempt("Ctrl-C")).outcome != nil)
        let again = RecordingPublisher()
        var context = world.context
        context.publisher = again
        let resumed = try SessionRuntime.resume(sessionID: id, context: context)
        #expect(again.starts == 1)
        #expect(again.startedWith == [ObjectIdentifier(resumed.journal)])
    }
}
