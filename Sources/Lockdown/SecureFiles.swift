#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A failure touching the file system, with the path and what to do about it.
public struct FileSystemError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    /// Nothing was at `path` (ENOENT).
    public var missing = false
    public var description: String { "\(path): \(reason)" }
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// File operations with explicit modes that never follow a symlink planted where Carrel writes.
public enum SecureFiles {
    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Creates `path` (and missing parents) as directories with mode 0700; refuses a symlink,
    /// a non-directory, or a directory owned by another user, and tightens a looser mode.
    public static func prepareDirectory(_ path: String) throws(FileSystemError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw FileSystemError(path: path, reason: errnoText()) }
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != path && parent != "/" {
                var parentInfo = stat()
                if lstat(parent, &parentInfo) != 0 {
                    // Missing parents are ordinary directories (e.g. ~/.local/state).
                    do {
                        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true,
                                                                attributes: [.posixPermissions: 0o700])
                    } catch {
                        throw FileSystemError(path: parent, reason: "cannot create: \(error.localizedDescription)")
                    }
                }
            }
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw FileSystemError(path: path, reason: "cannot create: \(errnoText())")
            }
            guard lstat(path, &info) == 0 else { throw FileSystemError(path: path, reason: errnoText()) }
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            throw FileSystemError(path: path, reason: "is a symbolic link; Carrel keeps its state only in a real directory")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw FileSystemError(path: path, reason: "exists and is not a directory")
        }
        guard info.st_uid == geteuid() else {
            throw FileSystemError(path: path, reason: "belongs to another user; use a directory of your own")
        }
        if info.st_mode & 0o777 != 0o700 && chmod(path, 0o700) != 0 {
            throw FileSystemError(path: path, reason: "cannot set mode 0700: \(errnoText())")
        }
    }

    /// Opens (creating with 0600) a file for reading and writing without following a symlink.
    /// Only a regular file is used: a FIFO, socket, device or directory already at `path` is
    /// refused at once with its path (opened without blocking, so a FIFO cannot hang Carrel).
    public static func openPrivate(_ path: String, create: Bool = true, truncate: Bool = false) throws(FileSystemError) -> Int32 {
        var flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        if create { flags |= O_CREAT }
        if truncate { flags |= O_TRUNC }
        let fd = try openRegular(path, flags: flags, mode: 0o600)
        if fd.mode & 0o777 != 0o600 { fchmod(fd.descriptor, 0o600) }
        return fd.descriptor
    }

    /// Opens an existing file Carrel reads under its state directory: never through a symlink,
    /// never blocking on a FIFO, and only a regular file. nil when there is none.
    public static func openExisting(_ path: String) throws(FileSystemError) -> Int32? {
        do {
            return try openRegular(path, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode: 0).descriptor
        } catch let error where error.missing {
            return nil
        }
    }

    /// `open` with `flags` (which hold O_NONBLOCK and O_NOFOLLOW), then `fstat` of what was
    /// opened: anything but a regular file is closed and refused. Blocking mode is restored
    /// on the file kept (for a regular file it changes nothing).
    static func openRegular(_ path: String, flags: Int32, mode: mode_t) throws(FileSystemError) -> (descriptor: Int32, mode: mode_t) {
        let fd = open(path, flags, mode)
        guard fd >= 0 else {
            let code = errno
            var info = stat()
            if lstat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG { throw refusal(path, info.st_mode) }
            var error = FileSystemError(path: path, reason: String(cString: strerror(code)))
            error.missing = code == ENOENT
            throw error
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = errnoText()
            close(fd)
            throw FileSystemError(path: path, reason: "cannot be examined: \(reason)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw refusal(path, info.st_mode)
        }
        let status = fcntl(fd, F_GETFL)
        if status >= 0 { _ = fcntl(fd, F_SETFL, status & ~O_NONBLOCK) }
        return (fd, info.st_mode)
    }

    /// The refusal of a special file found where Carrel keeps a regular one: its path, what
    /// it is, and what to do. It is never opened, read or written.
    public static func refusal(_ path: String, _ mode: mode_t) -> FileSystemError {
        if mode & S_IFMT == S_IFLNK {
            return FileSystemError(path: path, reason: "is a symbolic link; refusing to follow it (remove it and try again)")
        }
        return FileSystemError(path: path, reason: "is \(kind(mode)) where Carrel keeps a regular file; it was not opened (remove it and try again)")
    }

    /// Makes sure `path` is a private regular file (0600, not a symlink), creating it empty.
    public static func preparePrivateFile(_ path: String) throws(FileSystemError) {
        let fd = try openPrivate(path)
        close(fd)
    }

    /// What kind of thing a file mode says, for messages ("a FIFO").
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFLNK: return "a symbolic link"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    /// Writes `data` to `path` atomically: a 0600 temp file beside it, fsync, rename, fsync of
    /// the directory. Only a new file or an existing regular file is written: a symlink, FIFO,
    /// device, socket or directory already at `path` is refused rather than replaced.
    public static func writeAtomically(_ data: Data, to path: String) throws(FileSystemError) {
        var info = stat()
        if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK {
            throw FileSystemError(path: path, reason: "is a symbolic link; refusing to write through it")
        }
        if lstat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG {
            throw FileSystemError(path: path, reason: "is \(kind(info.st_mode)); Carrel writes only a new file or replaces a regular file")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let temp = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileSystemError(path: temp, reason: "cannot create: \(errnoText())") }
        var ok = writeAll(fd, data) && fsync(fd) == 0
        close(fd)
        ok = ok && rename(temp, path) == 0
        if !ok {
            let reason = errnoText()
            unlink(temp)
            throw FileSystemError(path: path, reason: "cannot write: \(reason)")
        }
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }

    public static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Refuses a journal that SQLite would reach through a symbolic link, or that is not a
    /// regular file: the database, its -wal, -shm and -journal companions, and the folder
    /// holding them. Call it before SQLite touches the path (SQLite follows links and would
    /// turn a planted link's target into a database).
    public static func refuseLinkedJournal(_ journalPath: String) throws(FileSystemError) {
        let folder = (journalPath as NSString).deletingLastPathComponent
        var info = stat()
        if !folder.isEmpty, lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            throw FileSystemError(path: folder, reason: "is a symbolic link; Carrel keeps its journal only in a real directory (remove the link)")
        }
        for path in [journalPath, journalPath + "-wal", journalPath + "-shm", journalPath + "-journal"] {
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT != S_IFREG { throw refusal(path, info.st_mode) }
        }
    }

    /// Reads a whole small regular file without following a symlink or waiting on a FIFO; nil
    /// when it is absent or is not a regular file (for /proc files and advisory reads).
    public static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> Data? {
        // Only an advisory read: a missing, special or unreadable file reads as nothing.
        guard let fd = try? openExisting(path) else { return nil }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    /// Reads a regular file Carrel keeps under its state directory: nil when it is absent; a
    /// special file (FIFO, socket, device, directory, symlink) or one that cannot be opened is
    /// refused with its path.
    public static func readStateFile(_ path: String, limit: Int = 1 << 20) throws(FileSystemError) -> Data? {
        guard let fd = try openExisting(path) else { return nil }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    /// Everything from the file's current offset up to `limit` bytes.
    static func readAll(_ fd: Int32, limit: Int) -> Data {
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while out.count < limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return Data(out)
    }
}
