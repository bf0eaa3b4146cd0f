import AssessmentKit
import Foundation
import SessionKit
import SessionTestSupport
import Testing
@testable import TerminalUI

/// Keys answer at once without letting a paste in, and a frame is built only when something on
/// screen changed.
@Suite("Responsiveness: echo at once, frames only on change")
struct ResponsivenessTests {
    @Test func aKeyThatEditsNoTextActsAtOnceWhenNothingIsHeld() {
        for key: [UInt8] in [[0x09], [0x1B, 0x5B, 0x42], [0x1B, 0x5B, 0x36, 0x7E], [0x13]] {
            var decoder = InputDecoder()
            let out = decoder.feed(key, at: 1)
            guard case let .keys(keys)? = out.first else {
                Issue.record("\(key) was held: \(out)")
                continue
            }
            #expect(keys.count == 1)
        }
    }

    @Test func keysThatEditTextAreStillHeldAndJudged() {
        for key: [UInt8] in [Array("a".utf8), [0x0D], [0x7F], [0x1B, 0x5B, 0x33, 0x7E]] {
            var decoder = InputDecoder()
            #expect(decoder.feed(key, at: 1).isEmpty, "\(key) acts only once judged typing")
            #expect(decoder.tentative.count == 1, "and is shown as typed meanwhile")
        }
    }

    @Test func aTabBehindHeldTextWaitsForItSoOrderIsKept() {
        var run = DecoderRun()
        run.send("ab\t", at: 1)
        #expect(run.typedKeys.isEmpty, "the Tab waits behind the held text")
        run.finish()
        #expect(run.typedKeys == [.character("a"), .character("b"), .tab])
    }

    @Test func aBurstOfNavigationKeysIsStillAPaste() {
        var run = DecoderRun()
        run.send(Array(repeating: 0x09, count: 40), at: 1)
        run.finish()
        #expect(run.typedKeys.count <= Int(InputDecoder.Tuning.standard.capacity), "a few act, the burst does not")
        #expect(run.pastes.count == 1)
    }

    @Test func pastedTextThatStartsWithATabOrEnterPutsNothingIntoAnAnswer() {
        for lead: [UInt8] in [[0x09], [0x0D], [0x1B, 0x5B, 0x42]] {
            var run = DecoderRun()
            run.send(lead + Array("pasted text, well over seven characters".utf8), at: 1)
            run.finish()
            #expect(run.typed.filter { $0 != "\n" }.isEmpty, "no character enters: \(run.typed.debugDescription)")
            #expect(!run.typed.contains("\n"), "not even a line break")
            #expect(run.pastes.count == 1)
        }
    }

    @Test func heldKeysAreNoLongerShownOnceAPasteTakesThem() {
        var decoder = InputDecoder()
        _ = decoder.feed(Array("abc".utf8), at: 1)
        #expect(decoder.tentative == [.character("a"), .character("b"), .character("c")])
        _ = decoder.feed(Array("defghijklmnop".utf8), at: 1.01)
        #expect(decoder.tentative.isEmpty, "a paste: nothing is shown as typed")
    }

    func model(_ kind: Item.Kind) -> TakeModel {
        let item = Item(id: "q", prompt: "Answer.", kind: kind)
        let a = Assessment(id: "t", title: "T", timeLimit: 600, sections: [Section(items: [item])])
        var m = TakeModel(assessment: a, candidate: nil, timeAllowed: 600, theme: .mono, screenReader: false)
        m.session = SessionState(plan: SessionPlan.make(assessment: a, sessionID: "s", seed: 1, extraTime: .none), status: .active)
        m.phase = .test
        return m
    }

    @Test func heldTypingIsPreviewedOnTheFocusedTextOnly() throws {
        let text = model(.text(accept: ["x"], caseSensitive: false))
        let preview = try #require(text.typingPreview([.character("h"), .character("i")], now: 0))
        #expect(Views.render(preview, width: 80, height: 24).text.contains("Answer: hi"))
        #expect(text.editors["q"] == nil, "the model itself is unchanged")
        #expect(model(.choice(choices: ["a", "b"], answer: "a")).typingPreview([.character("a")], now: 0) == nil,
                "a choice is chosen only when the key is judged")
        #expect(text.typingPreview([.character("a"), .tab], now: 0) == nil, "only text is previewed")
    }

    static let yaml = """
        carrel: 1
        id: idle
        title: Idle
        time_limit: 10m
        sections:
          - items:
              - {id: word, type: text, prompt: Spell it., accept: [syzygy]}

        """

    /// Begins a session in memory, then lets `idleReads` empty reads pass (0.2 s each).
    func idle(screenReader: Bool, idleReads: Int) throws -> MemoryTerminal {
        let world = try MemoryWorld()
        let (assessment, source) = try MemoryWorld.assessment(Self.yaml)
        let model = TakeModel(assessment: assessment, candidate: "Ada", timeAllowed: 600, theme: .mono, screenReader: screenReader)
        let terminal = MemoryTerminal()
        terminal.type([.enter, .character("y"), .enter])
        for _ in 0..<idleReads { terminal.input.append(nil) }
        terminal.beforeRead = { world.clock.advance(0.2) }
        let app = TakeApp(model: model, terminal: terminal, monotonic: world.clock.sessionClock.monotonic)
        _ = app.run(begin: world.beginning(assessment, source))
        return terminal
    }

    @Test func nothingIsBuiltWhileIdleInScreenReaderMode() throws {
        let busy = try idle(screenReader: true, idleReads: 1).frames.count
        let idle = try idle(screenReader: true, idleReads: 51).frames.count
        #expect(idle == busy, "10 s of quiet built \(idle - busy) frames")
    }

    @Test func theClockAloneBuildsAFrameOncePerSecond() throws {
        let busy = try idle(screenReader: false, idleReads: 1).frames.count
        let idle = try idle(screenReader: false, idleReads: 51).frames.count
        #expect((9...11).contains(idle - busy), "10 s of quiet built \(idle - busy) frames")
    }
}
