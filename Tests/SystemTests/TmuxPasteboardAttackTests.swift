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

    /// The screen holding the session's terminal is cleared whatever STY says.
    @Test func theScreenHoldingTheTerminalIsClearedWithoutSTY() throws {
        let box = try Sandbox()
        let screen = try #require(ChildSpawn.which("screen", environment: box.environment), "screen is installed")
        let folder = box.root + "/screens"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = box.environment
        environment["SCREENDIR"] = folder
        let out = box.root + "/said", go = box.root + "/go"
        let command = "while [ ! -e \(go) ]; do sleep 0.1; done; env -u STY -u SCREENDIR PATH=\(Pasteboards.trustedPath) HOME=\(box.root)"
            + " \(ChildProcess.driver) pasteboard screen > \(out).part 2>&1; mv \(out).part \(out); sleep 600"
        #expect(ChildSpawn.run(screen, ["-dmS", "exam", "/bin/sh", "-c", command], environment: environment, timeout: 10).status == 0)
        defer { _ = ChildSpawn.run(screen, ["-S", "exam", "-X", "quit"], environment: environment, timeout: 10) }
        #expect(Eventually.poll(10) { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).count == 1 })
        _ = ChildSpawn.run(screen, ["-S", "exam", "-X", "register", "a", "notes from before the test"], environment: environment, timeout: 10)
        FileManager.default.createFile(atPath: go, contents: Data())
        #expect(Eventually.poll(30) { access(out, F_OK) == 0 }, "the session's process said nothing")
        let said = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(said.contains("cleared(\"the paste register and the named registers"), "\(said)")
    }

    /// tmux inside tmux: the outer server's buffers paste into the inner pane too, and are cleared.
    @Test func theServerEnclosingTheOneHoldingTheTerminalIsClearedToo() throws {
        let box = try Sandbox()
        let tmux = try #require(ChildSpawn.which("tmux", environment: box.environment), "tmux is installed")
        let outer = box.root + "/o", inner = box.root + "/i"
        let run = { (socket: String, arguments: [String]) in
            ChildSpawn.run(tmux, ["-S", socket] + arguments, environment: box.environment, timeout: 10)
        }
        try #require(run(outer, ["new-session", "-d", "-s", "o", "-x", "80", "-y", "24", "\(tmux) -S \(inner) new-session -s i 'sleep 600'"]).status == 0)
        defer {
            _ = run(inner, ["kill-server"])
            _ = run(outer, ["kill-server"])
        }
        #expect(Eventually.poll(10) { run(inner, ["list-clients"]).output.contains("/dev/pts/") }, "the inner server's client is attached")
        _ = run(outer, ["set-buffer", "-b", "outer", "notes in the outer server"])
        let out = box.root + "/said"
        let command = "env -u TMUX TMUX_TMPDIR=\(box.tmuxDir) PATH=\(Pasteboards.trustedPath) HOME=\(box.root)"
            + " \(ChildProcess.driver) pasteboard tmux > \(out).part 2>&1; mv \(out).part \(out)"
        try #require(run(inner, ["new-window", "-d", command]).status == 0)
        #expect(Eventually.poll(30) { access(out, F_OK) == 0 }, "the session's process said nothing")
        let said = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        #expect(said.contains("cleared(") && said.contains("on 2 servers"), "\(said)")
        #expect(run(outer, ["list-buffers", "-F", "#{buffer_name}"]).output.isEmpty)
    }

    /// `pasteboard BACKEND` run in a new window of the tmux server at `socket`, once `go`
    /// exists; what it said.
    func saidInWindow(_ box: Sandbox, tmux: String, socket: String, backend: String, before: () throws -> Void = {}) throws -> String {
        let out = box.root + "/said-\(backend)", go = box.root + "/go-\(backend)"
        let command = "while [ ! -e \(go) ]; do sleep 0.1; done; env -u TMUX -u STY TMUX_TMPDIR=\(box.tmuxDir) PATH=\(Pasteboards.trustedPath)"
            + " HOME=\(box.root) \(ChildProcess.driver) pasteboard \(backend) > \(out).part 2>&1; mv \(out).part \(out)"
        try #require(ChildSpawn.run(tmux, ["-S", socket, "new-window", "-d", command], environment: box.environment, timeout: 10).status == 0)
        try before()
        FileManager.default.createFile(atPath: go, contents: Data())
        #expect(Eventually.poll(30) { access(out, F_OK) == 0 }, "the session's process said nothing")
        return (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    }

    /// tmux in a relay (`script`) in tmux, and screen outside tmux: each on the way from the
    /// session's terminal outwards is cleared.
    @Test func multiplexersFurtherOutThroughARelayAreClearedToo() throws {
        let box = try Sandbox()
        let tmux = try #require(ChildSpawn.which("tmux", environment: box.environment), "tmux is installed")
        let screen = try #require(ChildSpawn.which("screen", environment: box.environment), "screen is installed")
        let outer = box.root + "/o", relayed = box.root + "/r"
        var environment = box.environment
        environment["SCREENDIR"] = box.root + "/screens"
        try FileManager.default.createDirectory(atPath: box.root + "/screens", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let run = { (socket: String, arguments: [String]) in ChildSpawn.run(tmux, ["-S", socket] + arguments, environment: environment, timeout: 10) }
        defer {
            for socket in [relayed, outer] { _ = run(socket, ["kill-server"]) }
            _ = ChildSpawn.run(screen, ["-S", "outer", "-X", "quit"], environment: environment, timeout: 10)
        }
        // screen, holding tmux `outer`, which holds `script`, which holds tmux `relayed`.
        try writeExecutable("#!/bin/sh\nexec env -u TMUX script -qfc \"\(tmux) -S \(relayed) new-session -s r 'sleep 600'\" /dev/null\n",
                            to: box.root + "/relay.sh")
        try writeExecutable("#!/bin/sh\nexec env -u STY \(tmux) -S \(outer) new-session -s o \(box.root)/relay.sh\n", to: box.root + "/outer.sh")
        #expect(ChildSpawn.run(screen, ["-dmS", "outer", box.root + "/outer.sh"], environment: environment, timeout: 10).status == 0)
        #expect(Eventually.poll(15) { run(relayed, ["list-clients"]).output.contains("/dev/pts/") }, "the relayed server's client is attached")
        _ = run(outer, ["set-buffer", "-b", "outer", "notes in the outer server"])
        _ = ChildSpawn.run(screen, ["-S", "outer", "-X", "register", "a", "notes in screen"], environment: environment, timeout: 10)
        let tmuxSaid = try saidInWindow(box, tmux: tmux, socket: relayed, backend: "tmux")
        #expect(tmuxSaid.contains("cleared(") && tmuxSaid.contains("on 2 servers"), "\(tmuxSaid)")
        #expect(run(outer, ["list-buffers", "-F", "#{buffer_name}"]).output.isEmpty)
        let screenSaid = try saidInWindow(box, tmux: tmux, socket: relayed, backend: "screen")
        #expect(screenSaid.contains("cleared(\"the paste register and the named registers"), "\(screenSaid)")
    }

    /// The server holding the session's terminal, its socket deleted or its path given to
    /// another server, can no longer be asked: a failure, not "not present" or "cleared" (its
    /// clients can still paste).
    @Test(arguments: [false, true])
    func aServerHoldingTheTerminalThatCannotBeAskedIsAFailure(swapped: Bool) throws {
        let box = try Sandbox()
        let tmux = try #require(ChildSpawn.which("tmux", environment: box.environment), "tmux is installed")
        let socket = box.root + "/w"
        let run = { (arguments: [String]) in ChildSpawn.run(tmux, ["-S", socket] + arguments, environment: box.environment, timeout: 10) }
        try #require(run(["new-session", "-d", "-s", "t", "sleep 600"]).status == 0)
        let pid = run(["display", "-p", "#{pid}"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        defer {
            if let holder = Int32(pid) { kill(holder, SIGKILL) }
            _ = run(["kill-server"])
        }
        _ = run(["set-buffer", "-b", "notes", "notes from before the test"])
        let said = try saidInWindow(box, tmux: tmux, socket: socket, backend: "tmux") {
            try FileManager.default.removeItem(atPath: socket)
            if swapped { #expect(run(["new-session", "-d", "-s", "decoy", "sleep 600"]).status == 0) }
        }
        #expect(said.contains("failed(") && said.contains("cannot be reached"), "\(said)")
    }

    /// Thousands of buffers are deleted many to a command, well within the budget.
    @Test func thousandsOfBuffersAreDeletedQuickly() throws {
        let box = try Sandbox()
        let server = try #require(TmuxServer(sandbox: box))
        let script = box.root + "/buffers.tmux"
        try (0..<3000).map { "set-buffer -b n\($0) x" }.joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        _ = ChildSpawn.run(server.tmux, ["-S", server.socket, "source-file", script], environment: server.environment, timeout: 30)
        // Names tmux could read as the end of a command, or as an option (set as tmux reads
        // them: "\\;" is ";").
        for name in ["\\;", "a\\;", "-t"] { server.setBuffer(name, "x") }
        #expect(Set(server.buffers).isSuperset(of: [";", "a;", "-t"]) && server.buffers.count == 3003)
        let started = Date()
        let said = clear(box)
        #expect(said == "cleared(\"3003 buffers\")", "\(said)")
        #expect(server.buffers.isEmpty)
        #expect(Date().timeIntervalSince(started) < 6, "took \(Date().timeIntervalSince(started)) s")
    }

    /// A copy of tmux holding the session's terminal is no tmux Carrel talks to: what it keeps
    /// cannot be cleared, and the outcome says so.
    @Test func aCopyOfTmuxHoldingTheTerminalIsAFailure() throws {
        let box = try Sandbox()
        let tmux = try #require(ChildSpawn.which("tmux", environment: box.environment), "tmux is installed")
        let copy = box.root + "/t"
        try FileManager.default.copyItem(atPath: tmux, toPath: copy)
        let socket = box.root + "/c"
        let run = { (arguments: [String]) in ChildSpawn.run(copy, ["-S", socket] + arguments, environment: box.environment, timeout: 10) }
        try #require(run(["new-session", "-d", "-s", "t", "sleep 600"]).status == 0)
        defer { _ = run(["kill-server"]) }
        _ = run(["set-buffer", "-b", "notes", "notes from before the test"])
        let said = try saidInWindow(box, tmux: copy, socket: socket, backend: "tmux")
        #expect(said.contains("failed(") && said.contains("tmux or screen: what it keeps cannot be cleared"), "\(said)")
    }
}
