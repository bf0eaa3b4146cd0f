import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
import Testing
@testable import SessionKit

/// The runtime in-process over in-memory edges: one transaction per message, typed text
/// flushed on every way out, and nothing shown saved that the journal does not have.
@Suite("Session runtime")
struct RuntimeTests {
    static func yaml(passphrase: String? = nil, limit: String = "10m", suspend: String = "block") -> String {
        var lines = ["carrel: 1", "id: runtime", "title: Runtime", "time_limit: \(limit)",
                     "policy: { multiplexer: allow, suspend: \(suspend) }"]
        if let passphrase { lines.append("proctor: { passphrase: \"\(passphrase)\" }") }
        lines += ["sections:", "  - items:",
                  "      - {id: t1, type: text, prompt: One, accept: [x]}",
                  "      - {id: t2, type: essay, prompt: Two}",
                  "      - {id: c1, type: choice, prompt: Three, choices: [a, b], answer: a}"]
        return lines.joined(separator: "\n") + "\n"
    }

    static let hash: String = (try? PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10))?.description ?? ""

    static func begin(_ world: MemoryWorld, yaml: String = yaml()) throws -> SessionRuntime {
        let (assessment, source) = try MemoryWorld.assessment(yaml)
        return try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                        context: world.context)
    }

    @Test func typedTextIsSavedAfterAPauseAndAtLeastEveryTwoSecondsWhileTypingGoesOn() throws {
        let world = try MemoryWorld()
        let r = try Self.begin(world)
        var text = ""
        var savedAt: [Double] = []
        // Typing steadily, a key every 0.3 s for 5 s: never a 0.8 s pause.
        for step in 1...17 {
            world.clock.advance(0.3)
            text += "a"
            #expect(r.send(.edit("t1", .text(text))).saved.isEmpty, "an edit alone writes nothing")
            if !r.tick().saved.isEmpty { savedAt.append(Double(step) * 0.3) }
        }
        #expect(savedAt.count >= 2, "saved while typing went on: \(savedAt)")
        #expect(savedAt.allSatisfy { $0 <= 5.1 })
        // Typing began at 0.3 s; the first save comes at most 2 s (and one key) later.
        if let first = savedAt.first { #expect(first - 0.3 <= 2.0 + 0.3, "first save within about 2 s: \(first)") }
        world.clock.advance(1)
        _ = r.tick()
        #expect(try r.journal.answers(session: r.record.id)["t1"] == .text(text), "saved after the pause")
        #expect(r.state.save("t1") == .saved)
    }

    enum Exit: String, CaseIterable, CustomTestStringConvertible {
        case submit, timeOut, proctorEnd, candidateEnd, hangUp, leaveWithSuspendAllowed, tab, review
        var testDescription: String { rawValue }
    }

    @Test(arguments: Exit.allCases)
    func everyWayOutCommitsTheTextStillBeingTyped(exit: Exit) throws {
        let world = try MemoryWorld()
        let yaml: String
        switch exit {
        case .proctorEnd: yaml = Self.yaml(passphrase: Self.hash)
        case .timeOut: yaml = Self.yaml(limit: "30s")
        case .leaveWithSuspendAllowed: yaml = Self.yaml(suspend: "allow")
        default: yaml = Self.yaml()
        }
        let r = try Self.begin(world, yaml: yaml)
        _ = r.send(.edit("t1", .text("typed just now")))
        #expect(r.state.save("t1") == .pending)
        var saved: [String] = []
        let reaction: Reaction
        switch exit {
        case .submit:
            saved += r.send(.submitRequested).saved
            reaction = r.send(.submitConfirmed)
        case .timeOut:
            world.clock.advance(31)
            reaction = r.tick()
        case .proctorEnd:
            saved += r.send(.exitAttempt("Ctrl-C")).saved
            reaction = r.enterPassphrase("proctor phrase")
        case .candidateEnd:
            saved += r.send(.exitAttempt("Ctrl-C")).saved
            reaction = r.send(.endConfirmed)
        case .hangUp:
            reaction = r.send(.hangUp("SIGTERM"))
        case .leaveWithSuspendAllowed:
            reaction = r.send(.exitAttempt("Ctrl-Z"))
        case .tab:
            reaction = r.send(.next)
        case .review:
            reaction = r.send(.openReview)
        }
        saved += reaction.saved
        #expect(saved == ["t1"], "saved once, on the way out")
        #expect(try r.journal.answers(session: r.record.id)["t1"] == .text("typed just now"))
        switch reaction.outcome {
        case let .finished(result, _, nil)?:
            #expect(result.items.first { $0.id == "t1" }?.response == .string("typed just now"), "in the result too")
        case .interrupted(_, let unsaved)?:
            #expect(unsaved.isEmpty)
            #expect(try r.journal.session(r.record.id)?.status == .interrupted)
        case nil:
            #expect(exit == .tab || exit == .review)
        case let other?:
            Issue.record("unexpected outcome \(other)")
        }
    }

    /// Each kind of journal write made to fail: nothing of the message is reported saved,
    /// the answer stays unsaved with the reason, and all of it is written once the disk allows.
    @Test(arguments: ["answer", "flag", "progress", "event"])
    func aFailedCommitIsNeverShownSavedAndIsRetried(table: String) throws {
        let world = try MemoryWorld()
        let r = try Self.begin(world)
        let id = r.record.id
        world.clock.advance(6)
        try world.storage.fail(table)
        _ = r.send(.answer("c1", .choice("b")))
        _ = r.send(.toggleFlag("c1"))
        _ = r.send(.pasteAttempt(characters: 42))
        _ = r.send(.edit("t1", .text("while the disk is full")))
        world.clock.advance(1)
        _ = r.tick()
        let journal = try world.journal()
        // The promise: whatever shows as saved is exactly what the journal has.
        let committed = try journal.answers(session: id)
        for item in ["c1", "t1"] where r.state.save(item) == .saved {
            #expect(committed[item] == r.state.answer(item), "\(item) shown saved but the journal has \(String(describing: committed[item]))")
        }
        #expect(r.state.save("t1") == .failed("the disk is full"), "typed after the failure began: never shown saved")
        #expect(r.state.answer("c1") == .choice("b"), "the student still sees their choice")
        if table == "answer" {
            #expect(r.state.save("c1") == .failed("the disk is full"))
            #expect(committed.isEmpty)
        }
        // Space comes back: the retries write everything, once.
        try world.storage.recover(table)
        for _ in 0..<12 {
            world.clock.advance(1)
            _ = r.tick()
        }
        #expect(try journal.answers(session: id) == ["c1": .choice("b"), "t1": .text("while the disk is full")])
        #expect(try journal.flags(session: id) == ["c1"])
        let pastes = try journal.events(session: id).filter { $0.kind == "paste_blocked" }
        #expect(pastes.map(\.detail) == ["42 characters"], "logged exactly once")
        #expect(r.state.save("c1") == .saved)
        #expect(r.state.save("t1") == .saved)
        #expect(try journal.session(id)?.elapsed ?? 0 >= 6)
    }

    /// The begin's own commit (`began` and the first time saved) failing: the session runs,
    /// its first screen says what is not saved, and the next commit writes it, once.
    @Test func aBeginWhoseCommitFailsSaysSoOnceAndWritesItLater() throws {
        let world = try MemoryWorld()
        let (assessment, source) = try MemoryWorld.assessment(Self.yaml())
        let r = try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                         context: world.context, enterUI: { try world.storage.fail("event") })
        let first = try #require(r.firstReaction(), "the failed begin commit is reported")
        #expect(first.notices.map(\.description).contains { $0.contains("Not saved") && $0.contains("disk is full") },
                "\(first.notices)")
        #expect(first.outcome == nil, "the session runs")
        #expect(r.firstReaction() == nil, "said once")
        let journal = try world.journal()
        #expect(try journal.events(session: r.record.id).contains { $0.kind == "began" } == false)
        try world.storage.recover("event")
        world.clock.advance(1)
        _ = r.send(.answer("c1", .choice("b")))
        #expect(try journal.events(session: r.record.id).filter { $0.kind == "began" }.count == 1, "written by the next commit")
        #expect(r.state.save("c1") == .saved)
    }

    @Test func aBeginThatCommitsLeavesNothingToSayFirst() throws {
        let world = try MemoryWorld()
        let r = try Self.begin(world)
        #expect(r.firstReaction() == nil)
    }

    @Test func submitOnAFullDiskKeepsTheSessionResumableAndSaysWhatIsNotSaved() throws {
        let world = try MemoryWorld()
        let r = try Self.begin(world)
        let id = r.record.id
        _ = r.send(.answer("c1", .choice("a")))
        try world.storage.fail("answer")
        _ = r.send(.edit("t1", .text("lost in the full disk?")))
        _ = r.send(.submitRequested)
        let reaction = r.send(.submitConfirmed)
        guard case let .saveFailed(why, unsaved)? = reaction.outcome else {
            Issue.record("expected saveFailed, got \(String(describing: reaction.outcome))")
            return
        }
        #expect(why.contains("disk is full"))
        #expect(unsaved == ["t1"])
        #expect(world.lock.inspect() == .free, "the lock is released")
        let journal = try world.journal()
        let status = try journal.session(id)?.status
        #expect(status == .active || status == .interrupted, "not ended: it waits for the proctor")
        #expect(try journal.result(session: id) == nil)
        // Space returns; the proctor resumes and the student submits.
        try world.storage.recover("answer")
        let resumed = try SessionRuntime.resume(sessionID: id, context: world.context)
        #expect(resumed.state.responses["c1"] == .choice("a"))
        _ = resumed.send(.submitRequested)
        guard case let .finished(result, _, nil)? = resumed.send(.submitConfirmed).outcome else {
            Issue.record("the resumed session did not finish")
            return
        }
        #expect(result.status == .submitted)
        #expect(try journal.session(id)?.status == .ended)
    }

    @Test func aResultThatCannotBeRecordedLeavesTheSessionActive() throws {
        let world = try MemoryWorld()
        let r = try Self.begin(world)
        try world.storage.fail("result")
        _ = r.send(.submitRequested)
        guard case .saveFailed? = r.send(.submitConfirmed).outcome else {
            Issue.record("a result the journal refused was reported as saved")
            return
        }
        #expect(try world.journal().session(r.record.id)?.status == .active)
    }

    @Test func aResultFileThatCannotBeWrittenIsReportedButTheJournalHasIt() throws {
        let world = try MemoryWorld()
        world.storage.failResultFiles = true
        let r = try Self.begin(world)
        _ = r.send(.submitRequested)
        guard case let .finished(_, path, problem?)? = r.send(.submitConfirmed).outcome else {
            Issue.record("expected a finished session with a problem")
            return
        }
        #expect(path == nil)
        #expect(problem.hasPrefix("the result file could not be written"), "\(problem)")
        #expect(try world.journal().session(r.record.id)?.status == .ended, "recorded: the journal has it")
        #expect(try world.journal().result(session: r.record.id) != nil)
    }

    /// One message, one durable transaction: an answer with its history and time used.
    @Test func eachMessageIsOneTransaction() throws {
        let world = try MemoryWorld()
        let r = try Self.begin(world)
        let counter = CommitCounter()
        world.storage.queue.add(transactionObserver: counter)
        world.clock.advance(3)
        _ = r.send(.answer("c1", .choice("b")))
        #expect(counter.commits == 1)
        _ = r.send(.next)
        #expect(counter.commits == 2)
        _ = r.send(.edit("t2", .essay("words")))
        #expect(counter.commits == 2, "typing writes nothing until it is flushed")
        _ = r.send(.openReview)
        #expect(counter.commits == 3, "the flush and the move together")
    }

    @Test func aTracerThatAttachesPutsTheSessionBehindTheProctor() throws {
        var world = try MemoryWorld()
        world.gate = OpenGate(tracer: 777)
        let r = try Self.begin(world, yaml: Self.yaml(passphrase: Self.hash))
        _ = r.send(.edit("t1", .text("before the tracer")))
        let reaction = r.checkTracer()
        #expect(r.state.prompt == .proctor)
        #expect(reaction.saved == ["t1"])
        #expect(try world.journal().events(session: r.record.id).contains { $0.kind == "tracer_attached" && $0.detail == "pid 777" })
    }

    @Test func unlockRunsTheSameEndStepsAsAFinishedSession() throws {
        let world = try MemoryWorld()
        let r = try Self.begin(world)
        _ = r.send(.answer("c1", .choice("a")))
        _ = r.send(.hangUp("SIGHUP"))
        let before = world.pasteboards.clears
        let endings = try SessionRuntime.unlock(sessionID: nil, context: world.context)
        #expect(endings.count == 1)
        let ending = try #require(endings.first)
        #expect(ending.recorded)
        #expect(ending.result?.status == .endedByProctor)
        #expect(ending.result?.items.first { $0.id == "c1" }?.outcome == .correct)
        #expect(world.pasteboards.clears == before + 2, "cleared on unlock and again on the way out")
        #expect(try world.journal().session(r.record.id)?.status == .ended)
        #expect(world.lock.inspect() == .free)
    }
}

final class CommitCounter: TransactionObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var commits: Int { lock.withLock { count } }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { lock.withLock { count += 1 } }
    func databaseDidRollback(_ db: Database) {}
}
