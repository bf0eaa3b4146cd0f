#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLinux
import Foundation

/// Keeps debuggers and tracers out of the process.
public enum ProcessHardening {
    /// Makes the process non-dumpable: no ptrace attach by the same user (strace -p, gdb -p),
    /// no /proc/PID/mem, environ or fd for others, no core dump with answers or passphrases
    /// in it. Root can still attach; `TracerWatch` sees that. Lasts until the process exits.
    @discardableResult
    public static func makeNonDumpable() -> Bool {
        carrel_set_dumpable(0) == 0
    }

    public static var isDumpable: Bool { carrel_get_dumpable() == 1 }

    /// Takes the real and effective group back to `group` after a start with another
    /// (installed setgid `carrel`, or started by the signing helper), keeping the saved group:
    /// the kernel sets that only when the start really gave the group (not under a tracer), so
    /// the assessment-mode service reads it as proof of a clean start. Holds no right: the
    /// group owns nothing.
    @discardableResult
    public static func takeBackGroup(_ group: gid_t) -> Bool { carrel_take_back_group(group) == 0 }

    /// Ends this process (SIGKILL) when its parent ends: a Carrel its signing helper started
    /// sets it itself, as the kernel clears the helper's own setting at an exec whose ids differ.
    @discardableResult
    public static func dieWithParent() -> Bool { carrel_die_with_parent() == 0 }
}

/// Watches `TracerPid` in /proc/self/status: cheap enough to poll every second, so a
/// tracer attached after the start (by root, since the process is non-dumpable) is noticed.
public struct TracerWatch: Sendable {
    /// What changed since the last poll.
    public enum Change: Sendable, Equatable {
        case attached(pid: Int, name: String?)
        case detached
    }

    let pid: Int32
    /// The tracer seen at the last poll.
    public private(set) var tracer: Int?

    /// Starts watching; a tracer already attached is reported by the first `poll()`.
    public init(pid: Int32 = getpid()) {
        self.pid = pid
        self.tracer = nil
    }

    /// Reads TracerPid once; returns a change when a tracer came or went.
    public mutating func poll() -> Change? {
        let now = Self.tracerPid(of: pid)
        defer { tracer = now }
        switch (tracer, now) {
        case let (old, new?) where old != new:
            return .attached(pid: new, name: Self.commandName(new))
        case (_?, nil):
            return .detached
        default:
            return nil
        }
    }

    /// The pid tracing `pid` (strace, gdb…), nil when none or unreadable.
    public static func tracerPid(of pid: Int32 = getpid()) -> Int? {
        guard let data = SecureFiles.readSmallFile("/proc/\(pid)/status", limit: 65536) else { return nil }
        return parseTracerPid(String(decoding: data, as: UTF8.self))
    }

    /// The `TracerPid:` field of a status file, when it names a process. Read every second of
    /// a session, so without Foundation's character sets (a tenth of an idle session's CPU).
    /// Its lines are read as bytes, not characters: splitting text into characters costs
    /// more than the rest of the check.
    static func parseTracerPid(_ status: String) -> Int? {
        let field = Array("TracerPid:".utf8)
        for line in status.utf8.split(separator: 0x0A) where line.starts(with: field) {
            let digits = line.dropFirst(field.count).drop { $0 == 0x20 || $0 == 0x09 }
            let value = Int(String(decoding: digits.prefix { $0 != 0x20 && $0 != 0x09 }, as: UTF8.self)) ?? 0
            return value > 0 ? value : nil
        }
        return nil
    }

    static func commandName(_ pid: Int) -> String? {
        guard let data = SecureFiles.readSmallFile("/proc/\(pid)/comm", limit: 256) else { return nil }
        let name = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }
}
