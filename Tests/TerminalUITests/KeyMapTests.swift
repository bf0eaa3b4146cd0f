import AssessmentKit
import Foundation
import Testing
@testable import SessionKit
@testable import TerminalUI

/// Every key a screen reacts to is in its key map, and its map says what it does.
@Suite("Key maps")
struct KeyMapTests {
    /// Every key the input decoder produces: printable ASCII (and two characters of other
    /// scripts), Ctrl with a letter (Ctrl-H, -I, -J and -M arrive as Backspace, Tab and Enter),
    /// Ctrl-\, F1–F12, the arrows with and without Shift, Home/End, PgUp/PgDn, Tab/Shift-Tab,
    /// Enter, Esc, Backspace and Delete.
    static let everyKey: [Key] = {
        var keys: [Key] = (0x20...0x7E).map { Key.character(Character(UnicodeScalar(UInt8($0)))) }
        keys += [.character("é"), .character("日")]
        keys += "abcdefgklnopqrstuvwxyz".map { Key.control($0) } + [.control("\\")]
        keys += (1...12).map { Key.function($0) }
        keys += [.up, .down, .left, .right, .shiftUp, .shiftDown, .home, .end, .pageUp, .pageDown,
                 .tab, .backTab, .enter, .escape, .backspace, .delete]
        return keys
    }()

    static let workshop = GoldenFrameTests.workshop

