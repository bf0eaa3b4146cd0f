import Foundation

/// What the machine running the tests offers. On a developer's machine a suite whose tool is
/// missing is skipped with the reason; under CI (`CI=true`) every suite runs, so a missing
/// tool fails its tests instead of letting the run pass without them.
public enum TestEnvironment {
    public static var underCI: Bool {
        let value = (ProcessInfo.processInfo.environment["CI"] ?? "").lowercased()
        return value == "true" || value == "1" || value == "yes"
    }

    /// Whether a suite that needs a tool runs: always under CI, else when the tool is there.
    public static func runs(whenInstalled installed: Bool) -> Bool { installed || underCI }
}
