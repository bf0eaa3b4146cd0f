import AssessmentKit
import Foundation
@testable import Localization
import SessionTestSupport
import Testing
@testable import SessionKit
@testable import TerminalUI

/// Every screen in every language, at 80×24 and 120×40: recorded as golden frames, read for
/// English words left behind, and, in the pseudo-language (every sentence a third longer and
/// marked ⟦…⟧), for sentences missing from the catalogs and sentences cut by the edge.
@Suite("Screens in every language")
struct LanguageFrameTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    /// Content in Greek: a Latin-letter word on a frame is Carrel's own, never the teacher's.
    static let greek: Assessment = {
        let url = here.appendingPathComponent("Fixtures/every-kind-greek.yaml")
        let bytes = (try? Data(contentsOf: url)).map { [UInt8]($0) } ?? []
        return AssessmentReader.read(bytes: bytes, file: "every-kind-greek.yaml").assessment
            ?? Assessment(id: "missing", title: "missing", sections: [])
    }()

    static let sizes: [(Int, Int)] = [(80, 24), (120, 40)]

    static func model(_ language: Language, screenReader: Bool = false, at index: Int = 0,
                      responses: [String: Response] = [:], flags: Set<String> = [], elapsed: Double = 75,
                      linear: Bool = false) -> TakeModel {
        var a = greek
        if linear { a.navigation = .linear }
        let plan = SessionPlan.make(assessment: a, sessionID: "golden", seed: 3, extraTime: .none)
        var m = TakeModel(assessment: a, candidate: "Άντα Λάβλεϊς", timeAllowed: 900, theme: .mono, screenReader: screenReader)
        m.say = Localizer(language)
        m.session = SessionState(plan: plan, status: .active, position: index, responses: responses, flags: flags, elapsed: elapsed)
        m.phase = .test
        return m
    }

    static let answered: [String: Response] = [
        "canada": .choice("Οτάβα"), "primes": .multiple(["2", "11"]), "ottawa": .trueFalse(true),
        "word": .text("σνάουτσερ"), "pi": .numeric("3,14"), "dog": .essay("Ένας γκρίζος σκύλος με γένι και φρύδια."),
        "sizes": .order(["ποντίκι", "γάτα", "άλογο", "ελέφαντας"]), "capitals": .match(["Καναδάς": "Οτάβα", "Ιαπωνία": "Τόκιο"]),
        "ice": .gaps([["τόσο"], [], ["12"]]),
    ]

    /// Part done: a match with one of three rows, an essay short of its minimum, one gap of three.
    static let partDone: [String: Response] = [
        "capitals": .match(["Καναδάς": "Οτάβα"]), "dog": .essay("Ένας σκύλος."), "ice": .gaps([["τόσο"], [], []]),
        "canada": .choice("Οτάβα"),
    ]

    /// Every screen of `carrel take`, the demo and the proctor console, named.
    static func frames(_ language: Language, width: Int, height: Int) -> [(String, Screen)] {
        var f = Frames(width: width, height: height)
        addStartScreens(&f, language)
        addQuestions(&f, language)
        addReviewAndBoxes(&f, language)
        addNotices(&f, language)
        addRoomStates(&f, language)
        addReceipts(&f, language)
        addTooSmallAndHelp(&f, language)
        addDemoAndConsole(&f, language)
        return f.out
    }

    /// Frames named in order, each rendered at one size when it is added.
    struct Frames {
        let width: Int
        let height: Int
        var out: [(String, Screen)] = []

        mutating func add(_ name: String, _ m: TakeModel) { out.append((name, Views.render(m, width: width, height: height))) }
    }

    /// The screens before the first question.
    static func addStartScreens(_ f: inout Frames, _ language: Language) {
        var m = model(language)
        m.session = nil
        m.phase = .start
        f.add("start", m)
        var p = m
        p.startMessage = Localizer(language)("{0, plural, one {That passphrase is not right (attempt {1}, # try left).} other {That passphrase is not right (attempt {1}, # tries left).}}", .n(2), .n(1))
        f.add("start-message", p)
        m.waitingForProctor = true
        m.seatKey = "1234 5678"
        f.add("start-waiting", m)
        m.waitingForProctor = false
        m.phase = .confirmLock
        f.add("confirm-lock", m)
        m.phase = .lockedBanner
        f.add("banner", m)
    }

    /// Every question empty, answered, through a screen reader and part done.
    static func addQuestions(_ f: inout Frames, _ language: Language) {
        let order = SessionPlan.make(assessment: greek, sessionID: "golden", seed: 3, extraTime: .none).itemOrder
        for (index, id) in order.enumerated() {
            f.add("empty-\(index + 1)-\(id)", model(language, at: index))
            var a = model(language, at: index, responses: answered, flags: ["primes"])
            if let item = a.item(id), [ItemType.text, .numeric, .essay].contains(item.type) { a.editors[id] = a.editor(for: item) }
            f.add("answered-\(index + 1)-\(id)", a)
            var r = model(language, screenReader: true, at: index, responses: answered, flags: ["primes"])
            if let item = r.item(id), [ItemType.text, .numeric, .essay].contains(item.type) { r.editors[id] = r.editor(for: item) }
            f.add("reader-\(index + 1)-\(id)", r)
            if partDone[id] != nil, index > 0 {
                f.add("part-done-\(index + 1)-\(id)", model(language, at: index, responses: partDone))
            }
        }
    }

    /// The review, and the boxes asked over a question.
    static func addReviewAndBoxes(_ f: inout Frames, _ language: Language) {
        var review = model(language, responses: partDone, flags: ["primes"])
        review.session?.status = .review
        review.reviewHighlight = 2
        f.add("review", review)
        var reviewReader = model(language, screenReader: true, responses: partDone, flags: ["primes"])
        reviewReader.session?.status = .review
        f.add("review-reader", reviewReader)
        review.session?.prompt = .confirmSubmit
        f.add("submit-confirm", review)
        var proctor = model(language, responses: answered)
        proctor.session?.prompt = .proctor
        proctor.secret = TextEditor(text: "abc")
        f.add("proctor-prompt", proctor)
        proctor.session?.prompt = .confirmEnd
        f.add("confirm-end", proctor)
        var skip = model(language, linear: true)
        skip.confirmSkip = true
        f.add("confirm-skip", skip)
    }

    /// The time's notices and a hidden clock.
    static func addNotices(_ f: inout Frames, _ language: Language) {
        var notice = model(language, elapsed: 845)
        notice.notice = Localizer(language).say(SessionState.warningWords(60))
        f.add("time-warning", notice)
        var time = model(language)
        time.notice = time.timeWords(time.session ?? SessionState(plan: SessionPlan.make(assessment: greek, sessionID: "x", seed: 1, extraTime: .none)))
        f.add("ctrl-t", time)
        var hidden = model(language)
        hidden.clockHidden = true
        f.add("clock-hidden", hidden)
    }

    /// What the proctor does to a seat in a room.
    static func addRoomStates(_ f: inout Frames, _ language: Language) {
        var room = model(language, responses: answered)
        room.session?.room = RoomControl(watched: true)
        room.session?.room.paused = true
        f.add("room-paused", room)
        room.session?.room.paused = false
        room.session?.room.message = "Η ερώτηση 3 έχει τυπογραφικό λάθος."
        f.add("room-message", room)
        room.session?.room.message = nil
        room.session?.room.hand = .raised
        f.add("room-hand-raised", room)
        room.session?.room.hand = .acknowledged
        f.add("room-hand-coming", room)
    }

    /// The receipt of every way a test ends.
    static func addReceipts(_ f: inout Frames, _ language: Language) {
        for status in [EndReason.submitted, .timedOut, .endedByProctor, .endedByCandidate] {
            var r = model(language, responses: answered)
            r.phase = .receipt(TakeModel.Receipt(status: status, session: "01234567-0000-1111-2222-333344445555", timeUsed: 815,
                                                 answered: 8, total: 9, score: ScoreSummary(points: 7.5, max: 17, pending: 3),
                                                 resultPath: "/state/results/x.json", problem: nil))
            f.add("receipt-\(status.rawValue)", r)
        }
        // A seat the proctor started had no answer key: what was answered, and who scores it.
        var keyless = model(language, responses: answered)
        keyless.phase = .receipt(TakeModel.Receipt(status: .submitted, session: "01234567-0000-1111-2222-333344445555", timeUsed: 815,
                                                   answered: 8, total: 9, score: nil, resultPath: "/state/results/x.json",
                                                   problem: nil, unscored: true))
        f.add("receipt-keyless", keyless)
    }

    /// A terminal too small, and F1's help.
    static func addTooSmallAndHelp(_ f: inout Frames, _ language: Language) {
        // Too small: the sentence, the clock, and what still answers a box (at 60×20).
        var small = model(language, responses: answered)
        f.out.append(("too-small", Views.render(small, width: 60, height: 20)))
        small.session?.prompt = .confirmSubmit
        f.out.append(("too-small-submit", Views.render(small, width: 60, height: 20)))
        small.session?.prompt = .proctor
        f.out.append(("too-small-proctor", Views.render(small, width: 60, height: 20)))
        small.session?.prompt = .confirmEnd
        f.out.append(("too-small-end", Views.render(small, width: 60, height: 20)))
        var help = model(language)
        help.showHelp = true
        f.add("help", help)
        help.helpScroll = 100
        f.add("help-end", help)
    }

    /// The workshop demo and the proctor console.
    static func addDemoAndConsole(_ f: inout Frames, _ language: Language) {
        var demo = DemoModel(policy: RestrictionPolicy(), workshopAvailable: true, theme: .mono)
        demo.say = Localizer(language)
        f.out.append(("demo", DemoView.render(demo, width: f.width, height: f.height)))
        demo.confirmQuit = true
        demo.sessionActive = true
        f.out.append(("demo-confirm-quit", DemoView.render(demo, width: f.width, height: f.height)))

        var console = ProctorModel(room: "101", screenReader: false)
        console.say = Localizer(language)
        f.out.append(("console-empty", ProctorView.render(console, width: f.width, height: f.height)))
        console.update(seats)
        f.out.append(("console-seats", ProctorView.render(console, width: f.width, height: f.height)))
        var consoleReader = ProctorModel(room: "101", screenReader: true)
        consoleReader.say = Localizer(language)
        consoleReader.update(seats)
        f.out.append(("console-reader", ProctorView.render(consoleReader, width: f.width, height: f.height)))
        // A room of thirty: paused seats, a raised hand, seats held back, keys and hosts; the
        // confirmation of a message to the marked seats names them.
        var room = ProctorModel(room: "101", screenReader: false)
        room.say = Localizer(language)
        room.update(thirty)
        f.out.append(("console-thirty", ProctorView.render(room, width: f.width, height: f.height)))
        _ = room.handle(.character("*"), pageSize: 10)
        _ = room.handle(.character("m"), pageSize: 10)
        for ch in "Q3" { _ = room.handle(.character(ch), pageSize: 10) }
        _ = room.handle(.enter, pageSize: 10)
        f.out.append(("console-thirty-confirm", ProctorView.render(room, width: f.width, height: f.height)))
    }

    /// Thirty seats as a room has them mid-exam, trouble first.
    static let thirty: [SeatView] = (1...30).map { n -> SeatView in
        let name = "A\(n)"
        var s: SeatView
        switch n {
        case 1...3: s = seat(name, status: "not_started", answered: 0)
        case 4: s = seat(name, status: "interrupted", heard: 40, connected: false)
        case 5...8: s = seat(name, status: "submitted", answered: 12)
        default: s = seat(name, status: "active", answered: n % 12)
        }
        if (9...14).contains(n) { s.paused = true }
        if n == 20 { s.hand = "raised" }
        if n == 2 { s.warnings = ["unknown machine, held back"] }
        if n == 3 { s.warnings = ["other Carrel, held back"] }
        s.seatKey = Data((0..<32).map { UInt8(($0 * 7 + n) % 256) }).base64EncodedString()
        s.host = "υπολογιστής-\(n < 10 ? "0" : "")\(n)"
        return s
    }.sorted(by: SeatView.troubleFirst)

    static func seat(_ name: String, status: String, answered: Int = 3, paste: Int = 0, heard: Int = 0, connected: Bool = true) -> SeatView {
        SeatView(session: "s-\(name)", candidate: "Μαθητής \(name)", seat: name, room: "101", assessment: "geo",
                 assessmentTitle: "Γεωγραφία", status: status, answered: answered, total: 12,
                 timeLeftSeconds: ["active", "interrupted"].contains(status) ? 754 : nil,
                 pasteAttempts: paste, focusLosses: 0, exitAttempts: 0, interruptions: 0,
                 lastSeen: "2026-11-24T10:00:00Z", lastHeardSeconds: heard, connected: connected)
    }

    static let seats: [SeatView] = [
        seat("1", status: "submitted", answered: 12), seat("2", status: "active"),
        seat("3", status: "interrupted", heard: 14, connected: false), seat("4", status: "active", paste: 2),
        seat("5", status: "not_started", answered: 0), seat("6", status: "timed_out", answered: 7),
    ].sorted(by: SeatView.troubleFirst)

    /// Words a screen may show in Latin letters in any language: key names and Carrel's name.
    static let keyNames: Set<String> = [
        "Tab", "Shift", "Ctrl", "Esc", "Enter", "PgUp", "PgDn", "Space", "Home", "End", "Backspace", "Delete", "Carrel",
        "tmux", "screen", "SSH", "Del", "Ins", "carrel", "resume", "unlock",
    ]

    static func latinWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for ch in text {
            if ch.isASCII && ch.isLetter { current.append(ch); continue }
            if current.count >= 2 { words.append(current) }
            current = ""
        }
        if current.count >= 2 { words.append(current) }
        return words
    }

    /// English words of the catalogs that are not also words of `language`'s own sentences.
    static func englishOnly(_ language: Language) -> Set<String> {
        var english = Set<String>()
        for key in Catalog.templates {
            let text = Catalog.strippingContext(key)
            for w in latinWords(text) where w.count >= 3 { english.insert(w.lowercased()) }
        }
        for syntax in ["plural", "one", "other", "many"] { english.remove(syntax) }
        for value in Catalog.table(language).values {
            for w in latinWords(value) { english.remove(w.lowercased()) }
        }
        for key in keyNames { english.remove(key.lowercased()) }
        return english
    }

    @Test(arguments: Language.offered)
    func everyScreenInEveryLanguageAtBothSizesMatchesItsGoldenFrames(language: Language) throws {
        for (width, height) in Self.sizes {
            let frames = Self.frames(language, width: width, height: height)
            #expect(frames.count > 50, "every screen is drawn")
            for (name, screen) in frames {
                #expect(!screen.overflowed, "\(language.rawValue) \(name) \(width)×\(height): text runs past the right edge\n\(screen.text)")
            }
            let text = frames.map { "=== \($0.0) (\(width)×\(height)) ===\n" + $0.1.text + "\n--- cursor \($0.1.cursor.row),\($0.1.cursor.column) ---\n" }
                .joined()
            try GoldenFrameTests().check("languages/\(language.rawValue)-\(width)x\(height)", text: text)
        }
    }

    @Test(arguments: Language.offered.filter { $0 != .en })
    func noEnglishWordIsLeftOnAnyScreen(language: Language) {
        let english = Self.englishOnly(language)
        #expect(english.count > 100, "the English words looked for")
        var checked = 0
        for (width, height) in Self.sizes {
            for (name, screen) in Self.frames(language, width: width, height: height) {
                checked += 1
                let found = Self.latinWords(screen.text).filter { english.contains($0.lowercased()) }
                #expect(found.isEmpty, "\(language.rawValue) \(name) \(width)×\(height) shows English: \(Set(found).sorted())\n\(screen.text)")
            }
        }
        #expect(checked > 100)
    }

    @Test func thePseudoLanguageShowsEverySentenceTranslatedAndWhole() {
        var checked = 0
        for (width, height) in Self.sizes {
            for (name, screen) in Self.frames(.pseudo, width: width, height: height) {
                checked += 1
                let text = screen.text
                let stray = Self.latinWords(text).filter { !Self.keyNames.contains($0) }
                #expect(stray.isEmpty, "\(name) \(width)×\(height): not in the catalogs: \(Set(stray).sorted())\n\(text)")
                let opened = text.filter { $0 == "⟦" }.count, closed = text.filter { $0 == "⟧" }.count
                #expect(opened == closed, "\(name) \(width)×\(height): a sentence is cut (\(opened) begun, \(closed) ended)\n\(text)")
                #expect(!screen.overflowed, "\(name) \(width)×\(height): text runs past the right edge\n\(text)")
            }
        }
        #expect(checked > 100)
    }
}
