#if canImport(Glibc)
import Glibc
#endif
import Crypto
import MachineSeal

/// Who asks: the helper signs only for the Carrel enrolment recorded — its parent process must
/// run exactly that executable (same path, the same file as is installed there now, same
/// SHA-256), as the user who ran the helper, untraced, with no loader variables that would
/// have put other code in it.
enum Caller {
    /// The parent's process id once it passed every check.
    static func check(_ config: MachineConfig) throws(Refusal) -> pid_t {
        let pid = getppid()
        guard pid > 1 else { throw Refusal(why: "no caller (the helper is run by Carrel, not on its own)") }
        let proc = "/proc/\(pid)"
        let exe = link(proc + "/exe")
        guard exe == config.carrel else {
            throw Refusal(why: "the caller is not the enrolled Carrel (\(config.carrel)): it runs \(exe ?? "an executable that cannot be read")")
        }
        let fd = open(proc + "/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Refusal(why: "the caller's executable cannot be read") }
        defer { close(fd) }
        var running = stat()
        var installed = stat()
        guard fstat(fd, &running) == 0, lstat(config.carrel, &installed) == 0, (installed.st_mode & S_IFMT) == S_IFREG,
              running.st_dev == installed.st_dev, running.st_ino == installed.st_ino else {
            throw Refusal(why: "the caller runs a file that is no longer the one installed at \(config.carrel)")
        }
        guard try digest(fd) == config.digest else {
            throw Refusal(why: "\(config.carrel) changed since it was enrolled (enrol again after installing another Carrel)")
        }
        let status = String(decoding: (try? RootFiles.readAll(open(proc + "/status", O_RDONLY | O_CLOEXEC), limit: 65536, what: "status")) ?? [], as: UTF8.self)
        guard field(status, "TracerPid:") == "0" else { throw Refusal(why: "the caller is being traced") }
        guard field(status, "Uid:") == String(getuid()) else { throw Refusal(why: "the caller runs as another user") }
        let environ = (try? RootFiles.readAll(open(proc + "/environ", O_RDONLY | O_CLOEXEC), limit: 1 << 20, what: "environment")) ?? []
        for variable in environ.split(separator: 0) {
            let name = String(decoding: variable.prefix(while: { $0 != UInt8(ascii: "=") }), as: UTF8.self)
            if ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"].contains(name) {
                throw Refusal(why: "the caller was started with \(name), which loads other code into it")
            }
        }
        guard getppid() == pid else { throw Refusal(why: "the caller went away") }
        return pid
    }

    /// Where a /proc link points (with " (deleted)" when the file was removed or replaced).
    static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let n = readlink(path, &buffer, 4096)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The first value of `name`'s line in a /proc status text.
    static func field(_ status: String, _ name: String) -> String? {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        }
        return nil
    }

    /// SHA-256 of what `fd` holds, in lowercase hex.
    static func digest(_ fd: Int32) throws(Refusal) -> String {
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Refusal(why: "the caller's executable cannot be read") }
            if n == 0 { break }
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return Hex.string(Array(hash.finalize()))
    }
}
