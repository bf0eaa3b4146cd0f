import AssessmentKit
import Foundation
import Testing
@testable import SessionKit
@testable import TerminalUI

/// Views rendered to text and compared with files under Golden/. A missing file fails the
/// test; `CARREL_UPDATE_GOLDEN=1` records them all (review the diff, then commit it).
@Suite("Golden frames")
struct GoldenFrameTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static let workshop: Assessment = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Assessments/workshop.yaml")
        let bytes = (try? Data(contentsOf: url)).map { [UInt8]($0) } ?? []
        return AssessmentReader.read(bytes: bytes, file: "workshop.yaml").assessment
            ?? Assessment(id: "missing", title: "missing", sections: [])
    }()

    static func model(theme: Theme = .standard, screenReader: Bool = false, at index: Int = 0,
                      responses: [String: Response] = [:], flags: Set<String> = [], elapsed: Double = 75) -> TakeModel {
        let plan = SessionPlan.make(assessment: workshop, sessionID: "golden", seed: 3, extraTime: .none)
        var m = TakeModel(assessment: workshop, candidate: "Ada Lovelace", timeAllowed: 900, theme: theme, screenReader: screenReader)
        m.session = SessionState(plan: plan, status: .active, position: index, responses: responses, flags: flags, elapsed: elapsed)
        m.phase = .question
        return m
    }

    func check(_ name: String, _ screen: Screen, theme: Theme, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let frame = screen.text + "\n--- styles (\(theme.name)) ---\n" + screen.styleMap(theme) + "\n--- cursor \(screen.cursor.row),\(screen.cursor.column) ---\n"
        let file = Self.folder.appendingPathComponent("\(name).txt")
        let update = ProcessInfo.processInfo.environment["CARREL_UPDATE_GOLDEN"] == "1"
        if update {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try Data(frame.utf8).write(to: file)
            return
        }
        guard FileManager.default.fileExists(atPath: file.path) else {
            Issue.record("golden frame \(name) is missing; record it with CARREL_UPDATE_GOLDEN=1 and review it", sourceLocation: sourceLocation)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(frame == expected, "frame \(name) changed; run with CARREL_UPDATE_GOLDEN=1 after checking it", sourceLocation: sourceLocation)
    }

    static let themes: [Theme] = [.standard, .mono]

    @Test(arguments: themes)
    func startAndLockScreens(theme: Theme) throws {
        var m = Self.model(theme: theme)
        m.session = nil
        m.phase = .start
        try check("start-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.phase = .confirmLock
        try check("confirm-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.phase = .lockedBanner
        try check("banner-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
    }

    /// One frame per item type, answered, in file order.
    static let answered: [String: Response] = [
        "canada": .choice("Ottawa"), "primes": .multiple(["2", "11"]), "ottawa": .trueFalse(true),
        "word": .text("schnauzer"), "pi": .numeric("3,14"), "dog": .essay("A grey dog\nwith a beard and bushy eyebrows."),
        "sizes": .order(["mouse", "cat", "horse", "elephant"]), "capitals": .match(["Canada": "Ottawa", "Japan": "Tokyo"]),
    ]

    @Test(arguments: themes)
    func everyWidgetAnswered(theme: Theme) throws {
        let plan = SessionPlan.make(assessment: Self.workshop, sessionID: "golden", seed: 3, extraTime: .none)
        for (index, id) in plan.itemOrder.enumerated() {
            var m = Self.model(theme: theme, at: index, responses: Self.answered, flags: ["primes"])
            if let item = Self.workshop.items.first(where: { $0.id == id }), [ItemType.text, .numeric, .essay].contains(item.type) {
                m.editors[id] = m.editor(for: item)
            }
            try check("question-\(index + 1)-\(id)-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        }
    }

    @Test(arguments: themes)
    func everyWidgetUnanswered(theme: Theme) throws {
        let plan = SessionPlan.make(assessment: Self.workshop, sessionID: "golden", seed: 3, extraTime: .none)
        for index in plan.itemOrder.indices {
            let m = Self.model(theme: theme, at: index)
            try check("empty-\(index + 1)-\(plan.itemOrder[index])-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        }
    }

    @Test func aQuestionAt120x40() throws {
        let m = Self.model(at: 1, responses: Self.answered)
        try check("question-120x40", Views.render(m, width: 120, height: 40), theme: .standard)
    }

    @Test(arguments: themes)
    func reviewSubmitProctorReceiptHelpTooSmall(theme: Theme) throws {
        var m = Self.model(theme: theme, responses: ["canada": .choice("Ottawa"), "pi": .numeric("3.14")], flags: ["dog"])
        m.phase = .review
        m.reviewHighlight = 2
        try check("review-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.session?.prompt = .confirmSubmit
        try check("submit-confirm-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.phase = .question
        m.session?.prompt = .proctor
        m.secret = TextEditor(text: "abc")
        try check("proctor-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.session?.prompt = nil
        m.phase = .receipt(TakeModel.Receipt(status: .timedOut, session: "0b1c2d3e-aaaa-bbbb-cccc-123456789abc", timeUsed: 900,
                                             answered: 2, total: 8, score: ScoreSummary(points: 2, max: 13, pending: 3),
                                             resultPath: "/state/results/x.json", problem: nil))
        try check("receipt-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.phase = .question
        m.showHelp = true
        try check("help-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.showHelp = false
        try check("too-small-\(theme.name)", Views.render(m, width: 60, height: 20), theme: theme)
    }

    @Test func aNoticeAndAWarningClock() throws {
        var m = Self.model(elapsed: 845)
        m.notice = "Paste is disabled during this assessment"
        try check("notice-and-last-minute", Views.render(m, width: 80, height: 24), theme: .standard)
    }
}
