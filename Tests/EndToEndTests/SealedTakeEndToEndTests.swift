#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SessionTestSupport
import Testing

extension TmuxHarness {
    /// Seals a fixture with `carrel seal` (the passphrase twice from a pipe); returns the package.
    func seal(_ yaml: String) -> String? {
        let package = (yaml as NSString).deletingPathExtension + ".carrel"
        let sealed = ChildSpawn.run(Self.carrel, ["seal", yaml, "--out", package], input: "proctor phrase\nproctor phrase\n",
                                    environment: environment, timeout: 60)
        return sealed.status == 0 ? package : nil
    }

    /// Every file under `folder` whose bytes contain `word`.
    func filesContaining(_ word: String, under folder: String) -> [String] {
        let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return names.filter { name in
            let path = "\(folder)/\(name)"
            guard let data = FileManager.default.contents(atPath: path) else { return false }
            return data.range(of: Data(word.utf8)) != nil
        }
    }
}

@Suite("carrel take of a sealed assessment end to end (tmux)", .serialized)
struct SealedTakeEndToEndTests {
    /// Words of Assessments/spelling.yaml the student below never types.
    static let untyped = ["syzygy", "rhythm", "necessary", "accommodate", "onomatopoeia", "colour"]

    @Test(.timeLimit(.minutes(4)))
    func aSealedSpellingTestLeavesNoAnswerKeyAtRestAndIsScoredCorrectly() throws {
        let t = try #require(TmuxHarness())
        let plain = try t.fixture("spelling.yaml")
        let package = try #require(t.seal(plain))
        #expect(t.filesContaining("syzygy", under: (package as NSString).deletingLastPathComponent) == ["spelling.yaml"])

        #expect(t.begin("w", package))
        t.type("w", "schnauzer")
        t.keys("w", "Tab")
        #expect(t.waitFor("w", "Question 2 of 8") != nil)
        t.type("w", "sizygy")
        #expect(t.waitFor("w", "✓ saved") != nil)

        // While the session runs (journal, -wal and -shm all in use) nothing at rest has the key.
        for word in Self.untyped {
            #expect(t.filesContaining(word, under: t.stateDir).isEmpty, "\(word) at rest during the test")
        }
        let journal = try t.journal()
        let record = try #require(try journal.sessions(status: nil).first)
        let stored = try journal.storedAssessment(fingerprint: record.fingerprint)
        #expect(stored.format == .sealed)
        #expect(stored.bytes == (try Data(contentsOf: URL(fileURLWithPath: package))))

        // A crash, then the proctor resumes: the passphrase opens the journal's sealed copy.
        #expect(t.killAndResume("w", in: "r"))
        let resumed = try #require(t.waitFor("r", "Question 2 of 8"))
        #expect(resumed.contains("sizygy"))
        t.keys("r", "Tab")
        #expect(t.waitFor("r", "Question 3 of 8") != nil)
        #expect(t.submit("r"))

        let result = try #require(try t.result())
        #expect(result.items.map(\.outcome) == [.correct, .incorrect] + Array(repeating: .unanswered, count: 6))
        #expect(result.score.points == 1 && result.score.max == 8)
        #expect(result.assessment.fingerprint == record.fingerprint)
        #expect(result.assessment.fingerprint.hasPrefix("sealed:"), "the keyed fingerprint, never the content's")

        let exports = t.root + "/exports"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        for format in ["json", "csv"] {
            let out = ChildSpawn.run(TmuxHarness.carrel, ["results", "export", "--format", format, "--out", "\(exports)/all.\(format)",
                                                          "--state-dir", t.stateDir], environment: t.environment, timeout: 30)
            #expect(out.status == 0, "\(out.output)")
        }
        let shown = ChildSpawn.run(TmuxHarness.carrel, ["results", "show", result.session, "--state-dir", t.stateDir],
                                   environment: t.environment, timeout: 30)
        #expect(shown.status == 0)
        for word in Self.untyped { #expect(!shown.output.contains(word), "results show has \(word)") }
        // The content's own fingerprint would let a student confirm a guessed key offline.
        let plainHex = String(Fingerprint.of(try #require(AssessmentReader.read(
            bytes: Array(try Data(contentsOf: URL(fileURLWithPath: plain))), file: plain).assessment)).dropFirst("sha256:".count))
        for place in [t.stateDir, exports] { #expect(t.filesContaining(plainHex, under: place).isEmpty, "plain fingerprint in \(place)") }
        #expect(!shown.output.contains(plainHex))
        for word in Self.untyped {
            #expect(t.filesContaining(word, under: t.stateDir).isEmpty, "\(word) at rest after the test")
            #expect(t.filesContaining(word, under: exports).isEmpty, "\(word) in an export")
        }
        #expect(t.filesContaining("syzygy", under: (package as NSString).deletingLastPathComponent) == ["spelling.yaml"])
    }

    @Test(.timeLimit(.minutes(3)))
    func threeWrongPassphrasesExit77AndAreLoggedAndADamagedPackageExits65() throws {
        let t = try #require(TmuxHarness())
        let package = try #require(t.seal(try t.fixture("spelling.yaml")))
        t.start("w", ["take", package, "--candidate", "Ada"])
        // Before the passphrase, the start screen shows the package's public facts.
        let start = try #require(t.waitFor("w", "Proctor passphrase:"))
        #expect(start.contains("Spelling — week 12"))
        #expect(start.contains("8 questions · time allowed 15 minutes · no going back"))
        for attempt in 1...3 {
            t.type("w", "not the phrase \(attempt)")
            t.keys("w", "Enter")
            if attempt < 3 {
                #expect(t.waitFor("w", "That passphrase is not right (attempt \(attempt)") != nil)
                // The wait after a wrong passphrase drops keys typed meanwhile.
                usleep(useconds_t(Double(1 << (attempt - 1)) * 1_000_000 + 300_000))
            }
        }
        #expect(t.exitStatus("w") == 77)
        #expect(t.screen("w").contains("wrong proctor passphrase 3 times"))
        let attempts = try #require(PassphraseAttempts(stateDirectory: t.stateDir).read())
        #expect(attempts.recent.filter { !$0.accepted && $0.action == "launch spelling-week-12" }.count == 3)

        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: package)))
        bytes[bytes.count - 40] ^= 0x20
        let damaged = t.root + "/damaged.carrel"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        // Let the waits of the wrong passphrases above run out first.
        sleep(5)
        t.start("d", ["take", damaged, "--candidate", "Ada"])
        #expect(t.waitFor("d", "Proctor passphrase:") != nil)
        t.type("d", "proctor phrase")
        t.keys("d", "Enter")
        #expect(t.exitStatus("d", timeout: 30) == 65)
        let line = t.screen("d").replacingOccurrences(of: "\n", with: "")
        #expect(line.contains("damaged.carrel: error: sealed package is damaged or was changed (authentication failed)"))
    }
}
