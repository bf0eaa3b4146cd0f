import AssessmentKit
import Foundation
import Testing
@testable import SessionKit
@testable import TerminalUI

@Suite("Views and the UI model")
struct BehaviourTests {
    func model(_ kind: Item.Kind, screenReader: Bool = true) -> TakeModel {
        let item = Item(id: "q", prompt: "Pick one.", kind: kind)
        let a = Assessment(id: "t", title: "T", timeLimit: 600, sections: [Section(items: [item, Item(id: "r", prompt: "R", kind: .trueFalse(answer: true))])])
        var m = TakeModel(assessment: a, candidate: nil, timeAllowed: 600, theme: .mono, screenReader: screenReader)
        m.session = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none), status: .active)
        m.phase = .test
        return m
    }

    @Test func screenReaderCursorSitsOnTheFocusedChoice() {
        var m = model(.choice(choices: ["Toronto", "Ottawa", "Montreal"], answer: "Ottawa"))
        _ = m.handle(.down, now: 0)
        _ = m.handle(.down, now: 0)
        let screen = Views.render(m, width: 80, height: 24)
        let row = screen.lines[screen.cursor.row]
        #expect(row.hasPrefix("  › ( ) c) "), "cursor row: \(row)")
        #expect(screen.cursor.column == 4)
    }

    @Test func screenReaderCursorSitsAtTheCaretOfATextAnswer() {
        var m = model(.text(accept: ["x"], caseSensitive: false))
        for c in "naïve" { _ = m.handle(.character(c), now: 0) }
        _ = m.handle(.left, now: 0)
        let screen = Views.render(m, width: 80, height: 24)
        #expect(screen.lines[screen.cursor.row].hasPrefix("    Answer: naïve"))
        #expect(screen.cursor.column == 4 + 8 + 4, "after n-a-ï-v, before e")
    }

    @Test func screenReaderModeHasNoRunningClock() {
        var m = model(.trueFalse(answer: true))
        let a = Views.render(m, width: 80, height: 24)
        m.session?.elapsed = 100
        let b = Views.render(m, width: 80, height: 24)
        #expect(a == b, "nothing to redraw as time passes")
        #expect(a.lines[0].hasPrefix(" Question 1 of 2"), "a whole repaint is read from where the student is")
        #expect(a.lines[1].contains("Ctrl-T: time left"))
        #expect(m.handle(.control("t"), now: 0).isEmpty)
        #expect(m.notice == "8 minutes 20 seconds left", "in words, never like a time of day")
    }

    @Test func theClockChangesAtMostOncePerSecond() {
        var m = model(.trueFalse(answer: true), screenReader: false)
        m.session?.elapsed = 10.1
        let a = Views.render(m, width: 80, height: 24)
        m.session?.elapsed = 10.9
        #expect(Views.render(m, width: 80, height: 24) == a)
        m.session?.elapsed = 11.1
        #expect(Views.render(m, width: 80, height: 24) != a)
    }

    @Test func typingSendsTheTextToTheSessionAsADraftAndCursorKeysSendNothing() {
        var m = model(.text(accept: ["x"], caseSensitive: false))
        #expect(m.handle(.character("a"), now: 1) == [.session(.edit("q", .text("a")))])
        #expect(m.handle(.character("b"), now: 1) == [.session(.edit("q", .text("ab")))])
        for key in [Key.home, .end, .left, .right] {
            #expect(m.handle(key, now: 1).isEmpty, "\(key) changes no text, so nothing is sent")
        }
        #expect(m.handle(.backspace, now: 1) == [.session(.edit("q", .text("a")))])
        #expect(m.handle(.backspace, now: 1) == [.session(.edit("q", nil))])
    }

    @Test func theSaveMarkFollowsTheAnswerNotTheLastWrite() {
        var m = model(.text(accept: ["x"], caseSensitive: false), screenReader: false)
        #expect(!Views.render(m, width: 80, height: 24).lines[1].contains("saved"), "no mark before anything is typed")
        var s = m.session!
        _ = s.update(.edit("q", .text("abc")), now: 1)
        m.session = s
        #expect(Views.render(m, width: 80, height: 24).lines[1].contains("… saving"))
        _ = s.update(.tick(elapsed: 3), now: 3)
        m.session = s
        #expect(Views.render(m, width: 80, height: 24).lines[1].contains("✓ saved"))
    }

    @Test func exitKeysOpenTheProctorPromptWhoseFieldIsMasked() {
        var m = model(.trueFalse(answer: true))
        #expect(m.handle(.control("c"), now: 0) == [.session(.exitAttempt("Ctrl-C"))])
        #expect(m.handle(.control("z"), now: 0) == [.session(.exitAttempt("Ctrl-Z"))])
        m.session?.prompt = .proctor
        for c in "secret" { _ = m.handle(.character(c), now: 0) }
        let screen = Views.render(m, width: 80, height: 24)
        #expect(!screen.text.contains("secret"))
        #expect(screen.text.contains("Proctor passphrase: ••••••"))
        #expect(m.handle(.enter, now: 0) == [.proctorPassphrase("secret")])
        #expect(m.secret.text.isEmpty)
    }

    @Test func choiceLettersAndMultipleToggles() {
        var m = model(.multiple(choices: ["a", "b", "c"], answers: ["a"], scoring: .partial))
        #expect(m.handle(.character("b"), now: 0) == [.session(.answer("q", .multiple(["b"])))])
    }

    @Test func linearTestsHideTheBackKey() {
        let item = Item(id: "q", prompt: "P", kind: .trueFalse(answer: true))
        let a = Assessment(id: "t", title: "T", navigation: .linear, sections: [Section(items: [item])])
        var m = TakeModel(assessment: a, candidate: nil, timeAllowed: nil, theme: .mono, screenReader: false)
        m.session = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none), status: .active)
        m.phase = .test
        #expect(!Views.render(m, width: 80, height: 24).text.contains("S-Tab"))
    }

    @Test func escapeSequencesInTextNeverReachTheScreen() {
        var s = Screen(width: 40, height: 2)
        s.put("red \u{1B}[31mtext\u{07}\u{9B}", row: 0, column: 0)
        #expect(s.lines[0] == "red \u{FFFD}[31mtext\u{FFFD}\u{FFFD}")
        #expect(!s.cells.joined().contains { $0.text.unicodeScalars.contains { $0.value < 0x20 || (0x80...0x9F).contains($0.value) } })
    }

    @Test(arguments: [("abc", 3), ("naïve", 5), ("e\u{301}", 1), ("日本語", 6), ("👍", 2), ("", 0)])
    func displayWidth(text: String, width: Int) {
        #expect(TextWidth.of(text) == width)
    }

    /// ASCII skips the Unicode lookups: one column each, and printable text passes the
    /// sanitiser unchanged while a tab or control in the same text is still replaced.
    @Test func asciiIsOneColumnAndPrintableASCIIIsAlreadySafe() {
        for byte in UInt8(0)...UInt8(0x7F) {
            #expect(TextWidth.of(Character(Unicode.Scalar(byte))) == 1, "byte \(byte)")
        }
        let printable = String((0x20..<0x7F).map { Character(Unicode.Scalar(UInt8($0))) })
        #expect(TextWidth.sanitise(printable) == printable)
        #expect(TextWidth.sanitise("a\tb\u{1B}c\u{7F}") == "a    b\u{FFFD}c\u{FFFD}")
        #expect(TextWidth.of("e\u{301}\r\n") == 2)
    }

    @Test func wrappingRespectsWideCharactersAndBreaksLongWords() {
        #expect(TextWidth.wrap("日本語の文章です", width: 6) == ["日本語", "の文章", "です"])
        #expect(TextWidth.wrap("简体中文的句子。", width: 6) == ["简体中", "文的句", "子。"], "Chinese breaks between characters, not before 。")
        #expect(TextWidth.wrap("확장 기능 제공 안 함", width: 10) == ["확장 기능", "제공 안 함"], "Korean breaks between words")
        #expect(TextWidth.wrap("a schnauzerschnauzer b", width: 8) == ["a", "schnauze", "rschnauz", "er b"])
        #expect(TextWidth.wrap("one\n\ntwo", width: 10) == ["one", "", "two"])
    }

    @Test func theEditorRemovesWholeCharacters() {
        var e = TextEditor(text: "cafe\u{301}日")
        _ = e.apply(.backspace)
        #expect(e.text == "cafe\u{301}")
        _ = e.apply(.backspace)
        #expect(e.text == "caf")
        _ = e.apply(.home)
        _ = e.apply(.delete)
        #expect(e.text == "af")
        #expect(e.apply(.enter) == false, "single-line editors leave Enter to the screen")
    }

    @Test func noColourChoosesMono() {
        #expect(Theme.named(nil, environment: ["NO_COLOR": "1"]) == .mono)
        #expect(Theme.named(nil, environment: [:]) == .standard)
        #expect(Theme.named("contrast", environment: ["NO_COLOR": "1"]) == .contrast)
        #expect(Theme.named("neon", environment: [:]) == nil)
    }
}

