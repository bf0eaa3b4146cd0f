import AssessmentKit
import Foundation
import Localization
import SessionKit
import SessionTestSupport
import Testing
@testable import TerminalUI

/// What is partly done is said as such; a status belongs to the question it was said on; a
/// status written again is written whole.
@Suite("Part-done answers and statuses")
struct PartDoneAndStatusTests {
    static let match = Item(id: "m", prompt: "Match.", points: 3,
                            kind: .match(pairs: [MatchPair(left: "Canada", right: "Ottawa"), MatchPair(left: "Italy", right: "Rome"),
                                                 MatchPair(left: "Japan", right: "Tokyo")], distractors: []))
    static let essay = Item(id: "e", prompt: "Write.", kind: .essay(minWords: 10, maxWords: nil))
    static let gaps = Item(id: "g", prompt: "It was {1} cold, {2} and {3}.",
                           kind: .gaps([Gap(kind: .text(answers: [TextAnswer(text: "so")], caseSensitive: false)),
                                        Gap(kind: .text(answers: [TextAnswer(text: "b")], caseSensitive: false)),
                                        Gap(kind: .text(answers: [TextAnswer(text: "c")], caseSensitive: false))]))
    static let multiple = Item(id: "p", prompt: "Primes?", kind: .multiple(choices: ["2", "3", "4"], answers: ["2", "3"], scoring: .partial))
    static let flag = Item(id: "f", prompt: "True?", kind: .trueFalse(answer: true))

