import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import StoreTestSupport
import Synchronization
import Testing
@testable import SharedStore

/// The real publisher's loop and the real session runtime over the in-memory store, with every
/// interval a hundred times shorter: outages, restarts, refusals and finishing, in milliseconds.
/// Each check waits for what must happen (a generous deadline, never a timing).
@Suite("The publisher over a store that fails")
struct PublisherLoopTests {
    static let url: SharedURL = SharedURL(host: "memory", socketFolder: nil, port: 1, user: "seat", password: nil, database: "carrel",
                                          tls: .disable, connectTimeout: 1)

    /// The publishers' loops run on a thread of their own: the test runner's shared pool has as
    /// many threads as cores, and tests that wait synchronously for a child process can hold
    /// them all for seconds; a loop waiting behind them would look like one that hangs.
    static let thread = DedicatedThread(name: "carrel-test-publishers")

    /// A session that publishes, its publisher running over `store`.
    final class Seat {
        let world: MemoryWorld
        let runtime: SessionRuntime
        let publisher: SeatPublisher
        let loop: Task<Void, Never>

        init(_ store: MemoryStore, follow: Bool = false) throws {
            world = try MemoryWorld()
            publisher = SeatPublisher(opener: store, url: PublisherLoopTests.url, timing: PublisherState.Timing().faster(100), seed: 1)
            if follow { publisher.follow(room: "lab", seat: "A1", after: 0) }
            let (assessment, source) = try MemoryWorld.assessment(Self.yaml)
            var context = world.context
            context.publisher = publisher
            var label = SharedLabel(room: "lab", seat: "A1")
            label.storeToken = SessionMAC.randomToken()
            runtime = try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                               options: SessionOptions(shared: label), context: context)
            let publisher = publisher
            // The session's loop tells its time used on every tick: a running seat pulses.
            publisher.progress(session: runtime.record.id, elapsed: 1)
            loop = Task(executorPreference: PublisherLoopTests.thread) { await publisher.run() }
        }

        static let yaml = """
            carrel: 1
            id: loop
            title: Loop
            policy: { multiplexer: allow }
            sections:
              - items:
                  - {id: t1, type: text, prompt: One, accept: [x]}
                  - {id: t2, type: text, prompt: Two, accept: [y]}
                  - {id: c1, type: choice, prompt: Three, choices: [a, b], answer: a}
            """

        var session: String { runtime.record.id }
        func waiting() -> Int { (try? runtime.journal.outboxWaiting(session: session)) ?? -1 }

