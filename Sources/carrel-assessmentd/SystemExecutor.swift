#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import ModeService

/// The changes made for real: nft, files written without following links, /proc/sys, the
/// console's ioctl, systemctl. Every revert may run for a change never made.
struct SystemExecutor: ChangeExecutor {
    var nft = "/usr/sbin/nft"
    var systemctl = "/usr/bin/systemctl"
    static let lockSwitch: UInt = 0x560B, unlockSwitch: UInt = 0x560C, getState: UInt = 0x5603

    func before(_ change: Change) throws(ChangeError) -> Before {
        switch change {
        case let .nftables(table, _):
            try Self.checkName(table)
            guard access(nft, X_OK) == 0 else { throw ChangeError("nftables is not installed (\(nft) is missing)") }
            return .nothing
        case let .file(path, _):
            try Self.checkPath(path, under: ["/run/", "/etc/"])
            // The nologin file refuses nothing unless PAM reads it: without the package's PAM
            // piece, the logins step is not applied (a refusal under `machine: lock`).
            if path == ModePlan.nologin, let why = Capabilities.pamPiece() { throw ChangeError(why) }
            let folder = Files.parent(path)
            guard folder.hasPrefix("/run/") || access(folder, F_OK) == 0 else { throw ChangeError("\(folder) does not exist on this machine") }
            return try Files.read(path).map { .contents(Data($0)) } ?? .nothing
        case let .sysctl(path, _):
            try Self.checkPath(path, under: ["/proc/sys/"])
            guard let bytes = try Files.read(path) else { throw ChangeError("\(path) does not exist on this machine") }
            return .value(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        case .lockConsoleSwitch:
            let fd = try Self.console()
            close(fd)
            return .nothing
        case let .maskUnit(unit):
            try Self.checkName(unit)
            try systemd(unit)
            var link = [CChar](repeating: 0, count: 256)
            let n = readlink("/run/systemd/system/\(unit)", &link, link.count - 1)
            return n > 0 && String(decoding: link[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "/dev/null" ? .value("masked") : .nothing
        }
    }

    func perform(_ change: Change) throws(ChangeError) {
        switch change {
        case let .nftables(table, ruleset):
            // One transaction: the table emptied (created first so the delete cannot fail) and
            // filled again, so a table left from before is replaced, never added to.
            let text = "table inet \(table) {}\ndelete table inet \(table)\n" + ruleset
            let run = Spawn.run(nft, ["-f", "-"], input: text)
            guard run.succeeded else { throw ChangeError("nft refused the rules: \(Self.firstLine(run.output))") }
        case let .file(path, contents):
            try Files.replace(path, with: Array(contents.utf8))
        case let .sysctl(path, value):
            try Files.writeSetting(path, value)
        case .lockConsoleSwitch:
            try Self.switchLock(Self.lockSwitch)
        case let .maskUnit(unit):
            let run = Spawn.run(systemctl, ["mask", "--runtime", unit])
            guard run.succeeded else { throw ChangeError("systemctl could not mask \(unit): \(Self.firstLine(run.output))") }
        }
    }

    func revert(_ change: Change, before: Before) throws(ChangeError) {
        switch change {
        case let .nftables(table, _):
            try Self.checkName(table)
            let run = Spawn.run(nft, ["delete", "table", "inet", table])
            guard run.succeeded || run.output.contains("No such file or directory") else {
                throw ChangeError("nft could not delete table \(table): \(Self.firstLine(run.output))")
            }
        case let .file(path, _):
            try Self.checkPath(path, under: ["/run/", "/etc/"])
            if case let .contents(data) = before { try Files.replace(path, with: Array(data)) } else { try Files.remove(path) }
        case let .sysctl(path, _):
            try Self.checkPath(path, under: ["/proc/sys/"])
            if case let .value(value) = before { try Files.writeSetting(path, value) }
        case .lockConsoleSwitch:
            try Self.switchLock(Self.unlockSwitch)
        case let .maskUnit(unit):
            try Self.checkName(unit)
            guard before != .value("masked") else { return }
            let run = Spawn.run(systemctl, ["unmask", "--runtime", unit])
            guard run.succeeded else { throw ChangeError("systemctl could not unmask \(unit): \(Self.firstLine(run.output))") }
        }
    }

    func resume(_ process: ProcessMark) {
        if ProcTable.entry(process.pid)?.start == process.start { kill(process.pid, SIGCONT) }
    }

    /// systemd must run for a unit to be masked.
    func systemd(_ unit: String) throws(ChangeError) {
        var st = stat()
        guard lstat("/run/systemd/system", &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ChangeError("systemd is not running on this machine, so \(unit) cannot be masked")
        }
        guard access(systemctl, X_OK) == 0 else { throw ChangeError("\(systemctl) is missing, so \(unit) cannot be masked") }
    }

    /// The first virtual console that answers VT_GETSTATE.
    static func console() throws(ChangeError) -> Int32 {
        for path in ["/dev/tty0", "/dev/console"] {
            let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { continue }
            var state = [UInt16](repeating: 0, count: 3)
            let answered = state.withUnsafeMutableBytes { bytes in bytes.baseAddress.map { ioctl(fd, getState, $0) } ?? -1 }
            if answered == 0 { return fd }
            close(fd)
        }
        throw ChangeError("no virtual console on this machine")
    }

    static func switchLock(_ request: UInt) throws(ChangeError) {
        let fd = try console()
        defer { close(fd) }
        guard ioctl(fd, request) == 0 else { throw ChangeError("the virtual console refused to lock switching: \(Files.error())") }
    }

    static func checkPath(_ path: String, under roots: [String]) throws(ChangeError) {
        guard roots.contains(where: { path.hasPrefix($0) }), !path.split(separator: "/").contains(".."), !path.contains("\0") else {
            throw ChangeError("\(path) is not a place this service writes")
        }
    }

    static func checkName(_ name: String) throws(ChangeError) {
        guard !name.isEmpty, name.count <= 100, !name.hasPrefix("-"),
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-@".unicodeScalars.contains($0)) })
        else { throw ChangeError("\(name) is not a name this service uses") }
    }

    static func firstLine(_ text: String) -> String {
        Sanitise.text(text.split(separator: "\n").first.map(String.init) ?? "no message", limit: 300)
    }
}
