#if canImport(Glibc)
import Glibc
#endif
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

/// The permission bits of `path` (not following a symlink); -1 when it cannot be read.
public func mode(_ path: String) -> Int {
    var info = stat()
    guard lstat(path, &info) == 0 else { return -1 }
    return Int(info.st_mode & 0o777)
}
