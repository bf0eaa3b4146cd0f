import AssessmentKit
import Foundation
import SessionTestSupport
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
        m.phase = .test
        return m
    }

    func check(_ name: String, _ screen: Screen, theme: Theme, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let frame = screen.text + "\n--- styles (\(theme.name)) ---\n" + screen.styleMap(theme) + "\n--- cursor \(screen.cursor.row),\(screen.cursor.column) ---\n"
        try check(name, text: frame, sourceLocation: sourceLocation)
    }

    /// Compares `frame` with the golden file `name` (under Golden/, which may name a subfolder).
    func check(_ name: String, text frame: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = Self.folder.appendingPathComponent("\(name).txt")
        let update = ProcessInfo.processInfo.environment["CARREL_UPDATE_GOLDEN"] == "1"
        if update && TestEnvironment.underCI {
            // Under CI a golden frame is only ever compared: recording would pass whatever is drawn.
            Issue.record("CARREL_UPDATE_GOLDEN=1 is refused under CI; record golden frames on a workstation and commit them",
                         sourceLocation: sourceLocation)
            return
        }
        if update {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
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

    static let themes: [Theme] = [.standard, .mono, .contrast]

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
        "ice": .gaps([["so"], [], ["12"]]),
    ]

    @Test(arguments: themes)
    func everyWidgetAnswered(theme: Theme) throws {
        let plan = SessionPlan.make(assessment: Self.workshop, sessionID: "golden", seed: 3, extraTime: .none)
        var checked = 0
        for (index, id) in plan.itemOrder.enumerated() {
            var m = Self.model(theme: theme, at: index, responses: Self.answered, flags: ["primes"])
            if let item = Self.workshop.items.first(where: { $0.id == id }), [ItemType.text, .numeric, .essay].contains(item.type) {
                m.editors[id] = m.editor(for: item)
            }
            try check("question-\(index + 1)-\(id)-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
            checked += 1
        }
        #expect(checked == Self.answered.count, "one frame per item type of the workshop test")
    }

    @Test(arguments: themes)
    func everyWidgetUnanswered(theme: Theme) throws {
        let plan = SessionPlan.make(assessment: Self.workshop, sessionID: "golden", seed: 3, extraTime: .none)
        var checked = 0
        for index in plan.itemOrder.indices {
            let m = Self.model(theme: theme, at: index)
            try check("empty-\(index + 1)-\(plan.itemOrder[index])-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
            checked += 1
        }
        #expect(checked == Self.answered.count, "one frame per item type of the workshop test")
    }

    @Test func aQuestionAt120x40() throws {
        let m = Self.model(at: 1, responses: Self.answered)
        try check("question-120x40", Views.render(m, width: 120, height: 40), theme: .standard)
    }

    @Test(arguments: themes)
    func reviewSubmitProctorReceiptHelpTooSmall(theme: Theme) throws {
        var m = Self.model(theme: theme, responses: ["canada": .choice("Ottawa"), "pi": .numeric("3.14")], flags: ["dog"])
        m.phase = .test
        m.session?.status = .review
        m.reviewHighlight = 2
        try check("review-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.session?.prompt = .confirmSubmit
        try check("submit-confirm-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.phase = .test
        m.session?.status = .active
        m.session?.prompt = .proctor
        m.secret = TextEditor(text: "abc")
        try check("proctor-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.session?.prompt = nil
        m.phase = .receipt(TakeModel.Receipt(status: .timedOut, session: "0b1c2d3e-aaaa-bbbb-cccc-123456789abc", timeUsed: 900,
                                             answered: 2, total: 8, score: ScoreSummary(points: 2, max: 13, pending: 3),
                                             resultPath: "/state/results/x.json", problem: nil))
        try check("receipt-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.phase = .test
        m.session?.status = .active
        m.showHelp = true
        try check("help-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.showHelp = false
        try check("too-small-\(theme.name)", Views.render(m, width: 60, height: 20), theme: theme)
    }

    /// The room's screens: a seat waiting for the proctor's start, the pause, a message from
    /// the proctor (a long one wraps in its box) and a raised hand, in every theme and, with
    /// the screen reader, at both sizes. A message's text is content: made safe like all of it.
    @Test(arguments: themes)
    func theRoomsWaitingPauseMessageAndHand(theme: Theme) throws {
        var m = Self.model(theme: theme, responses: ["canada": .choice("Ottawa")])
        m.session = nil
        m.phase = .start
        m.waitingForProctor = true
        try check("room-waiting-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m = Self.model(theme: theme, responses: ["canada": .choice("Ottawa")])
        m.session?.room = RoomControl(watched: true)
        m.session?.room.paused = true
        try check("room-paused-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.session?.room.paused = false
        m.session?.room.message = "Question 3 has a misprint: read Sydney as Canberra. "
            + String(repeating: "Keep working; the clock runs as before. ", count: 8) + "\u{1B}[31m"
        try check("room-message-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.session?.room.message = nil
        m.session?.room.hand = .raised
        try check("room-hand-raised-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
        m.session?.room.hand = .acknowledged
        try check("room-hand-coming-\(theme.name)", Views.render(m, width: 80, height: 24), theme: theme)
    }

    @Test(arguments: [0, 1])
    func theRoomsScreensForAScreenReader(size: Int) throws {
        let (width, height) = Self.sizes[size]
        var m = Self.model(screenReader: true)
        m.session = nil
        m.phase = .start
        m.waitingForProctor = true
        try check("room-waiting-reader-\(width)x\(height)", Views.render(m, width: width, height: height), theme: .standard)
        m = Self.model(screenReader: true)
        m.session?.room = RoomControl(watched: true)
        m.session?.room.paused = true
        m.session?.room.hand = .raised
        try check("room-paused-reader-\(width)x\(height)", Views.render(m, width: width, height: height), theme: .standard)
        m.session?.room.paused = false
        m.session?.room.message = "Ten minutes left."
        try check("room-message-reader-\(width)x\(height)", Views.render(m, width: width, height: height), theme: .standard)
    }

    @Test func aNoticeAndAWarningClock() throws {
        var m = Self.model(elapsed: 845)
        m.notice = "Paste is disabled during this assessment"
        try check("notice-and-last-minute", Views.render(m, width: 80, height: 24), theme: .standard)
    }

    // MARK: long content and screen-reader mode, at 80×24 and 120×40

    static let sizes: [(Int, Int)] = [(80, 24), (120, 40)]

    static func single(_ items: [Item], screenReader: Bool = false, responses: [String: Response] = [:], flags: Set<String> = []) -> TakeModel {
        let a = Assessment(id: "long", title: "Reading and writing", timeLimit: 1800,
                           sections: [Section(title: "Reading", instructions: "Read the passage, then answer.", items: items)])
        let plan = SessionPlan.make(assessment: a, sessionID: "golden", seed: 3, extraTime: .none)
        var m = TakeModel(assessment: a, candidate: "Ada Lovelace", timeAllowed: 1800, theme: .mono, screenReader: screenReader)
        m.session = SessionState(plan: plan, status: .active, responses: responses, flags: flags, elapsed: 75)
        m.phase = .test
        m.session?.status = .active
        return m
    }

    static let passage = (1...42).map { "Line \($0): the river rose through the night, and by morning the lower town was under water." }
        .joined(separator: "\n")

    @Test(arguments: [0, 1])
    func aFortyTwoLinePromptAtItsTopAndItsBottom(size: Int) throws {
        let (w, h) = Self.sizes[size]
        var m = Self.single([Item(id: "flood", prompt: Self.passage, kind: .choice(choices: ["The river", "The town"], answer: "The river"))])
        m.viewSize = (w, h)
        try check("long-prompt-top-\(w)x\(h)", Views.render(m, width: w, height: h), theme: .mono)
        for _ in 0..<10 { _ = m.handle(.pageDown, now: 0) }
        try check("long-prompt-bottom-\(w)x\(h)", Views.render(m, width: w, height: h), theme: .mono)
    }

    @Test(arguments: [0, 1])
    func aWrappedChoiceListAndAWrappedEssay(size: Int) throws {
        let (w, h) = Self.sizes[size]
        let choices = [
            "Because the council had ignored three separate warnings from the engineers who inspected the levee in the spring",
            "Because the rain that week was the heaviest recorded in the valley since measurements began in 1871",
            "Both",
        ]
        var m = Self.single([Item(id: "why", prompt: "Why did the town flood?", kind: .choice(choices: choices, answer: "Both"))],
                            responses: ["why": .choice(choices[1])])
        m.viewSize = (w, h)
        _ = m.handle(.down, now: 0)
        try check("wrapped-choices-\(w)x\(h)", Views.render(m, width: w, height: h), theme: .mono)
        let essay = "The flood came after a week of rain, but the rain alone does not explain it. " +
            "The engineers had warned the council three times.\n\nIn my view the council is to blame, because " +
            "a warning that is ignored is worse than no warning at all: it shows that the danger was known."
        var e = Self.single([Item(id: "essay", prompt: "Who was to blame? Explain.", kind: .essay(minWords: 50, maxWords: 300))],
                            responses: ["essay": .essay(essay)])
        e.viewSize = (w, h)
        if let item = e.currentItem { e.editors["essay"] = e.editor(for: item) }
        _ = e.handle(.up, now: 0)
        try check("wrapped-essay-\(w)x\(h)", Views.render(e, width: w, height: h), theme: .mono)
    }

    @Test func everyItemTypeInScreenReaderModeSaysItsStateInWords() throws {
        let plan = SessionPlan.make(assessment: Self.workshop, sessionID: "golden", seed: 3, extraTime: .none)
        var count = 0
        for (w, h) in Self.sizes {
            for (index, id) in plan.itemOrder.enumerated() {
                var m = Self.model(theme: .mono, screenReader: true, at: index, responses: Self.answered, flags: ["primes"])
                if let item = m.item(id), [ItemType.text, .numeric, .essay].contains(item.type) {
                    m.editors[id] = m.editor(for: item)
                }
                try check("screen-reader-\(index + 1)-\(id)-\(w)x\(h)", Views.render(m, width: w, height: h), theme: .mono)
                count += 1
            }
        }
        #expect(count == 18, "every item type of the workshop test, at both sizes")
    }

    @Test(arguments: [0, 1])
    func theReviewWithFlagsInWordsAndTheSubmitBoxWith300Unanswered(size: Int) throws {
        let (w, h) = Self.sizes[size]
        var m = Self.model(theme: .mono, screenReader: true, responses: ["canada": .choice("Ottawa")], flags: ["dog", "primes"])
        m.phase = .test
        m.session?.status = .review
        m.reviewHighlight = 1
        try check("review-words-\(w)x\(h)", Views.render(m, width: w, height: h), theme: .mono)
        var big = Self.single((1...300).map { Item(id: "q\($0)", prompt: "Question \($0)", kind: .trueFalse(answer: true)) },
                              flags: ["q7", "q12"])
        big.session?.prompt = .confirmSubmit
        try check("submit-300-unanswered-\(w)x\(h)", Views.render(big, width: w, height: h), theme: .mono)
    }
}
