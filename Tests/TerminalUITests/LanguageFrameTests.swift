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

    /// Every screen of `carrel take`, the demo and the proctor console, named: the tour
    /// `carrel demo --screens` prints, of the Greek test.
    static func frames(_ language: Language, width: Int, height: Int) -> [(String, Screen)] {
        let cast = ScreenTour.Cast(assessment: greek, candidate: "Άντα Λάβλεϊς", answered: answered, partDone: partDone,
                                   proctorMessage: "Η ερώτηση 3 έχει τυπογραφικό λάθος.", seats: seats, room: thirty)
        return ScreenTour(cast: cast, language: language).frames(width: width, height: height)
    }

    /// The rooms of the console's frames, in Greek.
    static let naming = ScreenTour.Cast.Naming(candidate: "Μαθητής", assessment: "geo", title: "Γεωγραφία", host: "υπολογιστής")
    static let thirty = ScreenTour.Cast.room(naming)
    static let seats = ScreenTour.Cast.seats(naming)

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
