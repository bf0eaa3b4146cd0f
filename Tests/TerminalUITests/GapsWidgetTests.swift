import AssessmentKit
import Foundation
import Testing
@testable import SessionKit
@testable import TerminalUI

/// A text with gaps at the keyboard: typing goes into the focused gap, ↑ ↓ and Enter move from
/// gap to gap, a pick gap takes ← → or a letter, and every move is said in words.
@Suite("Gap-fill questions on screen")
struct GapsWidgetTests {
    static let item = Item(id: "q", prompt: "It was {1} cold that we walked {2} the lake. Pick {3}.", points: 3, kind: .gaps([
        Gap(kind: .text(answers: [TextAnswer(text: "so")], caseSensitive: false)),
        Gap(kind: .choice(options: [ChoiceMark(text: "across", credit: 100), ChoiceMark(text: "along")], multiple: false)),
        Gap(kind: .choice(options: [ChoiceMark(text: "a", credit: 50), ChoiceMark(text: "b", credit: -50),
                                    ChoiceMark(text: "c", credit: 50)], multiple: true)),
    ]))

    func model(screenReader: Bool = false) -> TakeModel {
        let a = Assessment(id: "t", title: "T", timeLimit: 600, sections: [Section(items: [Self.item])])
        var m = TakeModel(assessment: a, candidate: nil, timeAllowed: 600, theme: .mono, screenReader: screenReader)
        m.session = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none), status: .active)
        m.phase = .test
        return m
    }

    /// Presses a key and keeps what the session would keep.
    func press(_ m: inout TakeModel, _ key: Key) {
        for command in m.handle(key, now: 0) {
            switch command {
            case let .session(.answer(id, r)), let .session(.edit(id, r)): m.session?.responses[id] = r
            default: break
            }
        }
    }

    @Test func typingFillsTheFocusedGapAndEnterMovesToTheNext() {
        var m = model()
        for c in "so" { press(&m, .character(c)) }
        #expect(m.session?.responses["q"] == .gaps([["so"], [], []]))
        press(&m, .enter)
        #expect(m.notice?.hasPrefix("Gap 2 of 3, after “cold that we walked”") == true, "\(m.notice ?? "")")
        press(&m, .right)
        #expect(m.session?.responses["q"] == .gaps([["so"], ["across"], []]))
        press(&m, .right)
        #expect(m.session?.responses["q"] == .gaps([["so"], ["along"], []]))
        #expect(m.notice == "along chosen")
        press(&m, .down)
        press(&m, .character("a"))
        press(&m, .character("c"))
        #expect(m.session?.responses["q"] == .gaps([["so"], ["along"], ["a", "c"]]))
        press(&m, .character("a"))
        #expect(m.session?.responses["q"] == .gaps([["so"], ["along"], ["c"]]))
        press(&m, .up)
        press(&m, .backspace)
        #expect(m.session?.responses["q"] == .gaps([["so"], [], ["c"]]))
        press(&m, .up)
        #expect(m.notice == "Gap 1 of 3, after “It was”: typed so")
        press(&m, .backspace)
        press(&m, .backspace)
        press(&m, .down)
        press(&m, .down)
        press(&m, .backspace)
        #expect(m.session?.responses["q"] == nil, "every gap open is no answer")
    }

    @Test func theCursorIsInTheFocusedFieldAndItsStateIsOnThatLine() {
        for screenReader in [false, true] {
            var m = model(screenReader: screenReader)
            for c in "very" { press(&m, .character(c)) }
            let screen = Views.render(m, width: 80, height: 24)
            let row = screen.lines[screen.cursor.row]
            let field = screenReader ? "[gap 1: very]" : "[1: very]"
            let start = try? #require(row.range(of: field))
            #expect(start != nil, "\(row)")
            if let start {
                let column = row.distance(from: row.startIndex, to: start.lowerBound) + field.count - 1
                #expect(screen.cursor.column == column, "the cursor after “very” in \(row)")
            }
        }
    }

    @Test func fieldsWrapWithTheTextAtAnyWidthAndNothingIsCut() {
        var m = model()
        for c in "a very long answer typed into the first gap" { press(&m, .character(c)) }
        for width in [80, 97, 120] {
            let screen = Views.render(m, width: width, height: 24)
            for line in screen.lines { #expect(TextWidth.of(line) <= width, "\(width): \(line)") }
            #expect(screen.text.contains("[2: choose ▾]"), "at \(width) the second field is whole")
            #expect(screen.text.contains("lake."))
        }
    }

    @Test func theLayoutKeepsAFieldWholeWithItsPunctuationAndBreaksOnlyText() {
        let layout = GapsLayout.make(prompt: "Words before {1}, then a verylongwordthatcannotfit and {2}.", count: 2, width: 16) {
            "[\($0 + 1): ______]"
        }
        for line in layout.lines { #expect(TextWidth.of(line) <= 16, "\(line)") }
        #expect(layout.lines.contains("[1: ______],"), "\(layout.lines)")
        #expect(layout.lines.contains("[2: ______]."), "\(layout.lines)")
        #expect(layout.places.map(\.gap) == [0, 1])
        for place in layout.places {
            let line = layout.lines[place.row]
            let (before, rest) = place.columns.lowerBound == 0 ? ("", line) : TextWidth.split(line, at: place.columns.lowerBound)
            #expect(TextWidth.of(before) == place.columns.lowerBound)
            #expect(rest.hasPrefix("[\(place.gap + 1): "))
        }
    }
}
