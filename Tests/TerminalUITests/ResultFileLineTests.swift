import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing
@testable import TerminalUI

/// What `carrel take` says when a session ends but its result file cannot be written (a full
/// disk): the result is in the journal, said once.
@Suite("Closing line when the result file cannot be written")
struct ResultFileLineTests {
    static let yaml = """
        carrel: 1
        id: full
        title: Full
        time_limit: 10m
        sections:
          - items:
              - {id: word, type: text, prompt: Spell it., accept: [syzygy]}

        """

    @Test func theClosingLineSaysTheResultIsInTheJournalOnce() throws {
        let world = try MemoryWorld()
        world.storage.failResultFiles = true
        let (assessment, source) = try MemoryWorld.assessment(Self.yaml)
        let runtime = try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                               context: world.context)
        _ = runtime.send(.submitRequested)
        let outcome = try #require(runtime.send(.submitConfirmed).outcome)
        let exit = TakeApp.exit(for: outcome, session: runtime.record.id, state: runtime.state)
        #expect(exit.code == 73)
        #expect(exit.line.components(separatedBy: "in the journal").count == 2, "said once: \(exit.line)")
        #expect(exit.line.components(separatedBy: "could not be written").count == 2, "said once: \(exit.line)")
        #expect(exit.line.contains("its result is in the journal, but the result file could not be written"), "\(exit.line)")
    }
}
