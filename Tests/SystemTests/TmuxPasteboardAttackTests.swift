#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Lockdown
import SessionTestSupport
import Testing

/// What a student with a shell before the test tries against the tmux clearing, with real tmux
/// servers: a server on a socket of their choosing (`-S`) that holds Carrel's terminal while
/// TMUX says nothing, buffers that a hook adds back as fast as they are deleted, and a server
/// made to stall.
@Suite("tmux clearing against a student's tricks (real servers)")
struct TmuxPasteboardAttackTests {
    func clear(_ box: Sandbox) -> String {
        let r = ChildSpawn.run(ChildProcess.driver, ["pasteboard", "tmux"],
                               environment: ["TMUX_TMPDIR": box.tmuxDir, "PATH": Pasteboards.trustedPath, "HOME": box.root], timeout: 60)
        return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aServerHoldingTheSessionsTerminalIsClearedWhereverItsSocketIs() throws {
        let box = try Sandbox()
        let tmux = try #require(ChildSpawn.which("tmux", environment: box.environment), "tmux is installed")
        let hidden = box.root + "/h"
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: true)
        let socket = hidden + "/s"
        let run = { (arguments: [String]) in ChildSpawn.run(tmux, ["-S", socket] + arguments, environment: box.environment, timeout: 10) }
        try #require(run(["new-session", "-d", "-s", "t", "sleep 600"]).status == 0)
        defer { _ = run(["kill-server"]) }
        _ = run(["set-buffer", "-b", "notes", "notes from before the test"])
        // The session's process in a window of that server, with no TMUX to say so and the
        // socket folders elsewhere.
        let out = box.root + "/said"
        let command = "env -u TMUX TMUX_TMPDIR=\(box.tmuxDir) PATH=\(Pasteboards.trustedPath) HOME=\(box.root)"
            + " \(ChildProcess.driver) pasteboard tmux > \(out).part 2>&1; mv \(out).part \(out)"
        try #require(run(["new-window", "-d", command]).status == 0)
        #expect(Eventually.poll(30) { access(out, F_OK) == 0 }, "the session's process said nothing")
        let said = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(said.contains("cleared(\"1 buffer\")"), "\(said)")
        #expect(run(["list-buffers", "-F", "#{buffer_name}"]).output.isEmpty)
    }

    /// What clearing a sandbox server with `hook` set says.
    func clearHooked(_ hook: String, _ command: String) throws -> String {
        let box = try Sandbox()
        let server = try #require(TmuxServer(sandbox: box))
        _ = ChildSpawn.run(server.tmux, ["-S", server.socket, "set-hook", "-g", hook, command], environment: server.environment)
        server.setBuffer("notes", "notes from before the test")
        return clear(box)
    }

    @Test func buffersAHookAddsBackAreAFailureNotCleared() throws {
        let said = try clearHooked("after-list-buffers", "set-buffer -b again back")
        #expect(said.hasPrefix("failed(") && said.contains("still had buffers"), "\(said)")
    }

    @Test func aServerMadeToStallIsAFailureNotAbsent() throws {
        let said = try clearHooked("after-list-buffers", "run-shell 'sleep 20'")
        #expect(said.hasPrefix("failed(") && said.contains("did not list its buffers"), "\(said)")
    }

    /// A listener that never accepts (its backlog full) on a tmux socket's path does not hold
    /// the clearing: nothing behind it can serve a paste.
    @Test func aSocketThatNeverAcceptsDoesNotHoldTheClearing() throws {
        let box = try Sandbox()
        let dir = "\(box.tmuxDir)/tmux-\(getuid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = dir + "/default"
        let script = "import socket, sys, time\ns = socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(0)\n"
            + "c = socket.socket(socket.AF_UNIX)\nc.connect(sys.argv[1])\nprint('full', flush=True)\ntime.sleep(600)\n"
        let holder = try ChildProcess("/usr/bin/python3", ["-c", script, socket], environment: box.environment)
        defer {
            holder.signal(SIGKILL)
            holder.waitStatus()
        }
        #expect(holder.expect("full", timeout: 10) != nil)
        let started = Date()
        let said = clear(box)
        #expect(Date().timeIntervalSince(started) < 10, "\(said)")
        #expect(said == "notPresent", "\(said)")
    }
}
