#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SessionKit

/// An exclusive `flock` on `session.lock` beside the journal (0600, O_NOFOLLOW|O_CLOEXEC).
/// The kernel drops it when the holder dies, however it dies, so a crash never leaves a
/// seat locked; an interrupted session is found in the journal instead.
public struct FileSessionLock: SessionLocking {
    public let path: String

    public init(path: String) { self.path = path }

    public init(location: StateLocation) { self.path = location.lockPath }

    /// Takes the lock or reports who has it. A momentary shared lock taken by a status check
    /// is waited out with a few short retries.
    public func acquire(_ holder: LockHolder) throws(LockError) -> any HeldSessionLock {
        let fd: Int32
        do {
            try SecureFiles.prepareDirectory((path as NSString).deletingLastPathComponent)
            fd = try SecureFiles.openPrivate(path)
        } catch {
            throw .unusable(error.description)
        }
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            attempts += 1
            guard code == EWOULDBLOCK || code == EINTR, attempts < 6 else {
                let record = Self.readHolder(fd: fd)
                close(fd)
                if code == EWOULDBLOCK || code == EINTR { throw .held(record) }
                throw .unusable("\(path): \(String(cString: strerror(code)))")
            }
            usleep(40_000)
        }
        let lock = HeldFileLock(fd: fd, path: path)
        lock.record(holder)
        return lock
    }

    /// Whether the lock is held and by whom, without taking it for longer than an instant.
    /// Opened without blocking: a FIFO, socket or device planted here is never waited on and
    /// holds no lock (taking the lock refuses it with its path, as `refuseSpecialFiles` does).
    public func inspect() -> LockState {
        // A lock file that is missing, or anything but a regular file, is not held by anyone.
        guard let fd = try? SecureFiles.openExisting(path) else { return .free }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return .free
        }
        return .held(Self.readHolder(fd: fd))
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
        // An empty or half-written record is normal while a holder starts: nil says so.
        return try? JSONDecoder().decode(LockHolder.self, from: Data(bytes))
    }
}

/// The lock while this process holds it. Released explicitly, or by the kernel at exit.
final class HeldFileLock: HeldSessionLock, @unchecked Sendable {
    private var fd: Int32
    let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    func record(_ holder: LockHolder) {
        guard fd >= 0 else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // The holder record only informs `carrel status`; the flock itself is the lock.
        guard let data = try? encoder.encode(holder) else { return }
        _ = ftruncate(fd, 0)
        let bytes = [UInt8](data)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        _ = fsync(fd)
    }

    /// Empties the holder record and unlocks. Safe to call twice.
    func release() {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { release() }
}
