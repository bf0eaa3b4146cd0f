import Foundation
import Lockdown
import SessionTestSupport
@testable import SessionKit

extension StateLocation {
    /// The state directories, as a session creates them.
    func prepare() throws {
        try SecureFiles.prepareDirectory(stateDirectory)
        try SecureFiles.prepareDirectory(resultsDirectory)
    }

    var lockState: LockState { FileSessionLock(location: self).inspect() }
}

struct NoJournal: Error {}

extension Journal {
    /// The journal file of a state directory, opened as the product opens it.
    convenience init(location: StateLocation) throws {
        guard let writer = try SecureStateStorage(location: location).openJournal(create: true) else { throw NoJournal() }
        try self.init(writer: writer)
    }
}

extension Sandbox {
    /// The real state directory, lock and journal, with in-memory pasteboards and probes: the
    /// real probes and pasteboards run helper programs, which in-process tests leave to the
    /// driver and the binary.
    func context(needsTerminal: Bool = false) -> SessionContext {
        SessionContext(storage: SecureStateStorage(location: location), lock: FileSessionLock(location: location),
                       pasteboards: RecordingPasteboards(), gate: OpenGate(), signals: { nil }, needsTerminal: needsTerminal)
    }
}
