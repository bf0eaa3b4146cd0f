#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import Lockdown
import SessionTestSupport
import Testing

/// A tmux client does what its server tells it (run a shell, read and write files for it):
/// Carrel clears the buffers of servers that run this machine's tmux, and talks to no other
/// program on a socket a student made.
@Suite("Which tmux servers Carrel talks to")
@MainActor
struct TmuxServerCheckTests {
    /// A server that answers every client "run this shell" (as a tmux server answers
    /// `tmux -c`), as a student could leave on the socket Carrel clears; anyone may connect.
    nonisolated static let telling = """
        import os, socket, struct, sys
        path, program = sys.argv[1], sys.argv[2]
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        os.chmod(path, 0o777)
        s.listen(64)
        while True:
            c, _ = s.accept()
            data = program.encode() + b"\\0"
            c.send(struct.pack("<IHHII", 209, 16 + len(data), 0, 8, os.getpid()) + data)
        """

    @Test func aServerThatIsNotTmuxIsNotTalkedToAndTheClearingSaysSo() throws {
        let box = try Sandbox()
        let tmux = try #require(ChildSpawn.which("tmux", environment: box.environment), "tmux is installed")
        let dir = "\(box.tmuxDir)/tmux-\(getuid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let marker = box.root + "/ran"
        let program = box.root + "/told"
        try writeExecutable("#!/bin/sh\ntouch \(marker)\n", to: program)
        let socket = dir + "/default"
        let fake = try ChildProcess("/usr/bin/python3", ["-c", Self.telling, socket, program], environment: box.environment)
        defer { fake.signal(SIGKILL) }
        // Listening, not only bound (the file is there a moment before the server listens).
        #expect(Eventually.poll(5) { TmuxPasteboard.server(socket, tmux: tmux) == .other })
        let environment = ["TMUX_TMPDIR": box.tmuxDir, "PATH": Pasteboards.trustedPath]
        // On a machine so busy that the made-up server does not take a connection within the
        // second a connect is given, it is nothing there; asked again, as that is not what
        // this test looks at.
        var outcome = TmuxPasteboard(environment: environment).clear()
        for _ in 0..<3 where outcome == .notPresent { outcome = TmuxPasteboard(environment: environment).clear() }
        guard case let .failed(why) = outcome else {
            Issue.record("a made-up server was not said: \(outcome)")
            return
        }
        #expect(why.contains("not this machine's tmux"), "\(why)")
        #expect(access(marker, F_OK) != 0, "the made-up server had its program run")
    }

    @Test func aRealServerIsClearedAndAStaleSocketIsNothing() throws {
        let box = try Sandbox()
        let server = try #require(TmuxServer(sandbox: box))
        server.setBuffer("secret", "the answer")
        #expect(TmuxPasteboard.server(server.socket, tmux: server.tmux) == .tmux)
        // Cleared in a process of its own, as carrel clears it (the helper's deadline is not
        // measured on this test process's busy pool).
        let cleared = ChildSpawn.run(ChildProcess.driver, ["pasteboard", "tmux"],
                                     environment: ["TMUX_TMPDIR": box.tmuxDir, "PATH": Pasteboards.trustedPath], timeout: 60)
        #expect(cleared.output.contains("cleared(\"1 buffer\")"), "\(cleared.output)")
        let stale = "\(box.tmuxDir)/tmux-\(getuid())/stale"
        try UnixSocketFile.make(at: stale)
        #expect(TmuxPasteboard.server(stale, tmux: server.tmux) == .none)
    }
}