    static func model(_ responses: [String: Response], screenReader: Bool = false, language: Language = .en) -> TakeModel {
        let a = Assessment(id: "t", title: "T", timeLimit: 600,
                           sections: [Section(title: "S", items: [match, essay, gaps, multiple, flag])])
        var m = TakeModel(assessment: a, candidate: nil, timeAllowed: 600, theme: .mono, screenReader: screenReader)
        m.say = Localizer(language)
        m.session = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none),
                                 status: .active, responses: responses)
        m.phase = TakeModel.Phase.test
        return m
    }

    @Test func aMatchAGapTextAndAShortEssayArePartDoneAndAWholeAnswerIsNot() {
        #expect(PartDone.phrase(Self.match, .match(["Canada": "Ottawa", "Japan": "Tokyo"]))?.english == "2 of 3 matched")
        #expect(PartDone.phrase(Self.match, .match(["Canada": "Ottawa", "Italy": "Rome", "Japan": "Tokyo"])) == nil)
        #expect(PartDone.phrase(Self.match, nil) == nil, "nothing answered is not part done")
        #expect(PartDone.phrase(Self.gaps, .gaps([["so"], [], [" "]]))?.english == "1 of 3 gaps filled", "a gap of spaces is empty")
        #expect(PartDone.phrase(Self.essay, .essay("one two three"))?.english == "3 words of at least 10")
        #expect(PartDone.phrase(Self.essay, .essay("one"))?.english == "1 word of at least 10")
        #expect(PartDone.phrase(Self.essay, .essay(Array(repeating: "word", count: 10).joined(separator: " "))) == nil)
        #expect(PartDone.phrase(Self.multiple, .multiple(["2"])) == nil,
                "how many choices are right is the question's to say, never the screen's")
    }

    @Test func theReviewTheQuestionAndTheSubmitBoxNameWhatIsPartDone() {
        var m = Self.model(["m": .match(["Canada": "Ottawa", "Japan": "Tokyo"]), "e": .essay("too short")])
        let question = Views.render(m, width: 80, height: 24).text
        #expect(question.contains("part answered: 2 of 3 matched"), "\(question)")
        m.session?.status = .review
        let review = Views.render(m, width: 80, height: 24).text
        #expect(review.contains("part answered: 2 of 3 matched") || review.contains("part answered (2 of 3 matched)"), "\(review)")
        #expect(!review.contains(" 1. ✓ answered"), "a match with an empty row is not shown as answered:\n\(review)")
        m.session?.prompt = .confirmSubmit
        // The box's lines, inside its borders, read as one text.
        let box = Views.render(m, width: 80, height: 24).lines.compactMap { line -> String? in
            let parts = line.split(separator: "│", omittingEmptySubsequences: false)
            return parts.count == 3 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
        }.joined(separator: " ")
        #expect(box.contains("questions 1 (2 of 3 matched) and 2 (2 words of at least 10)"), "\(box)")
        m.say = Localizer(.fr)
        let french = Views.render(m, width: 80, height: 24).lines.joined(separator: " ")
        #expect(french.contains("2 associations sur 3"), "\(french)")
    }

    @Test func aStatusGoesWithItsQuestionAndAWarningStays() throws {
        var m = Self.model([:])
        var state = try #require(m.session)
        var flagged = Reaction()
        flagged.notices = ["Question flagged"]
        m.apply(flagged, state: state, now: 0)
        #expect(m.notice == "Question flagged")
        state.position = 1
        m.apply(Reaction(), state: state, now: 1)
        #expect(m.notice == nil, "the next question does not say the last one's status")

        var warning = Reaction()
        warning.notices = ["1 minute left"]
        warning.bell = true
        m.apply(warning, state: state, now: 2)
        state.position = 2
        m.apply(Reaction(), state: state, now: 3)
        #expect(m.notice == "1 minute left", "a time warning stays until a key")
    }

    @Test func aStatusRewrittenWithNearlyTheSameWordsIsBlankedFirstSoItIsSaidWhole() throws {
        let world = try MemoryWorld()
        let yaml = """
            carrel: 1
            id: flow
            title: Flow
            time_limit: 10m
            sections:
              - items:
                  - {id: capital, type: choice, prompt: Capital of Canada?, choices: [Toronto, Ottawa], answer: Ottawa}

            """
        let (assessment, source) = try MemoryWorld.assessment(yaml)
        var model = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: true)
        model.say = Localizer(.fr)
        let terminal = MemoryTerminal()
        terminal.type([.enter, .character("o"), .enter, .control("t")])
        terminal.input.append(nil)
        terminal.type([.control("t"), .control("c"), .character("o"), .enter])
        terminal.beforeRead = { world.clock.advance(2) }
        let app = TakeApp(model: model, terminal: terminal, monotonic: world.clock.sessionClock.monotonic)
        let context = world.context
        let exit = app.run { app throws(SessionError) in
            try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none, context: context)
        }
        #expect(exit.code == 0, "\(exit.line)")
        let saidTimes = terminal.frames.compactMap { frame in frame.lines.first { $0.contains("Il reste") } }
        #expect(Set(saidTimes).count >= 2, "two Ctrl-T, two different times: \(saidTimes)")
        #expect(terminal.clearedLines.contains(22),
                "the second Ctrl-T blanks the status line before writing it: \(terminal.clearedLines)")
        // The frame after the blanking holds the whole sentence: a reader hears it all.
        if let blank = terminal.frames.firstIndex(where: { $0.lines.count > 22 && $0.lines[22].isEmpty && $0.text.contains("Question 1 sur 1") }),
           blank + 1 < terminal.frames.count {
            #expect(terminal.frames[blank + 1].lines[22].contains("Il reste"))
        }
        #expect(terminal.frames.contains { $0.text.contains("Question 1 sur 1") }, "the session spoke French")
    }
}

/// The yes letter of a language never submits by itself twice, and a tiny screen never writes
/// one line over another.
@Suite("Confirmations and tiny screens in every language")
struct ConfirmationAndTinyScreenTests {
    static func model(_ language: Language) -> TakeModel {
        var m = PartDoneAndStatusTests.model(["f": .trueFalse(true)], language: language)
        m.session?.status = .review
        return m
    }