@Suite("Demo log")
struct DemoLogTests {
    @Test func eventsReadAsATrainerWouldSayThem() {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let lines = DemoModel.describe([
            JournalEvent(at: at, kind: "pasteboard_cleared", detail: "on entry — tmux: cleared 2 buffers"),
            JournalEvent(at: at, kind: "pasteboard_cleared", detail: "on entry — X11: not present"),
            JournalEvent(at: at, kind: "began", detail: ""),
            JournalEvent(at: at, kind: "paste_blocked", detail: "42 characters"),
            JournalEvent(at: at, kind: "exit_attempt", detail: "Ctrl-C"),
            JournalEvent(at: at, kind: "exit_attempt", detail: DemoModel.endRequest),
            JournalEvent(at: at, kind: "ended", detail: "ended_by_proctor"),
        ])
        #expect(lines == [
            "Pasteboards cleared on entry: tmux (cleared 2 buffers), X11 (not present)",
            "08:00:00 Begin session — succeeded", "08:00:00 Paste blocked: 42 characters",
            "08:00:00 Leaving blocked: Ctrl-C", "08:00:00 End session requested", "08:00:00 Session ended",
        ])
    }

    @Test func theDemoScreenFitsAt80x24AndNamesUnavailableActionsInWords() {
        var m = DemoModel(policy: RestrictionPolicy(), workshopAvailable: false, theme: .mono)
        m.log = (1...30).map { "line \($0)" }
        let s = DemoView.render(m, width: 80, height: 24)
        #expect(s.lines[3] == "  Actions: F7 Begin  F8 End (n/a)  F5 Workshop test (n/a)  F9 Quit")
        #expect(s.lines[4].contains("Workshop test: no workshop file"), "why F5 does nothing, in words")
        #expect(s.lines[21] == "    line 30", "the newest log line is shown")
        #expect(s.text.contains("23 earlier lines: PgUp"))
        #expect(s.cursor.row == 6)
        m.logScroll = 100
        let top = DemoView.render(m, width: 80, height: 24)
        #expect(top.lines[15] == "    line 1", "PgUp reaches the first line of the log")
        for binding in DemoModel.mainKeyMap.bindings where [.begin, .end, .workshop, .quit].contains(binding.action) {
            #expect(binding.keys.allSatisfy { TakeKeys.question().action(for: $0) == nil }, "no demo action is on a test key")
        }
        m.confirmQuit = true
        #expect(DemoView.render(m, width: 80, height: 24).text.contains("Quitting ends it"))
    }
}

