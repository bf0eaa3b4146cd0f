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
    public static func openPrivate(_ path: String, create: Bool = true, truncate: Bool = false) throws(FileSystemError) -> Int32 {
        var flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW
        if create { flags |= O_CREAT }
        if truncate { flags |= O_TRUNC }
        let fd = open(path, flags, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP {
                throw FileSystemError(path: path, reason: "is a symbolic link; refusing to follow it (remove it and try again)")
            }
            throw FileSystemError(path: path, reason: errnoText())
        }
        var info = stat()
        if fstat(fd, &info) == 0 {
            if info.st_mode & S_IFMT != S_IFREG {
                close(fd)
                throw FileSystemError(path: path, reason: "is not a regular file")
            }
            if info.st_mode & 0o777 != 0o600 { fchmod(fd, 0o600) }
        }
        return fd
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
            if info.st_mode & S_IFMT == S_IFLNK {
                throw FileSystemError(path: path, reason: "is a symbolic link; Carrel never opens its journal through one (remove the link)")
            }
            if info.st_mode & S_IFMT != S_IFREG {
                throw FileSystemError(path: path, reason: "is \(kind(info.st_mode)), not the journal Carrel wrote (remove it)")
            }
        }
    }

    /// Reads a whole small file without following a symlink; nil when it is absent.
    public static func readSmallFile(_ path: String, limit: Int = 1 << 20) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
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
