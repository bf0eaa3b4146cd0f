import AssessmentKit
import Foundation
import Testing
@testable import SessionKit

@Suite("Session state machine")
struct SessionStateTests {
    static func assessment(navigation: Navigation = .free, timeLimit: Int? = 600, passphrase: Bool = true,
                           policy: RestrictionPolicy = RestrictionPolicy(), shuffle: Shuffle = Shuffle()) -> Assessment {
        let items = (0..<4).map { i in
            Item(id: "q\(i)", prompt: "Q\(i)", kind: .choice(choices: ["a", "b", "c", "d"], answer: "a"))
        }
        let hash = passphrase ? try? PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10) : nil
        return Assessment(id: "t", title: "T", timeLimit: timeLimit, navigation: navigation, shuffle: shuffle,
                          proctor: ProctorSettings(passphrase: hash), policy: policy,
                          sections: [Section(items: Array(items[0..<2])), Section(items: Array(items[2..<4]))])
    }

    static func running(_ a: Assessment = assessment(), extra: ExtraTime = .none) -> SessionState {
        var s = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 7, extraTime: extra))
        _ = s.update(.began)
        return s
    }

    struct Step: CustomTestStringConvertible, Sendable {
        var name: String
        var navigation: Navigation = .free
        var events: [SessionMessage]
        var position: Int
        var status: SessionStatus
        var lastEffects: [SessionEffect]
        var testDescription: String { name }
    }

    static let navigationTable: [Step] = [
        Step(name: "next moves on and saves the position", events: [.next], position: 1, status: .active, lastEffects: [.saveProgress(position: 1, elapsed: 0)]),
        Step(name: "previous at the start does nothing", events: [.previous], position: 0, status: .active, lastEffects: []),
        Step(name: "free: back again", events: [.next, .next, .previous], position: 1, status: .active, lastEffects: [.saveProgress(position: 1, elapsed: 0)]),
        Step(name: "free: jump anywhere", events: [.jump(3), .jump(0)], position: 0, status: .active, lastEffects: [.saveProgress(position: 0, elapsed: 0)]),
        Step(name: "jump out of range is ignored", events: [.jump(9)], position: 0, status: .active, lastEffects: []),
        Step(name: "next after the last opens review", events: [.jump(3), .next], position: 3, status: .review, lastEffects: []),
        Step(name: "jump from review returns to a question", events: [.openReview, .jump(2)], position: 2, status: .active, lastEffects: [.saveProgress(position: 2, elapsed: 0)]),
        Step(name: "review closes back to the question", events: [.next, .openReview, .closeReview], position: 1, status: .active, lastEffects: []),
        Step(name: "linear: no going back", navigation: .linear, events: [.next, .previous], position: 1, status: .active,
             lastEffects: [.notice("This assessment does not allow going back")]),
        Step(name: "linear: no jumping back", navigation: .linear, events: [.jump(2), .jump(1)], position: 2, status: .active,
             lastEffects: [.notice("This assessment does not allow going back")]),
        Step(name: "linear: forward jumps are fine", navigation: .linear, events: [.jump(2)], position: 2, status: .active,
             lastEffects: [.saveProgress(position: 2, elapsed: 0)]),
    ]

    @Test(arguments: navigationTable)
    func navigation(step: Step) {
        var s = Self.running(Self.assessment(navigation: step.navigation))
        var last: [SessionEffect] = []
        for e in step.events { last = s.update(e) }
        #expect(s.position == step.position)
        #expect(s.status == step.status)
        #expect(last == step.lastEffects)
    }

    @Test func answersAreSavedOnlyWhenTheyChange() {
        var s = Self.running()
        #expect(s.update(.answer("q0", .choice("a"))) == [.saveAnswer("q0", .choice("a"))])
        #expect(s.update(.answer("q0", .choice("a"))) == [])
        #expect(s.update(.answer("q0", nil)) == [.saveAnswer("q0", nil)])
        #expect(s.update(.answer("nope", .choice("a"))) == [])
    }

    @Test func textsWaitingForTheirSaveAreSavedInTestOrderWhateverOrderTheyWereTyped() {
        var s = Self.running()
        #expect(s.plan.positions == ["q0": 0, "q1": 1, "q2": 2, "q3": 3])
        _ = s.update(.edit("q3", .text("late")))
        _ = s.update(.edit("q1", .text("early")))
        #expect(s.unsavedIDs == ["q1", "q3"])
        _ = s.update(.edit("q9", .text("no such question")))
        #expect(s.unsavedIDs == ["q1", "q3"])
        // Leaving the question saves every waiting text, in the order the test shows them.
        let effects = s.update(.jump(2))
        #expect(effects == [.saveAnswer("q1", .text("early")), .saveAnswer("q3", .text("late")),
                            .saveProgress(position: 2, elapsed: 0)])
        #expect(s.unsavedIDs.isEmpty)
        var moved = s.plan
        moved.itemOrder = ["q3", "q2"]
        #expect(moved.positions == ["q3": 0, "q2": 1])
    }

    @Test func linearAnswersOnlyTheCurrentQuestion() {
        var s = Self.running(Self.assessment(navigation: .linear))
        #expect(s.update(.answer("q1", .choice("a"))) == [.notice("In this assessment you answer the question in front of you only")])
        #expect(s.responses.isEmpty)
    }

    @Test func flagsToggle() {
        var s = Self.running()
        #expect(s.update(.toggleFlag("q2")) == [.saveFlag("q2", true), .notice("Question flagged")])
        #expect(s.flaggedIDs == ["q2"])
        #expect(s.update(.toggleFlag("q2")) == [.saveFlag("q2", false), .notice("Flag removed")])
        #expect(s.flags.isEmpty)
    }

    @Test func submitNeedsConfirmation() {
        var s = Self.running()
        _ = s.update(.answer("q0", .choice("a")))
        #expect(s.update(.submitConfirmed) == [])
        #expect(s.update(.submitRequested) == [])
        #expect(s.prompt == .confirmSubmit)
        #expect(s.update(.cancelPrompt) == [])
        #expect(s.prompt == nil)
        _ = s.update(.submitRequested)
        let effects = s.update(.submitConfirmed)
        #expect(effects == [.saveProgress(position: 0, elapsed: 0), .log(.submitted, "1 of 4 answered"), .finish(.submitted)])
        #expect(s.status == .ending)
        #expect(s.update(.next) == [], "nothing happens once ending")
    }

    @Test func timeWarningsAtFiveAndOneMinuteThenExpiry() {
        var s = Self.running()
        #expect(s.update(.tick(elapsed: 299)) == [.saveProgress(position: 0, elapsed: 299)])
        #expect(s.update(.tick(elapsed: 300)) == [.log(.timeWarning, "5 minutes left"), .notice("5 minutes left"), .bell])
        #expect(s.update(.tick(elapsed: 301)) == [])
        #expect(s.update(.tick(elapsed: 540)) == [.saveProgress(position: 0, elapsed: 540), .log(.timeWarning, "1 minute left"), .notice("1 minute left"), .bell])
        #expect(s.update(.tick(elapsed: 600)) == [.saveProgress(position: 0, elapsed: 600), .log(.timedOut, "time limit reached"), .finish(.timedOut)])
        #expect(s.endReason == .timedOut)
    }

    @Test func clockGoingBackwardsIsIgnored() {
        var s = Self.running()
        _ = s.update(.tick(elapsed: 100))
        #expect(s.update(.tick(elapsed: 50)) == [])
        #expect(s.elapsed == 100)
    }

    @Test func maxDurationEndsEvenUntimedSessions() {
        var policy = RestrictionPolicy()
        policy.maxDuration = 3600
        var s = Self.running(Self.assessment(timeLimit: nil, policy: policy))
        #expect(s.remaining == nil)
        #expect(s.update(.tick(elapsed: 3599)).contains(.finish(.timedOut)) == false)
        #expect(s.update(.tick(elapsed: 3600)) == [.saveProgress(position: 0, elapsed: 3600), .log(.timedOut, "session cap of 1h reached"), .finish(.timedOut)])
    }

    @Test(arguments: [
        (ExtraTime.none, 600 as Int?), (.multiplier(1.5), 900), (.add(seconds: 900), 1500), (.unlimited, nil),
    ])
    func extraTime(extra: ExtraTime, allowed: Int?) {
        let s = Self.running(extra: extra)
        #expect(s.plan.timeAllowed == allowed)
    }

    @Test(arguments: [("1.5", ExtraTime.multiplier(1.5)), ("x2", .multiplier(2)), ("+15m", .add(seconds: 900)),
                      ("unlimited", .unlimited), ("1", ExtraTime.none)])
    func extraTimeParses(text: String, value: ExtraTime) {
        #expect(ExtraTime(parsing: text) == value)
    }

    @Test(arguments: ["", "0.5", "fast", "+", "+10", "11"])
    func extraTimeRefusesNonsense(text: String) {
        #expect(ExtraTime(parsing: text) == nil)
    }

    @Test func extraTimeNeverPassesTheSessionCap() {
        var policy = RestrictionPolicy()
        policy.maxDuration = 700
        let s = Self.running(Self.assessment(policy: policy), extra: .multiplier(2))
        #expect(s.plan.timeAllowed == 700)
    }

    @Test func pasteIsBlockedAndLoggedUnlessAllowed() {
        var s = Self.running()
        #expect(s.update(.pasteAttempt(characters: 42)) == [.log(.pasteBlocked, "42 characters"), .notice("Paste is disabled during this assessment")])
        var relaxed = RestrictionPolicy()
        relaxed.paste = .allow
        var t = Self.running(Self.assessment(policy: relaxed))
        #expect(t.update(.pasteAttempt(characters: 42)) == [])
    }

    @Test func focusAndResizeAreLogged() {
        var s = Self.running()
        #expect(s.update(.focusLost) == [.log(.focusLost, "")])
        #expect(s.update(.focusRegained) == [.log(.focusRegained, "")])
        #expect(s.update(.resized(columns: 60, rows: 20)) == [.log(.resized, "60x20")])
        var quiet = RestrictionPolicy()
        quiet.focus = .ignore
        var t = Self.running(Self.assessment(policy: quiet))
        #expect(t.update(.focusLost) == [])
    }

    @Test func theStateSaysHowTheEndStepsLeftTheSession() {
        var s = Self.running()
        #expect(s.update(.endRecorded) == [] && s.status == .active, "nothing ended: a stray report changes nothing")
        _ = s.update(.submitRequested)
        _ = s.update(.submitConfirmed)
        #expect(s.status == .ending)
        #expect(s.update(.endRecorded) == [])
        #expect(s.status == .ended)
        var t = Self.running()
        _ = t.update(.exitAttempt("Ctrl-C"))
        #expect(t.update(.leftForProctor) == [])
        #expect(t.status == .interrupted && t.prompt == nil)
        #expect(t.update(.next) == [], "an interrupted session takes no more keys")
    }

    @Test func exitAttemptsAskForTheProctorAndWrongPassphrasesBackOff() {
        var s = Self.running()
        #expect(s.update(.exitAttempt("Ctrl-C")) == [.log(.exitAttempt, "Ctrl-C")])
        #expect(s.prompt == .proctor)
        #expect(s.status == .active, "the test goes on")
        var waits: [Double?] = []
        for n in 1...3 {
            let now = Double(n) * 10
            let effects = s.update(.passphrase(correct: false), now: now)
            #expect(effects.first == .log(.passphraseFailed, "attempt \(n)"))
            waits.append(s.passphrase.wait(now: now))
        }
        // The one rule, the attempts file's: 1 s, 2 s, 4 s; the third wrong one also closes
        // the prompt and the test goes on.
        #expect(waits == [1, 2, 4])
        #expect(s.prompt == nil && s.status == .active)
        // Asked again: three more tries, and the waits go on growing.
        _ = s.update(.exitAttempt("Ctrl-C"), now: 50)
        #expect(s.prompt == .proctor)
        _ = s.update(.passphrase(correct: false), now: 50)
        #expect(s.passphrase.wait(now: 50) == PassphraseBackoff.delay(afterFailures: 4))
        // A passphrase typed during the wait is not checked.
        #expect(s.update(.passphraseChecked(.mustWait(3)), now: 51) == [.notice("Wait 3 seconds before trying again")])
        #expect(s.passphraseFailures == 4)
        let end = s.update(.passphrase(correct: true), now: 100)
        #expect(end.contains(.log(.ended, "ended by the proctor")) && end.last == .finish(.endedByProctor))
    }

    /// The start screen and the "ask your proctor" prompt share one rule: three tries each
    /// time, waits doubling from 1 s with every wrong passphrase, up to 15 minutes.
    @Test func thePassphrasePromptFollowsTheAttemptsFilesRule() {
        var prompt = PassphrasePrompt()
        var seen: [PassphrasePrompt.Step] = []
        for n in 0..<3 { seen.append(prompt.apply(prompt.verdict(correct: false), now: Double(n) * 1000)) }
        #expect(seen == [.wrong(attempt: 1, triesLeft: 2, wait: 1), .wrong(attempt: 2, triesLeft: 1, wait: 2),
                         .wrong(attempt: 3, triesLeft: 0, wait: 4)])
        prompt.reopen()
        #expect(prompt.wait(now: 2000) == 4, "opened again, the last wait still holds: no free try")
        for n in 3..<12 { _ = prompt.apply(.rejected(triesLeft: 2, wait: PassphraseBackoff.delay(afterFailures: n + 1)), now: 5000) }
        #expect(prompt.failures == 12)
        #expect(prompt.wait(now: 5000) == 900, "never longer than 15 minutes")
        #expect(prompt.apply(.mustWait(30), now: 5000) == .mustWait(30))
        #expect(prompt.apply(.accepted, now: 6000) == .accepted)
        #expect(prompt.apply(.unavailable("disk full"), now: 6000) == .unavailable("disk full"))
        #expect((1...12).map { PassphraseBackoff.delay(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900])
    }

    @Test func practiceModeAsksForConfirmationInstead() {
        var s = Self.running(Self.assessment(passphrase: false))
        _ = s.update(.exitAttempt("SIGINT"))
        #expect(s.prompt == .confirmEnd)
        #expect(s.update(.passphrase(correct: true)) == [], "no passphrase in practice mode")
        #expect(s.update(.endConfirmed).last == .finish(.endedByCandidate), "the candidate ended it, not a proctor")
    }

    @Test func hangUpInterruptsFromAnyRunningState() {
        var s = Self.running()
        _ = s.update(.openReview)
        #expect(s.update(.hangUp("SIGHUP")) == [.saveProgress(position: 0, elapsed: 0), .log(.interrupted, "SIGHUP"), .interrupt("SIGHUP")])
        #expect(s.status == .interrupted)
        #expect(s.update(.hangUp("SIGHUP")) == [])
    }

    @Test func eventsBeforeBeganDoNothing() {
        var s = SessionState(plan: SessionPlan.make(assessment: Self.assessment(), sessionID: "s", seed: 1, extraTime: .none))
        #expect(s.update(.next) == [])
        #expect(s.update(.answer("q0", .choice("a"))) == [])
        #expect(s.update(.began) == [.log(.began, "")])
        #expect(s.update(.began) == [])
    }

    @Test func theSameSeedGivesTheSameOrderAndResumeRestoresEverything() {
        let a = Self.assessment(shuffle: Shuffle(items: true, choices: true))
        let plan = SessionPlan.make(assessment: a, sessionID: "s", seed: 42, extraTime: .none)
        #expect(SessionPlan.make(assessment: a, sessionID: "s", seed: 42, extraTime: .none) == plan)
        #expect(Set(plan.itemOrder) == Set(["q0", "q1", "q2", "q3"]))
        #expect(Set(plan.itemOrder.prefix(2)) == ["q0", "q1"], "items shuffle within their section")
        let differs = (0..<20).contains { seed in
            SessionPlan.make(assessment: a, sessionID: "s", seed: UInt64(seed), extraTime: .none).displayOrders != plan.displayOrders
        }
        #expect(differs, "another seed gives another order")

        var s = SessionState(plan: plan)
        _ = s.update(.began)
        _ = s.update(.answer(plan.itemOrder[0], .choice("b")))
        _ = s.update(.toggleFlag(plan.itemOrder[1]))
        _ = s.update(.jump(2))
        _ = s.update(.tick(elapsed: 123))
        // What the journal keeps is enough to rebuild the same state.
        let resumed = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 42, extraTime: .none),
                                   status: .active, position: s.position, responses: s.responses, flags: s.flags, elapsed: s.elapsed)
        #expect(resumed.plan == s.plan)
        #expect(resumed.responses == s.responses)
        #expect(resumed.flags == s.flags)
        #expect(resumed.position == 2)
        #expect(resumed.remaining == 477)
    }

    @Test func orderItemsAreNeverShownInTheirCorrectOrder() {
        let item = Item(id: "o", prompt: "?", kind: .order(items: ["a", "b", "c"]))
        let a = Assessment(id: "t", title: "T", sections: [Section(items: [item])])
        for seed in 0..<50 {
            let plan = SessionPlan.make(assessment: a, sessionID: "s", seed: UInt64(seed), extraTime: .none)
            #expect(plan.displayOrders["o"] != ["a", "b", "c"])
        }
    }

    @Test func resumingCloseToTheEndDoesNotRepeatWarnings() {
        let a = Self.assessment()
        let plan = SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none)
        var s = SessionState(plan: plan, status: .active, elapsed: 550)
        #expect(s.warned == [300, 60])
        #expect(s.update(.tick(elapsed: 551)) == [])
    }
}

@Suite("Session state machine: time saved with work")
struct TimeSavedWithWorkTests {
    @Test func answersFlagsAndMovesCarryTheTimeUsed() {
        var s = SessionStateTests.running()
        _ = s.update(.tick(elapsed: 3))
        #expect(s.update(.answer("q0", .choice("a"))) == [.saveAnswer("q0", .choice("a")), .saveProgress(position: 0, elapsed: 3)])
        #expect(s.update(.toggleFlag("q0")) == [.saveFlag("q0", true), .notice("Question flagged")], "already saved at 3 s")
        _ = s.update(.tick(elapsed: 4))
        #expect(s.update(.next) == [.saveProgress(position: 1, elapsed: 4)], "one small progress write per move")
        #expect(s.update(.pasteAttempt(characters: 5)).contains { if case .saveProgress = $0 { return true } else { return false } } == false)
    }
}
