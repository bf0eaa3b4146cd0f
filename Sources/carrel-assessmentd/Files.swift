#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import ModeService

/// Files as the service touches them: never through a symbolic link, written whole (a new
/// file renamed over the old one), root's and 0644.
enum Files {
    static let limit = 1 << 20

    /// The bytes of `path`; nil when there is no such file. A link is refused.
    static func read(_ path: String) throws(ChangeError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 && errno == ENOENT { return nil }
        guard fd >= 0 else { throw ChangeError("\(path) cannot be read: \(error())") }
        defer { close(fd) }
        return try readAll(fd, what: path)
    }

    static func readAll(_ fd: Int32, what: String, limit: Int = limit) throws(ChangeError) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ChangeError("\(what) cannot be read: \(error())") }
            if n == 0 { return out }
            out += chunk[0..<n]
            guard out.count <= limit else { throw ChangeError("\(what) is longer than \(limit) bytes") }
        }
    }

    /// `path` holds `bytes`, root's, mode 0644; a folder of its own under /run is made (0755)
    /// when missing, any other must be there already.
    static func replace(_ path: String, with bytes: [UInt8]) throws(ChangeError) {
        let folder = parent(path)
        if folder.hasPrefix("/run/") && mkdir(folder, 0o755) != 0 && errno != EEXIST { throw ChangeError("\(folder) cannot be created: \(error())") }
        var st = stat()
        guard lstat(folder.isEmpty ? "/" : folder, &st) == 0 else { throw ChangeError("\(folder) does not exist on this machine") }
        guard (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == 0, st.st_mode & 0o022 == 0 else {
            throw ChangeError("\(folder) must be a folder of root's that only root may write")
        }
        let partial = path + ".carrel-new"
        unlink(partial)
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ChangeError("\(partial) cannot be created: \(error())") }
        let done = fchown(fd, 0, 0) == 0 && fchmod(fd, 0o644) == 0 && Descriptor.writeAll(fd, bytes) && fsync(fd) == 0
        close(fd)
        guard done, rename(partial, path) == 0 else {
            let why = error()
            unlink(partial)
            throw ChangeError("\(path) cannot be written: \(why)")
        }
    }

    /// Removes `path`, and its folder under /run when that is left empty (one the service made).
    static func remove(_ path: String) throws(ChangeError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw ChangeError("\(path) cannot be removed: \(error())") }
        if parent(path).hasPrefix("/run/") { _ = rmdir(parent(path)) }
    }

    static func parent(_ path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// A kernel setting under /proc/sys.
    static func writeSetting(_ path: String, _ value: String) throws(ChangeError) {
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw ChangeError("\(path) cannot be written: \(error())") }
        defer { close(fd) }
        guard Descriptor.writeAll(fd, Array((value + "\n").utf8)) else { throw ChangeError("\(path) refused \(value): \(error())") }
    }

    static func error() -> String { String(cString: strerror(errno)) }
}