@Suite("Long content, words for state, the key table")
struct LayoutAndWordsTests {
    func model(_ items: [Item], screenReader: Bool = false, navigation: Navigation = .free) -> TakeModel {
        let a = Assessment(id: "t", title: "T", timeLimit: 600, navigation: navigation, sections: [Section(title: "Reading", items: items)])
        var m = TakeModel(assessment: a, candidate: nil, timeAllowed: 600, theme: .mono, screenReader: screenReader)
        m.session = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none), status: .active)
        m.phase = .test
        return m
    }

    static let passage = (1...42).map { "Line \($0) of the reading passage." }.joined(separator: "\n")

    @Test func aLongPromptOpensAtItsFirstLineAndPagesToItsEnd() {
        var m = model([Item(id: "q", prompt: Self.passage, kind: .choice(choices: ["Yes", "No"], answer: "Yes"))])
        var screen = Views.render(m, width: 80, height: 24)
        #expect(screen.lines[3].contains("Line 1 of"), "the question opens at its first line")
        #expect(screen.text.contains("below: PgDn"))
        #expect(screen.cursor.row == 3, "reading: the cursor is where the reading is")
        for _ in 0..<5 { _ = m.handle(.pageDown, now: 0) }
        screen = Views.render(m, width: 80, height: 24)
        #expect(screen.text.contains("Line 42 of"))
        #expect(screen.text.contains("b) No"))
        #expect(screen.text.contains("above: PgUp"))
        for _ in 0..<5 { _ = m.handle(.pageUp, now: 0) }
        #expect(Views.render(m, width: 80, height: 24).lines[3].contains("Line 1 of"), "PgUp reaches the first line")
        // An answer key brings the focused choice back into view, with the cursor on it.
        _ = m.handle(.down, now: 0)
        screen = Views.render(m, width: 80, height: 24)
        #expect(screen.lines[screen.cursor.row].contains("b) No"))
    }

    @Test(arguments: [80, 120])
    func longChoicesWrapWithAHangingIndentAndNothingIsCut(width: Int) {
        let long = String(repeating: "a considerably long choice label that must wrap ", count: 3) + "END"
        let m = model([Item(id: "q", prompt: "Pick.", kind: .choice(choices: [long, "Short"], answer: "Short"))])
        let screen = Views.render(m, width: width, height: 24)
        #expect(screen.text.contains("END"), "the end of a long label is shown")
        #expect(!screen.text.contains("…"))
        let continuation = screen.lines.first { $0.hasPrefix("          ") && $0.contains("long choice") }
        #expect(continuation != nil, "continuation lines hang under the label, not under the marker")
        #expect(screen.lines.allSatisfy { TextWidth.of($0) <= width })
    }

    @Test func anEssayWrapsAndUpDownMoveByShownLine() {
        var m = model([Item(id: "q", prompt: "Write.", kind: .essay(minWords: nil, maxWords: nil))])
        let text = String(repeating: "word ", count: 40) + "last"
        for c in text { _ = m.handle(.character(c), now: 0) }
        var screen = Views.render(m, width: 80, height: 24)
        let boxLines = screen.lines.filter { $0.hasPrefix("    │ ") }
        #expect(boxLines.count == 3, "a 204-character paragraph wraps to three lines at 80 columns: \(boxLines)")
        #expect(screen.lines[screen.cursor.row].hasSuffix("last"))
        _ = m.handle(.up, now: 0)
        screen = Views.render(m, width: 80, height: 24)
        #expect(screen.cursor.row == 3 + 2 + 1, "↑ moves to the line above as shown")
        _ = m.handle(.home, now: 0)
        #expect(Views.render(m, width: 80, height: 24).cursor.column == 6)
        _ = m.handle(.enter, now: 0)
        #expect(m.editors["q"]?.text.contains("\n") == true, "Enter starts a new line in an essay")
    }

    @Test func stateIsSaidInWordsOnTheFocusedLine() {
        var m = model([
            Item(id: "c", prompt: "Capital?", kind: .choice(choices: ["Toronto", "Ottawa"], answer: "Ottawa")),
            Item(id: "m", prompt: "Cities?", kind: .multiple(choices: ["Paris", "Rome"], answers: ["Paris"], scoring: .partial)),
            Item(id: "p", prompt: "Match.", kind: .match(pairs: [MatchPair(left: "Italy", right: "Rome"), MatchPair(left: "France", right: "Paris")], distractors: [])),
        ], screenReader: true)
        var s = m.session!
        for command in m.handle(.character("b"), now: 0) { if case let .session(e) = command { _ = s.update(e, now: 0) } }
        m.session = s
        var screen = Views.render(m, width: 80, height: 24)
        #expect(screen.lines[screen.cursor.row].contains("selected: Ottawa"), "cursor line: \(screen.lines[screen.cursor.row])")
        #expect(m.notice == "Ottawa selected")
        _ = s.update(.next, now: 0)
        m.session = s
        for command in m.handle(.character("a"), now: 0) { if case let .session(e) = command { _ = s.update(e, now: 0) } }
        m.session = s
        screen = Views.render(m, width: 80, height: 24)
        #expect(screen.lines[screen.cursor.row].contains("checked: "))
        #expect(screen.text.contains("not checked: "))
        _ = s.update(.next, now: 0)
        m.session = s
        for command in m.handle(.right, now: 0) { if case let .session(e) = command { _ = s.update(e, now: 0) } }
        m.session = s
        screen = Views.render(m, width: 80, height: 24)
        let row = screen.lines[screen.cursor.row]
        #expect(row.contains("→"), "the cursor sits on the match the key changed")
        #expect(m.notice?.contains(" → ") == true)
        let column = row.index(row.startIndex, offsetBy: screen.cursor.column)
        #expect(row[column...].hasPrefix("a) ") || row[column...].hasPrefix("b) "))
        #expect(screen.lines[0].hasPrefix(" Question 3 of 3, section Reading"))
    }

    @Test func theReviewSaysFlagsAndAnswersInWords() {
        var m = model([Item(id: "a", prompt: "A", kind: .trueFalse(answer: true)), Item(id: "b", prompt: "B", kind: .trueFalse(answer: true))],
                      screenReader: true)
        _ = m.session?.update(.toggleFlag("b"), now: 0)
        _ = m.session?.update(.openReview, now: 0)
        m.phase = .test
        m.session?.status = .review
        let text = Views.render(m, width: 80, height: 24).text
        #expect(text.contains("not answered, flagged: B"))
        #expect(text.contains("not answered: A"))
        #expect(!text.contains("⚑"), "no symbol a screen reader cannot say")
    }

    @Test func theSubmitBoxNamesQuestionsAndSummarisesLongListsWithItsKeysOnScreen() {
        var m = model((1...300).map { Item(id: "q\($0)", prompt: "Q\($0)", kind: .trueFalse(answer: true)) })
        _ = m.session?.update(.submitRequested, now: 0)
        let text = Views.render(m, width: 80, height: 24).text
        #expect(text.contains("300 questions not answered; first: 1, 2, 3"))
        #expect(text.contains("y: submit"))
        #expect(Views.numbers([2, 4, 5], what: "Not answered", room: 100) == "Not answered: questions 2, 4 and 5")
        #expect(Views.numbers([3], what: "Flagged", room: 100) == "Flagged: question 3")
    }

    @Test func aLinearTestAsksBeforeLeavingAnUnansweredQuestion() {
        var m = model([Item(id: "a", prompt: "A", kind: .trueFalse(answer: true)), Item(id: "b", prompt: "B", kind: .trueFalse(answer: true))],
                      navigation: .linear)
        #expect(m.handle(.tab, now: 0).isEmpty, "nothing moves before the student confirms")
        #expect(Views.render(m, width: 80, height: 24).text.contains("cannot come back"))
        #expect(m.handle(.character("n"), now: 0).isEmpty)
        #expect(!m.confirmSkip)
        _ = m.handle(.tab, now: 0)
        #expect(m.handle(.character("y"), now: 0) == [.session(.next)])
    }

    @Test func timeWarningsStayUntilAKeyAndCtrlTRepeatsThem() {
        var m = model([Item(id: "a", prompt: "A", kind: .trueFalse(answer: true))])
        var r = Reaction()
        r.notices = ["1 minute left"]
        r.bell = true
        m.apply(r, state: m.session!, now: 0)
        #expect(m.bell)
        let expired = m.expireNotice(now: 1_000)
        #expect(!expired, "a warning does not time out")
        _ = m.handle(.down, now: 1_000)
        #expect(m.notice != "1 minute left", "a key dismisses it")
        _ = m.handle(.control("t"), now: 1_000)
        #expect(m.notice?.hasPrefix("Time warning: 1 minute left.") == true)
        _ = m.handle(.control("t"), now: 1_001)
        #expect(m.repeatNotice, "the same words again are written again, so they are said again")
    }

    @Test func aRepeatedCtrlTIsSaidAgainInScreenReaderMode() {
        var m = model([Item(id: "a", prompt: "A", kind: .trueFalse(answer: true))], screenReader: true)
        _ = m.handle(.control("t"), now: 0)
        #expect(m.notice == "10 minutes left")
        m.repeatNotice = false
        _ = m.handle(.control("t"), now: 1)
        #expect(m.notice == "10 minutes left")
        #expect(m.repeatNotice, "the same status after a key is written again")
    }

    @Test func theClockCanBeHidden() {
        var m = model([Item(id: "a", prompt: "A", kind: .trueFalse(answer: true))])
        _ = m.handle(.control("k"), now: 0)
        let a = Views.render(m, width: 80, height: 24)
        #expect(a.lines[0].contains("clock hidden"))
        m.session?.elapsed = 30
        #expect(Views.render(m, width: 80, height: 24).lines[0] == a.lines[0], "a hidden clock does not tick")
    }

    @Test func helpFitsAndScrollsAndSaysEveryKeyOfTheTable() {
        var m = model([Item(id: "a", prompt: "A", kind: .trueFalse(answer: true))])
        m.showHelp = true
        var seen = ""
        for _ in 0..<10 {
            let screen = Views.render(m, width: 80, height: 24)
            #expect(screen.lines.allSatisfy { TextWidth.of($0) <= 80 })
            seen += screen.text
            _ = m.handle(.pageDown, now: 0)
        }
        for row in TakeKeys.question().listing.rows {
            #expect(seen.contains(TextWidth.wrap(row.keys, width: 26)[0]), "help shows \(row.keys)")
        }
        #expect(TakeKeys.question().action(for: .tab) == .next)
        #expect(TakeKeys.question().action(for: .pageDown) == .scrollDown)
    }

    @Test func theReadmeListsTheKeysOfTheTable() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("<!-- keys:begin -->\n" + KeyTable.markdown + "\n<!-- keys:end -->"),
                "README's key list is written by scripts/generate-docs from the key table")
    }

    @Test func practiceStartScreenSaysWhatCtrlCDoes() {
        var m = model([Item(id: "a", prompt: "A", kind: .trueFalse(answer: true))])
        m.phase = .start
        let text = Views.render(m, width: 80, height: 24).text
        #expect(text.contains("end this practice test"))
        #expect(!text.contains("ask your proctor"))
    }
}

@Suite("The enlarge screen")
struct TooSmallTests {
    @Test func aQuestionAskedWhileTooSmallIsShownThereWithItsKeys() {
        let item = Item(id: "a", prompt: "A", kind: .trueFalse(answer: true))
        let a = Assessment(id: "t", title: "T", sections: [Section(items: [item])])
        var m = TakeModel(assessment: a, candidate: nil, timeAllowed: nil, theme: .mono, screenReader: true)
        m.session = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none), status: .active)
        m.phase = .test
        m.session?.prompt = .confirmEnd
        var screen = Views.render(m, width: 70, height: 24)
        #expect(screen.text.contains("End this practice test now? y: end now"))
        #expect(screen.lines[screen.cursor.row].contains("End this practice test"))
        m.session?.prompt = .proctor
        screen = Views.render(m, width: 70, height: 24)
        #expect(screen.lines[screen.cursor.row].contains("Proctor passphrase:"))
    }
}
