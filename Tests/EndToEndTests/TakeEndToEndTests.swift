#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit
import Testing

extension TmuxHarness {
    /// Start screen → proctor passphrase → lock confirmation → banner → first question.
    func begin(_ window: String, _ file: String, candidate: String = "Ada", extra: [String] = []) -> Bool {
        start(window, ["take", file, "--candidate", candidate] + extra)
        return enterTest(window)
    }

    /// From a start screen that asks the proctor passphrase to the first question.
    func enterTest(_ window: String) -> Bool {
        guard waitFor(window, "Proctor passphrase:") != nil else { return false }
        type(window, "proctor phrase")
        keys(window, "Enter")
        guard waitFor(window, "Begin? y/N") != nil else { return false }
        keys(window, "y")
        guard waitFor(window, "This terminal is now locked to Carrel") != nil else { return false }
        keys(window, "Enter")
        return waitFor(window, "Question 1 of") != nil
    }

    /// The letter shown next to `text` anywhere on screen ("b) Ottawa").
    func shownLetter(_ text: String, in window: String) -> String? {
        let screen = self.screen(window)
        for letter in "abcdefghij" where screen.contains("\(letter)) \(text)") {
            return String(letter)
        }
        return nil
    }

    /// The entries of an ordering question as shown ("1. France").
    func shownOrder(_ window: String) -> [String] {
        screen(window).split(separator: "\n").compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "› ", with: "")
            guard let dot = t.firstIndex(of: "."), Int(t[..<dot]) != nil else { return nil }
            return String(t[t.index(dot, offsetBy: 2)...])
        }
    }

    func submit(_ window: String) -> Bool {
        keys(window, "C-s")
        guard waitFor(window, "Submit your answers now?") != nil else { return false }
        keys(window, "y")
        guard waitFor(window, "This terminal is no longer locked") != nil else { return false }
        keys(window, "Enter")
        return exitStatus(window) == 0
    }

    /// Kills the session in `window` with SIGKILL (it exits 137), then resumes it in `resumed`
    /// with the proctor's passphrase. True when both went as a proctor would see them.
    func killAndResume(_ window: String, in resumed: String) -> Bool {
        guard let pid = holderPid else { return false }
        kill(pid, SIGKILL)
        guard exitStatus(window) == 137 else { return false }
        start(resumed, ["resume"])
        guard waitFor(resumed, "Proctor passphrase to resume") != nil else { return false }
        type(resumed, "proctor phrase")
        keys(resumed, "Enter")
        return true
    }

    var holderPid: Int32? {
        if case let .held(holder?) = location.lockState { return holder.pid }
        return nil
    }
}

