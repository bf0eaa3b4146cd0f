import AssessmentKit
import Foundation
import SessionKit
import Testing
@testable import SharedStore

/// The seat publisher's rules as tables: facts in, actions out, no store and no clock.
@Suite("The publisher's rules")
struct PublisherStateTests {
    static let waiting = SeatPublisher.Announcement(session: "s1", label: SharedLabel(room: "lab", seat: "A1"), candidate: "Ada",
                                                    assessmentID: "a", assessmentTitle: "A")

    /// A publisher that has been told `facts` at time 0, and answered each action as asked.
    static func state(_ facts: [PublisherFact], timing: PublisherState.Timing = .init()) -> PublisherState {
        var s = PublisherState(timing: timing, seed: 7)
        for fact in facts { _ = s.update(fact, now: 0) }
        return s
    }

    /// The one action of `actions` that awaits an answer (and checks there is exactly one, last).
    static func driving(_ actions: [StoreAction]) -> StoreAction? {
        #expect(actions.filter(\.awaitsAnswer).count == 1, "one action awaits an answer: \(actions)")
        #expect(actions.last?.awaitsAnswer == true, "and it comes last: \(actions)")
        return actions.last
    }

    @Test func aPublisherNotStartedWaitsWithoutConnectingAndConnectsOnceStarted() {
        var s = Self.state([])
        #expect(s.update(.woke, now: 0) == [.wait(1)])
        _ = s.update(.started(journal: false), now: 0)
        #expect(s.update(.woke, now: 0) == [.connect])
    }

    @Test func aStoreThatCannotBeReachedIsTriedAgainAfterAWaitThatDoublesToItsLongest() {
        var s = Self.state([.started(journal: false)])
        var longest: [Double] = []
        for _ in 0..<6 {
            #expect(s.update(.woke, now: 0) == [.connect])
            let actions = s.update(.connectFailed("refused"), now: 0)
            guard case let .sleep(wait)? = Self.driving(actions) else {
                Issue.record("a failure sleeps: \(actions)")
                return
            }
            longest.append(wait)
        }
        #expect(s.storeState == .unreachable("refused"))
        // Jittered within [5 %, 100 %] of 0.2, 0.4, 0.8, 1.6, 2, 2 s.
        for (wait, bound) in zip(longest, [0.2, 0.4, 0.8, 1.6, 2, 2]) {
            #expect(wait >= bound * 0.05 - 1e-9 && wait <= bound + 1e-9, "\(wait) within \(bound)")
        }
        // A seat of a room tries again within a second.
        var room = Self.state([.started(journal: false), .follow(room: "lab", seat: "A1", after: 0)])
        for _ in 0..<5 {
            _ = room.update(.woke, now: 0)
            if case let .sleep(wait)? = room.update(.connectFailed("refused"), now: 0).last { #expect(wait <= 1) }
        }
        // A connection resets the wait.
        _ = s.update(.woke, now: 0)
        _ = s.update(.connected, now: 0)
        #expect(s.backoff == s.timing.firstBackoff)
        #expect(s.storeState == .connected)
    }

    /// A seat waiting at its start screen: who it is first, then its commands and starts, then
    /// its rehearsal, then the wait.
    @Test func aWaitingSeatAnnouncesItselfThenReadsItsStartsThenRehearsesThenWaits() {
        var s = Self.state([.announced(Self.waiting), .follow(room: "lab", seat: "A1", after: 9), .started(journal: false)])
        #expect(s.update(.woke, now: 0) == [.connect])
        #expect(s.update(.connected, now: 0) == [.hello(Self.waiting)])
        #expect(s.update(.helloSent(session: "s1"), now: 0) == [.lock(session: "s1")])
        #expect(s.update(.locked(session: "s1", granted: true), now: 0)
                == [.readCommands(room: "lab", seat: "A1", after: 9, startsAfter: 9)])
        #expect(s.update(.commandsRead(commands: [], starts: []), now: 0) == [.rehearse(Self.waiting)])
        let idle = s.update(.rehearsed, now: 0)
        #expect(idle.first == .listen, "a listener on this connection")
        guard case let .wait(pause)? = Self.driving(idle) else {
            Issue.record("then it waits: \(idle)")
            return
        }
        // No pulse to send: it wakes only for the fallback read of commands.
        #expect(pause == s.timing.commandFallback)
    }

