import AssessmentKit
import Foundation
import Synchronization
import Testing
import SessionTestSupport
@testable import SessionKit

/// Commands that a seat's store edge hands over, as the publisher does after reading them:
/// each signed by the test proctor for room "lab" and the session's test, unless a test
/// hands over its own (a forgery).
final class CommandQueue: SessionPublishing, Sendable {
    let queued = Mutex<[SignedCommand]>([])
    let sequence = Mutex<Int64>(0)
    let clock: TestClock
    let fingerprint = Mutex<String>("")
    static let signing = (try? ProctorKey(parsing: TestProctor.key))?.signingKey(passphrase: TestProctor.passphrase)

    init(clock: TestClock) { self.clock = clock }

    func progress(session: String, elapsed: Double) {}
    func start(journal: Journal) {}
    func commands(after: Int64) -> [SignedCommand] {
        queued.withLock { q in
            q.removeAll { $0.id <= after }
            return q
        }
    }

    /// The envelope the console would sign for `command` now.
    func envelope(_ command: ProctorCommand, seat: String? = nil) -> CommandEnvelope {
        let now = clock.sessionClock.now()
        let next = sequence.withLock { last in
            last = CommandEnvelope.nextSequence(now: now, after: last)
            return last
        }
        return CommandEnvelope(room: "lab", seat: seat, action: command.action, sequence: next,
                               issued: now.timeIntervalSince1970, fingerprint: fingerprint.withLock { $0 })
    }

    func add(_ commands: ProctorCommand...) {
        for command in commands { add(envelope(command), id: command.id) }
    }

    func add(_ envelope: CommandEnvelope, id: Int64, key: ProctorSigningKey? = CommandQueue.signing) {
        guard let key, let signed = try? SignedCommand.sign(envelope, with: key) else { return }
        add(SignedCommand(id: id, envelope: signed.envelope, signature: signed.signature))
    }

    func add(_ signed: SignedCommand) { queued.withLock { $0.append(signed) } }
}

@Suite("The proctor's commands at a seat")
struct ProctorCommandTests {
    static func yaml(limit: String = "10m") -> String {
        RuntimeTests.yaml(limit: limit).replacingOccurrences(of: "sections:", with: TestProctor.yaml + "\nsections:")
    }

