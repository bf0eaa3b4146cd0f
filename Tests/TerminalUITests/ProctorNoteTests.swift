import AssessmentKit
import Foundation
import Testing
@testable import SessionKit
@testable import TerminalUI

/// A proctor note is for the proctor: no screen, no screen-reader line and no result shows it.
@Suite("Proctor notes stay with the proctor")
struct ProctorNoteTests {
    static let secret = "SECRET-WORD-syzygy"

    static let assessment = Assessment(id: "t", title: "Spelling", timeLimit: 600, sections: [
        Section(title: "Words", instructions: "Type the word you hear.", items: [
            Item(id: "w1", prompt: "Word 1", kind: .text(accept: ["syzygy"], caseSensitive: false),
                 proctorNote: "“\(secret)” — an eclipse happens at syzygy."),
            Item(id: "w2", prompt: "Word 2", kind: .choice(choices: ["a", "b"], answer: "a"),
                 proctorNote: secret, marking: .choices([ChoiceMark(text: "a"), ChoiceMark(text: "b", credit: 50)])),
        ], proctorNote: "Read each word twice. \(secret)"),
    ])

    func model(screenReader: Bool) -> TakeModel {
        var m = TakeModel(assessment: Self.assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: screenReader)
        m.session = SessionState(plan: SessionPlan.make(assessment: Self.assessment, sessionID: "s", seed: 1, extraTime: .none), status: .active)
        return m
    }

    @Test(arguments: [false, true])
    func noScreenShowsTheNote(screenReader: Bool) {
        var m = model(screenReader: screenReader)
        var screens: [Screen] = []
        for (phase, status) in [(TakeModel.Phase.start, SessionStatus.active), (.confirmLock, .active), (.test, .active), (.test, .review)] {
            m.phase = phase
            m.session?.status = status
            screens.append(Views.render(m, width: 80, height: 24))
            screens.append(Views.render(m, width: 120, height: 40))
        }
        m.session?.status = .active
        m.phase = .test
        m.session?.position = 1
        screens.append(Views.render(m, width: 80, height: 24))
        m.showHelp = true
        screens.append(Views.render(m, width: 80, height: 24))
        #expect(screens.count == 10)
        for screen in screens {
            let text = screen.lines.joined(separator: "\n")
            #expect(!text.contains("SECRET"), "a proctor note reached the screen:\n\(text)")
            #expect(!text.contains("eclipse"))
        }
        #expect(screens.contains { $0.lines.joined().contains("Word 1") }, "the first question was not rendered")
        #expect(screens.contains { $0.lines.joined().contains("Word 2") }, "the second question was not rendered")
    }

    @Test func theResultDoesNotCarryTheNote() throws {
        let record = SessionRecord(
            id: "s", assessmentID: "t", assessmentTitle: "Spelling", fingerprint: Fingerprint.of(Self.assessment),
            assessmentPath: "t.yaml", candidate: "Ada", status: .ended, seed: 1, extraTime: .none,
            startedAt: Date(timeIntervalSince1970: 0), pid: 1, host: "h", tty: nil)
        let result = ResultDocument.make(
            assessment: Self.assessment, record: record, reason: .submitted, endedAt: Date(timeIntervalSince1970: 60),
            elapsed: 60, responses: ["w1": .text("syzygy"), "w2": .choice("b")], flags: [], events: [])
        let json = String(decoding: try result.json(), as: UTF8.self)
        #expect(!json.contains("SECRET"))
        #expect(!json.contains("proctor"))
        #expect(result.score.points == 1.5)
    }
}
