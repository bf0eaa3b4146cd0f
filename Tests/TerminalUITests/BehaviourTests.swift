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
        m.phase = .question
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
        #expect(a.lines[0].contains("Ctrl-T: time left"))
        #expect(m.handle(.control("t"), now: 0).isEmpty)
        #expect(m.notice == "8:20 left")
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
        var m = model(.text(accept: ["x"], caseSensitive: false))
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
        m.phase = .question
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

    @Test func wrappingRespectsWideCharactersAndBreaksLongWords() {
        #expect(TextWidth.wrap("日本語の文章です", width: 6) == ["日本語", "の文章", "です"])
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
        #expect(s.lines[3] == "  Actions: F2 Begin  F3 End (n/a)  F5 Workshop test (n/a)  F10 Quit")
        #expect(s.lines[22] == "    line 30", "the newest log line is shown")
        #expect(s.cursor.row == 6)
    }
}
