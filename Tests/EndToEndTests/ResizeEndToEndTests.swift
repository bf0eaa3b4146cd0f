#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Testing

extension TmuxHarness {
    /// Waits until the window's screen satisfies `done`, looking every 10 ms; returns the
    /// screen and the seconds it took, or nil after the timeout.
    func waitForScreen(_ window: String, timeout: Double = 20, _ done: (String) -> Bool) -> (screen: String, seconds: Double)? {
        let start = Date()
        repeat {
            let s = screen(window)
            if done(s) { return (s, Date().timeIntervalSince(start)) }
            usleep(10_000)
        } while Date().timeIntervalSince(start) < timeout
        return nil
    }

    /// tmux passes a pane's next resize to its program only 250 ms after the last one (it
    /// batches them): waiting that long keeps tmux's delay out of the time the test prints.
    static func pastResizeBatching() { usleep(300_000) }

    /// The screen's lines but the one with the test's clock, which changes by itself.
    static func steady(_ screen: String) -> [String] {
        screen.components(separatedBy: "\n").filter { !$0.contains(" left") }
    }
}

/// A terminal made too small, then grown back: the whole screen returns as soon as it fits,
/// with no blank spell waiting for the loop's next turn. How soon is a benchmark figure
/// (`scripts/bench --only resize`); here the test only asks that it returns, whole.
@Suite("Resizing end to end (tmux)", .serialized)
struct ResizeEndToEndTests {
    /// Makes window `w` too small (`asking` is what the screen then says), grows it back to
    /// 80×24, and waits for `whole` to hold of the screen again: when, or nil.
    static func shrinkAndGrowBack(_ t: TmuxHarness, _ w: String, to small: (Int, Int), asking: String,
                                  until whole: (String) -> Bool) -> (screen: String, seconds: Double)? {
        t.run(["resize-window", "-t", "e2e:\(w)", "-x", "\(small.0)", "-y", "\(small.1)"])
        #expect(t.waitFor(w, asking) != nil)
        TmuxHarness.pastResizeBatching()
        t.run(["resize-window", "-t", "e2e:\(w)", "-x", "80", "-y", "24"])
        return t.waitForScreen(w, whole)
    }

    @Test(.timeLimit(.minutes(4)))
    func aQuestionComesBackWholeWhenTheTerminalGrowsBack() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        #expect(t.begin("w", file))
        let whole = try #require(t.waitFor("w", "F1 help"))
        #expect(whole.contains("What is the capital of Canada?"))

        let back = Self.shrinkAndGrowBack(t, "w", to: (60, 20), asking: "Please enlarge the terminal") {
            TmuxHarness.steady($0) == TmuxHarness.steady(whole)
        }
        #expect(back != nil, "the question is back as it was:\n\(t.screen("w"))")
        if let back { print("question back \(Int(back.seconds * 1000)) ms after the resize (tmux, polled)") }

        // Smaller and back in one go (tmux asks a program to redraw this way): whatever the
        // program saw of it, the whole question is on screen again.
        t.run(["resize-window", "-t", "e2e:w", "-x", "60", "-y", "20", ";", "resize-window", "-t", "e2e:w", "-x", "80", "-y", "24"])
        #expect(t.waitForScreen("w") { TmuxHarness.steady($0) == TmuxHarness.steady(whole) } != nil,
                "the question is back as it was:\n\(t.screen("w"))")

        t.keys("w", try #require(t.shownLetter("Ottawa", in: "w")))
        #expect(t.waitFor("w", "Ottawa selected") != nil, "keys act as before")
        #expect(t.submit("w"))
        let result = try #require(try t.result())
        #expect(result.events.contains { $0.kind == "resized" && $0.detail == "60x20" })
        #expect(result.events.contains { $0.kind == "resized" && $0.detail == "80x24" })
    }

    @Test(.timeLimit(.minutes(4)))
    func theDemoComesBackWholeWhenTheTerminalGrowsBack() throws {
        let t = try #require(TmuxHarness())
        t.start("demo", ["demo"])
        let whole = try #require(t.waitFor("demo", "PgUp log"))
        #expect(whole.contains("Carrel workshop demo"))

        let back = Self.shrinkAndGrowBack(t, "demo", to: (60, 20), asking: "Please enlarge the terminal") { $0 == whole }
        #expect(back != nil, "the demo is back as it was:\n\(t.screen("demo"))")
        if let back { print("demo back \(Int(back.seconds * 1000)) ms after the resize (tmux, polled)") }

        t.keys("demo", "F9")
        #expect(t.exitStatus("demo") == 0)
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func theProctorsConsoleComesBackWholeWhenTheTerminalGrowsBack() throws {
        let pg = try PrivatePostgres.shared()
        let url = try SharedEndToEndTests().urlWithPassword(pg, database: try pg.database())
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        t.start("seat", ["take", file, "--candidate", "Ada", "--shared", url, "--room", "lab7", "--seat", "A1"])
        #expect(t.waitFor("seat", "Proctor passphrase:") != nil)
        SharedEndToEndTests().startConsole(t, "console", ["proctor", "--shared", url, "--room", "lab7"])
        let seat = "Seat A1, Ada: not started"
        #expect(t.waitFor("console", seat) != nil)

        // The store's line says when it was read, each second: the title and the seat are compared.
        let back = Self.shrinkAndGrowBack(t, "console", to: (30, 8), asking: "Make this window") {
            $0.contains("Carrel proctor — room lab7") && $0.contains(seat) && !$0.contains("Make this")
        }
        #expect(back != nil, "the console is back whole:\n\(t.screen("console"))")
        if let back { print("console back \(Int(back.seconds * 1000)) ms after the resize (tmux, polled)") }

        t.keys("console", "q")
        #expect(t.exitStatus("console") == 0)
    }
}
