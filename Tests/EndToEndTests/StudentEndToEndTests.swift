#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit
import Testing

/// The student's side in a real terminal: long content, a small window, save marks, a screen
/// reader's view of the cursor, and silence while idle.
@Suite("A student's view end to end (tmux)", .serialized)
struct StudentEndToEndTests {
    static let passage = (1...42).map { "Line \($0) of the passage: the river rose in the night." }.joined(separator: "\n          ")

    /// A practice test (no passphrase) with a long reading passage and a typed answer.
    static func reading(_ t: TmuxHarness) throws -> String {
        let text = """
            carrel: 1
            id: reading
            title: Reading
            time_limit: 20m
            policy: { multiplexer: allow }
            sections:
              - title: Passage
                items:
                  - id: flood
                    type: choice
                    prompt: |
                      \(passage)
                      What rose in the night?
                    choices: [The river, The town]
                    answer: The river
                  - id: word
                    type: text
                    prompt: One word for a flood.
                    accept: [deluge]

            """
        let path = t.root + "/reading.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts the test and goes past the start screen, the lock confirmation and the banner.
    func begin(_ t: TmuxHarness, _ window: String, _ arguments: [String]) throws {
        t.start(window, arguments)
        #expect(t.waitFor(window, "Enter") != nil)
        t.keys(window, "Enter")
        #expect(t.waitFor(window, "Begin? y/N") != nil)
        t.type(window, "y")
        #expect(t.waitFor(window, "Press any key") != nil)
        t.keys(window, "Space")
        #expect(t.waitFor(window, "Question 1 of 2") != nil)
    }

    /// Ends the practice test (Ctrl-C, then y), closes the receipt and expects exit 0.
    func endPractice(_ t: TmuxHarness, _ window: String) {
        t.keys(window, "C-c")
        t.type(window, "y")
        t.keys(window, "Enter")
        #expect(t.exitStatus(window) == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func pagingReachesBothEndsOfALongPromptAndKeysAtASmallSizeChangeNothing() throws {
        let t = try #require(TmuxHarness())
        let file = try Self.reading(t)
        try begin(t, "take", ["take", file, "--candidate", "Reader"])
        var screen = t.screen("take")
        #expect(screen.contains("Line 1 of the passage"), "the question opens at its first line:\n\(screen)")
        for _ in 0..<4 { t.keys("take", "PageDown") }
        screen = try #require(t.waitFor("take", "Line 42 of the passage"))
        #expect(!screen.contains("Line 1 of the passage"))
        for _ in 0..<4 { t.keys("take", "PageUp") }
        #expect(t.waitFor("take", "Line 1 of the passage") != nil, "PgUp reaches the first line")

        // At 70×24 keys do nothing: no move, no answer.
        t.resize("take", width: 70, height: 24)
        #expect(t.waitFor("take", "Please enlarge") != nil)
        t.keys("take", "Tab")
        t.type("take", "a")
        t.keys("take", "C-f")
        t.resize("take", width: 80, height: 24)
        screen = try #require(t.waitFor("take", "Question 1 of 2"))
        #expect(!screen.contains("selected"), "nothing was chosen behind the enlarge screen")
        #expect(!screen.contains("flagged"))
        let journal = try t.journal()
        let session = try #require(try journal.sessions(status: nil).first)
        #expect(try journal.answers(session: session.id).isEmpty)

        // The cursor is on the focused element on the question screen and in the review.
        t.keys("take", "Down")
        let line = try #require(t.cursorLine("take"))
        #expect(line.contains("› ( ) b) The town"), "cursor line: \(line)")
        t.keys("take", "C-r")
        #expect(t.waitFor("take", "Review:") != nil)
        #expect(t.cursorLine("take")?.contains("›") == true)
        t.keys("take", "Escape")
        t.keys("take", "C-c")
        #expect(t.waitFor("take", "End this practice test now?") != nil)
        t.type("take", "y")
        #expect(t.waitFor("take", "You ended this practice session") != nil)
        t.keys("take", "Enter")
        #expect(t.exitStatus("take") == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func homeInATypedAnswerLeavesNoSavingMark() throws {
        let t = try #require(TmuxHarness())
        let file = try Self.reading(t)
        try begin(t, "take", ["take", file, "--candidate", "Typist"])
        t.keys("take", "Tab")
        #expect(t.waitFor("take", "Question 2 of 2") != nil)
        t.type("take", "flood")
        #expect(t.waitFor("take", "✓ saved") != nil)
        t.keys("take", "Home")
        usleep(2_000_000)
        let screen = t.screen("take")
        #expect(!screen.contains("saving"), "Home changes nothing, so nothing is being saved:\n\(screen)")
        #expect(t.cursor("take")?.column == 4 + 8, "the cursor is at the start of the answer")
        endPractice(t, "take")
    }

    @Test(.timeLimit(.minutes(3)))
    func aScreenReaderHearsStateInWordsAndNothingWhileIdle() throws {
        let t = try #require(TmuxHarness())
        let file = try Self.reading(t)
        try begin(t, "take", ["take", file, "--candidate", "Listener", "--screen-reader"])
        #expect(t.screen("take").hasPrefix(" Question 1 of 2, section Passage"), "a whole repaint starts with where the student is")
        t.type("take", "a")
        #expect(t.waitFor("take", "The river selected") != nil, "a status sentence says what the key did")
        let line = try #require(t.cursorLine("take"))
        #expect(line.contains("selected"), "the cursor line says the state: \(line)")

        // Idle: not one byte written, on the test and on the enlarge screen.
        let output = t.recordOutput("take")
        usleep(3_000_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == 0, "idle in screen-reader mode writes nothing")
        t.resize("take", width: 70, height: 24)
        #expect(t.waitFor("take", "Please enlarge") != nil)
        usleep(1_000_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: output)).count
        usleep(3_000_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == before, "the enlarge screen does not count down aloud")
        t.resize("take", width: 80, height: 24)
        #expect(t.waitFor("take", "Question 1 of 2") != nil)
        endPractice(t, "take")
    }
}
