import ArgumentParser
import Foundation
import Lockdown
import SessionKit

/// `--state-dir`, shared by every command that touches sessions.
struct StateOptions: ParsableArguments {
    @Option(name: .customLong("state-dir"), help: ArgumentHelp(
        "Keep the journal, results and lock here (also CARREL_STATE_DIR).",
        discussion: "Default: $XDG_STATE_HOME/carrel or ~/.local/state/carrel; the lock goes to $XDG_RUNTIME_DIR/carrel when that is set.",
        valueName: "dir"))
    var stateDir: String?

    var location: StateLocation {
        StateLocation.resolve(explicit: stateDir, environment: ProcessInfo.processInfo.environment)
    }

    /// The journal when one exists; nil before the first session (nothing is created). A
    /// journal, -wal or -shm reached through a symlink is refused before SQLite opens it.
    func existingJournal() throws(CarrelFailure) -> Journal? {
        let path = location.journalPath
        do {
            try SecureFiles.refuseLinkedJournal(path)
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "refusing the journal: \(error)")
        }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try Journal(path: path)
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "\(error)")
        }
    }

    func context(needsTerminal: Bool) -> SessionContext {
        let environment = ProcessInfo.processInfo.environment
        return SessionContext(
            location: location,
            pasteboards: Pasteboards.system(environment: environment, terminal: ControllingTerminal()),
            facts: EnvironmentProbe.probe(environment: environment),
            needsTerminal: needsTerminal)
    }
}

extension SessionError {
    var failure: CarrelFailure {
        CarrelFailure(status: ExitStatus(rawValue: exitCode) ?? .internalError, message: description)
    }
}
