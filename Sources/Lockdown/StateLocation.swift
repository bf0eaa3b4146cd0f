import Foundation

/// Where the journal, results and the session lock live (SPEC.md, "Global").
public struct StateLocation: Sendable, Equatable {
    public var stateDirectory: String
    public var lockDirectory: String

    public init(stateDirectory: String, lockDirectory: String) {
        self.stateDirectory = stateDirectory
        self.lockDirectory = lockDirectory
    }

    public var journalPath: String { stateDirectory + "/journal.sqlite" }
    public var resultsDirectory: String { stateDirectory + "/results" }
    public var lockPath: String { lockDirectory + "/session.lock" }

    /// `--state-dir` or `CARREL_STATE_DIR` moves everything, the lock included; otherwise the
    /// XDG state directory holds the journal and `$XDG_RUNTIME_DIR/carrel` the lock.
    public static func resolve(explicit: String?, environment: [String: String]) -> StateLocation {
        if let dir = nonEmpty(explicit) ?? nonEmpty(environment["CARREL_STATE_DIR"]) {
            // Absolute, so the paths Carrel prints stay valid from any directory.
            let absolute = dir.hasPrefix("/") ? dir : FileManager.default.currentDirectoryPath + "/" + dir
            let trimmed = trimTrailingSlash(absolute)
            return StateLocation(stateDirectory: trimmed, lockDirectory: trimmed)
        }
        let base: String
        if let xdg = nonEmpty(environment["XDG_STATE_HOME"]), xdg.hasPrefix("/") {
            base = trimTrailingSlash(xdg)
        } else {
            base = trimTrailingSlash(environment["HOME"] ?? "/tmp") + "/.local/state"
        }
        let state = base + "/carrel"
        if let runtime = nonEmpty(environment["XDG_RUNTIME_DIR"]), runtime.hasPrefix("/") {
            return StateLocation(stateDirectory: state, lockDirectory: trimTrailingSlash(runtime) + "/carrel")
        }
        return StateLocation(stateDirectory: state, lockDirectory: state)
    }

    private static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }

    private static func trimTrailingSlash(_ s: String) -> String {
        var out = s
        while out.count > 1 && out.hasSuffix("/") { out.removeLast() }
        return out
    }

    /// Creates the state, results and lock directories with mode 0700.
    public func prepare() throws(FileSystemError) {
        try SecureFiles.prepareDirectory(stateDirectory)
        try SecureFiles.prepareDirectory(resultsDirectory)
        if lockDirectory != stateDirectory { try SecureFiles.prepareDirectory(lockDirectory) }
    }
}