        func stop() async {
            _ = await publisher.finish(within: 2)
            await loop.value
        }
    }

    /// Polls `condition` until it holds, for up to `seconds`.
    static func eventually(_ seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return condition()
    }

    /// Every record of the session reached the store once, numbered without a gap.
    static func complete(_ store: MemoryStore, _ seat: Seat) -> Bool {
        let seqs = store.records(seat.session).map(\.seq)
        return seat.waiting() == 0 && !seqs.isEmpty && seqs == Array(seqs[0]...seqs[seqs.count - 1])
    }

    @Test func answersGivenDuringAnOutageReachTheStoreInOrderWhenItReturnsAndNoneIsSentTwice() async throws {
        let store = MemoryStore()
        let seat = try Seat(store)
        _ = seat.runtime.send(.answer("c1", .choice("a")))
        #expect(await Self.eventually { Self.complete(store, seat) })
        let before = store.records(seat.session).count
        store.cut()
        #expect(await Self.eventually { seat.publisher.storeState != .connected })
        for item in ["t1", "t2"] { _ = seat.runtime.send(.answer(item, .text("answer \(item)"))) }
        _ = seat.runtime.send(.answer("c1", .choice("b")))
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(store.records(seat.session).count == before, "nothing reaches a store that is cut off")
        #expect(seat.waiting() > 0, "the answers wait in the journal's outbox")
        store.restore()
        #expect(await Self.eventually { Self.complete(store, seat) })
        #expect(seat.publisher.storeState == .connected)
        let sent = store.snapshot.sends.filter { $0.session == seat.session }.map(\.seq)
        #expect(sent == Array(Set(sent)).sorted(), "each record sent once, in order: \(sent)")
        let answers = store.records(seat.session).filter { $0.body.contains("\"answer") || $0.kind == "answer" }
        #expect(!answers.isEmpty)
        await seat.stop()
    }

    @Test func aBatchTheStoreRefusedIsSentAgainAndArrivesWhole() async throws {
        let store = MemoryStore()
        store.refuseInserts(2)
        let seat = try Seat(store)
        for item in ["t1", "t2"] { _ = seat.runtime.send(.answer(item, .text("z"))) }
        #expect(await Self.eventually { Self.complete(store, seat) })
        #expect(store.calls("insert") >= 3, "two refused, then kept")
        #expect(seat.publisher.storeState == .connected)
        await seat.stop()
    }

    @Test func aRecordSomeoneElseWroteFirstIsNamedAsNotKeptAndTheJournalStillMovesOn() async throws {
        let store = MemoryStore()
        let seat = try Seat(store)
        #expect(await Self.eventually { Self.complete(store, seat) })
        let next = (store.records(seat.session).last?.seq ?? 0) + 1
        store.forge(SentRecord(session: seat.session, seq: next, kind: "answer", at: Date(), body: #"{"forged":true}"#, mac: ""))
        _ = seat.runtime.send(.answer("t1", .text("mine")))
        #expect(await Self.eventually {
            if case .notKept = seat.publisher.storeState { return true }
            return false
        })
        #expect(store.records(seat.session).first { $0.seq == next }?.body == #"{"forged":true}"#)
        #expect(seat.publisher.storeState.words.contains("tell the proctor"))
        await seat.stop()
    }

    @Test func commandsIssuedWhileTheSeatWasCutOffArriveInOrderNoneTwiceWhenTheStoreReturns() async throws {
        let store = MemoryStore()
        let seat = try Seat(store, follow: true)
        let first = store.issue(room: "lab", seat: "A1", envelope: "one")
        #expect(await Self.eventually { seat.publisher.commands(after: 0).map(\.id) == [first] })
        store.cut()
        let more = [store.issue(room: "lab", seat: "A1", envelope: "two"), store.issue(room: "lab", seat: "B2", envelope: "other"),
                    store.issue(room: "lab", seat: "A1", envelope: "three")]
        store.restore()
        #expect(await Self.eventually { seat.publisher.commands(after: 0).count == 3 })
        #expect(seat.publisher.commands(after: 0).map(\.id) == [first, more[0], more[2]], "this seat's, in order")
        #expect(seat.publisher.commands(after: first).map(\.envelope) == ["two", "three"])
        await seat.stop()
    }

    @Test func aRestartedStoreSeesTheSeatLiveAgainAndItsNoticesComeOnTheNewConnection() async throws {
        let store = MemoryStore()
        let seat = try Seat(store, follow: true)
        #expect(await Self.eventually { store.snapshot.locks[seat.session] != nil })
        store.restart()
        #expect(store.snapshot.locks[seat.session] == nil)
        #expect(await Self.eventually { store.snapshot.locks[seat.session] != nil }, "the advisory lock held again")
        #expect(await Self.eventually { seat.publisher.state.listening })
        let id = store.issue(room: "lab", seat: "A1", envelope: "after the restart")
        #expect(await Self.eventually { seat.publisher.commands(after: 0).map(\.id) == [id] })
        await seat.stop()
    }

    @Test func aWaitingSeatAnnouncesItselfRehearsesItsBeginAndHearsItsStart() async throws {
        let store = MemoryStore()
        let publisher = SeatPublisher(opener: store, url: Self.url, timing: PublisherState.Timing().faster(100), seed: 3)
        publisher.announce(.init(session: "w1", label: SharedLabel(room: "lab", seat: "A1"), candidate: nil, assessmentID: "a",
                                 assessmentTitle: "A"))
        publisher.follow(room: "lab", seat: "A1", after: 0)
        publisher.start()
        let loop = Task(executorPreference: Self.thread) { await publisher.run() }
        #expect(await Self.eventually { store.snapshot.hellos["w1"] != nil && store.snapshot.rehearsals == 1 })
        #expect(store.snapshot.locks["w1"] != nil)
        let answer = await withCheckedContinuation { (answered: CheckedContinuation<String?, Never>) in
            Thread.detachNewThread { answered.resume(returning: publisher.firstAnswer()) }
        }
        #expect(answer == nil, "the store answered")
        store.issue(room: "lab", seat: "A1", envelope: "start", start: true)
        #expect(await publisher.startBell.wait(seconds: 10))
        #expect(publisher.starts.map(\.envelope) == ["start"])
        publisher.reportRefusal("#1 refused: not for this seat")
        #expect(await Self.eventually { store.snapshot.refusals.map(\.detail) == ["#1 refused: not for this seat"] })
        publisher.leave()
        #expect(await Self.eventually { store.snapshot.locks["w1"] == nil }, "gone from the room once it left")
        _ = await publisher.finish(within: 1)
        await loop.value
    }

    @Test func theProctorsKeyMovesTheStoreToADerivedTokenSoTheFirstOneNoLongerWrites() async throws {
        let store = MemoryStore()
        let publisher = SeatPublisher(opener: store, url: Self.url, timing: PublisherState.Timing().faster(100), seed: 4)
        var label = SharedLabel(room: "lab", seat: "A1")
        label.storeToken = SessionMAC.randomToken()
        let first = try #require(label.storeToken)
        publisher.announce(.init(session: "w2", label: label, candidate: nil, assessmentID: "a", assessmentTitle: "A"))
        publisher.follow(room: "lab", seat: "A1", after: 0)
        publisher.start()
        let loop = Task(executorPreference: Self.thread) { await publisher.run() }
        #expect(await Self.eventually { store.snapshot.tokens["w2"] == first }, "announced with the label's token")
        let key = Array(repeating: UInt8(7), count: 32)
        publisher.authenticate(session: "w2", key: key)
        publisher.progress(session: "w2", elapsed: 1)
        let derived = SessionMAC.storeToken(key: key, session: "w2")
        #expect(await Self.eventually { store.snapshot.tokens["w2"] == derived }, "its next call moved the store to the key's token")
        #expect(store.snapshot.firstTokens["w2"] == first, "the first still reads the session's marks")
        // A new connection (the store restarted) says who the seat is again, with the key's token.
        store.restart()
        #expect(await Self.eventually { store.calls("hello") >= 2 && store.snapshot.locks["w2"] != nil })
        #expect(store.snapshot.unproven == 0, "nothing the seat sent after its key was refused")
        // Whoever finds the first token (in a journal left on the machine) no longer writes.
        let link = try await store.open()
        let forged = try await link.insert([SentRecord(session: "w2", seq: 99, kind: "status", at: Date(), body: "{}", mac: "", token: first)])
        #expect(forged.kept == 0 && forged.refused != nil)
        #expect(try await link.live(SeatProof(session: "w2", token: first), mac: "m", elapsed: 1) == ())
        #expect(store.snapshot.live["w2"]?.mac != "m")
        await link.close()
        publisher.leave()
        _ = await publisher.finish(within: 1)
        await loop.value
    }

    @Test func aSessionResumedWithItsKeyMovesTheStoreFromTheJournalsTokenAndLosesNothing() async throws {
        let store = MemoryStore()
        let seat = try Seat(store)
        #expect(await Self.eventually { Self.complete(store, seat) })
        let first = try #require(seat.runtime.record.options.shared?.storeToken)
        #expect(store.snapshot.tokens[seat.session] == first, "made by its own first record, with the journal's token")
        // As `resume` does: the key derived again, no token in memory.
        let key = Array(repeating: UInt8(9), count: 32)
        seat.publisher.authenticate(session: seat.session, key: key)
        _ = seat.runtime.send(.answer("t1", .text("after the key")))
        #expect(await Self.eventually { store.records(seat.session).contains { $0.body.contains("after the key") } }, "kept, not refused")
        #expect(store.snapshot.tokens[seat.session] == SessionMAC.storeToken(key: key, session: seat.session))
        #expect(store.snapshot.unproven == 0)
        await seat.stop()
    }

    @Test func finishEndsWithinItsDeadlineWhenTheStoreIsGoneAndTheRecordsStayInTheOutbox() async throws {
        let store = MemoryStore()
        let seat = try Seat(store)
        #expect(await Self.eventually { Self.complete(store, seat) })
        store.cut()
        _ = seat.runtime.send(.answer("t1", .text("late")))
        let publisher = seat.publisher
        let (drained, took) = await Task(executorPreference: Self.thread) {
            let started = Date()
            return (await publisher.finish(within: 0.3), Date().timeIntervalSince(started))
        }.value
        #expect(!drained)
        #expect(took < 10, "finish gave up at its deadline")
        await seat.loop.value
        #expect(seat.waiting() > 0, "kept for the next session or resume")
    }

    @Test func finishWaitsForTheOutboxToEmptyWhenTheStoreIsSlow() async throws {
        let store = MemoryStore()
        store.slow(0.01)
        let seat = try Seat(store)
        for item in ["t1", "t2"] { _ = seat.runtime.send(.answer(item, .text("slow"))) }
        #expect(await seat.publisher.finish(within: 20))
        await seat.loop.value
        #expect(Self.complete(store, seat))
    }

    @Test func firstAnswerSaysWhyWhenTheStoreCannotBeReached() async throws {
        let store = MemoryStore(answerDeadline: 10)
        store.cut()
        let publisher = SeatPublisher(opener: store, url: Self.url, timing: PublisherState.Timing().faster(100), seed: 3)
        publisher.start()
        let loop = Task(executorPreference: Self.thread) { await publisher.run() }
        // From a thread of its own, as the session's thread asks it: a wait that blocks must not
        // hold one of the few threads every other test's tasks run on.
        let why = await withCheckedContinuation { (answered: CheckedContinuation<String?, Never>) in
            Thread.detachNewThread { answered.resume(returning: publisher.firstAnswer()) }
        }
        #expect(why == "the connection was refused")
        _ = await publisher.finish(within: 1)
        await loop.value
    }
}
