import Foundation
import Lockdown
import SessionKit

extension StateLocation {
    /// The state directories, as a session creates them.
    public func prepare() throws {
        try SecureFiles.prepareDirectory(stateDirectory)
        try SecureFiles.prepareDirectory(resultsDirectory)
    }

    public var lockState: LockState { FileSessionLock(location: self).inspect() }
}

public struct NoJournal: Error {}

extension Journal {
    /// The journal file of a state directory, opened as the product opens it.
    public convenience init(location: StateLocation) throws {
        guard let writer = try SecureStateStorage(location: location).openJournal(create: true) else { throw NoJournal() }
        try self.init(writer: writer)
    }
}
