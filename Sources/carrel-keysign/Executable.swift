#if canImport(Glibc)
import Glibc
#endif
import Crypto
import MachineSeal

/// The enrolled Carrel, opened once: the helper hashes this open file and runs this same open
/// file (fexecve), so what runs is what was measured — no path is looked up twice.
enum Executable {
    /// A descriptor of the enrolled executable after its checks: a regular file (not a link,
    /// O_NOFOLLOW) of root's that no group or other may write, whose SHA-256 is the one enrolled.
    static func open(_ config: MachineConfig) throws(Refusal) -> Int32 {
        let fd = Glibc.open(config.carrel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw Refusal(why: "\(config.carrel) cannot be opened (a link is refused; enrol again)") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Refusal(why: "\(config.carrel) is not a regular file")
        }
        guard st.st_uid == 0, st.st_mode & 0o022 == 0 else {
            close(fd)
            throw Refusal(why: "\(config.carrel) must be root's, writable by root alone")
        }
        do throws(Refusal) {
            guard try digest(fd) == config.digest else {
                throw Refusal(why: "\(config.carrel) changed since it was enrolled (enrol again after installing another Carrel)")
            }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// SHA-256 of what `fd` holds, in lowercase hex (read from its start).
    static func digest(_ fd: Int32) throws(Refusal) -> String {
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Refusal(why: "the enrolled Carrel cannot be read") }
            if n == 0 { break }
            offset += off_t(n)
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return Hex.string(Array(hash.finalize()))
    }

    /// The environment the launched Carrel gets: the caller's, without what would put other
    /// code into it or change how it loads (the loader's and C library's variables a setuid
    /// program is not given, the Swift runtime's), and with the socket's descriptor named.
    static func environment(_ environ: [String]) -> [String] {
        let unsafe: Set<String> = [
            "GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE",
            "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR", "BASH_ENV", "ENV", SealWire.variable,
        ]
        let kept = environ.filter { entry in
            let name = String(entry.prefix(while: { $0 != "=" }))
            return !name.isEmpty && !unsafe.contains(name) && !name.hasPrefix("LD_") && !name.hasPrefix("MALLOC_")
                && !name.hasPrefix("SWIFT_")
        }
        return kept + ["\(SealWire.variable)=\(SealWire.descriptor)"]
    }
}
