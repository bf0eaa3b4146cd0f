import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit
import Testing

@Suite("carrel take runs an imported bank (tmux)", .serialized)
struct ImportedTakeEndToEndTests {
    static let gift = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImportKitTests/Fixtures/gift/every-construct.gift").path

    @Test(.timeLimit(.minutes(3)))
    func aGIFTBankImportedThenTaken() throws {
        let t = try #require(TmuxHarness())
        let imported = t.root + "/imported.yaml"
        let run = ChildSpawn.run(TmuxHarness.carrel, ["import", Self.gift, "--out", imported], environment: t.environment, timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        // The harness's own settings: inside tmux, with a proctor passphrase.
        let hash = try PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10)
        var text = try String(contentsOfFile: imported, encoding: .utf8)
        text = text.replacingOccurrences(of: "carrel: 1\n", with: "carrel: 1\npolicy: { multiplexer: allow }\nproctor: { passphrase: \"\(hash)\" }\n")
        try text.write(toFile: imported, atomically: true, encoding: .utf8)

        #expect(t.begin("w", imported))
        #expect(t.waitFor("w", "What is the capital of Canada?") != nil)
        t.keys("w", try #require(t.shownLetter("Ottawa", in: "w")))
        #expect(t.waitFor("w", "(•) ") != nil)
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Which of these are planets?") != nil)
        t.keys("w", try #require(t.shownLetter("Mars", in: "w")))
        #expect(t.waitFor("w", "1 checked") != nil)
        #expect(t.submit("w"))

        let result = try #require(try t.result())
        #expect(result.items.count == 21)
        #expect(result.items.first { $0.id == "canada-capital" }?.outcome == .correct)
        // Mars alone earns its 50 % credit of the planets question.
        #expect(result.items.first { $0.id == "planets" }?.points == 0.5)
        #expect(result.score.max == 21)
    }
}
