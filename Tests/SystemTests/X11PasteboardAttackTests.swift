#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Lockdown
import Testing

/// What a student with a shell before the test tries against the X11 clearing, under Xvfb: a
/// DISPLAY that names a display of theirs (or none) while the desktop holds the text, the
/// selections and buffers besides CLIPBOARD and PRIMARY, and a program that takes the
/// clipboard straight back.
@Suite("X11 clearing against a student's tricks, under Xvfb",
       .enabled(if: TestEnvironment.runs(whenInstalled: VirtualDisplay.toolsInstalled), "needs Xvfb and xsel (scripts/install-deps)"))
struct X11PasteboardAttackTests {
    /// Two displays (the desktop's and a decoy), one cookie file that opens both.
    func displays(_ box: Sandbox) -> (desktop: VirtualDisplay, decoy: VirtualDisplay)? {
        guard case let .success(desktop) = VirtualDisplay.start(box), case let .success(decoy) = VirtualDisplay.start(box) else {
            if TestEnvironment.underCI { Issue.record("the X servers could not start under CI") }
            return nil
        }
        let merged = ChildSpawn.run("/usr/bin/xauth", ["-f", desktop.session["XAUTHORITY"] ?? "", "merge", decoy.session["XAUTHORITY"] ?? ""],
                                    environment: box.environment)
        #expect(merged.status == 0, "\(merged.output)")
        return (desktop, decoy)
    }

    /// The backend run in the test driver (a process of its own, as carrel runs it). On a
    /// machine busy enough that a helper misses its deadline the clearing honestly says it
    /// failed; that is asked again (a few times), as it is not what these tests look at.
    func clear(_ box: Sandbox, _ extra: [String: String]) -> String {
        var environment = box.environment.filter { $0.key != "DISPLAY" }
        environment.merge(extra) { $1 }
        var said = ""
        for _ in 0..<3 {
            let r = ChildSpawn.run(ChildProcess.driver, ["pasteboard", "x11"], environment: environment, timeout: 60)
            said = r.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let late = ["did not answer", "could not read the cut buffers", "was not cleared within", "not checked"]
            if !late.contains(where: said.contains) { break }
        }
        return said
    }

    @Test func theDesktopsDisplayIsClearedWhateverDisplayTheSessionIsGiven() throws {
        let box = try Sandbox()
        guard let (desktop, decoy) = displays(box) else { return }
        let cookies = desktop.session["XAUTHORITY"] ?? ""
        // The machine's displays as this test's two (other tests' displays run as this user
        // too, and would be failures: displays of this user that Carrel cannot open).
        let sockets = box.root + "/x11-unix"
        try FileManager.default.createDirectory(atPath: sockets, withIntermediateDirectories: true)
        for display in [desktop.display, decoy.display] {
            let name = "X" + display.dropFirst()
            try FileManager.default.createSymbolicLink(atPath: sockets + "/" + name, withDestinationPath: "/tmp/.X11-unix/" + name)
        }
        for var given in [["DISPLAY": decoy.display, "XAUTHORITY": cookies], ["XAUTHORITY": cookies]] {
            given["DRIVER_X11_SOCKETS"] = sockets
            desktop.fill("notes from before the test")
            _ = ChildSpawn.run(desktop.xsel, ["--secondary", "--input"], input: "secondary notes", environment: desktop.environment)
            desktop.setRootProperty("CUT_BUFFER0", "cut buffer notes")
            // xsel forks the owner, which takes the selection a moment later.
            #expect(Eventually.poll(5) { desktop.secondary == "secondary notes" })
            #expect(desktop.rootProperty("CUT_BUFFER0").contains("cut buffer notes"), "the stand-in cut buffer is really there")
            let said = clear(box, given)
            #expect(said.hasPrefix("cleared(") && said.contains(desktop.display), "\(said)")
            #expect(desktop.clipboard.isEmpty && desktop.primary.isEmpty && desktop.secondary.isEmpty, "\(given)")
            #expect(!desktop.rootProperty("CUT_BUFFER0").contains("cut buffer notes"), "\(given)")
        }
    }

    /// A keeper that offers the text only as COMPOUND_TEXT (what xterm asks for), not as
    /// what xsel reads: taken back all the same.
    @Test(arguments: ["UTF8_STRING", "COMPOUND_TEXT"])
    func aClipboardTakenStraightBackIsAFailureNotCleared(offered: String) throws {
        let box = try Sandbox()
        guard case let .success(display) = VirtualDisplay.start(box) else {
            if TestEnvironment.underCI { Issue.record("the X server could not start under CI") }
            return
        }
        guard let xclip = ChildSpawn.which("xclip", environment: box.environment) else {
            if TestEnvironment.underCI { Issue.record("xclip is not installed under CI (scripts/install-deps installs it)") }
            return
        }
        // A loop that owns the clipboard again each time it loses it.
        let keeper = try ChildProcess("/bin/sh", ["-c", "while :; do printf 'kept notes' | \(xclip) -selection clipboard -t \(offered) -quiet; done"],
                                      environment: display.environment)
        defer {
            keeper.signal(SIGKILL)
            keeper.waitStatus()
            _ = ChildSpawn.run("/usr/bin/pkill", ["-f", "xclip -selection clipboard -t \(offered) -quiet"], environment: box.environment)
        }
        let deadline = Date().addingTimeInterval(10)
        let offers = { ChildSpawn.run(xclip, ["-selection", "clipboard", "-o", "-t", offered], environment: display.environment).output }
        while Date() < deadline && offers() != "kept notes" { usleep(50_000) }
        #expect(offers() == "kept notes")
        let said = clear(box, display.session)
        #expect(said.hasPrefix("failed(") && said.contains("CLIPBOARD") && said.contains("taking it back"), "\(said)")
    }
}