    static func begin(_ world: MemoryWorld, queue: CommandQueue, limit: String = "10m", start: RoomStart? = nil,
                      yaml: String? = nil) throws -> SessionRuntime {
        let (assessment, source) = try MemoryWorld.assessment(yaml ?? Self.yaml(limit: limit))
        var context = world.context
        context.publisher = queue
        let r = try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                         options: SessionOptions(shared: SharedLabel(room: "lab", seat: "A1")),
                                         context: context, start: start)
        queue.fingerprint.withLock { $0 = r.record.fingerprint }
        return r
    }

    @Test func aPauseStopsTheClockSavesTheTypingAndHoldsAnswerKeysUntilResumed() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue(clock: world.clock)
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
        let queue = CommandQueue(clock: world.clock)
        let r = try Self.begin(world, queue: queue)
        queue.add(ProctorCommand(id: 3, action: .addTime(seconds: 600)))
        let reaction = r.pump()
        #expect(r.state.timeAllowed == 1200)
        #expect(reaction.notices.first?.english.hasPrefix("The proctor added 10 minutes") == true)
        // The cap is 8 hours: no more than that is ever allowed.
        queue.add(ProctorCommand(id: 4, action: .addTime(seconds: 86_400)))
        _ = r.pump()
        #expect(r.state.timeAllowed == r.state.plan.maxDuration)
    }

    @Test func aCommandSeenTwiceIsAppliedOnceAndOlderOnesNotAtAll() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue(clock: world.clock)
        let r = try Self.begin(world, queue: queue, start: RoomStart(seen: 10))
        // Commands up to 10 came before this session began.
        queue.add(ProctorCommand(id: 9, action: .message("old")), ProctorCommand(id: 11, action: .addTime(seconds: 60)))
        _ = r.pump()
        queue.add(ProctorCommand(id: 11, action: .addTime(seconds: 60)))
        _ = r.pump()
        #expect(r.state.room.addedSeconds == 60)
        #expect(r.state.room.message == nil)
        let details = try r.journal.events(session: r.record.id).filter { $0.kind == "proctor_command" }.map(\.detail)
        #expect(details.count == 2)
        #expect(details.first == "#10 before this session")
        #expect(details.last.flatMap { ProctorCommand(journalDetail: $0) }?.action == .addTime(seconds: 60))
        #expect(details.last?.hasPrefix("#11.") == true, "the journal keeps the signed sequence: \(details)")
    }

    @Test func aMessageWaitsForAKeyAndIsMadeSafe() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue(clock: world.clock)
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
        let queue = CommandQueue(clock: world.clock)
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
        let control = RoomControl.replay(events + [
            JournalEvent(at: Date(), kind: "proctor_command", detail: "#9.1800000000000000 resume"),
            JournalEvent(at: Date(), kind: "command_refused", detail: "#12 refused: not signed"),
        ], watched: true)
        #expect(!control.paused)
        #expect(control.addedSeconds == 300)
        #expect(control.lastCommand == 12, "a refused command is not read again")
        #expect(control.lastSequence == 1_800_000_000_000_000, "a replay of what was applied is refused after a resume too")
        #expect(control.hand == .raised)
        #expect(control.message == nil, "a message already shown is not shown again")
    }

    // MARK: what a seat refuses

    /// Every forgery a store can hand a seat: each refused and journalled with why, none applied.
    @Test func forgedUnsignedReplayedMisdirectedAndExpiredCommandsAreRefusedAndLogged() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue(clock: world.clock)
        let r = try Self.begin(world, queue: queue)
        let other = try #require(try ProctorKey.make(passphrase: TestProctor.otherPassphrase, logRounds: 10)
            .signingKey(passphrase: TestProctor.otherPassphrase))
        // A genuine pause applies; then each forgery is refused.
        queue.add(ProctorCommand(id: 1, action: .pause))
        _ = r.pump()
        #expect(r.state.room.paused)
        let genuine = try #require(queue.commands(after: 0).first)

        var next: Int64 = 2
        func expectRefused(_ why: CommandRefusal, _ add: (Int64) -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let id = next
            next += 1
            add(id)
            let before = r.state.room
            _ = r.pump()
            #expect(r.state.room.paused == before.paused && r.state.room.addedSeconds == before.addedSeconds
                    && r.state.room.message == nil, "nothing applied", sourceLocation: sourceLocation)
            let last = try r.journal.events(session: r.record.id).last
            #expect(last?.kind == "command_refused", sourceLocation: sourceLocation)
            #expect(last?.detail == "#\(id) refused: \(why)", sourceLocation: sourceLocation)
        }
        // Signed with another passphrase's key.
        try expectRefused(.badSignature) { queue.add(queue.envelope(ProctorCommand(id: $0, action: .resume)), id: $0, key: other) }
        // No signature, or none at all.
        try expectRefused(.unsigned) { queue.add(SignedCommand(id: $0, envelope: "{\"action\":\"resume\"}", signature: nil)) }
        try expectRefused(.unsigned) { queue.add(SignedCommand(id: $0, envelope: nil, signature: nil)) }
        // The genuine pause replayed under a new number.
        try expectRefused(.notNewer) { queue.add(SignedCommand(id: $0, envelope: genuine.envelope, signature: genuine.signature)) }
        // Any field changed after signing: the signature no longer verifies.
        for (from, to) in [("\"pause\"", "\"resume\""), ("\"lab\"", "\"lab2\""), ("\"fingerprint\":\"sha256:", "\"fingerprint\":\"sha256:0")] {
            let changed = queue.envelope(ProctorCommand(id: 0, action: .pause))
            let signed = try SignedCommand.sign(changed, with: try #require(CommandQueue.signing))
            try expectRefused(.badSignature) {
                queue.add(SignedCommand(id: $0, envelope: signed.envelope.replacingOccurrences(of: from, with: to), signature: signed.signature))
            }
        }
        // Signed by the proctor, but for another room, seat or test, or out of its time.
        var envelope = queue.envelope(ProctorCommand(id: 0, action: .resume))
        envelope.room = "lab2"
        try expectRefused(.otherRoom("lab2")) { [envelope] in queue.add(envelope, id: $0) }
        envelope = queue.envelope(ProctorCommand(id: 0, action: .resume), seat: "B7")
        try expectRefused(.otherSeat("B7")) { [envelope] in queue.add(envelope, id: $0) }
        envelope = queue.envelope(ProctorCommand(id: 0, action: .resume))
        envelope.fingerprint = "sha256:" + String(repeating: "0", count: 64)
        try expectRefused(.otherTest) { [envelope] in queue.add(envelope, id: $0) }
        envelope = queue.envelope(ProctorCommand(id: 0, action: .resume))
        envelope.issued -= 3600
        envelope.expires = envelope.issued + 60
        try expectRefused(.expired) { [envelope] in queue.add(envelope, id: $0) }
        envelope = queue.envelope(ProctorCommand(id: 0, action: .resume))
        envelope.issued += 3600
        envelope.expires = envelope.issued + 60
        try expectRefused(.fromTheFuture) { [envelope] in queue.add(envelope, id: $0) }
        // Issued before this session began (a start, say, replayed to a new session).
        envelope = queue.envelope(ProctorCommand(id: 0, action: .resume))
        envelope.sequence = CommandEnvelope.sequence(at: envelope.issued - 120)
        try expectRefused(.notNewer) { [envelope] in queue.add(envelope, id: $0) }
        // An action this Carrel does not know, signed: still not obeyed.
        envelope = queue.envelope(ProctorCommand(id: 0, action: .resume))
        envelope.action = "shutdown"
        try expectRefused(.unreadable) { [envelope] in queue.add(envelope, id: $0) }

        // The genuine resume after all that still applies: a refusal blocks nothing.
        queue.add(ProctorCommand(id: next, action: .resume))
        _ = r.pump()
        #expect(!r.state.room.paused)
        #expect(r.state.room.lastCommand == next)
    }

    @Test func aTestWithoutAProctorKeyCanBeWatchedButNotCommanded() throws {
        let world = try MemoryWorld()
        let queue = CommandQueue(clock: world.clock)
        let r = try Self.begin(world, queue: queue, yaml: RuntimeTests.yaml())
        queue.add(ProctorCommand(id: 1, action: .end))
        let reaction = r.pump()
        #expect(reaction.outcome == nil, "not ended")
        let last = try r.journal.events(session: r.record.id).last
        #expect(last?.detail == "#1 refused: this test has no proctor key, so no command can be verified")
    }

    /// The key `carrel passphrase` prints verifies in another process what this one signs, and
    /// the derivation is the documented one (the test proctor's key was made outside Carrel).
    @Test func theDerivedKeyIsTheDocumentedOne() throws {
        let key = try ProctorKey(parsing: TestProctor.key)
        #expect(key.signingKey(passphrase: TestProctor.passphrase) != nil)
        #expect(key.signingKey(passphrase: TestProctor.otherPassphrase) == nil)
        // NFC: the same passphrase typed with a combining accent derives the same key.
        let accented = try ProctorKey.make(passphrase: "caf\u{E9} au lait", logRounds: 10)
        #expect(accented.signingKey(passphrase: "cafe\u{301} au lait") != nil)
        #expect(throws: ProctorKey.ParseError.self) { try ProctorKey(parsing: "ed25519:AAAA$ln=10,r=8,p=1$AAAA") }
        #expect(throws: ProctorKey.ParseError.self) {
            try ProctorKey(parsing: TestProctor.key.replacingOccurrences(of: "ln=10", with: "ln=30"))
        }
    }
}
