#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation

/// The record as `state.json` (mode 0600) in a folder of root's (0700): written to a new file
/// and renamed over the old one, so a crash leaves the previous record or the next, never half
/// of one. Nothing is opened through a symbolic link.
///
/// A crash of the service loses nothing the kernel has been given; only a crash of the machine
/// (power, panic) loses what was not synced, and a reboot undoes by itself every change but a
/// file outside /run (the nftables table, /run, /proc/sys, the console lock and runtime masks do
/// not outlive it). So the record is synced to the disk before such a change only: begin pays
/// for no fsync it does not need (a few milliseconds each, far more on a lab's old disk).
public struct FileModeStore: ModeStore {
    public let folder: String
    public var path: String { folder + "/state.json" }
    static let limit = 8 << 20

    public init(folder: String) {
        self.folder = folder
    }

    /// Creates the folder when missing; refuses one that is a link, not root's, or open to others.
    public func prepare() throws(ChangeError) {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { throw ChangeError("\(folder) cannot be created: \(Self.errorText())") }
        var st = stat()
        guard lstat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { throw ChangeError("\(folder) is not a folder") }
        guard st.st_uid == geteuid() else { throw ChangeError("\(folder) must belong to the service's user") }
        guard chmod(folder, 0o700) == 0 else { throw ChangeError("\(folder) cannot be made private: \(Self.errorText())") }
    }

    public func save(_ record: ModeRecord) throws(ChangeError) {
        let bytes: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            bytes = try encoder.encode(record)
        } catch {
            throw ChangeError("the record cannot be written as JSON: \(error)")
        }
        let partial = path + ".new"
        unlink(partial)
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ChangeError("\(partial) cannot be created: \(Self.errorText())") }
        let durable = record.changes.last.map { Self.outlivesReboot($0.change) } ?? false
        let written = Descriptor.writeAll(fd, Array(bytes))
        let synced = !durable || fsync(fd) == 0
        close(fd)
        guard written, synced, rename(partial, path) == 0 else {
            let why = Self.errorText()
            unlink(partial)
            throw ChangeError("\(path) cannot be written: \(why)")
        }
        let dir = durable ? open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
        if dir >= 0 {
            // The rename itself reaches the disk.
            _ = fsync(dir)
            close(dir)
        }
    }

    /// A change a reboot does not undo: a file outside /run.
    public static func outlivesReboot(_ change: Change) -> Bool {
        if case let .file(path, _) = change { return !path.hasPrefix("/run/") }
        return false
    }

    public func load() throws(ChangeError) -> ModeRecord? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return nil }
        guard fd >= 0 else { throw ChangeError("\(path) cannot be opened: \(Self.errorText())") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ChangeError("\(path) cannot be read: \(Self.errorText())") }
            if n == 0 { break }
            bytes += chunk[0..<n]
            guard bytes.count <= Self.limit else { throw ChangeError("\(path) is longer than \(Self.limit) bytes") }
        }
        do {
            return try JSONDecoder().decode(ModeRecord.self, from: Data(bytes))
        } catch {
            throw ChangeError("\(path) cannot be read as a record: \(error)")
        }
    }

    public func remove() throws(ChangeError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw ChangeError("\(path) cannot be removed: \(Self.errorText())") }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
