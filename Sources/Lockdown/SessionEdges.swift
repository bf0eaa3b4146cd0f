#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AssessmentKit
import Foundation
import GRDB
import SessionKit

/// The state directory for real: 0700 directories, a journal opened only when neither it nor
/// its -wal/-shm files is a symlink, result files written atomically with mode 0600.
public struct SecureStateStorage: StateStorage {
    public let location: StateLocation

    public init(location: StateLocation) { self.location = location }

    public func openJournal(create: Bool) throws -> (any DatabaseWriter)? {
        let path = location.journalPath
        if !create {
            try SecureFiles.refuseLinkedJournal(path)
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
        } else {
            try SecureFiles.prepareDirectory(location.stateDirectory)
            try SecureFiles.prepareDirectory(location.resultsDirectory)
        }
        // SQLite follows symlinks: neither the journal nor its -wal/-shm files may be one.
        try SecureFiles.refuseLinkedJournal(path)
        try SecureFiles.preparePrivateFile(path)
        // Seats that start together may create a new journal at the same moment: the WAL
        // switch can lose to another process's lock. A short retry sees its finished set-up.
        var attempt = 0
        while true {
            do {
                let log = Journal.LogShape.forDisk(freeBytes: Self.freeBytes(location.stateDirectory))
                let queue = try DatabaseQueue(path: path, configuration: Journal.configuration(log: log))
                // Migrating here too lets the retry cover seats that migrate at once.
                _ = try Journal(writer: queue)
                return queue
            } catch {
                attempt += 1
                if attempt >= 8 { throw error }
                usleep(UInt32(25_000 * attempt))
            }
        }
    }

    /// Bytes an unprivileged writer may still use on the disk holding `directory`; nil when
    /// the system cannot tell (the journal then keeps its log tight).
    static func freeBytes(_ directory: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    public func writeResult(_ data: Data, session: String) throws -> String {
        let path = "\(location.resultsDirectory)/\(session).json"
        try SecureFiles.prepareDirectory(location.resultsDirectory)
        try SecureFiles.writeAtomically(data, to: path)
        return path
    }
}

extension Pasteboards: PasteboardClearer {
    /// "tmux: cleared 2 buffers", one line per backend.
    public func clearAndDescribe() -> [String] {
        clearAll().map(\.detail)
    }
}

/// The environment probes as the session's gate. Every check probes again: a tracer attached,
/// or a multiplexer reached, while the start screen waited is seen when Begin is pressed, not
/// only at launch.
public struct ProbeGate: EnvironmentGate {
    public let probe: @Sendable () -> EnvironmentFacts
    public let pid: Int32

    public init(pid: Int32 = getpid(), probe: @escaping @Sendable () -> EnvironmentFacts) {
        self.probe = probe
        self.pid = pid
    }

    /// The gate of this process in `environment`.
    public init(environment: [String: String], pid: Int32 = getpid()) {
        self.init(pid: pid) { EnvironmentProbe.probe(environment: environment, pid: pid) }
    }

    public func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String] {
        Preflight.refusals(probe(), policy: policy, needsTerminal: needsTerminal).map(\.description)
    }

    public func attachedTracer() -> Int? { TracerWatch.tracerPid(of: pid) }
}

/// The proctor gate as the session's passphrase checker.
public final class ProctorGateChecker: PassphraseChecker {
    let gate: ProctorGate
    public init(_ gate: ProctorGate) { self.gate = gate }

    public func check(_ typed: String) -> PassphraseVerdict {
        switch gate.check(typed) {
        case .accepted: return .accepted
        case let .rejected(triesLeft, wait): return .rejected(triesLeft: triesLeft, wait: wait)
        case let .mustWait(seconds): return .mustWait(seconds)
        case let .unavailable(why): return .unavailable(why)
        }
    }
}

extension SessionContext {
    /// The real edges for a state location and an environment.
    public static func system(location: StateLocation, environment: [String: String], needsTerminal: Bool,
                              terminal: (any TerminalSink)? = nil) -> SessionContext {
        var context = SessionContext(
            storage: SecureStateStorage(location: location), lock: FileSessionLock(location: location),
            pasteboards: Pasteboards.system(environment: environment, terminal: terminal),
            gate: ProbeGate(environment: environment),
            signals: { try SignalGuard() }, needsTerminal: needsTerminal)
        context.passphrases = { hash, action in
            ProctorGateChecker(ProctorGate(hash: hash, attempts: PassphraseAttempts(stateDirectory: location.stateDirectory),
                                           tries: 3, action: action))
        }
        return context
    }
}
