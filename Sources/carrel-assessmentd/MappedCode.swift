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
    static func refusal(_ pid: Int32, trusted: String) -> String? {
        if let variable = loaderVariable(pid) { return "the caller was started with \(variable) set (code of another's chosen by the loader)" }
        guard let maps = ProcTable.text("/proc/\(pid)/maps", limit: 8 << 20) else { return "the caller's memory cannot be examined" }
        var checked = Set<Substring>()
        for line in maps.split(separator: "\n") {
            // address perms offset device inode [path]
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5, fields[1].contains("x") else { continue }
            let path = fields.count == 6 ? fields[5].drop(while: { $0 == " " }) : ""
            if path == "[vdso]" || path == "[vsyscall]" { continue }
            if path.isEmpty || path.hasPrefix("[") { return "the caller runs code that no file holds (executable memory of its own)" }
            guard checked.insert(path).inserted, path != trusted else { continue }
            if path.hasSuffix(" (deleted)") { return "the caller runs code from a deleted file (\(Sanitise.text(String(path), limit: 160)))" }
            if let why = rootOnly(String(path)) { return "the caller runs code from \(Sanitise.text(String(path), limit: 160)), \(why)" }
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
