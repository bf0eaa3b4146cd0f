import Testing
@testable import TerminalUI

/// Drives an InputDecoder as the reader does: bytes at their arrival times, and the clock
/// advanced to every deadline the decoder asks for in between.
struct DecoderRun {
    var decoder = InputDecoder()
    private(set) var outputs: [TerminalInput] = []
    private var clock = 0.0

    init(mode: InputDecoder.Mode = .answer) { decoder.mode = mode }

    mutating func wait(until time: Double) {
        while let deadline = decoder.nextDeadline, deadline <= time {
            clock = max(clock, deadline + 0.0001)
            outputs += decoder.advance(to: clock)
        }
        clock = max(clock, time)
        outputs += decoder.advance(to: clock)
    }

    mutating func send(_ bytes: [UInt8], at time: Double) {
        wait(until: time)
        outputs += decoder.feed(bytes, at: clock)
    }

    mutating func send(_ text: String, at time: Double) { send(Array(text.utf8), at: time) }

    /// Lets everything settle (long after the last input).
    mutating func finish() { wait(until: clock + 5) }

    var typedKeys: [Key] {
        outputs.flatMap { if case let .keys(k) = $0 { return k } else { return [] } }
    }

    /// The characters typed (keys that are characters, Enter as "\n").
    var typed: String {
        String(typedKeys.compactMap {
            switch $0 {
            case let .character(c): return c
            case .enter: return "\n"
            default: return nil
            }
        })
    }

    var pastes: [Int] {
        outputs.compactMap { if case let .paste(n, _) = $0 { return n } else { return nil } }
    }

    var focus: [Bool] {
        outputs.compactMap { if case let .focus(on) = $0 { return on } else { return nil } }
    }
}

let start = "\u{1B}[200~", end = "\u{1B}[201~"

/// A small reproducible generator for the property tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Input decoder: typing, pastes and their variants")
struct InputDecoderTests {
    // MARK: people typing are never a paste

    @Test(arguments: [0.03, 0.045, 0.06, 0.15])
    func twoHundredKeysTypedOneByOneAreTyping(interval: Double) {
        var run = DecoderRun()
        let text = String(repeating: "abcdefghij", count: 20)
        for (i, c) in text.enumerated() { run.send(String(c), at: Double(i) * interval) }
        run.finish()
        #expect(run.pastes.isEmpty)
        #expect(run.typed == text)
    }

    @Test func aLaggySSHLinkDeliveringAFewKeysPer150msIsTyping() {
        var run = DecoderRun()
        var expected = ""
        var t = 0.0
        for i in 0..<40 {
            let chunk = String(repeating: Character(UnicodeScalar(UInt8(97 + i % 26))), count: 3 + i % 5)  // 3 to 7 keys
            expected += chunk
            run.send(chunk, at: t)
            t += 0.15
        }
        run.finish()
        #expect(run.pastes.isEmpty)
        #expect(run.typed == expected)
    }

    @Test func jitterThatBunchesTwoSSHChunksIsStillTyping() {
        var run = DecoderRun()
        run.send("hello", at: 0)
        run.send("world", at: 0.05)
        run.send("again", at: 0.2)
        run.finish()
        #expect(run.pastes.isEmpty)
        #expect(run.typed == "helloworldagain")
    }

    @Test func typedTextComesThroughWithinAFractionOfASecond() {
        var decoder = InputDecoder()
        _ = decoder.feed(Array("a".utf8), at: 10)
        let deadline = decoder.nextDeadline ?? 99
        #expect(deadline > 10 && deadline < 10.2)
        #expect(decoder.advance(to: deadline + 0.001) == [.keys([.character("a")])])
    }

    // MARK: bursts across reads