@Suite("carrel take end to end (tmux)", .serialized)
struct TakeEndToEndTests {
    @Test(.timeLimit(.minutes(3)))
    func aWholeGeographyTest() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        #expect(t.begin("w", file))
        t.keys("w", try #require(t.shownLetter("Ottawa", in: "w")))
        #expect(t.waitFor("w", "(•) ") != nil)
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 2 of 8") != nil)
        t.keys("w", try #require(t.shownLetter("Canberra", in: "w")), "Tab")
        #expect(t.waitFor("w", "Question 3 of 8") != nil)
        t.keys("w", "t", "C-f")
        #expect(t.waitFor("w", "⚑ flagged") != nil)
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 4 of 8") != nil)
        for (i, capital) in ["Ottawa", "Rome", "Tokyo"].enumerated() {
            if i > 0 { t.keys("w", "Down") }
            t.keys("w", try #require(t.shownLetter(capital, in: "w")))
        }
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 5 of 8") != nil)
        for country in ["Iceland", "Japan", "Madagascar"] {
            t.keys("w", try #require(t.shownLetter(country, in: "w")))
        }
        #expect(t.waitFor("w", "3 checked") != nil)
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 6 of 8") != nil)
        t.type("w", "Russia")
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 7 of 8") != nil)
        t.type("w", "7")
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 8 of 8") != nil)
        // Sort the ordering question by moving entries up, as a student would.
        let target = ["Luxembourg", "Portugal", "France", "Canada"]
        var shown = t.shownOrder("w")
        #expect(Set(shown) == Set(target))
        var highlight = 0
        for (i, entry) in target.enumerated() {
            guard let j = shown.firstIndex(of: entry) else { break }
            while highlight < j { t.keys("w", "Down"); highlight += 1 }
            while highlight > j { t.keys("w", "Up"); highlight -= 1 }
            for _ in 0..<(j - i) { t.keys("w", "u"); highlight -= 1 }
            shown.remove(at: j)
            shown.insert(entry, at: i)
        }
        #expect(t.waitFor("w", "This order is your answer.") != nil)
        #expect(t.shownOrder("w") == target)
        // Review, jump back to the flagged question, then submit.
        t.keys("w", "C-r")
        #expect(t.waitFor("w", "Review") != nil)
        let review = t.screen("w")
        #expect(review.contains(" 3. ✓ answered      ⚑ flagged  Ottawa is the capital of Canada."))
        t.keys("w", "Up", "Up", "Up", "Up", "Up", "Enter")
        #expect(t.waitFor("w", "Question 3 of 8") != nil)
        #expect(t.submit("w"))

        let result = try #require(try t.result())
        #expect(result.status == .submitted)
        #expect(result.candidate == "Ada")
        #expect(result.score == ScoreSummary(points: 13, max: 13, pending: 0))
        #expect(result.items.allSatisfy { $0.outcome == .correct }, "\(result.items.map { ($0.id, $0.outcome) })")
        #expect(result.items.first { $0.id == "largest" }?.response == .string("Russia"))
        #expect(result.items.first { $0.id == "island-countries" }?.response.arrayCount == 3)
        #expect(result.items.filter(\.flagged).map(\.id) == ["ottawa-true"])
        #expect(t.location.lockState == .free)
    }

    @Test(.timeLimit(.minutes(4)))
    func aBracketedPasteNeverEntersAnAnswerAndFocusChangesAreLogged() throws {
        let t = try #require(TmuxHarness())
        #expect(try t.typingSchIntoTheWorkshopWord("w"))
        t.setBuffer("cheat", "schnauzer and the rest of the answers")
        t.run(["paste-buffer", "-p", "-b", "cheat", "-t", "e2e:w"])
        #expect(t.waitFor("w", "Paste is disabled during this assessment") != nil)
        #expect(t.screen("w").contains("Answer: sch\n"))
        t.type("w", "n")
        #expect(t.waitFor("w", "Answer: schn\n") != nil)
        // Focus reports (CSI O / CSI I), as a terminal sends them when the window loses focus.
        t.run(["send-keys", "-t", "e2e:w", "-H", "1b", "5b", "4f"])
        usleep(300_000)
        t.run(["send-keys", "-t", "e2e:w", "-H", "1b", "5b", "49"])
        usleep(300_000)
        #expect(t.screen("w").contains("Answer: schn\n"), "focus reports are not typing")
        #expect(t.submit("w"))
        let result = try #require(try t.result())
        #expect(result.items.first { $0.id == "word" }?.response == .string("schn"))
        #expect(result.events.contains { $0.kind == "paste_blocked" && $0.detail == "37 characters" })
        let focus = result.events.map(\.kind).filter { $0.hasPrefix("focus_") }
        #expect(focus == ["focus_lost", "focus_regained"])
    }

    @Test(.timeLimit(.minutes(4)))
    func interruptKeysAskForTheProctor() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        #expect(t.begin("w", file))
        t.keys("w", "C-c")
        #expect(t.waitFor("w", "Ask your proctor to end this session.") != nil)
        t.keys("w", "Escape")
        #expect(t.waitFor("w", "What is the capital of Canada?") != nil)
        t.keys("w", "C-z")
        #expect(t.waitFor("w", "Ask your proctor to end this session.") != nil)
        t.type("w", "not the phrase")
        t.keys("w", "Enter")
        #expect(t.waitFor("w", "That passphrase is not right") != nil)
        #expect(t.exitStatus("w", timeout: 1) == nil, "the test goes on")
        sleep(2)
        t.type("w", "proctor phrase")
        t.keys("w", "Enter")
        #expect(t.waitFor("w", "The proctor ended this session.") != nil)
        t.keys("w", "Enter")
        #expect(t.exitStatus("w") == 0)
        let result = try #require(try t.result())
        #expect(result.status == .endedByProctor)
        let kinds = result.events.map(\.kind)
        #expect(kinds.filter { $0 == "exit_attempt" }.count == 2)
        #expect(kinds.filter { $0 == "passphrase_failed" }.count == 1)
    }

    @Test(.timeLimit(.minutes(4)))
    func resizingSmallerAndBackKeepsTheTestGoing() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        #expect(t.begin("w", file))
        t.keys("w", try #require(t.shownLetter("Ottawa", in: "w")))
        t.run(["resize-window", "-t", "e2e:w", "-x", "60", "-y", "20"])
        #expect(t.waitFor("w", "Please enlarge the terminal") != nil)
        #expect(t.screen("w").contains("left"), "time keeps counting and is shown")
        t.run(["resize-window", "-t", "e2e:w", "-x", "80", "-y", "24"])
        #expect(t.waitFor("w", "Question 1 of 8") != nil)
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 2 of 8") != nil)
        t.keys("w", try #require(t.shownLetter("Canberra", in: "w")))
        #expect(t.submit("w"))
        let result = try #require(try t.result())
        #expect(result.items.prefix(2).map(\.outcome) == [.correct, .correct])
        #expect(result.events.contains { $0.kind == "resized" && $0.detail == "60x20" })
    }

    @Test(.timeLimit(.minutes(3)))
    func killDashNineThenResumeRestoresEverything() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        #expect(t.begin("w", file))
        t.keys("w", try #require(t.shownLetter("Ottawa", in: "w")), "Tab")
        #expect(t.waitFor("w", "Question 2 of 8") != nil)
        t.keys("w", try #require(t.shownLetter("Canberra", in: "w")), "C-f", "Tab", "Tab", "Tab", "Tab")
        #expect(t.waitFor("w", "Question 6 of 8") != nil)
        t.type("w", "Russia")
        #expect(t.waitFor("w", "✓ saved") != nil)
        sleep(1)
        let pid = try #require(t.holderPid)
        kill(pid, SIGKILL)
        #expect(t.exitStatus("w") == 137)

        t.start("again", ["take", file, "--candidate", "Grace"])
        #expect(t.exitStatus("again") == 75)
        #expect(t.screen("again").contains("an interrupted session awaits the proctor"))

        t.start("r", ["resume"])
        #expect(t.waitFor("r", "Proctor passphrase to resume") != nil)
        t.type("r", "proctor phrase")
        t.keys("r", "Enter")
        let resumed = try #require(t.waitFor("r", "Question 6 of 8"))
        #expect(resumed.contains("Answer: Russia"))
        #expect(resumed.contains("Session resumed"))
        let clock = resumed.split(separator: "\n").first.map(String.init) ?? ""
        #expect(!clock.contains("10:00 left"), "the time used before the kill is gone: \(clock)")
        t.keys("r", "BTab", "BTab", "BTab", "BTab")
        let second = try #require(t.waitFor("r", "Question 2 of 8"))
        #expect(second.contains("⚑ flagged"))
        #expect(second.contains("Your answer: Canberra"))
        #expect(t.submit("r"))
        let result = try #require(try t.result())
        #expect(result.interruptions == 1)
        #expect(result.items.filter { $0.outcome == .correct }.map(\.id) == ["canada", "australia", "largest"])
        #expect(result.events.contains { $0.kind == "resumed" })
    }

    @Test(.timeLimit(.minutes(4)))
    func aSecondTakeIsRefusedNamingTheHolder() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        #expect(t.begin("w", file, candidate: "Ada"))
        let pid = try #require(t.holderPid)
        t.start("second", ["take", file, "--candidate", "Grace"])
        #expect(t.exitStatus("second") == 75)
        let line = t.screen("second")
        #expect(line.contains("carrel: another session holds the lock (pid \(pid), candidate Ada"))
        #expect(t.submit("w"))
    }

    @Test(.timeLimit(.minutes(4)))
    func aFiveSecondLimitSubmitsByItself() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml", replacing: [("time_limit: 10m", "time_limit: 5s")])
        #expect(t.begin("w", file))
        t.keys("w", try #require(t.shownLetter("Ottawa", in: "w")))
        #expect(t.waitFor("w", "Time is up: your answers were saved and submitted.", timeout: 30) != nil)
        t.keys("w", "Enter")
        #expect(t.exitStatus("w") == 0)
        let result = try #require(try t.result())
        #expect(result.status == .timedOut)
        #expect(result.items.first?.outcome == .correct)
    }

    @Test(.timeLimit(.minutes(4)))
    func tmuxBuffersAreClearedWhenTheSessionBeginsAndEnds() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        t.setBuffer("before", "notes copied before the test")
        #expect(t.buffers == ["before"])
        #expect(t.begin("w", file))
        #expect(t.buffers.isEmpty, "gone once the session begins")
        t.setBuffer("during", "copied during the test")
        #expect(t.buffers == ["during"])
        #expect(t.submit("w"))
        #expect(t.buffers.isEmpty, "gone after it ends")
    }
}

extension JSONValue {
    var arrayCount: Int? {
        if case let .array(a) = self { return a.count }
        return nil
    }
}
