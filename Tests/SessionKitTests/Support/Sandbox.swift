#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import AssessmentKit
import Lockdown
@testable import SessionKit

/// A private world for one test: its own state directory, its own tmux directory, and an
/// environment that does not leak the developer's tmux, display or preload settings.
final class Sandbox {
    let root: String
    let stateDir: String
    let tmuxDir: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        root = "\(base)/carrel-t-\(UUID().uuidString.prefix(8))"
        stateDir = root + "/state"
        tmuxDir = root + "/tmux"
        try FileManager.default.createDirectory(atPath: tmuxDir, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    var location: StateLocation { StateLocation.resolve(explicit: stateDir, environment: [:]) }

    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root,
            "LANG": "C.UTF-8",
            "TMUX_TMPDIR": tmuxDir,
        ]
    }

    /// Writes an assessment; multiplexer allowed so the suite also runs inside tmux.
    func assessment(_ name: String = "fixture.yaml", items: Int = 6, extra: String = "") throws -> String {
        var lines = ["carrel: 1", "id: fixture", "title: Fixture", "time_limit: 10m",
                     "policy: { multiplexer: allow }", extra, "sections:", "  - items:"]
        for i in 0..<items {
            lines.append("      - {id: q\(i), type: text, prompt: Question \(i), accept: [a\(i)]}")
        }
        let path = "\(root)/\(name)"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func driver(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(ChildProcess.driver, arguments + ["--state-dir", stateDir],
                         environment: environment.merging(extra) { $1 })
    }

    /// Starts the driver on `file` and waits for `began`; returns the process and session id.
    func begin(_ file: String, candidate: String = "Ada", _ more: [String] = []) throws -> (ChildProcess, String)? {
        let child = try driver(["begin", file, "--candidate", candidate] + more)
        guard let line = child.expect("began ") else { return nil }
        let parts = line.split(separator: " ")
        return (child, String(parts[1]))
    }

    func journal() throws -> Journal { try Journal(location: location) }

    func carrel(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: [String]) {
        let child = try ChildProcess(ChildProcess.carrel, arguments + ["--state-dir", stateDir], environment: environment)
        if let input { child.send(input) }
        child.closeInput()
        let out = child.readToEnd()
        return (child.waitStatus(), out)
    }
}

/// A private tmux server whose socket lives in the sandbox's tmux directory, where Carrel's
/// tmux backend finds it through TMUX_TMPDIR.
final class TmuxServer {
    let socket: String
    let environment: [String: String]
    let tmux: String

    init?(sandbox: Sandbox) {
        guard let tmux = ChildSpawn.which("tmux", environment: sandbox.environment) else { return nil }
        self.tmux = tmux
        let dir = "\(sandbox.tmuxDir)/tmux-\(getuid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        socket = "\(dir)/test"
        environment = sandbox.environment
        let started = ChildSpawn.run(tmux, ["-S", socket, "new-session", "-d", "-s", "t", "sleep 600"], environment: environment, timeout: 10)
        guard started.status == 0 else { return nil }
    }

    deinit {
        _ = ChildSpawn.run(tmux, ["-S", socket, "kill-server"], environment: environment)
    }

    func setBuffer(_ name: String, _ text: String) {
        _ = ChildSpawn.run(tmux, ["-S", socket, "set-buffer", "-b", name, text], environment: environment)
    }

    var buffers: [String] {
        let r = ChildSpawn.run(tmux, ["-S", socket, "list-buffers", "-F", "#{buffer_name}"], environment: environment)
        return r.output.split(separator: "\n").map(String.init).sorted()
    }
}

extension Response {
    var driverJSON: String {
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self)
    }
}
