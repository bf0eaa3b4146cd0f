#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Testing

/// The real binary with a lab's shared store: a seat in one tmux window, the proctor's console
/// in another, against a private PostgreSQL.
@Suite("Shared store end to end (tmux)")
struct SharedEndToEndTests {
    /// Starts `carrel ARGS` without a state directory (the console has none).
    func startConsole(_ t: TmuxHarness, _ window: String, _ arguments: [String]) {
        let quoted = ([TmuxHarness.carrel] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        t.run(["new-window", "-d", "-n", window, "sh -c '\"$0\" \"$@\"; echo EXIT=$?; sleep 600' " + quoted.joined(separator: " ")])
        t.run(["resize-window", "-t", "e2e:\(window)", "-x", "80", "-y", "24"])
    }

    /// The store's URL with the password in it (the tmux windows have no password file).
    func urlWithPassword(_ pg: PrivatePostgres, database url: String) throws -> String {
        let password = try String(contentsOfFile: pg.folder + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return url.replacingOccurrences(of: "postgresql://carrel@", with: "postgresql://carrel:\(password)@")
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: PrivatePostgres.unavailable == nil, "needs PostgreSQL (scripts/install-deps)"))
    func theConsoleFollowsARealSeatAndOpensItsIntegrityReport() throws {
        let pg = try PrivatePostgres.shared()
        let url = try urlWithPassword(pg, database: try pg.database())
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        t.start("seat", ["take", file, "--candidate", "Ada", "--shared", url, "--room", "lab9", "--seat", "A1"])
        #expect(t.waitFor("seat", "Proctor passphrase:") != nil)
        startConsole(t, "console", ["proctor", "--shared", url, "--room", "lab9"])
        #expect(t.waitFor("console", "Carrel proctor — room lab9") != nil)
        // At its start screen the seat is there already, not started.
        #expect(t.waitFor("console", "Seat A1, Ada: not started, 0 of 8 answered") != nil)
        t.type("seat", "proctor phrase")
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Begin? y/N") != nil)
        t.keys("seat", "y")
        #expect(t.waitFor("seat", "This terminal is now locked to Carrel") != nil)
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Question 1 of") != nil)
        #expect(t.waitFor("console", "Seat A1, Ada: active, 0 of 8 answered") != nil)
        // The cursor is on the focused seat's row.
        #expect(t.cursorLine("console")?.hasPrefix("A1") == true)
        t.keys("seat", try #require(t.shownLetter("Ottawa", in: "seat")))
        #expect(t.waitFor("console", "1 of 8 answered", timeout: 5) != nil)
        t.keys("console", "Enter")
        #expect(t.waitFor("console", "Integrity report — seat A1, Ada") != nil)
        #expect(t.waitFor("console", "paste attempts") != nil)
        t.keys("console", "Escape")
        #expect(t.waitFor("console", "Seat A1, Ada") != nil)
        #expect(t.submit("seat"))
        #expect(t.waitFor("console", "submitted", timeout: 10) != nil)
        t.keys("console", "q")
        #expect(t.exitStatus("console") == 0)
        // The console wrote no password anywhere on screen.
        #expect(!t.screen("console").contains(url))
    }

    @Test(.timeLimit(.minutes(2)))
    func aPolicyThatRequiresTheStoreRefusesToBeginWhenItCannotBeReached() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml", replacing: [("policy: { multiplexer: allow }", "policy: { multiplexer: allow, shared: required }")])
        t.start("w", ["take", file, "--candidate", "Ada", "--shared", "postgresql://carrel@127.0.0.1:\(PrivatePostgres.freePort())/x"])
        #expect(t.exitStatus("w", timeout: 30) == 69)
        #expect(t.screen("w").replacingOccurrences(of: "\n", with: " ").contains("requires the lab's shared store"))
        // Nothing began: no session in the journal.
        #expect(((try? t.journal().sessions(status: nil)) ?? []).isEmpty)
    }
}
