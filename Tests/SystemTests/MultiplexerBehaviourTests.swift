#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
@testable import Lockdown
import Testing

@Suite("Multiplexers recognised by what they do, not by their name")
struct MultiplexerBehaviourTests {
    /// Waits for a line starting with `EXIT=` in `path` and returns the whole file.
    static func waitForExit(_ path: String, timeout: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains("EXIT=") { return text }
            usleep(100_000)
        }
        return nil
    }

    /// Copies `tool` under a harmless name into the sandbox.
    static func renamed(_ tool: String, to name: String, in box: Sandbox) throws -> String? {
        guard let original = ChildSpawn.which(tool, environment: box.environment) else { return nil }
        let dir = box.root + "/bin"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let copy = "\(dir)/\(name)"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        chmod(copy, 0o755)
        return copy
    }

    /// The driver begins the strict assessment, its output and exit status in a file.
    static func driverLine(_ box: Sandbox, file: String, output: String, unset: String) -> String {
        "env -u \(unset) '\(ChildProcess.driver)' begin '\(file)' --state-dir '\(box.stateDir)' > '\(output)' 2>&1; echo EXIT=$? >> '\(output)'; sleep 30"
    }

    @Test func aRenamedTmuxWithTMUXUnsetIsRefused() throws {
        let box = try Sandbox()
        guard let notmux = try Self.renamed("tmux", to: "notmux", in: box) else {
            Issue.record("tmux is not installed (scripts/install-deps installs it)")
            return
        }
        let socket = box.root + "/mux.sock", output = box.root + "/driver.out"
        let line = Self.driverLine(box, file: try box.strictAssessment(), output: output, unset: "TMUX")
        let started = ChildSpawn.run(notmux, ["-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", line],
                                        environment: box.environment)
        defer { _ = ChildSpawn.run(notmux, ["-S", socket, "kill-server"], environment: box.environment) }
        #expect(started.status == 0, "\(started.output)")
        let text = try #require(Self.waitForExit(output))
        #expect(text.contains("EXIT=69"), "\(text)")
        #expect(text.contains("notmux"), "the holder is named by what it is: \(text)")
        #expect(text.contains("listens on \(socket)"), "\(text)")
        #expect(box.location.lockState == .free)
    }

    @Test func aRenamedScreenWithSTYUnsetIsRefused() throws {
        let box = try Sandbox()
        guard let notscreen = try Self.renamed("screen", to: "notscreen", in: box) else {
            Issue.record("GNU screen is not installed (scripts/install-deps installs it)")
            return
        }
        let output = box.root + "/driver.out"
        let line = Self.driverLine(box, file: try box.strictAssessment(), output: output, unset: "STY")
        let name = "carrel-\(UUID().uuidString.prefix(6))"
        var env = box.environment
        env["TERM"] = "xterm"
        env["SCREENDIR"] = box.root + "/screens"
        try FileManager.default.createDirectory(atPath: box.root + "/screens", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let started = ChildSpawn.run(notscreen, ["-dmS", name, "/bin/sh", "-c", line], environment: env)
        defer { _ = ChildSpawn.run(notscreen, ["-S", name, "-X", "quit"], environment: env) }
        #expect(started.status == 0, "\(started.output)")
        let text = try #require(Self.waitForExit(output))
        #expect(text.contains("EXIT=69"), "\(text)")
        #expect(text.contains("notscreen"), "\(text)")
    }

    /// A relay that keeps the terminal it works in on another descriptor than its input, and
    /// has no controlling terminal, still runs inside another terminal.
    @Test func aRelayHidingItsOwnTerminalIsStillRefused() throws {
        let box = try Sandbox()
        let script = try #require(ChildSpawn.which("script", environment: box.environment), "script(1) (bsdutils) is installed")
        let relay = box.root + "/relay.py"
        try """
            import os, pty, sys
            os.dup2(0, 5)
            quiet = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(quiet, fd)
            os.setsid()
            pid, master = pty.fork()
            if pid == 0:
                os.execv("/bin/sh", ["/bin/sh", "-c", sys.argv[1]])
            os.waitpid(pid, 0)
            """.write(toFile: relay, atomically: true, encoding: .utf8)
        let output = box.root + "/driver.out"
        let line = "'\(ChildProcess.driver)' begin '\(try box.strictAssessment())' --state-dir '\(box.stateDir)' > '\(output)' 2>&1; echo EXIT=\\$? >> '\(output)'"
        let command = "python3 '\(relay)' \"\(line)\""
        _ = ChildSpawn.runOutsideRunner(script, ["-qfec", command, "/dev/null"], environment: box.environment, timeout: 30)
        #expect(Eventually.poll(20) { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("EXIT=") })
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(text.contains("EXIT=69") && text.contains("python3") && text.contains("runs inside another terminal"), "\(text)")
        #expect(box.location.lockState == .free)
    }

    @Test func aPlainTerminalHoldingOneMasterWithNoControlChannelIsNotAMultiplexer() throws {
        let box = try Sandbox()
        // script(1) holds the master of the pty the driver runs on, like a terminal emulator.
        guard let script = ChildSpawn.which("script", environment: box.environment) else {
            Issue.record("script(1) (bsdutils) is not installed")
            return
        }
        let output = box.root + "/driver.out"
        let command = "'\(ChildProcess.driver)' begin '\(try box.strictAssessment())' --state-dir '\(box.stateDir)' > '\(output)' 2>&1"
        // Outside the runner's own terminal: run inside tmux, the runner's ancestors are tmux's.
        let r = ChildSpawn.runOutsideRunner(script, ["-qfec", command, "/dev/null"], environment: box.environment, timeout: 30)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        #expect(text.hasPrefix("began "), "\(text) \(r.output)")
    }

    @Test func theVerdictFollowsWhatTheHolderDoes() {
        let terminal = TerminalMultiplexer.Holder(pid: 10, name: "gnome-terminal-", masters: 5, controlChannels: [], ownTerminal: nil)
        #expect(terminal.verdict == nil, "a terminal with several tabs is still a terminal")
        let server = TerminalMultiplexer.Holder(pid: 11, name: "x", masters: 1, controlChannels: ["/tmp/s"], ownTerminal: nil)
        #expect(server.verdict?.contains("listens on /tmp/s") == true)
        let relay = TerminalMultiplexer.Holder(pid: 12, name: "script", masters: 1, controlChannels: [], ownTerminal: "/dev/pts/3")
        #expect(relay.verdict?.contains("runs inside another terminal (/dev/pts/3)") == true)
    }

    @Test func ptyDevicesAreDecodedAsTheKernelEncodesThem() {
        #expect(TerminalMultiplexer.ptyIndex(device: 136 << 8 | 5) == 5)
        #expect(TerminalMultiplexer.ptyIndex(device: 4 << 8 | 1) == nil, "a virtual console is not a pty")
        #expect(TerminalMultiplexer.ptsNumber("/dev/pts/12") == 12)
        #expect(TerminalMultiplexer.ptsNumber("/dev/tty1") == nil)
    }
}
