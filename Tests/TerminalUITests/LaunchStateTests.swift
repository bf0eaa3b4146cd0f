import AssessmentKit
import Foundation
import SessionKit
import Testing
@testable import TerminalUI

/// The way from the start screen to a session, as tables: messages in, effects out.
@Suite("The launch")
struct LaunchStateTests {
    typealias Exit = TakeApp.Exit

    static func ready() -> LaunchState {
        var s = LaunchState()
        _ = s.update(.drawn)
        _ = s.update(.prepared(nil))
        return s
    }

    static let start = ProctorCommand(id: 7, action: .start)

    @Test func theChecksRunOnceAfterTheFirstFrameAndARefusalEndsTheLaunchWithItsCode() {
        var s = LaunchState()
        #expect(s.update(.drawn) == [.prepare])
        #expect(s.update(.drawn) == [.prepare], "until the checks answer, each frame asks nothing new but the same check")
        let refused = Exit(ExitStatus.lockActive.rawValue, "another session holds the lock")
        #expect(s.update(.prepared(refused)) == [.exit(refused)])
        #expect(s.exit == refused)
        #expect(s.update(.confirmed) == [], "nothing after an exit")
        var passed = LaunchState()
        _ = passed.update(.drawn)
        #expect(passed.update(.prepared(nil)) == [])
        #expect(passed.stage == .ready)
        #expect(passed.update(.drawn) == [], "the checks run once")
    }

    @Test func aTerminalThatCannotStartIsRefusedWithSixtyNine() {
        var s = LaunchState()
        guard case let .exit(exit)? = s.update(.terminalFailed(term: "dumb")).last else {
            Issue.record("an exit")
            return
        }
        #expect(exit.code == ExitStatus.refused.rawValue)
        #expect(exit.line.contains("TERM=dumb"))
    }

    @Test func nothingBeginsBeforeTheChecksHavePassed() {
        var s = LaunchState()
        #expect(s.update(.confirmed) == [])
        #expect(s.update(.passphraseTyped("x", now: 0)) == [])
        #expect(s.update(.startRead(Self.start)) == [])
    }

    @Test func theConfirmationBeginsAndANewSessionIsShownUnderItsBannerWithTheWrongPassphrasesLogged() {
        var s = Self.ready()
        _ = s.update(.checked(.rejected(triesLeft: 2, wait: 1), typed: "no", now: 0))
        #expect(s.update(.confirmed) == [.begin])
        #expect(s.update(.began(.running)) == [.logPassphraseFailures(1), .showLockedBanner])
        #expect(s.stage == .running)
        #expect(s.update(.confirmed) == [], "a session begins once")
    }

    @Test func aResumedSessionBeginsAtOnceAndIsShownAsItStands() {
        var s = LaunchState()
        #expect(s.update(.resumed) == [.begin])
        #expect(s.update(.began(.running)) == [.showSession])
        var failed = LaunchState()
        _ = failed.update(.resumed)
        let exit = Exit(ExitStatus.lockActive.rawValue, "still running")
        #expect(failed.update(.began(.failed(exit))) == [.exit(exit)])
    }

    @Test func aBeginThatIsNotReadyChangesNothingAndOneThatFailsExitsWithItsCode() {
        var s = Self.ready()
        _ = s.update(.confirmed)
        #expect(s.update(.began(.notYet)) == [])
        #expect(s.stage == .ready)
        let exit = Exit(ExitStatus.refused.rawValue, "a tracer is attached")
        _ = s.update(.confirmed)
        #expect(s.update(.began(.failed(exit))) == [.exit(exit)])
    }

    /// The proctor's passphrase on the start screen: three tries, a wait after each wrong one,
    /// the third ends the launch with 77; a store of attempts that cannot be written, with 73.
    @Test func thePassphraseHasThreeTriesWithWaitsThenExitsWithSeventySeven() {
        var s = Self.ready()
        #expect(s.update(.passphraseTyped("one", now: 0)) == [.checkPassphrase("one")])
        #expect(s.update(.checked(.rejected(triesLeft: 2, wait: 1), typed: "one", now: 0))
                == [.tellWrongPassphrase(attempt: 1, triesLeft: 2, wait: 1)])
        #expect(s.update(.passphraseTyped("two", now: 0.5)) == [], "typed during the wait: not checked")
        #expect(s.update(.checked(.mustWait(0.5), typed: "two", now: 0.5)) == [.tellWait(0.5)])
        _ = s.update(.checked(.rejected(triesLeft: 1, wait: 2), typed: "two", now: 1))
        let last = s.update(.checked(.rejected(triesLeft: 0, wait: 4), typed: "three", now: 4))
        guard case let .exit(exit)? = last.last else {
            Issue.record("the third wrong passphrase ends it: \(last)")
            return
        }
        #expect(exit.code == ExitStatus.wrongPassphrase.rawValue)
        #expect(exit.line.contains("3 times"))
        var broken = Self.ready()
        guard case let .exit(unavailable)? = broken.update(.checked(.unavailable("read-only"), typed: "x", now: 0)).last else {
            Issue.record("an exit")
            return
        }
        #expect(unavailable.code == ExitStatus.cannotCreate.rawValue)
    }

    @Test func theRightPassphraseOpensTheSealedPackageThenMovesOnAndAPackageThatWillNotOpenExits() {
        var s = Self.ready()
        #expect(s.update(.checked(.accepted, typed: "yes", now: 0)) == [.openWithPassphrase("yes")])
        #expect(s.stage == .opening(.passphrase))
        #expect(s.update(.opened(nil)) == [.acceptPassphrase])
        #expect(s.stage == .ready)
        var damaged = Self.ready()
        _ = damaged.update(.checked(.accepted, typed: "yes", now: 0))
        let exit = Exit(ExitStatus.invalidAssessment.rawValue, "the package is damaged")
        #expect(damaged.update(.opened(exit)) == [.exit(exit)])
    }

    @Test func theProctorsStartOpensThePackageItCarriesThenBeginsOnce() {
        var s = Self.ready()
        #expect(s.update(.startRead(nil)) == [], "no start yet")
        #expect(s.update(.startRead(Self.start)) == [.openWithStart(Self.start)])
        #expect(s.startedBy == Self.start)
        #expect(s.update(.startRead(ProctorCommand(id: 8, action: .start))) == [], "a second start is not a second session")
        #expect(s.update(.opened(nil)) == [.begin])
        #expect(s.update(.began(.running)).last == .showLockedBanner)
    }
}
