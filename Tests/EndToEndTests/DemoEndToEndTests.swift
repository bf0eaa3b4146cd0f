#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit
import Testing

@Suite("carrel demo end to end (tmux)", .serialized)
struct DemoEndToEndTests {
    @Test(.timeLimit(.minutes(4)))
    func beginPasteStatusRefuseEnd() throws {
        let t = try #require(TmuxHarness())
        t.setBuffer("before", "notes from before the demo")
        t.start("demo", ["demo"])
        #expect(t.waitFor("demo", "Carrel workshop demo") != nil)
        #expect(t.screen("demo").contains("No session"))
        t.keys("demo", "F7")
        #expect(t.waitFor("demo", "Begin session — succeeded") != nil)
        #expect(t.waitFor("demo", "lock held by pid") != nil)
        #expect(t.buffers.isEmpty, "buffers from before are cleared when the session begins")

        // Another terminal sees the session and cannot start one.
        let status = ChildSpawn.run(TmuxHarness.carrel, ["status", "--json", "--state-dir", t.stateDir], environment: t.environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
        let lock = try #require(object["lock"] as? [String: Any])
        #expect(lock["held"] as? Bool == true)
        #expect((lock["holder"] as? [String: Any])?["assessment"] as? String == "carrel-demo")
        let file = try t.fixture("geography.yaml")
        t.start("take", ["take", file, "--candidate", "Grace"])
        #expect(t.exitStatus("take") == 75)

        // A bracketed paste into the try field is blocked and logged.
        t.type("demo", "hi")
        t.setBuffer("cheat", "forty-two characters of somebody's notes!")
        t.run(["paste-buffer", "-p", "-b", "cheat", "-t", "e2e:demo"])
        #expect(t.waitFor("demo", "Paste blocked: 41 characters") != nil)
        #expect(t.screen("demo").contains("› hi\n"))

        // Quitting while the session runs asks first; "n" keeps it running.
        t.keys("demo", "F9")
        #expect(t.waitFor("demo", "Quitting ends it") != nil)
        t.type("demo", "n")
        #expect(t.waitFor("demo", "Quitting ends it", present: false) != nil)
        #expect(t.location.lockState != .free)

        t.setBuffer("during", "copied during the demo")
        t.keys("demo", "F8")
        #expect(t.waitFor("demo", "Session ended") != nil)
        let ended = t.screen("demo")
        #expect(ended.contains("Pasteboards cleared on exit: tmux (cleared 2 buffers)"), "\(ended)")
        #expect(t.location.lockState == .free)
        #expect(t.buffers.isEmpty, "buffers made during the session are gone")
        #expect(t.screen("demo").components(separatedBy: "Session ended").count == 2, "logged once")
        t.keys("demo", "F9")
        #expect(t.exitStatus("demo") == 0)
    }
}