    @Test func sTwiceInTheSpanishReviewOpensTheSubmitBoxAndDoesNotSubmit() {
        var m = Self.model(.es)
        #expect(m.handle(.character("s"), now: 0) == [.session(.submitRequested)])
        m.session?.prompt = .confirmSubmit
        #expect(m.handle(.character("s"), now: 0).isEmpty, "the key that opened the box does not confirm it")
        #expect(Views.render(m, width: 80, height: 24).text.contains("y: entregar"), "the box shows the key that confirms")
        #expect(m.handle(.character("y"), now: 0) == [.session(.submitConfirmed)])
        // Other confirmations keep the language's own letter; other languages keep theirs.
        var f = Self.model(.fr)
        f.session?.prompt = .confirmSubmit
        #expect(f.handle(.character("o"), now: 0) == [.session(.submitConfirmed)])
        var g = Self.model(.de)
        g.session?.prompt = .confirmSubmit
        #expect(g.handle(.character("o"), now: 0) != [.session(.submitConfirmed)], "o is not yes in German")
        var e = Self.model(.es)
        e.session?.prompt = .confirmEnd
        #expect(e.handle(.character("s"), now: 0) == [.session(.endConfirmed)], "s is yes in Spanish where nothing opened with it")
    }

    @Test func aTinyScreenKeepsTheQuestionAskedAndNeverWritesALineOverAnother() {
        var checked = 0
        for language in Language.offered + [.pseudo] {
            for (width, height) in [(24, 6), (30, 8), (40, 12), (60, 20), (79, 24)] {
                for prompt in [nil, SessionPrompt.confirmSubmit, .confirmEnd, .proctor] {
                    var m = PartDoneAndStatusTests.model([:], language: language)
                    m.session?.prompt = prompt
                    let screen = Views.render(m, width: width, height: height)
                    checked += 1
                    #expect(!screen.overflowed, "\(language.rawValue) \(width)×\(height)")
                    let rows = screen.lines.filter { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
                    #expect(Set(rows).count == rows.count || rows.count <= 1, "\(language.rawValue) \(width)×\(height): a row repeated: \(rows)")
                    // Every row is a line the screen meant to write, whole: nothing is drawn
                    // over another line's end.
                    let meant = Self.meantLines(m, width: width)
                    for row in rows where !meant.contains(row) && !row.hasSuffix("…") && !row.contains("•") {
                        Issue.record("\(language.rawValue) \(width)×\(height) \(String(describing: prompt)): \(row.debugDescription) is not one of \(meant)")
                    }
                    if prompt != nil {
                        #expect(screen.cursor.row < height && !screen.lines[screen.cursor.row].isEmpty, "the cursor is on the question asked")
                    }
                }
            }
        }
        #expect(checked == (Language.offered.count + 1) * 5 * 4)
    }

    static func meantLines(_ m: TakeModel, width: Int) -> Set<String> {
        let say = m.say
        let columns = max(1, width - 2)
        var lines = Set<String>()
        for h in 0...60 {
            let sentence = say("Please enlarge the terminal to at least {0}×{1} (now {2}×{3}). Your time keeps counting; keys do nothing until the test fits.",
                               .s("80"), .s("24"), .s(String(width)), .s(String(h)))
            for line in TextWidth.wrap(sentence, width: columns) { lines.insert(line.trimmingCharacters(in: .whitespaces)) }
        }
        if let session = m.session { lines.insert(TextWidth.clip(m.timeText(session), to: columns)) }
        lines.insert(TextWidth.clip(Views.passphraseLabel(say), to: max(1, columns - 4)).trimmingCharacters(in: .whitespaces))
        let no = KeyMap("", "", TakeKeys.confirmSubmit.bindings.filter { $0.action == .no }).footerLine(say)
        for text in [say("End this practice test now?") + " " + TakeKeys.confirmEnd.footerLine(say),
                     say("Submit? Enlarge the terminal to see what is unanswered") + " · " + no] {
            for line in TextWidth.wrap(text, width: columns) { lines.insert(line.trimmingCharacters(in: .whitespaces)) }
        }
        return lines
    }
}
