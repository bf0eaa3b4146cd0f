#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit
import Testing

extension TmuxHarness {
    /// Sends `text` as raw bytes in one command, as a terminal writes a paste.
    func bytes(_ window: String, _ text: String) {
        run(["send-keys", "-t", "e2e:\(window)", "-H"] + text.utf8.map { String(format: "%02x", $0) })
        // Long enough for the paste to settle and its notice to be logged.
        usleep(700_000)
    }

    /// The workshop test begun, at its short-answer question with "sch" typed.
    func typingSchIntoTheWorkshopWord(_ window: String) throws -> Bool {
        guard begin(window, try fixture("workshop.yaml")) else { return false }
        keys(window, "Tab", "Tab", "Tab")
        guard waitFor(window, "Question 4 of 9") != nil else { return false }
        type(window, "sch")
        return true
    }

    func carrel(_ arguments: [String]) -> ChildSpawn.Output {
        ChildSpawn.run(Self.carrel, arguments + ["--state-dir", stateDir], environment: environment, timeout: 30)
    }
}

@Suite("Lockdown attacks on carrel take end to end (tmux)", .serialized)
struct LockdownAttackEndToEndTests {
    static let start = "\u{1B}[200~", end = "\u{1B}[201~"

    @Test(.timeLimit(.minutes(3)))
    func noVariantOfAPasteEntersAnAnswerAndEachIsLoggedWithItsRealCount() throws {
        let t = try #require(TmuxHarness())
        #expect(try t.typingSchIntoTheWorkshopWord("w"))
        let s = Self.start, e = Self.end
        // End and start markers inside the payload.
        t.bytes("w", s + String(repeating: "a", count: 20) + e + String(repeating: "b", count: 10) + s + String(repeating: "c", count: 20) + e)
        // Text just before an empty marker pair, long and short.
        t.bytes("w", String(repeating: "x", count: 50) + s + e)
        t.bytes("w", "Ottawa!" + s + e)
        // Text before an end marker that has no start.
        t.bytes("w", "sneaky" + e)
        // Seven characters every 30 ms: no single read is large, the rate is.
        for _ in 0..<7 {
            t.run(["send-keys", "-t", "e2e:w", "-l", "=SUM(A1"])
            usleep(30_000)
        }
        usleep(800_000)
        #expect(t.screen("w").contains("Answer: sch\n"), "\(t.screen("w"))")
        t.type("w", "n")
        #expect(t.waitFor("w", "Answer: schn\n") != nil)
        #expect(t.submit("w"))
        let result = try #require(try t.result())
        #expect(result.items.first { $0.id == "word" }?.response == .string("schn"))
        let counts = result.events.filter { $0.kind == "paste_blocked" }.map(\.detail)
        #expect(counts == ["50 characters", "50 characters", "7 characters", "6 characters", "49 characters"], "\(counts)")
        let shown = t.carrel(["results", "show", result.session])
        #expect(shown.output.contains("paste attempts      5"), "\(shown.output)")
    }

    @Test(.timeLimit(.minutes(3)))
    func twoHundredKeysTypedAt30msAreNeverTakenForAPaste() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("workshop.yaml")
        #expect(t.begin("w", file))
        t.keys("w", "Tab", "Tab", "Tab", "Tab", "Tab")
        #expect(t.waitFor("w", "Question 6 of 9") != nil)
        let text = String(String(repeating: "the quick brown fox jumps ", count: 8).prefix(200))
        for ch in text {
            t.run(["send-keys", "-t", "e2e:w", "-l", String(ch)])
            usleep(30_000)
        }
        usleep(1_000_000)
        #expect(t.submit("w"))
        let result = try #require(try t.result())
        #expect(result.items.first { $0.id == "dog" }?.response == .string(text))
        #expect(!result.events.contains { $0.kind == "paste_blocked" })
    }

    @Test(.timeLimit(.minutes(4)))
    func takeWithAPreloadThatUnsetsItsVariableIsRefusedBeforeTheScreenChanges() throws {
        let t = try #require(TmuxHarness())
        let env = ["PATH": t.environment["PATH"] ?? "/usr/bin:/bin"]
        guard let cc = ["cc", "gcc", "clang"].lazy.compactMap({ ChildSpawn.which($0, environment: env) }).first else {
            Issue.record("no C compiler to build the preloaded library (scripts/install-deps installs gcc)")
            return
        }
        let source = t.root + "/hide.c", lib = t.root + "/hide.so"
        try "#include <stdlib.h>\n__attribute__((constructor)) static void hide(void) { unsetenv(\"LD_PRELOAD\"); }\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        #expect(ChildSpawn.run(cc, ["-shared", "-fPIC", "-o", lib, source], environment: env, timeout: 60).status == 0)
        let file = try t.fixture("workshop.yaml")
        let command = "sh -c 'LD_PRELOAD=\(lib) \"$0\" take \(file) --state-dir \(t.stateDir); echo EXIT=$?; sleep 600' \(TmuxHarness.carrel)"
        t.run(["new-window", "-d", "-n", "p", command])
        #expect(t.exitStatus("p") == 69)
        let screen = t.run(["capture-pane", "-p", "-J", "-t", "e2e:p"]).output
        #expect(screen.contains("\(lib) (injected through LD_PRELOAD"), "\(screen)")
        #expect(t.location.lockState == .free)
    }
}