    static func model(at index: Int = 0, navigation: Navigation = .free, passphrase: Bool = false) -> TakeModel {
        var assessment = workshop
        assessment.navigation = navigation
        if passphrase, let hash = try? PassphraseHash.make(passphrase: "x", logRounds: 10) { assessment.proctor = ProctorSettings(passphrase: hash) }
        let plan = SessionPlan.make(assessment: assessment, sessionID: "keys", seed: 3, extraTime: .none)
        var m = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 900, theme: .mono, screenReader: false)
        m.session = SessionState(plan: plan, status: .active, position: index, responses: [:], flags: [], elapsed: 10)
        m.phase = .test
        // Highlights in the middle of each list, so a move has somewhere to go.
        for id in plan.itemOrder { m.highlight[id] = 1 }
        return m
    }

    /// Every screen of `carrel take`, by name.
    static var takeScreens: [(String, TakeModel)] {
        var screens: [(String, TakeModel)] = []
        for i in 0..<workshop.itemCount {
            let m = model(at: i)
            screens.append(("question \(i + 1) (\(m.currentItem.map { "\($0.type)" } ?? "?"))", m))
        }
        var linear = model(navigation: .linear)
        screens.append(("question, linear", linear))
        linear.confirmSkip = true
        screens.append(("skip", linear))
        var review = model(at: 2)
        review.phase = .test
        review.session?.status = .review
        review.reviewHighlight = 3
        screens.append(("review", review))
        var help = model()
        help.showHelp = true
        help.helpScroll = 2
        screens.append(("help", help))
        for prompt in [SessionPrompt.confirmSubmit, .confirmEnd, .proctor] {
            var m = model()
            m.session?.prompt = prompt
            m.secret = TextEditor(text: "ab")
            screens.append(("prompt \(prompt)", m))
        }
        var start = model()
        start.session = nil
        start.phase = .start
        screens.append(("start", start))
        var startWithPassphrase = model(passphrase: true)
        startWithPassphrase.session = nil
        startWithPassphrase.phase = .start
        screens.append(("start with a passphrase", startWithPassphrase))
        var confirm = start
        confirm.phase = .confirmLock
        screens.append(("confirm lock", confirm))
        var banner = model()
        banner.phase = .lockedBanner
        screens.append(("banner", banner))
        var receipt = model()
        receipt.phase = .receipt(.init(status: .submitted, session: "keys", timeUsed: 60, answered: 0, total: 8,
                                      score: nil, resultPath: nil, problem: nil))
        screens.append(("receipt", receipt))
        return screens
    }

    /// Everything a key could change: the model's every field and the frame it draws.
    static func state(_ m: TakeModel) -> String {
        String(reflecting: m) + "\n" + Views.render(m, width: 80, height: 24).text
    }

    @Test func aKeyOutsideATakeScreensMapChangesNothingAndEveryOtherIsItsBindingsKey() {
        var reacted = 0
        for (name, m) in Self.takeScreens {
            let map = m.keyMap, before = Self.state(m)
            #expect(!map.bindings.isEmpty, "\(name) has keys")
            for key in Self.everyKey {
                var after = m
                let commands = after.handle(key, now: 1)
                guard let binding = map.binding(for: key) else {
                    #expect(commands.isEmpty, "\(name): \(key) is in no binding, yet it did \(commands)")
                    let unchanged = Self.state(after) == before
                    #expect(unchanged, "\(name): \(key) is in no binding, yet it changed the screen")
                    continue
                }
                if !commands.isEmpty || Self.state(after) != before { reacted += 1 }
                #expect(Self.says(binding, key, in: map), "\(name): the words '\(binding.words)' do not name \(key)")
            }
        }
        #expect(reacted > 300, "the keys in the maps do something (\(reacted) did)")
    }

    @Test func theKeysOfOneBindingDoTheSame() {
        for (name, m) in Self.takeScreens {
            for binding in m.keyMap.bindings where binding.keys.count > 1 {
                switch binding.action {
                case .answer(.pick), .answer(.edit), .edit, .leave: continue  // the key itself matters
                default: break
                }
                var first = m
                let firstCommands = first.handle(binding.keys[0], now: 1)
                for key in binding.keys.dropFirst() {
                    var other = m
                    #expect(other.handle(key, now: 1) == firstCommands, "\(name): \(key) and \(binding.keys[0])")
                    let same = Self.state(other) == Self.state(first)
                    #expect(same, "\(name): \(key) and \(binding.keys[0]) do the same")
                }
            }
        }
    }

    @Test func aKeyOutsideTheDemosMapChangesNothing() {
        var base = DemoModel(policy: RestrictionPolicy(), workshopAvailable: true, theme: .mono)
        base.field = TextEditor(text: "abc")
        base.logScroll = 5
        var confirming = base
        confirming.confirmQuit = true
        for (name, m) in [("demo", base), ("demo quit", confirming)] {
            for running in [false, true] {
                for key in Self.everyKey {
                    var after = m
                    let request = after.handle(key, sessionRunning: running)
                    if let binding = m.keyMap.binding(for: key) {
                        #expect(Self.says(binding, key, in: m.keyMap), "\(name): '\(binding.words)' does not name \(key)")
                    } else {
                        let unchanged = request == nil && String(reflecting: after) == String(reflecting: m)
                        #expect(unchanged, "\(name): \(key) is in no binding, yet it did something")
                    }
                }
            }
        }
        var m = base
        #expect(m.handle(.function(7), sessionRunning: false) == .begin)
        #expect(m.handle(.control("z"), sessionRunning: true) == .exitAttempt("Ctrl-Z"))
        #expect(m.handle(.function(9), sessionRunning: true) == nil && m.confirmQuit)
        #expect(m.handle(.character("y"), sessionRunning: true) == .quit)
        #expect(m.handle(.function(10), sessionRunning: false) == .note("In the demo: F7 begins, F8 ends, F5 opens the workshop test, F9 quits"))
    }

    @Test func aKeyOutsideTheConsolesMapChangesNothing() {
        var seats = ProctorModel(room: "lab", screenReader: false)
        seats.update(ProctorConsoleTests.room)
        _ = seats.handle(.down, pageSize: 2)
        var report = seats
        report.report = (1...40).map { "line \($0)" }
        report.reportScroll = 3
        let empty = ProctorModel(room: nil, screenReader: false)
        for (name, m) in [("seats", seats), ("report", report), ("no seats", empty)] {
            for key in Self.everyKey {
                var after = m
                let action = after.handle(key, pageSize: 2)
                if let binding = m.keyMap.binding(for: key) {
                    #expect(Self.says(binding, key, in: m.keyMap), "\(name): '\(binding.words)' does not name \(key)")
                    #expect(action != .none || after != m, "\(name): \(key) is in the map and does something")
                } else {
                    #expect(action == .none && after == m, "\(name): \(key) is in no binding, yet it did something")
                }
            }
        }
    }

    @Test func theConsolesFooterListsItsKeysJAndKIncluded() {
        var m = ProctorModel(room: "lab", screenReader: false)
        m.update(ProctorConsoleTests.room)
        m.storeLine = "updated 10:02:03"
        let bottom = ProctorView.render(m, width: 80, height: 24).lines[23]
        #expect(bottom == "updated 10:02:03 · ↑↓ j k: seat · Enter: integrity report · r: refresh · q: quit")
        #expect(m.handle(.character("j"), pageSize: 5) == .none && m.selectedSeat?.seat == "A4")
        let empty = ProctorView.render(ProctorModel(room: nil, screenReader: false), width: 80, height: 24).lines[23]
        #expect(empty.hasSuffix("· r: refresh · q: quit") && !empty.contains("Enter"), "no seat: only the keys that work")
    }

    @Test func everyFooterEntryIsABindingWithKeys() {
        var maps: [(String, [(String, String)], [Bool])] = []
        func add<A>(_ map: KeyMap<A>) {
            maps.append((map.name, map.footer(), map.bindings.filter { $0.footer != nil }.map { !$0.keys.isEmpty || $0.keyClass != nil }))
        }
        for (_, m) in Self.takeScreens { add(m.keyMap) }
        add(TakeKeys.question(linear: true))
        add(TakeKeys.review(linear: true))
        add(DemoModel.mainKeyMap)
        add(DemoModel.confirmQuitKeyMap)
        add(ProctorModel.seatsKeyMap)
        add(ProctorModel.reportKeyMap)
        add(ProctorModel.emptyKeyMap)
        for (name, footer, bound) in maps {
            #expect(footer.count == bound.count && bound.allSatisfy { $0 }, "\(name): each footer entry is a binding with keys")
        }
        #expect(TakeKeys.question(linear: true).footer().map(\.0) == ["Tab", "^F", "^R", "^S", "F1"], "no going back in a linear test")
        #expect(TakeKeys.review().footer().map(\.0) == ["↑↓", "Enter", "Esc", "s", "F1"])
    }

    @Test func everyScreenIsListedOnceAndTheQuestionListIsTheReadmes() {
        let names = KeyMaps.every.map(\.name)
        #expect(Set(names).count == names.count)
        for name in ["start", "begin", "question", "help", "review", "skip", "submit", "end", "proctor", "receipt",
                     "demo", "demo-quit", "console", "console-empty", "console-report"] {
            #expect(KeyMaps.listing(name) != nil, "\(name) is listed")
        }
        #expect(KeyTable.markdown == TakeKeys.question().listing.markdown)
        #expect(KeyTable.plainText.hasPrefix("Tab / Ctrl-N: next question"))
        #expect(TakeKeys.question().listing.rows.count == 16)
    }

    @Test func theReviewsHelpListsTheReviewsKeys() {
        var m = Self.model()
        m.phase = .test
        m.session?.status = .review
        _ = m.handle(.function(1), now: 0)
        let text = Views.render(m, width: 80, height: 24).text
        #expect(text.contains("go to the chosen question") && text.contains("submit (asks first)"))
    }

    @Test func whileTooSmallOnlyTheKeysThatLeaveOrAnswerAPromptWork() {
        var m = Self.model()
        #expect(m.reactsWhileTooSmall(.control("c")))
        #expect(!m.reactsWhileTooSmall(.tab) && !m.reactsWhileTooSmall(.character("a")))
        m.session?.prompt = .confirmSubmit
        #expect(m.reactsWhileTooSmall(.character("n")) && !m.reactsWhileTooSmall(.character("y")))
        m.session?.prompt = .confirmEnd
        #expect(m.reactsWhileTooSmall(.character("y")))
        m.session?.prompt = .proctor
        #expect(m.reactsWhileTooSmall(.character("p")) && m.reactsWhileTooSmall(.enter))
        m.session = nil
        m.phase = .start
        #expect(m.reactsWhileTooSmall(.escape) && m.reactsWhileTooSmall(.control("q")) && !m.reactsWhileTooSmall(.enter))
    }

    /// True when the binding's words (or those of the row it continues) name the key.
    static func says<A: Equatable>(_ binding: KeyBinding<A>, _ key: Key, in map: KeyMap<A>) -> Bool {
        if binding.keyClass != nil && !binding.keys.contains(key) { return true }
        var words = binding.words
        if words.isEmpty, let i = map.bindings.firstIndex(where: { $0.keys == binding.keys && $0.action == binding.action }) {
            words = map.bindings[..<i].last { !$0.words.isEmpty }?.words ?? ""
        }
        switch key {
        case let .character(c):
            if c == " " { return words.contains("Space") }
            if c.isLetter || c.isNumber, words.contains("a, b, c…") { return true }
            return words.contains(String(c).lowercased())
        case let .control(c): return words.contains("Ctrl-" + String(c).uppercased())
        case let .function(n): return words.contains("F\(n)")
        case .up: return words.contains("↑")
        case .down: return words.contains("↓")
        case .left: return words.contains("←")
        case .right: return words.contains("→")
        case .shiftUp: return words.contains("Shift-↑")
        case .shiftDown: return words.contains("Shift-↓")
        case .home: return words.contains("Home")
        case .end: return words.contains("End")
        case .pageUp: return words.contains("PgUp")
        case .pageDown: return words.contains("PgDn")
        case .tab: return words.contains("Tab")
        case .backTab: return words.contains("Shift-Tab")
        case .enter: return words.contains("Enter")
        case .escape: return words.contains("Esc")
        case .backspace: return words.contains("Backspace")
        case .delete: return words.contains("Delete")
        default: return false
        }
    }
}
