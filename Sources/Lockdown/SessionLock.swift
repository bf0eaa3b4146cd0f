#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Who holds the session lock; written into the lock file, read by `carrel status`.
public struct LockHolder: Codable, Sendable, Equatable {
    public var session: String
    public var pid: Int32
    public var host: String
    public var tty: String?
    public var candidate: String?
    public var assessment: String
    public var started: String

    public init(session: String, pid: Int32, host: String, tty: String?, candidate: String?, assessment: String, started: String) {
        self.session = session
        self.pid = pid
        self.host = host
        self.tty = tty
        self.candidate = candidate
        self.assessment = assessment
        self.started = started
    }

    /// "pid 4242, candidate Ada, since 2026-11-22T10:02:00Z".
    public var summary: String {
        var parts = ["pid \(pid)"]
        if let candidate, !candidate.isEmpty { parts.append("candidate \(candidate)") }
        parts.append("assessment \(assessment)")
        parts.append("since \(started)")
        return parts.joined(separator: ", ")
    }
}

public enum LockState: Sendable, Equatable {
    case free
    /// Held; the holder record is nil while the holder is still writing it.
    case held(LockHolder?)
}

public enum LockError: Error, Sendable {
    case held(LockHolder?)
    case fileSystem(FileSystemError)
}

/// An exclusive `flock` on a 0600 file opened with O_NOFOLLOW|O_CLOEXEC. The kernel drops
/// the lock when the holder dies, however it dies, so a crash never leaves a seat locked;
/// an interrupted session is found in the journal instead.
public enum SessionLock {
    /// Takes the lock or reports who has it. A momentary shared lock taken by a status check
    /// is waited out with a few short retries.
    public static func acquire(path: String, holder: LockHolder) throws(LockError) -> HeldLock {
        let fd: Int32
        do {
            fd = try SecureFiles.openPrivate(path)
        } catch {
            throw .fileSystem(error)
        }
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            attempts += 1
            guard code == EWOULDBLOCK || code == EINTR, attempts < 6 else {
                let record = readHolder(fd: fd)
                close(fd)
                if code == EWOULDBLOCK || code == EINTR { throw .held(record) }
                throw .fileSystem(FileSystemError(path: path, reason: String(cString: strerror(code))))
            }
            usleep(40_000)
        }
        let lock = HeldLock(fd: fd, path: path)
        lock.record(holder)
        return lock
    }

    /// Whether the lock is held and by whom, without taking it for longer than an instant.
    public static func inspect(path: String) -> LockState {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return .free }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return .free
        }
        return .held(readHolder(fd: fd))
    }

    static func readHolder(fd: Int32) -> LockHolder? {
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        var offset: off_t = 0
        while bytes.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            offset += off_t(n)
        }
        return try? JSONDecoder().decode(LockHolder.self, from: Data(bytes))
    }
}

/// The lock while this process holds it. Released explicitly, or by the kernel at exit.
public final class HeldLock: @unchecked Sendable {
    private var fd: Int32
    public let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    public var isHeld: Bool { fd >= 0 }

    func record(_ holder: LockHolder) {
        guard fd >= 0 else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(holder) else { return }
        _ = ftruncate(fd, 0)
        let bytes = [UInt8](data)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        _ = fsync(fd)
    }

    /// Empties the holder record and unlocks. Safe to call twice.
    public func release() {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { release() }
}
