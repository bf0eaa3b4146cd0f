import Foundation

/// Where the journal, results and the session lock live (README.md, "Where state lives").
///
/// The lock always lives beside the journal it protects: two shells that reach the same
/// journal — whatever their `XDG_RUNTIME_DIR` — reach the same lock, so they can never run
/// two sessions on one journal.
public struct StateLocation: Sendable, Equatable {
    public var stateDirectory: String

    public init(stateDirectory: String) {
        self.stateDirectory = stateDirectory
    }

    public var journalPath: String { stateDirectory + "/journal.sqlite" }
    public var resultsDirectory: String { stateDirectory + "/results" }
    public var lockPath: String { stateDirectory + "/session.lock" }
    /// Failed proctor passphrase attempts, shared by every process using this state.
    public var attemptsPath: String { stateDirectory + "/passphrase-attempts" }

    /// `--state-dir`, else `CARREL_STATE_DIR`, else `$XDG_STATE_HOME/carrel`, else
    /// `~/.local/state/carrel`.
    public static func resolve(explicit: String?, environment: [String: String]) -> StateLocation {
        if let dir = nonEmpty(explicit) ?? nonEmpty(environment["CARREL_STATE_DIR"]) {
            // Absolute, so the paths Carrel prints stay valid from any directory.
            let absolute = dir.hasPrefix("/") ? dir : FileManager.default.currentDirectoryPath + "/" + dir
            return StateLocation(stateDirectory: normalised(absolute))
        }
        let base: String
        if let xdg = nonEmpty(environment["XDG_STATE_HOME"]), xdg.hasPrefix("/") {
            base = normalised(xdg)
        } else {
            base = normalised(environment["HOME"] ?? "/tmp") + "/.local/state"
        }
        return StateLocation(stateDirectory: base + "/carrel")
    }

    private static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }

    /// Drops `.` segments, doubled and trailing slashes, so one directory has one spelling.
    static func normalised(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        return "/" + parts.joined(separator: "/")
    }
}
