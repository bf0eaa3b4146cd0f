#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit

/// The real `carrel` in a private tmux server: its own socket, TMUX_TMPDIR and state
/// directory, so nothing of the developer's tmux or state is touched.
final class TmuxHarness {
    let root: String
    let socket: String
    let stateDir: String
    let tmux: String
    let environment: [String: String]

    static let carrel: String = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("carrel").path), folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("carrel").path
    }()

    static let assessments = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assessments")

    init?() {
        root = FileManager.default.temporaryDirectory.path + "/carrel-e2e-\(UUID().uuidString.prefix(8))"
        stateDir = root + "/state"
        let tmuxDir = root + "/tmux"
        try? FileManager.default.createDirectory(atPath: "\(tmuxDir)/tmux-\(getuid())", withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        socket = "\(tmuxDir)/tmux-\(getuid())/e2e"
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": root, "LANG": "C.UTF-8", "TERM": "xterm-256color", "TMUX_TMPDIR": tmuxDir,
        ]
        guard let tmux = ChildSpawn.which("tmux", environment: environment) else { return nil }
        self.tmux = tmux
        // A first window that just waits keeps the server up between carrel runs.
        guard run(["new-session", "-d", "-x", "80", "-y", "24", "-s", "e2e", "-n", "idle", "sleep 3600"]).status == 0 else { return nil }
        _ = run(["set-option", "-g", "remain-on-exit", "off"])
    }

    deinit {
        _ = run(["kill-server"])
        try? FileManager.default.removeItem(atPath: root)
    }

    @discardableResult
    func run(_ arguments: [String]) -> ChildSpawn.Output {
        ChildSpawn.run(tmux, ["-S", socket] + arguments, environment: environment, timeout: 20)
    }

    /// Writes a fixture from Assessments/: multiplexer allowed (the test runs inside tmux),
    /// a proctor passphrase, and any other replacements. Nothing else about the policy changes.
    func fixture(_ name: String, passphrase: String? = "proctor phrase", replacing: [(String, String)] = []) throws -> String {
        var text = try String(contentsOf: Self.assessments.appendingPathComponent(name), encoding: .utf8)
        var header = "policy: { multiplexer: allow }\n"
        if let passphrase {
            let hash = try PassphraseHash.make(passphrase: passphrase, logRounds: 10)
            let key = try ProctorKey.make(passphrase: passphrase, logRounds: 10)
            header += "proctor: { passphrase: \"\(hash)\", key: \"\(key)\" }\n"
        }
        text = text.replacingOccurrences(of: "policy:\n  multiplexer: allow\n", with: "")
        text = text.replacingOccurrences(of: "carrel: 1\n", with: "carrel: 1\n" + header)
        for (a, b) in replacing { text = text.replacingOccurrences(of: a, with: b) }
        let path = "\(root)/\(name)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Starts `carrel ARGS` in a new window; its exit status is printed as EXIT=N afterwards.
    /// `environment` adds to (or replaces) the harness's variables for this run only.
    /// `executable`: another carrel than the build's (an enrolled copy).
    func start(_ window: String, _ arguments: [String], width: Int = 80, height: Int = 24, environment: [String: String] = [:],
               executable: String = TmuxHarness.carrel) {
        func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let quoted = ([executable] + arguments + ["--state-dir", stateDir]).map(quote)
        let variables = environment.sorted { $0.key < $1.key }.map { quote("\($0.key)=\($0.value)") }
        let command = (variables.isEmpty ? "" : "env " + variables.joined(separator: " ") + " ")
            + "sh -c '\"$0\" \"$@\"; echo EXIT=$?; sleep 600' " + quoted.joined(separator: " ")
        run(["new-window", "-d", "-n", window, command])
        run(["resize-window", "-t", "e2e:\(window)", "-x", "\(width)", "-y", "\(height)"])
    }

    func screen(_ window: String) -> String {
        run(["capture-pane", "-p", "-t", "e2e:\(window)"]).output
    }

    /// Waits until the window shows `text`; returns the screen (or nil after the timeout).
    @discardableResult
    func waitFor(_ window: String, _ text: String, timeout: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let s = screen(window)
            if s.contains(text) { return s }
            usleep(100_000)
        } while Date() < deadline
        return nil
    }

    /// Waits until the window shows `text` (present) or no longer shows it.
    @discardableResult
    func waitFor(_ window: String, _ text: String, present: Bool, timeout: Double = 20) -> String? {
        if present { return waitFor(window, text, timeout: timeout) }
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let s = screen(window)
            if !s.contains(text) { return s }
            usleep(100_000)
        } while Date() < deadline
        return nil
    }

    /// Where the terminal's cursor is: row and column, from 0.
    func cursor(_ window: String) -> (row: Int, column: Int)? {
        let out = run(["display-message", "-p", "-t", "e2e:\(window)", "#{cursor_y},#{cursor_x}"]).output
        let parts = out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// The line the cursor is on.
    func cursorLine(_ window: String) -> String? {
        guard let c = cursor(window) else { return nil }
        let lines = screen(window).components(separatedBy: "\n")
        return lines.indices.contains(c.row) ? lines[c.row] : nil
    }

    func resize(_ window: String, width: Int, height: Int) {
        run(["resize-window", "-t", "e2e:\(window)", "-x", "\(width)", "-y", "\(height)"])
        usleep(300_000)
    }

    /// Starts copying every byte the program in `window` writes to a file; returns its path.
    func recordOutput(_ window: String) -> String {
        let path = "\(root)/output-\(window)"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        run(["pipe-pane", "-o", "-t", "e2e:\(window)", "cat >> '\(path)'"])
        return path
    }

    func keys(_ window: String, _ keys: String...) {
        for k in keys {
            run(["send-keys", "-t", "e2e:\(window)", k])
            usleep(120_000)
        }
    }

    /// Types like a person: one key at a time (a burst would be taken for a paste).
    func type(_ window: String, _ text: String) {
        for ch in text {
            run(["send-keys", "-t", "e2e:\(window)", "-l", String(ch)])
            usleep(40_000)
        }
        usleep(150_000)
    }

    func exitStatus(_ window: String, timeout: Double = 20) -> Int? {
        // After a kill the terminal is left as it was, so EXIT= may follow other text.
        guard let s = waitFor(window, "EXIT=", timeout: timeout), let range = s.range(of: "EXIT=") else { return nil }
        return Int(s[range.upperBound...].prefix { $0.isNumber })
    }

    /// The letter a choice is shown with on screen (choices may be shuffled).
    func letter(of choice: String, in window: String) -> String? {
        for line in screen(window).split(separator: "\n") {
            let text = String(line)
            guard text.hasSuffix(") " + choice), let close = text.range(of: ") " + choice, options: .backwards) else { continue }
            let before = text[..<close.lowerBound]
            if let l = before.last { return String(l) }
        }
        return nil
    }

    var location: StateLocation { StateLocation.resolve(explicit: stateDir, environment: [:]) }

    func journal() throws -> Journal { try Journal(location: location) }

    func result(_ session: String? = nil) throws -> ResultDocument? {
        let dir = location.resultsDirectory
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".json") }
        guard let name = session.map({ "\($0).json" }) ?? names.first else { return nil }
        return try JSONDecoder().decode(ResultDocument.self, from: Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name)")))
    }

    func setBuffer(_ name: String, _ text: String) { run(["set-buffer", "-b", name, text]) }

    var buffers: [String] {
        run(["list-buffers", "-F", "#{buffer_name}"]).output.split(separator: "\n").map(String.init).sorted()
    }
}
