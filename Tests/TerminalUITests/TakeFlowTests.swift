import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing
@testable import TerminalUI

/// The whole take flow in memory: keys → frames → runtime → journal, with no terminal.
@Suite("Take flow in memory")
struct TakeFlowTests {
    static let yaml = """
        carrel: 1
        id: flow
        title: Flow
        time_limit: 10m
        sections:
          - items:
              - {id: capital, type: choice, prompt: Capital of Canada?, choices: [Toronto, Ottawa], answer: Ottawa}
              - {id: word, type: text, prompt: Spell it., accept: [syzygy]}

        """

    func run(_ keys: [Key], world: MemoryWorld) throws -> (TakeApp, MemoryTerminal, TakeApp.Exit) {
        let (assessment, source) = try MemoryWorld.assessment(Self.yaml)
        let model = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: true)
        let terminal = MemoryTerminal()
        terminal.type(keys)
        // A key every 150 ms, as a person types; after the last one the terminal is gone.
        terminal.beforeRead = { world.clock.advance(0.15) }
        let app = TakeApp(model: model, terminal: terminal, monotonic: world.clock.sessionClock.monotonic)
        let exit = app.run(begin: world.beginning(assessment, source))
        return (app, terminal, exit)
    }

    @Test func aStudentAnswersAndSubmitsAndTheJournalHasEveryAnswer() throws {
        let world = try MemoryWorld()
        let keys: [Key] = [.enter, .character("y"), .enter, .character("b"), .tab]
            + "syzygy".map { Key.character($0) } + [.control("s"), .character("y"), .enter]
        let (_, terminal, exit) = try run(keys, world: world)
        #expect(exit.code == 0, "\(exit.line)")
        #expect(exit.line.contains("submitted"))
        #expect(terminal.frames.first?.text.contains("Flow") == true, "the start screen is the first frame")
        #expect(terminal.frames.contains { $0.text.contains("Question 2 of 2") })
        #expect(terminal.frames.contains { $0.text.contains("Capital of Canada?") })
        #expect(!terminal.reports, "reports are off again after the session")
        let journal = try world.journal()
        let session = try #require(try journal.sessions(status: nil).first)
        #expect(session.status == .ended)
        #expect(try journal.answers(session: session.id) == ["capital": .choice("Ottawa"), "word": .text("syzygy")])
        #expect(try journal.result(session: session.id)?.contains("\"status\" : \"submitted\"") == true)
        #expect(world.pasteboards.clears == 2, "cleared on entry and on exit")
    }

    /// The disk fills as the session begins: the first question's screen says what is not
    /// saved (in words, on the status line), and the session goes on.
    @Test func aBeginWhoseCommitFailsSaysNotSavedOnTheFirstQuestion() throws {
        let world = try MemoryWorld()
        let (assessment, source) = try MemoryWorld.assessment(Self.yaml)
        let model = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: true)
        let terminal = MemoryTerminal()
        // Start screen, lock question, then any key past the banner to the first question.
        terminal.type([.enter, .character("y"), .enter, .character(" ")])
        terminal.beforeRead = { world.clock.advance(0.15) }
        let app = TakeApp(model: model, terminal: terminal, monotonic: world.clock.sessionClock.monotonic)
        let context = world.context
        let exit = app.run { app throws(SessionError) in
            try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                     context: context, enterUI: {
                                         app.terminal.setReports(true)
                                         try world.storage.fail("event")
                                     }, leaveUI: { app.terminal.setReports(false) })
        }
        // From the question's first frame on: not only once a later message fails to commit too.
        let first = terminal.frames.first { $0.text.contains("Capital of Canada?") }
        #expect(first.map { $0.text.contains("Not saved") && $0.text.contains("disk is full") } == true,
                "\(first?.text ?? "no question shown: \(exit.line)\n\(terminal.frames.last?.text ?? "")")")
    }

    @Test func aLostTerminalInterruptsWithTheTypedTextSaved() throws {
        let world = try MemoryWorld()
        let keys: [Key] = [.enter, .character("y"), .enter, .tab] + "syz".map { Key.character($0) }
        // After the keys, the terminal answers nothing, at once, forever: it is gone.
        let (_, _, exit) = try run(keys, world: world)
        #expect(exit.code == 75, "\(exit.line)")
        #expect(exit.line.contains("terminal lost"))
        let journal = try world.journal()
        let session = try #require(try journal.sessions(status: nil).first)
        #expect(session.status == .interrupted)
        #expect(try journal.answers(session: session.id)["word"] == .text("syz"), "typed text saved on the way out")
    }

    /// The start screen's passphrase without an attempts file follows the same rule as with
    /// one: a wait after each wrong passphrase (keys typed in it are dropped), three tries,
    /// exit 77.
    @Test func theStartScreensPassphraseWaitsDropsKeysAndGivesThreeTries() throws {
        let world = try MemoryWorld()
        let hash = try PassphraseHash.make(passphrase: "correct horse", logRounds: 10)
        let yaml = Self.yaml.replacingOccurrences(of: "time_limit: 10m\n", with: "time_limit: 10m\nproctor: { passphrase: \"\(hash)\" }\n")
        let (assessment, source) = try MemoryWorld.assessment(yaml)
        let model = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: true)
        let terminal = MemoryTerminal()
        let keys = { (text: String) in text.map { Key.character($0) } }
        let pause = [[UInt8]?](repeating: [], count: 12)
        terminal.type(keys("bad") + [.enter, .character("c")])
        terminal.input += pause
        terminal.type(keys("orrect horse") + [.enter])
        terminal.input += pause + pause
        terminal.type(keys("bad") + [.enter])
        terminal.beforeRead = { world.clock.advance(0.15) }
        let app = TakeApp(model: model, terminal: terminal, monotonic: world.clock.sessionClock.monotonic)
        let context = world.context
        let exit = app.run { app throws(SessionError) in
            try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none, context: context)
        }
        // The start message wraps; its words are read as one sentence.
        let said = terminal.frames.map { $0.lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
        #expect(said.contains { $0.contains("That passphrase is not right (attempt 1, 2 tries left). Wait 1 second before trying again.") })
        // The "c" typed during the first wait was dropped: "orrect horse" is the second wrong one.
        #expect(said.contains { $0.contains("(attempt 2, 1 try left). Wait 2 seconds before trying again.") })
        #expect(exit.code == 77 && exit.line.contains("wrong proctor passphrase 3 times"), "\(exit.line)")
        #expect(try world.journal().sessions(status: nil).isEmpty, "nothing began")
    }
}
