#if canImport(Glibc)
import Glibc
#endif
import Foundation
import AssessmentKit
import Lockdown
import SessionKit

/// A private world for one test: its own state directory, its own tmux directory, and an
/// environment that does not leak the developer's tmux, display or preload settings.
public final class Sandbox {
    public let root: String
    public let stateDir: String
    public let tmuxDir: String

    public init() throws {
        let base = FileManager.default.temporaryDirectory.path
        root = "\(base)/carrel-t-\(UUID().uuidString.prefix(8))"
        stateDir = root + "/state"
        tmuxDir = root + "/tmux"
        try FileManager.default.createDirectory(atPath: tmuxDir, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    public var location: StateLocation { StateLocation.resolve(explicit: stateDir, environment: [:]) }

    public var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root,
            "LANG": "C.UTF-8",
            "TMUX_TMPDIR": tmuxDir,
        ]
    }

    /// Writes an assessment; multiplexer allowed so the suite also runs inside tmux.
    public func assessment(_ name: String = "fixture.yaml", items: Int = 6, extra: String = "") throws -> String {
        var lines = ["carrel: 1", "id: fixture", "title: Fixture", "time_limit: 10m",
                     "policy: { multiplexer: allow }", extra, "sections:", "  - items:"]
        for i in 0..<items {
            lines.append("      - {id: q\(i), type: text, prompt: Question \(i), accept: [a\(i)]}")
        }
        let path = "\(root)/\(name)"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    public func driver(_ arguments: [String], environment extra: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(ChildProcess.driver, arguments + ["--state-dir", stateDir],
                         environment: environment.merging(extra) { $1 })
    }

    /// Starts the driver on `file` and waits for `began`; returns the process and session id.
    public func begin(_ file: String, candidate: String = "Ada", _ more: [String] = []) throws -> (ChildProcess, String)? {
        let child = try driver(["begin", file, "--candidate", candidate] + more)
        guard let line = child.expect("began ") else { return nil }
        let parts = line.split(separator: " ")
        return (child, String(parts[1]))
    }

    public func journal() throws -> Journal { try Journal(location: location) }

    public func carrel(_ arguments: [String], input: String? = nil) throws -> (status: Int32, out: [String]) {
        let child = try ChildProcess(ChildProcess.carrel, arguments + ["--state-dir", stateDir], environment: environment)
        if let input { child.send(input) }
        child.closeInput()
        let out = child.readToEnd()
        return (child.waitStatus(), out)
    }
}

/// A private tmux server whose socket lives in the sandbox's tmux directory, where Carrel's
/// tmux backend finds it through TMUX_TMPDIR.
public final class TmuxServer {
    public let socket: String
    public let environment: [String: String]
    public let tmux: String

    public init?(sandbox: Sandbox) {
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

    public func setBuffer(_ name: String, _ text: String) {
        _ = ChildSpawn.run(tmux, ["-S", socket, "set-buffer", "-b", name, text], environment: environment)
    }

    public var buffers: [String] {
        let r = ChildSpawn.run(tmux, ["-S", socket, "list-buffers", "-F", "#{buffer_name}"], environment: environment)
        return r.output.split(separator: "\n").map(String.init).sorted()
    }
}

extension Response {
    public var driverJSON: String {
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self)
    }
}

/// Helpers for tests that run the real binaries against real OS mechanisms.
extension Sandbox {
    /// An assessment with the default, restrictive policy (no multiplexer allowance).
    public func strictAssessment() throws -> String {
        let path = root + "/strict.yaml"
        let text = "carrel: 1\nid: strict\ntitle: Strict\nsections:\n  - items:\n      - {id: q0, type: text, prompt: Q, accept: [a]}\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Runs `executable ARGS` itself (no shell in between: a preloaded library would unset
    /// its variable in the shell and never reach the program), stdout and stderr together.
    public func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) -> (status: Int32, err: String) {
        let r = ChildSpawn.run(executable, arguments, environment: environment.merging(extra) { $1 }, timeout: 60)
        return (r.status, r.output)
    }

    /// Compiles a tiny shared library from C source; nil when no C compiler is installed.
    public func sharedLibrary(_ name: String, _ source: String) throws -> String? {
        let env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        guard let cc = ["cc", "gcc", "clang"].lazy.compactMap({ ChildSpawn.which($0, environment: env) }).first else { return nil }
        let src = "\(root)/\(name).c", lib = "\(root)/\(name).so"
        try source.write(toFile: src, atomically: true, encoding: .utf8)
        let built = ChildSpawn.run(cc, ["-shared", "-fPIC", "-o", lib, src], environment: env, timeout: 60)
        return built.status == 0 ? lib : nil
    }
}

extension Sandbox {
    /// Runs the driver to completion and returns its status and stderr (through a file).
    public func carrelDriverStderr(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let errPath = root + "/stderr-\(UUID().uuidString.prefix(6))"
        let script = "exec \"$0\" \"$@\" 2>\"\(errPath)\""
        let child = try ChildProcess("/bin/sh", ["-c", script, ChildProcess.driver] + arguments + ["--state-dir", stateDir],
                                     environment: environment)
        child.closeInput()
        _ = child.readToEnd()
        let status = child.waitStatus()
        return (status, (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}
