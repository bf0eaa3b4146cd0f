#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import GRDB
import SessionKit

extension StateLocation {
    /// Every file Carrel opens here by name, with its kind: the journal and its companions,
    /// the lock, the passphrase attempts, and the folders holding them and the results.
    var expectedFiles: [(path: String, directory: Bool)] {
        [(stateDirectory, true), (resultsDirectory, true), (journalPath, false), (journalPath + "-wal", false),
         (journalPath + "-shm", false), (journalPath + "-journal", false), (lockPath, false),
         (PassphraseAttempts(stateDirectory: stateDirectory).path, false)]
    }

    /// Refuses at once, with its path and what to do, a special file (FIFO, socket, device,
    /// symlink, or a directory where a file belongs) where Carrel keeps its state: nothing
    /// is opened, so nothing can hang or be followed. Missing files are fine.
    public func refuseSpecialFiles() throws(FileSystemError) {
        for (path, directory) in expectedFiles {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            if directory {
                guard kind == S_IFDIR else {
                    if kind == S_IFLNK { throw SecureFiles.refusal(path, info.st_mode) }
                    throw FileSystemError(path: path, reason: "is \(SecureFiles.kind(info.st_mode)) where Carrel keeps a directory; it was not opened (remove it and try again)")
                }
            } else if kind != S_IFREG {
                throw SecureFiles.refusal(path, info.st_mode)
            }
        }
    }

    /// Whether this process can write the state directory and the journal: false on a
    /// read-only medium or mount, an immutable file, or a copy owned by someone else.
    public var isWritable: Bool {
        var info = stat()
        guard access(stateDirectory, W_OK) == 0 else { return false }
        guard lstat(journalPath, &info) == 0 else { return true }
        return access(journalPath, W_OK) == 0
    }
}

extension SecureStateStorage {
    /// The journal opened to read only, for `status` and `results` on a state directory
    /// Carrel cannot write (a copy on a read-only medium): no lock file, no -wal or -shm, no
    /// migration; nothing is created or changed. nil when there is no journal.
    public func openJournalForReading() throws -> Journal? {
        let path = location.journalPath
        try location.refuseSpecialFiles()
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        do {
            return try Journal(reading: try DatabaseQueue(path: path, configuration: Journal.readOnlyConfiguration()))
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY {
            // A WAL journal read by SQLite needs its -shm index, which cannot be made here.
            // With no log waiting to be folded the database file alone is the whole journal,
            // and SQLite reads it as immutable; a log with commits in it needs its index.
            guard lstat(path + "-wal", &info) != 0 || info.st_size == 0 else {
                throw FileSystemError(path: path + "-wal", reason: "holds changes that SQLite reads only with its -shm index, which cannot be made in a read-only directory; copy the state directory somewhere writable and run the command there")
            }
            return try Journal(reading: try DatabaseQueue(path: Self.immutableURI(path), configuration: Journal.readOnlyConfiguration()))
        }
    }

    /// `file:` URI of `path` opened as immutable (SQLite then takes no lock and makes no file).
    static func immutableURI(_ path: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return "file:\(encoded)?immutable=1"
    }
}