    /// A start read while the seat waits: its rehearsal is skipped (the begin is due) and the
    /// session is told at once.
    @Test func aStartReadIsToldAtOnceAndTheRehearsalIsNotMadeThen() {
        var s = Self.state([.announced(Self.waiting), .follow(room: "lab", seat: "A1", after: 0), .started(journal: false),
                            .woke, .connected, .helloSent(session: "s1"), .locked(session: "s1", granted: true)])
        let start = SignedCommand(id: 3, envelope: "{}", signature: "x")
        let actions = s.update(.commandsRead(commands: [], starts: [start]), now: 0)
        #expect(actions.first == .startsRead)
        #expect(!actions.contains(.rehearse(Self.waiting)))
        #expect(s.starts == [start])
    }

    /// After an outage a running seat reads the proctor's commands before anything else.
    @Test func aRunningSeatReconnectedReadsItsCommandsFirstThenClaimsThenSendsItsBacklog() {
        var s = Self.state([.follow(room: "lab", seat: "A1", after: 0), .started(journal: true), .progress(session: "s1", elapsed: 10),
                            .woke])
        let first = s.update(.connected, now: 0)
        #expect(first.last == .readCommands(room: "lab", seat: "A1", after: 0, startsAfter: nil))
        #expect(s.update(.commandsRead(commands: [], starts: nil), now: 0) == [.lock(session: "s1")])
        #expect(s.update(.locked(session: "s1", granted: true), now: 0) == [.sendBatch(after: 0, limit: 500, keys: [:])])
    }

    @Test func theProctorsCommandsAcrossAnOutageArriveInOrderAndNoneTwice() {
        var s = Self.state([.follow(room: "lab", seat: "A1", after: 0), .started(journal: true), .woke, .connected])
        func cmd(_ id: Int64) -> SignedCommand { SignedCommand(id: id, envelope: "#\(id)", signature: "x") }
        _ = s.update(.commandsRead(commands: [cmd(1), cmd(2)], starts: nil), now: 0)
        _ = s.update(.failed("the connection was closed"), now: 1)
        _ = s.update(.woke, now: 2)
        let again = s.update(.connected, now: 2)
        #expect(again.last == .readCommands(room: "lab", seat: "A1", after: 2, startsAfter: nil), "after the last one read")
        // The store answers with some read before, out of order or repeated: only new ones count, in order.
        _ = s.update(.commandsRead(commands: [cmd(2), cmd(3), cmd(3), cmd(1), cmd(4)], starts: nil), now: 2)
        #expect(s.commands(after: 0).map(\.id) == [1, 2, 3, 4])
        #expect(s.commands(after: 2).map(\.id) == [3, 4], "those applied are forgotten")
        #expect(s.received == 4)
    }

    @Test func aBatchTheStoreDidNotKeepWhollyIsSaidUntilTheSeatHasGoneAndTheOutboxMovesOn() {
        var s = Self.state([.started(journal: true), .progress(session: "s1", elapsed: 1), .woke, .connected,
                            .locked(session: "s1", granted: true)])
        let actions = s.update(.batchSent(through: 12, sent: 5, kept: 3, session: "s1"), now: 0)
        let words = SeatPublisher.StoreState.notKept("2 of 5 records replaced by others written first").words
        #expect(actions.prefix(2) == [.noteStore(session: "s1", words: words), .forget(through: 12)])
        #expect(s.confirmed == 12)
        #expect(actions.last == .pulse(session: "s1", elapsed: 1, key: nil), "a backlog does not hold the pulse back")
        // A later batch kept whole does not hide it; a reconnection says the store again.
        _ = s.update(.batchSent(through: 13, sent: 1, kept: 1, session: "s1"), now: 1)
        #expect(s.storeState == .notKept("2 of 5 records replaced by others written first"))
        var kept = Self.state([.started(journal: true), .woke, .connected])
        _ = kept.update(.batchSent(through: 3, sent: 3, kept: 3, session: "s1"), now: 0)
        #expect(kept.storeState == .connected)
    }

