#if canImport(Glibc)
import Glibc
#endif
import CAssessmentd
import Crypto
import Foundation
import ModeService

/// The Carrel the service trusts: its resolved path and the SHA-256 of its bytes, measured
/// once at start, with the identity of the file measured (device, inode, size, change times)
/// so that a caller running that same unchanged file is not hashed again at every request.
struct TrustedCarrel {
    let path: String
    let digest: [UInt8]
    let identity: FileIdentity
    /// The file's group: the one a setgid start gives (the package's `carrel`).
    let group: UInt32

    struct FileIdentity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
            size = Int64(st.st_size)
            modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            changed = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
        }
    }

    /// Measures `path`: a regular file of root's that no group or other may write.
    init(_ given: String) throws(ChangeError) {
        guard let resolved = realpath(given, nil) else { throw ChangeError("\(given) cannot be found: \(Files.error())") }
        path = String(cString: resolved)
        free(resolved)
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw ChangeError("\(path) cannot be opened: \(Files.error())") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == 0, st.st_mode & 0o022 == 0 else {
            throw ChangeError("\(path) must be a regular file of root's that only root may write")
        }
        identity = FileIdentity(st)
        group = UInt32(st.st_gid)
        if st.st_mode & S_ISGID == 0 || st.st_gid == 0 {
            log("\(path) is not installed setgid to a group of its own: every caller will be refused (the package runs "
                + "dpkg-statoverride --update --add root carrel 2755 /usr/bin/carrel)")
        }
        digest = try Self.digest(fd, what: path)
    }

    static func digest(_ fd: Int32, what: String) throws(ChangeError) -> [UInt8] {
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ChangeError("\(what) cannot be read: \(Files.error())") }
            if n == 0 { return Array(hash.finalize()) }
            offset += off_t(n)
            buffer.withUnsafeBytes { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    /// Why process `pid` is not running this Carrel; nil when it is. Its executable is named
    /// by /proc/PID/exe: the same path, and the same bytes (the file measured at start, or a
    /// file whose SHA-256 is the same); and it runs no code but that and root's libraries.
    func refusal(_ pid: Int32) -> String? {
        var link = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/\(pid)/exe", &link, link.count - 1)
        guard n > 0 else { return "the caller's program cannot be identified" }
        let exe = String(decoding: link[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard exe == path else { return "the caller is not the trusted Carrel (\(path))" }
        let fd = open("/proc/\(pid)/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "the caller's program cannot be opened" }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return "the caller's program cannot be examined" }
        if FileIdentity(st) == identity { return MappedCode.refusal(pid, trusted: path, group: group) }
        // A file that cannot be read is refused like one that differs.
        guard let measured = try? Self.digest(fd, what: exe), measured == digest else {
            return "the caller's Carrel is not the one this service measured at its start (restart the service after installing Carrel)"
        }
        return MappedCode.refusal(pid, trusted: path, group: group)
    }
}

/// Who is on the other end of a connection.
struct Peer {
    let pid: Int32
    let uid: UInt32
    let start: UInt64
    let account: String

    var mark: ProcessMark { ProcessMark(pid: pid, start: start) }

    /// The peer of `fd`, checked: the trusted Carrel run by an account that is not root and not
    /// in an administrators' group. The reason it is refused otherwise.
    static func check(_ fd: Int32, trusted: TrustedCarrel) -> Result<Peer, ChangeError> {
        var pid: Int32 = 0, uid: UInt32 = 0, gid: UInt32 = 0
        guard cad_peer_credentials(fd, &pid, &uid, &gid) == 0, pid > 0 else {
            return .failure(ChangeError("the caller cannot be identified"))
        }
        guard let entry = ProcTable.entry(pid), entry.uids.allSatisfy({ $0 == uid }) else {
            return .failure(ChangeError("the caller's process cannot be identified"))
        }
        guard uid != 0 else { return .failure(ChangeError("root does not take exams: run Carrel as the seat's account")) }
        guard let account = Accounts.name(uid) else { return .failure(ChangeError("uid \(uid) has no account on this machine")) }
        if let group = Accounts.adminGroup(uid: uid, account: account, primary: gid, pid: pid) {
            return .failure(ChangeError("\(account) is an administrator (group \(group)); exams run as a student account"))
        }
        if let why = trusted.refusal(pid) { return .failure(ChangeError(why)) }
        return .success(Peer(pid: pid, uid: uid, start: entry.start, account: account))
    }

    /// Still the same process, still running the trusted Carrel (a pid reused, or an exec
    /// since the connection was made, is refused).
    func stillTrusted(_ trusted: TrustedCarrel) -> String? {
        guard let entry = ProcTable.entry(pid), entry.start == start, entry.uids.allSatisfy({ $0 == uid }) else {
            return "the caller's process has changed"
        }
        return trusted.refusal(pid)
    }
}

/// Accounts and their groups, from the system's databases.
enum Accounts {
    static let adminGroups = ["sudo", "admin", "wheel", "adm"]

    static func name(_ uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// The administrators' group `uid` belongs to (as an account, or as the process `pid`), if any.
    static func adminGroup(uid: UInt32, account: String, primary: UInt32, pid: Int32?) -> String? {
        var count: Int32 = 256
        var groups = [gid_t](repeating: 0, count: 256)
        var member = Set<UInt32>([primary])
        if getgrouplist(account, primary, &groups, &count) >= 0 { member.formUnion(groups.prefix(Int(count))) }
        if let pid, let status = ProcTable.text("/proc/\(pid)/status", limit: 65536) {
            member.formUnion(ProcTable.field(status, "Groups").compactMap { UInt32($0) })
        }
        for name in adminGroups {
            if let group = getgrnam(name), member.contains(group.pointee.gr_gid) { return name }
        }
        return nil
    }

    /// Whether `uid` is a student account, one whose sessions the mode watches: not a system
    /// account (below 1000), not nobody, not an administrator.
    static func isStudent(_ uid: UInt32) -> Bool {
        guard uid >= 1000, uid != 65534, let account = name(uid) else { return false }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return false }
        return adminGroup(uid: uid, account: account, primary: entry.pw_gid, pid: nil) == nil
    }
}
