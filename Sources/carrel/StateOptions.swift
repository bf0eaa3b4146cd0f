import ArgumentParser
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

/// `--state-dir`, shared by every command that touches sessions.
struct StateOptions: ParsableArguments {
    @Option(name: .customLong("state-dir"), help: ArgumentHelp(
        "Keep the journal, results and lock here (also CARREL_STATE_DIR).",
        discussion: "Default: $XDG_STATE_HOME/carrel or ~/.local/state/carrel. The session lock always lives beside the journal.",
        valueName: "dir"))
    var stateDir: String?

    var location: StateLocation {
        StateLocation.resolve(explicit: stateDir, environment: ProcessEnvironment.current)
    }

    /// The journal when one exists; nil before the first session (nothing is created). A
    /// special file (FIFO, socket, device, symlink) where Carrel keeps its state is refused at
    /// once with its path, before anything is opened. A state directory this process cannot
    /// write (a copy on a read-only medium) is read without writing: no lock file, no log,
    /// nothing created; a command that must write refuses such a journal (`ProctorCheck`).
    func existingJournal() throws(CarrelFailure) -> Journal? {
        let location = self.location
        do {
            try location.refuseSpecialFiles()
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: error.description)
        }
        do {
            let storage = SecureStateStorage(location: location)
            guard location.isWritable else { return try storage.openJournalForReading() }
            guard let writer = try storage.openJournal(create: false) else { return nil }
            return try Journal(writer: writer)
        } catch {
            throw Self.failure(error, journal: location.journalPath)
        }
    }

    /// How a journal that cannot be read is reported: damage (a value Carrel did not write, a
    /// file SQLite finds corrupt) exits 65 naming what is wrong; anything else 73.
    static func failure(_ error: any Error, journal path: String) -> CarrelFailure {
        let advice = "Carrel does not guess around it; keep a copy of the state directory for the record, then restore the journal from a backup or move it aside to start afresh"
        if let damage = JournalCorruption.damage(in: error) {
            // 65: the data is bad (sysexits EX_DATAERR), as for an assessment that is.
            return CarrelFailure(status: .invalidAssessment, message: "the journal \(path) is damaged: \(damage); \(advice)")
        }
        if let error = error as? SessionError { return error.failure }
        return CarrelFailure(status: .cannotCreate, message: "cannot open the journal \(path): \(error)")
    }

    func context(needsTerminal: Bool, publisher: SeatPublisher? = nil) -> SessionContext {
        var context = SessionContext.system(location: location, environment: ProcessEnvironment.current,
                                            needsTerminal: needsTerminal, terminal: ControllingTerminal())
        if let publisher {
            // Network sockets: a store that goes away is an error on a write, never a signal
            // that ends the test (SIGPIPE stays ignored until the process ends, after the
            // publisher's last write).
            signal(SIGPIPE, SIG_IGN)
            context.signals = { try SignalGuard(brokenPipesIgnored: true) }
            context.publisher = publisher
            // The store by name and port: `network: store-only` lets the seat reach it alone.
            if publisher.url.socketFolder == nil {
                context.storeEndpoints = [Endpoint(host: publisher.url.host, port: publisher.url.port)]
            }
        }
        // Asked only when a session begins, resumes or unlocks, and only if its policy says
        // other than `machine: off`.
        context.assessmentMode = AssessmentModeClient()
        return context
    }
}

/// How the test looks and speaks; shared by `take` and `resume`.
struct DisplayOptions: ParsableArguments {
    @Flag(name: .customLong("screen-reader"), help: "Keep the cursor on the focused element and never redraw by itself.")
    var screenReader = false
    @Option(help: "default, mono (also chosen by a non-empty NO_COLOR) or contrast.") var theme: ThemeName?
    @Option(help: ArgumentHelp(LanguagePick.help, valueName: "code")) var language: String?

    /// The theme chosen here, else the one the session was launched with, else the default.
    func resolvedTheme(launched: String? = nil) -> Theme {
        Theme.named(theme?.rawValue ?? launched, environment: ProcessEnvironment.current) ?? .standard
    }
}

enum ThemeName: String, CaseIterable, ExpressibleByArgument {
    case `default`, mono, contrast

    // ArgumentParser's defaults describe each case through dynamic casts, which a static
    // binary pays for at every launch (its conformance tables are scanned on each first cast).
    static var allValueStrings: [String] { allCases.map(\.rawValue) }
    static var allValueDescriptions: [String: String] { [:] }
}

extension ExtraTime: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
    public static var defaultCompletionKind: CompletionKind { .list(["1.5", "+15m", "unlimited"]) }
}

extension SessionError {
    var failure: CarrelFailure {
        CarrelFailure(status: exitStatus, message: description)
    }
}

extension TakeApp.Exit {
    /// Prints the closing line, or fails with it.
    func conclude() throws(CarrelFailure) {
        guard code == 0 else {
            throw CarrelFailure(status: ExitStatus(rawValue: code) ?? .internalError, message: line)
        }
        if !line.isEmpty { FileOutput.standardOutput.write(line + "\n") }
    }
}
