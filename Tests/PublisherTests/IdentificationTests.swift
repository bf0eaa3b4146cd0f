import AssessmentKit
import SessionKit
import Testing
@testable import SharedStore

/// A candidate identifying at a seat of a room with a roster, as a table.
@Suite("Identification at a seat")
struct IdentificationTests {
    static func match(_ number: String = "1005", seatedAt: String? = nil) -> RosterMatch {
        RosterMatch(candidate: number, name: "Marie Curie", seat: nil, extraTime: .none, screenReader: nil, theme: nil,
                    language: nil, seatedAt: seatedAt)
    }

    @Test func aNumberOnTheRosterConfirmedByTheCandidateIdentifiesThem() {
        var s = Identification()
        #expect(s.update(.start) == [.askNumber])
        #expect(s.update(.typed(" 1005 ")) == [.lookUp("1005", code: nil)], "blanks around the number are not part of it")
        #expect(s.update(.lookedUp(number: "1005", Self.match())) == [.askConfirmation(Self.match())])
        #expect(s.update(.answered(true)) == [.identified(Self.match())])
        #expect(s.update(.answered(true)) == [], "identified once")
    }

    @Test func aNumberThatIsNotRightOrNotOnTheRosterIsAskedAgain() {
        var s = Identification()
        _ = s.update(.start)
        #expect(s.update(.typed("")) == [.tell(.typeTheCardNumber), .askNumber])
        #expect(s.update(.typed("12\u{1B}[2J")) == [.tell(.typeTheCardNumber), .askNumber], "an escape sequence is no number")
        #expect(s.update(.typed(String(repeating: "9", count: 65))) == [.tell(.typeTheCardNumber), .askNumber])
        _ = s.update(.typed("7"))
        #expect(s.update(.lookedUp(number: "7", nil)) == [.tell(.notOnRoster(number: "7")), .askNumber])
    }

    @Test func aCandidateSeatedElsewhereWhoDoesNotAskToMoveIsReportedToTheConsoleAndNotTakenHere() {
        var s = Identification()
        _ = s.update(.start)
        _ = s.update(.typed("1005"))
        let twice = Self.match(seatedAt: "A5")
        #expect(s.update(.lookedUp(number: "1005", twice)) == [.askMove(twice, from: "A5")])
        #expect(s.update(.answered(false))
                == [.reportSeatedTwice(twice), .tell(.seatedElsewhere(candidate: "1005", seat: "A5")), .askNumber])
        #expect(!s.done)
    }

    @Test func aCandidateSeatedElsewhereMayAskTheProctorToMoveTheirSessionHere() {
        var s = Identification()
        _ = s.update(.start)
        _ = s.update(.typed("1005"))
        let twice = Self.match(seatedAt: "A5")
        _ = s.update(.lookedUp(number: "1005", twice))
        #expect(s.update(.answered(true)) == [.identifiedToMove(twice, from: "A5")])
        #expect(s.done)
        #expect(s.update(.answered(true)) == [], "nothing after the candidate is identified")
    }

    @Test func aNameTheCandidateDoesNotConfirmIsAskedAgain() {
        var s = Identification()
        _ = s.update(.start)
        _ = s.update(.typed("1005"))
        _ = s.update(.lookedUp(number: "1005", Self.match()))
        #expect(s.update(.answered(false)) == [.askNumber])
    }

    @Test func fiveTriesThenNothingStartsAndTheProctorIsAsked() {
        var s = Identification()
        var effects = s.update(.start)
        for _ in 0..<Identification.tries { effects = s.update(.typed("")) }
        guard case let .fail(status, message)? = effects.last else {
            Issue.record("the fifth wrong try ends it: \(effects)")
            return
        }
        #expect(status == .refused)
        #expect(message.contains("ask the proctor"))
        #expect(s.asked == Identification.tries)
    }

    @Test func noInputOrAnUnreadableRosterStopsWithItsCode() {
        var ended = Identification()
        _ = ended.update(.start)
        #expect(ended.update(.typed(nil)) == [.fail(.refused, "no candidate number was given; nothing was started")])
        var unreadable = Identification()
        _ = unreadable.update(.start)
        _ = unreadable.update(.typed("1005"))
        guard case let .fail(status, message)? = unreadable.update(.lookupFailed("no answer in time")).last else {
            Issue.record("a roster that cannot be read stops")
            return
        }
        #expect(status == .cannotOpenInput)
        #expect(message.contains("no answer in time"))
    }

    @Test func withCodesTheCodeIsAskedAfterTheNumberAndAWrongPairSaysNotWhichWasWrong() {
        var s = Identification(codes: true)
        _ = s.update(.start)
        #expect(s.update(.typed(" 1005 ")) == [.askCode])
        #expect(s.update(.typedCode("7F3K-92QD")) == [.lookUp("1005", code: "7F3K-92QD")])
        #expect(s.update(.lookedUp(number: "1005", nil)) == [.tell(.numberOrCodeWrong), .askNumber],
                "the seat cannot tell a number not on the roster from a wrong code")
        _ = s.update(.typed("1005"))
        _ = s.update(.typedCode("7F3K-92QD"))
        #expect(s.update(.lookedUp(number: "1005", Self.match())) == [.askConfirmation(Self.match())])
        #expect(s.update(.answered(true)) == [.identified(Self.match())])
    }

    @Test func aCandidateHeldAfterWrongCodesStopsTheSeatForTheProctor() {
        var s = Identification(codes: true)
        _ = s.update(.start)
        _ = s.update(.typed("1005"))
        _ = s.update(.typedCode("nope"))
        let effects = s.update(.held(candidate: "1005"))
        #expect(effects.first == .tell(.held(candidate: "1005")))
        guard case let .fail(status, message)? = effects.last else {
            Issue.record("a held candidate stops the seat: \(effects)")
            return
        }
        #expect(status == .refused)
        #expect(message.contains("ask the proctor"))
        var ended = Identification(codes: true)
        _ = ended.update(.start)
        _ = ended.update(.typed("1005"))
        #expect(ended.update(.typedCode(nil)) == [.fail(.refused, "no candidate code was given; nothing was started")])
    }
}
