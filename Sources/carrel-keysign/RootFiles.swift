#if canImport(Glibc)
import Glibc
#endif

/// Why the helper signs nothing: one line on standard error, exit status 2.
struct Refusal: Error {
    var why: String
}

/// Files only root may have written: the machine's configuration and its key.
enum RootFiles {
    /// The bytes of `path` (at most `limit`), after checking that neither it nor its folder
    /// can have been written by anyone but root: its folder a real folder of root's that no
    /// group or other may write; the file itself a regular file of root's — not a symbolic
    /// link — with no write for group or others, and for a `secret` no access at all.
    static func read(_ path: String, secret: Bool, limit: Int = 4096) throws(Refusal) -> [UInt8] {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var st = stat()
        guard lstat(folder.isEmpty ? "/" : folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw Refusal(why: "\(folder) is not a folder (is this machine enrolled? `carrel seat enroll`)")
        }
        guard st.st_uid == 0, st.st_mode & 0o022 == 0 else {
            throw Refusal(why: "\(folder) must be root's, writable by root alone")
        }
        guard lstat(path, &st) == 0 else { throw Refusal(why: "\(path) is missing (is this machine enrolled? `carrel seat enroll`)") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Refusal(why: "\(path) is not a regular file (a link is refused)") }
        guard st.st_uid == 0 else { throw Refusal(why: "\(path) must be root's") }
        guard st.st_mode & (secret ? 0o077 : 0o022) == 0 else {
            throw Refusal(why: secret ? "\(path) must be readable by root alone (mode 0600)" : "\(path) must be writable by root alone")
        }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw Refusal(why: "\(path) cannot be opened") }
        defer { close(fd) }
        var opened = stat()
        // The file checked is the file opened (nothing swapped in between).
        guard fstat(fd, &opened) == 0, opened.st_dev == st.st_dev, opened.st_ino == st.st_ino else {
            throw Refusal(why: "\(path) changed while it was read")
        }
        return try readAll(fd, limit: limit, what: path)
    }

    /// Everything `fd` holds, up to `limit` bytes (more is refused).
    static func readAll(_ fd: Int32, limit: Int, what: String) throws(Refusal) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Refusal(why: "\(what) cannot be read") }
            if n == 0 { return out }
            out += buffer[0..<n]
            guard out.count <= limit else { throw Refusal(why: "\(what) is longer than \(limit) bytes") }
        }
    }
}
