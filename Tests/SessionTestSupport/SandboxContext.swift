import Foundation
import Lockdown
import SessionKit

extension Sandbox {
    /// The real state directory, lock and journal, with in-memory pasteboards and probes: the
    /// real probes and pasteboards run helper programs, which in-process tests leave to the
    /// driver and the binary.
    public func context(needsTerminal: Bool = false) -> SessionContext {
        SessionContext(storage: SecureStateStorage(location: location), lock: FileSessionLock(location: location),
                       pasteboards: RecordingPasteboards(), gate: OpenGate(), signals: { nil }, needsTerminal: needsTerminal)
    }
}