    @Test(arguments: [0.01, 0.03, 0.06, 0.09, 0.11])
    func sevenCharacterChunksArrivingFasterThanTypingEnterNothing(interval: Double) {
        var run = DecoderRun()
        let text = String(repeating: "=HYPERLINK", count: 7)
        var chunks: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            chunks.append(String(rest.prefix(7)))
            rest = rest.dropFirst(7)
        }
        for (i, chunk) in chunks.enumerated() { run.send(chunk, at: Double(i) * interval) }
        run.finish()
        #expect(run.typed.isEmpty)
        #expect(run.pastes == [text.count])
    }

    @Test func oneCharacterEvery12msLikeXdotoolEntersNothing() {
        var run = DecoderRun()
        let text = String(repeating: "paste me ", count: 6)
        for (i, c) in text.enumerated() { run.send(String(c), at: Double(i) * 0.012) }
        run.finish()
        #expect(run.typed.isEmpty)
        #expect(run.pastes == [text.count])
    }

    @Test func eightOrMoreCharactersInOneReadAreAPaste() {
        var run = DecoderRun()
        run.send("Ottawa!!", at: 0)
        run.finish()
        #expect(run.typed.isEmpty)
        #expect(run.pastes == [8])
    }

    @Test func aPasteBetweenTypingTakesOnlyItself() {
        var run = DecoderRun()
        run.send("a", at: 0)
        run.send("b", at: 0.3)
        run.send("0123456789012345678901234567890123456789", at: 0.6)
        run.send("c", at: 1.5)
        run.finish()
        #expect(run.typed == "abc")
        #expect(run.pastes == [40])
    }

    // MARK: bracketed pastes and their markers

    @Test func aBracketedPasteEntersNothingAndCountsEveryCharacter() {
        var run = DecoderRun()
        run.send(start + "Ottawa is the capital" + end, at: 0)
        run.finish()
        #expect(run.typed.isEmpty)
        #expect(run.pastes == [21])
    }

    @Test func aPayloadCarryingEndThenStartMarkersIsOnePaste() {
        var run = DecoderRun()
        let payload = String(repeating: "a", count: 20) + end + String(repeating: "b", count: 10) + start + String(repeating: "c", count: 20)
        run.send(start + payload + end, at: 0)
        run.finish()
        #expect(run.typed.isEmpty)
        #expect(run.pastes == [50])
    }

    @Test func textJustBeforeAnEmptyMarkerPairIsPartOfThePaste() {
        for prefix in ["x", "Otta", "Ottawa!", String(repeating: "y", count: 50)] {
            var run = DecoderRun()
            run.send(prefix + start + end, at: 0)
            run.finish()
            #expect(run.typed.isEmpty, "\(prefix.count) characters before the markers")
            #expect(run.pastes == [prefix.count])
        }
    }

    @Test func anEmptyMarkerPairAfterTypingIsAnAttemptOfNoCharacters() {
        var run = DecoderRun()
        run.send("h", at: 0)
        run.send("i", at: 0.2)
        run.send(start + end, at: 1)
        run.finish()
        #expect(run.typed == "hi")
        #expect(run.pastes == [0])
    }

    @Test func textBeforeAnUnmatchedEndMarkerIsPaste() {
        var run = DecoderRun()
        run.send("typed", at: 0)
        run.send("ok", at: 1)
        run.send("sneaky" + end, at: 2)
        run.finish()
        #expect(run.typed == "typedok")
        #expect(run.pastes == [6])
    }

    @Test func anUnmatchedStartMarkerTakesWhatFollowsThenLetsTypingResume() {
        var run = DecoderRun()
        run.send(start + "abc", at: 0)
        run.send("d", at: 0.5)
        run.send("x", at: 3)
        run.send("y", at: 3.3)
        run.finish()
        #expect(run.pastes == [4])
        #expect(run.typed == "xy")
    }

    @Test func nestedMarkersStayOnePaste() {
        var run = DecoderRun()
        run.send(start + "ab" + start + "cd" + end + "ef" + end, at: 0)
        run.finish()
        #expect(run.typed.isEmpty)
        #expect(run.pastes == [6])
    }

    @Test func markersSplitAcrossReadsAreStillMarkers() {
        var run = DecoderRun()
        run.send("\u{1B}[20", at: 0)
        run.send("0~hello world\u{1B}[2", at: 0.005)
        run.send("01~", at: 0.3)
        run.finish()
        #expect(run.typed.isEmpty)
        #expect(run.pastes == [11])
    }

    @Test func aPasteCutAtEveryByteIsTheSamePaste() {
        let text = start + "Canberra" + end + "x" + start + "Ottawa" + end
        let bytes = Array(text.utf8)
        for cut in 1..<bytes.count {
            for gap in [0.0, 0.004, 0.04] {
                var run = DecoderRun()
                run.send(Array(bytes[..<cut]), at: 0)
                run.send(Array(bytes[cut...]), at: gap)
                run.finish()
                #expect(run.typed.isEmpty, "cut at \(cut), gap \(gap)")
                #expect(run.pastes.reduce(0, +) == 15, "cut at \(cut), gap \(gap)")
            }
        }
    }

    @Test func randomPayloadsInRandomReadsNeverEnterAnything() {
        var rng = SplitMix(state: 9)
        let pieces = ["a", "b", "Z", " ", "\r", "é", "日", start, end, "\u{1B}[A", "\t"]
        for round in 0..<300 {
            var payload = ""
            var characters = 0
            for _ in 0..<Int.random(in: 1...40, using: &rng) {
                let piece = pieces[Int.random(in: 0..<pieces.count, using: &rng)]
                payload += piece
                if piece != start && piece != end { characters += 1 }
            }
            let bytes = Array((start + payload + end).utf8)
            var run = DecoderRun()
            var i = 0
            var t = 0.0
            while i < bytes.count {
                let n = Int.random(in: 1...12, using: &rng)
                run.send(Array(bytes[i..<min(bytes.count, i + n)]), at: t)
                i += n
                t += Double.random(in: 0...0.02, using: &rng)
            }
            run.finish()
            #expect(run.typedKeys.isEmpty, "round \(round)")
            #expect(run.pastes.reduce(0, +) == characters, "round \(round)")
        }
    }

    @Test func aHugePasteIsCountedInFullAndKeptWithinBounds() {
        var run = DecoderRun()
        run.send(start + String(repeating: "x", count: 100_000) + end, at: 0)
        run.finish()
        #expect(run.pastes == [100_000])
        if case let .paste(_, keys)? = run.outputs.last { #expect(keys.count == InputDecoder.Tuning.standard.keptKeys) }
    }

    @Test func aPasteKeepsItsKeysForThePlacesThatAllowPasting() {
        var run = DecoderRun()
        run.send(start + "日本\r" + end, at: 0)
        run.finish()
        #expect(run.outputs == [.paste(characters: 3, keys: [.character("日"), .character("本"), .enter])])
    }

    // MARK: the proctor's secret line

    @Test func aProctorTypingFastIsNeverAPasteAndTheLineEndsTheExemption() {
        var run = DecoderRun(mode: .secret)
        run.send("correct horse battery staple\r", at: 0)
        #expect(run.typed == "correct horse battery staple\n")
        #expect(run.decoder.mode == .answer)
        run.send("answer text arriving fast", at: 0.5)
        run.finish()
        #expect(run.typed == "correct horse battery staple\n")
        #expect(run.pastes == [25])
    }

    @Test func whatFollowsASecretLineInTheSamePasteIsStillPaste() {
        var run = DecoderRun(mode: .secret)
        run.send(start + "guess\rOTTAWA" + end, at: 0)
        run.finish()
        #expect(run.typed == "guess\n")
        #expect(run.pastes == [6])
    }

    // MARK: keys and reports

    @Test func escapeSequencesBecomeKeys() {
        var run = DecoderRun()
        let sequences = ["\u{1B}[A", "\u{1B}OB", "\u{1B}[1;2A", "\u{1B}[1;2B", "\u{1B}[Z", "\u{1B}[5~", "\u{1B}[6~",
                         "\u{1B}[3~", "\u{1B}OP", "\u{1B}[15~", "\u{1B}[21~", "\u{1B}[[A", "\u{1B}[H", "\u{1B}[4~"]
        for (i, s) in sequences.enumerated() { run.send(s, at: Double(i) * 0.2) }
        run.finish()
        #expect(run.typedKeys == [.up, .down, .shiftUp, .shiftDown, .backTab, .pageUp, .pageDown, .delete, .function(1),
                                  .function(5), .function(10), .function(1), .home, .end])
        #expect(run.pastes.isEmpty)
    }

    @Test func controlsMapToTheirKeys() {
        var run = DecoderRun()
        for (i, byte) in [0x03, 0x1A, 0x1C, 0x7F, 0x09, 0x0D, 0x13].enumerated() { run.send([UInt8(byte)], at: Double(i) * 0.2) }
        run.finish()
        #expect(run.typedKeys == [.control("c"), .control("z"), .control("\\"), .backspace, .tab, .enter, .control("s")])
    }

    @Test func aLoneEscapeIsTheEscapeKeyOnceNothingFollows() {
        var run = DecoderRun()
        run.send([0x1B], at: 0)
        run.finish()
        #expect(run.typedKeys == [.escape])
    }

    @Test func focusReportsAreNeverTypedEvenInsideAPaste() {
        var run = DecoderRun()
        run.send("\u{1B}[O", at: 0)
        run.send("\u{1B}[I", at: 1)
        run.send(start + "ab\u{1B}[Ocd" + end, at: 2)
        run.finish()
        #expect(run.focus == [false, true, false])
        #expect(run.typedKeys.isEmpty)
        #expect(run.pastes == [4])
    }

    @Test func aCharacterSplitAcrossReadsIsOneCharacter() {
        var run = DecoderRun()
        let bytes = Array("é".utf8)
        run.send([bytes[0]], at: 0)
        run.send([bytes[1]], at: 0.01)
        run.finish()
        #expect(run.typed == "é")
    }

    @Test func bytesThatAreNotUTF8AreDropped() {
        var run = DecoderRun()
        run.send([0xFF], at: 0)
        run.send([0xC3, 0x41], at: 0.3)
        run.send([0xC2, 0x9B], at: 0.6)  // C1 CSI, as UTF-8
        run.finish()
        #expect(run.typed == "A")
    }
}