    @Test func aFullBatchIsFollowedAtOnceByTheNextAndAnEmptyOutboxAnswersFinish() {
        var s = Self.state([.started(journal: true), .woke, .connected])
        #expect(s.update(.woke, now: 0) == [.sendBatch(after: 0, limit: 500, keys: [:])])
        #expect(s.update(.batchSent(through: 500, sent: 500, kept: 500, session: "s1"), now: 0).last
                == .sendBatch(after: 500, limit: 500, keys: [:]))
        _ = s.update(.drainAsked, now: 0)
        _ = s.update(.woke, now: 0)
        let empty = s.update(.outboxEmpty, now: 0)
        #expect(empty.first == .answerDrain(1))
        let done = s.drained(1)
        #expect(done)
    }

    @Test func aKeyedSessionClaimsItsLivenessOncePerConnectionAndPulsesEveryTwoSeconds() {
        let key: [UInt8] = Array(repeating: 7, count: 32)
        var s = Self.state([.started(journal: true), .progress(session: "s1", elapsed: 5), .authenticated(session: "s1", key: key),
                            .woke, .connected])
        // The claim goes with the outbox's next batch; with none to send, as a pulse of its own.
        let claim = LiveClaim(session: "s1", elapsed: 5, key: key)
        #expect(s.update(.locked(session: "s1", granted: true), now: 0) == [.sendBatch(after: 0, limit: 500, keys: ["s1": key], claim: claim)])
        #expect(s.update(.outboxEmpty, now: 0).last == .pulse(session: "s1", elapsed: 5, key: key))
        // The claim was the pulse, so the next is due two seconds after it.
        guard case let .wait(pause)? = s.update(.pulsed(session: "s1", keyed: true), now: 0.5).last else {
            Issue.record("a wait")
            return
        }
        #expect(abs(pause - 1.5) < 1e-9, "the next pulse two seconds after the claim")
        _ = s.update(.woke, now: 2.0)
        #expect(s.update(.outboxEmpty, now: 2.0).last == .pulse(session: "s1", elapsed: 5, key: key))
        _ = s.update(.pulsed(session: "s1", keyed: true), now: 2.0)
        // A new connection claims again.
        _ = s.update(.failed("gone"), now: 3)
        _ = s.update(.woke, now: 3)
        _ = s.update(.connected, now: 3)
        #expect(s.update(.locked(session: "s1", granted: true), now: 3).last
                == .sendBatch(after: 0, limit: 500, keys: ["s1": key], claim: LiveClaim(session: "s1", elapsed: 5, key: key)))
        // Made with the batch: the claim is not made again, and the next pulse is two seconds on.
        _ = s.update(.batchSent(through: 4, sent: 4, kept: 4, session: "s1", claimed: "s1"), now: 3)
        guard case let .wait(again)? = s.update(.outboxEmpty, now: 3.5).last else {
            Issue.record("a wait after the batch that claimed")
            return
        }
        #expect(abs(again - 1.5) < 1e-9)
    }

    @Test func aLockHeldElsewhereIsAskedAgainOnTheNextPassNotAtOnce() {
        var s = Self.state([.started(journal: true), .progress(session: "s1", elapsed: 1), .woke, .connected])
        #expect(s.update(.woke, now: 0) == [.lock(session: "s1")])
        #expect(s.update(.locked(session: "s1", granted: false), now: 0).last == .sendBatch(after: 0, limit: 500, keys: [:]))
        #expect(s.update(.woke, now: 1) == [.lock(session: "s1")])
    }

    @Test func aRehearsalAfterAReconnectionWaitsARandomFewSecondsAndOnlyOnce() {
        var s = Self.state([.announced(Self.waiting), .started(journal: false), .woke, .connected, .helloSent(session: "s1"),
                            .locked(session: "s1", granted: true), .rehearsed])
        _ = s.update(.failed("gone"), now: 10)
        _ = s.update(.woke, now: 10)
        _ = s.update(.connected, now: 10)
        let due = s.rehearseAt ?? -1
        #expect(due >= 10 && due <= 13)
        #expect(s.update(.helloSent(session: "s1"), now: 10) == [.lock(session: "s1")])
        _ = s.update(.woke, now: 13.5)
        #expect(s.update(.locked(session: "s1", granted: true), now: 13.5) == [.rehearse(Self.waiting)])
        #expect(!s.update(.rehearsed, now: 13.5).contains(.rehearse(Self.waiting)))
        #expect(!s.update(.woke, now: 14).contains(.rehearse(Self.waiting)), "once per connection")
    }

    @Test func aNoticeReadsCommandsAtOnceAndWithoutOneTheFallbackIsSlowerWhileListening() {
        var s = Self.state([.follow(room: "lab", seat: "A1", after: 0), .started(journal: true), .woke, .connected,
                            .commandsRead(commands: [], starts: nil)])
        _ = s.update(.outboxEmpty, now: 0)
        let quiet = s.update(.woke, now: 0.5)
        #expect(quiet.last == .sendBatch(after: 0, limit: 500, keys: [:]))
        guard case let .wait(pause)? = s.update(.outboxEmpty, now: 0.5).last else {
            Issue.record("nothing due yet")
            return
        }
        #expect(abs(pause - 1.5) < 1e-9)
        _ = s.update(.listening(true, connection: s.connection), now: 0.6)
        _ = s.update(.woke, now: 0.6)
        #expect(s.update(.outboxEmpty, now: 0.6).last == .readCommands(room: "lab", seat: "A1", after: 0, startsAfter: nil),
                "a listener's first notice reads at once")
        _ = s.update(.commandsRead(commands: [], starts: nil), now: 0.6)
        _ = s.update(.woke, now: 5)
        guard case let .wait(listening)? = s.update(.outboxEmpty, now: 5).last else {
            Issue.record("no read without a notice while listening, 4.4 s after the last")
            return
        }
        #expect(listening == s.timing.idleWait)
    }

    /// Anyone with the seat role may NOTIFY the channel in a loop: notices coalesce, and a
    /// seat reads its commands at most once every `commandNoticeGap` for them, however many.
    @Test func aFloodOfNoticesReadsCommandsAtMostOnceAGap() {
        var s = Self.state([.follow(room: "lab", seat: "A1", after: 0), .started(journal: true), .woke, .connected,
                            .commandsRead(commands: [], starts: nil)])
        _ = s.update(.listening(true, connection: s.connection), now: 0)
        var reads = 0
        var now = 0.0
        while now < 2.0 {
            _ = s.update(.commandsNoticed, now: now)
            _ = s.update(.woke, now: now)
            var actions = s.update(.outboxEmpty, now: now)
            if actions.last == .readCommands(room: "lab", seat: "A1", after: 0, startsAfter: nil) {
                reads += 1
                actions = s.update(.commandsRead(commands: [], starts: nil), now: now)
            }
            now += 0.01
        }
        #expect(reads >= 3 && reads <= 5, "200 notices in 2 s: \(reads) reads")
        // A notice within the gap is not lost: the wait ends when the gap does.
        _ = s.update(.commandsNoticed, now: now)
        _ = s.update(.woke, now: now)
        if case let .wait(pause)? = s.update(.outboxEmpty, now: now).last {
            #expect(pause <= s.timing.commandNoticeGap + 1e-9)
        }
    }

    @Test func onlyOneListenerIsStartedForEachConnection() {
        var s = Self.state([.follow(room: "lab", seat: "A1", after: 0), .started(journal: false)])
        var seen: [StoreAction] = []
        for (fact, now) in [(PublisherFact.woke, 0.0), (.connected, 0), (.commandsRead(commands: [], starts: []), 0), (.woke, 1),
                            (.woke, 2), (.commandsRead(commands: [], starts: []), 2)] {
            seen += s.update(fact, now: now)
        }
        #expect(seen.filter { $0 == .listen }.count == 1)
        seen = []
        for (fact, now) in [(PublisherFact.failed("gone"), 3.0), (.woke, 3), (.connected, 3), (.commandsRead(commands: [], starts: []), 3)] {
            seen += s.update(fact, now: now)
        }
        #expect(seen.filter { $0 == .listen }.count == 1, "a new connection gets its own")
    }

    @Test func aListenerOfAnEarlierConnectionThatEndsLateSaysNothingOfTheNewOne() {
        var s = Self.state([.follow(room: "lab", seat: "A1", after: 0), .started(journal: true), .woke, .connected])
        let first = s.connection
        _ = s.update(.failed("gone"), now: 1)
        _ = s.update(.woke, now: 1)
        _ = s.update(.connected, now: 1)
        _ = s.update(.listening(true, connection: s.connection), now: 1)
        _ = s.update(.listening(false, connection: first), now: 1)
        #expect(s.listening, "the new connection's listener is still live")
        _ = s.update(.listening(false, connection: s.connection), now: 2)
        #expect(!s.listening)
    }

    @Test func marksAreReadEveryThirtySecondsOnlyWhenResultsAreKept() {
        var s = Self.state([.started(journal: true), .woke, .connected])
        #expect(!s.update(.outboxEmpty, now: 0).contains(.readMarks(after: 0)))
        _ = s.update(.keepMarks, now: 0)
        _ = s.update(.woke, now: 1)
        #expect(s.update(.outboxEmpty, now: 1).last == .readMarks(after: 0))
        _ = s.update(.marksRead(last: 17), now: 1)
        _ = s.update(.woke, now: 20)
        #expect(!s.update(.outboxEmpty, now: 20).contains(.readMarks(after: 17)))
        _ = s.update(.woke, now: 31.5)
        #expect(s.update(.outboxEmpty, now: 31.5).last == .readMarks(after: 17))
    }

    @Test func aWaitingSeatTellsTheConsoleOfTheStartsItRefusedOnce() {
        var s = Self.state([.announced(Self.waiting), .started(journal: false), .refusal("#4 refused: bad"), .woke, .connected,
                            .helloSent(session: "s1"), .locked(session: "s1", granted: true), .rehearsed])
        #expect(s.update(.woke, now: 0) == [.sendRefusals(session: "s1", details: ["#4 refused: bad"])])
        _ = s.update(.refusalsSent(1), now: 0)
        #expect(s.refusals.isEmpty)
        let first = s.refusedStart(4), second = s.refusedStart(4)
        #expect(first && !second, "a start is reported once")
    }

    @Test func leavingClosesTheConnectionSoTheConsoleSeesTheSeatGoAndAsksTheStoreAgain() {
        var s = Self.state([.announced(Self.waiting), .started(journal: false), .woke, .connected, .helloSent(session: "s1")])
        _ = s.update(.left, now: 0)
        #expect(s.storeState == .connecting)
        #expect(s.update(.woke, now: 0) == [.close, .connect])
    }

    @Test func finishingStopsAndAFailureWhileStoppingSaysNothingAboutTheStore() {
        var s = Self.state([.started(journal: true), .woke, .connected])
        _ = s.update(.finishing, now: 0)
        #expect(s.update(.failed("cancelled"), now: 0) == [.stop])
        #expect(s.storeState == .connected)
        #expect(s.update(.woke, now: 0) == [.stop])
    }

    @Test func theStateSaidBeforeTheSessionExistedGoesIntoItsRowOnce() {
        var s = Self.state([.started(journal: false), .woke, .connectFailed("refused")])
        _ = s.update(.started(journal: true), now: 0)
        _ = s.update(.progress(session: "s1", elapsed: 0), now: 0)
        let words = SeatPublisher.StoreState.unreachable("refused").words
        #expect(s.update(.woke, now: 1) == [.noteStore(session: "s1", words: words), .connect])
        #expect(s.update(.woke, now: 1) == [.connect], "once")
    }

    @Test func timingCanBeShortenedForTestsAndEveryIntervalShrinks() {
        let t = PublisherState.Timing().faster(100)
        #expect(t.pulse == 0.02 && t.commandFallback == 0.02 && t.longestBackoff == 0.02 && t.marks == 0.3)
    }
}
