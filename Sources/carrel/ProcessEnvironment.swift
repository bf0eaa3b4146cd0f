import Foundation

/// The process's environment, read once: Foundation builds a new dictionary on every read of
/// `ProcessInfo.processInfo.environment` (a tenth of a millisecond each, several times before
/// the start screen), and nothing in Carrel changes its own environment.
enum ProcessEnvironment {
    static let current: [String: String] = ProcessInfo.processInfo.environment
}
