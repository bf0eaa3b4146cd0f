#if canImport(Glibc)
import Glibc
#endif
import ModeService

/// The code a caller runs, beyond its executable: every executable mapping of its memory
/// (/proc/PID/maps) must come from a file that only root could have written — the trusted
/// Carrel, the system's libraries. A library preloaded into the genuine Carrel
/// (`LD_PRELOAD`, `LD_AUDIT`, a library path of the student's) would otherwise speak for it, and
/// could ask for any policy; code kept in memory of its own (an anonymous or deleted mapping)
/// is refused too.
enum MappedCode {
    static func refusal(_ pid: Int32, trusted: String, group: UInt32) -> String? {
        // Code run in the process before its main (through the loader, as whoever started it
        // chose; or by a tracer attached at its exec) can leave behind what no look at the
        // process finds. Installed setgid (group carrel), Carrel starts in the loader's secure
        // mode, which the kernel records and which ignores every variable that chooses code;
        // and the kernel gives it the group only when no tracer stood in the way: Carrel keeps
        // it as its saved group, which no process can give itself.
        let advice = "install Carrel setgid, as the package does (dpkg-statoverride --update --add root carrel 2755 /usr/bin/carrel), "
            + "then restart the service"
        guard securelyStarted(pid) else { return "the caller was not started in the loader's secure mode: " + advice }
        guard let status = ProcTable.text("/proc/\(pid)/status", limit: 65536) else { return "the caller's process cannot be examined" }
        // Gid: real, effective, saved, file system.
        let groups = ProcTable.field(status, "Gid").compactMap { UInt32($0) }
        guard groups.count >= 3, groups[2] == group, groups[0] != group, group != 0 else {
            return "the caller was not given Carrel's group at its start (a tracer at its start, or a file not setgid): " + advice
        }
        if let tracer = ProcTable.field(status, "TracerPid").first, tracer != "0" { return "the caller is being traced" }
        if let why = ring(pid) { return why }
        if let variable = loaderVariable(pid) { return "the caller was started with \(variable) set (code of another's chosen by the loader)" }
        guard let maps = ProcTable.text("/proc/\(pid)/maps", limit: 8 << 20) else { return "the caller's memory cannot be examined" }
        var checked = Set<Substring>()
        for line in maps.split(separator: "\n") {
            // address perms offset device inode [path]
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5 else { continue }
            let path = fields.count == 6 ? fields[5].drop(while: { $0 == " " }) : ""
            if path.contains("io_uring") { return "the caller maps a kernel ring (io_uring) that could write for it later" }
            guard fields[1].contains("x") else { continue }
            if path == "[vdso]" || path == "[vsyscall]" { continue }
            if path.isEmpty || path.hasPrefix("[") { return "the caller runs code that no file holds (executable memory of its own)" }
            guard checked.insert(path).inserted, path != trusted else { continue }
            if path.hasSuffix(" (deleted)") { return "the caller runs code from a deleted file (\(Sanitise.text(String(path), limit: 160)))" }
            if let why = rootOnly(String(path)) { return "the caller runs code from \(Sanitise.text(String(path), limit: 160)), \(why)" }
        }
        return nil
    }

    /// Whether the kernel started `pid` in secure-execution mode (AT_SECURE in its auxiliary
    /// vector, the kernel's own copy: the process cannot change it).
    static func securelyStarted(_ pid: Int32) -> Bool {
        // An auxiliary vector that cannot be read counts as not secure.
        guard let bytes = try? Files.read("/proc/\(pid)/auxv") else { return false }
        var offset = 0
        while offset + 16 <= bytes.count {
            let type = bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let value = bytes[offset + 8..<offset + 16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if type == 0 { return false }
            if type == 23 { return value != 0 }  // AT_SECURE
            offset += 16
        }
        return false
    }

    /// A ring of the kernel's that could act for the process later (io_uring), among its descriptors.
    static func ring(_ pid: Int32) -> String? {
        guard let dir = opendir("/proc/\(pid)/fd") else { return "the caller's descriptors cannot be examined" }
        defer { closedir(dir) }
        var link = [CChar](repeating: 0, count: 256)
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard Int32(name) != nil else { continue }
            let n = readlink("/proc/\(pid)/fd/\(name)", &link, link.count - 1)
            if n > 0, String(decoding: link[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("io_uring") {
                return "the caller holds a kernel ring (io_uring) that could write for it later"
            }
        }
        return nil
    }

    /// The dynamic loader's variables that choose code (the genuine Carrel needs none), as its
    /// environment at start names them.
    static let loaderVariables = ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"]

    static func loaderVariable(_ pid: Int32) -> String? {
        // An environment that cannot be read is left to the mappings' check.
        guard let bytes = try? Files.read("/proc/\(pid)/environ") else { return nil }
        for entry in bytes.split(separator: 0) {
            let text = String(decoding: entry.prefix(64), as: UTF8.self)
            if let name = loaderVariables.first(where: { text.hasPrefix($0 + "=") }), entry.count > name.utf8.count + 1 { return name }
        }
        return nil
    }

    /// Why a student could have written `path` or put it there (a folder above it that others
    /// may write, even a sticky one: a hard link to one of root's files could be made there);
    /// nil when only root could.
    static func rootOnly(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "a file named by no absolute path" }
        var st = stat()
        guard lstat(path, &st) == 0 else { return "a file that cannot be found" }
        guard (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == 0, st.st_mode & 0o022 == 0 else {
            return "a file that is not root's alone"
        }
        func parent(_ path: String) -> String {
            let up = Files.parent(path)
            return up.isEmpty ? "/" : up
        }
        var folder = parent(path)
        while true {
            guard lstat(folder, &st) == 0 else { return "in a folder that cannot be examined" }
            if (st.st_mode & S_IFMT) == S_IFLNK {
                // A link root made (/lib → usr/lib) is root's to change.
                guard st.st_uid == 0 else { return "in a folder linked by another user" }
            } else {
                guard (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == 0, st.st_mode & 0o022 == 0 else {
                    return "in a folder others may write (\(Sanitise.text(folder, limit: 120)))"
                }
            }
            if folder == "/" { return nil }
            folder = parent(folder)
        }
    }
}
