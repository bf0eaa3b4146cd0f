#if canImport(Glibc)
import Glibc
#endif
import CKeysign
import MachineSeal

/// The one process the helper serves: the Carrel it forked from the measured file. It is
/// traced by the helper from before its exec until it says `ready` (by then non-dumpable), so
/// no other process can attach to it and change its code while it is still dumpable.
final class Child {
    let pid: pid_t
    let socket: Int32
    /// The wait status it ended with, once reaped while it was traced.
    var ended: Int32?

    init(pid: pid_t, socket: Int32) {
        self.pid = pid
        self.socket = socket
    }

    static let allWaits = Int32(bitPattern: 0x4000_0000)  // __WALL

    /// Follows the child from its exec to its `ready`, passing on the signals it is sent, then
    /// lets go of it. True when it may be served: `ready` came from a child with one thread,
    /// non-dumpable, traced by this helper alone, and untraced once let go.
    func start() -> Bool {
        var status: Int32 = 0
        let r = waitpid(pid, &status, Self.allWaits)
        guard r == pid, Self.stopSignal(status) == SIGTRAP else {
            if r == pid { ended = status }
            return false
        }
        _ = ckeysign_exitkill(pid)
        _ = ckeysign_cont(pid, 0)
        var said: String?
        while said == nil {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let n = poll(&ready, 1, 100)
            guard passSignals() else { return false }
            if n > 0 { said = SealWire.read(socket, limit: 64) ?? "" }
        }
        let fit = procStatus().map { Self.field($0, "Threads:") == "1" && Self.field($0, "TracerPid:") == String(getpid()) } ?? false
        let sealed = said == "ready" && fit && nonDumpable()
        guard letGo(), let after = procStatus(), Self.field(after, "TracerPid:") == "0" else { return false }
        return sealed
    }

    /// Passes on any signal the child stopped with while traced; false once it has ended.
    func passSignals() -> Bool {
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG | Self.allWaits)
            if r == 0 { return true }
            if r < 0 { return errno == EINTR }
            guard let signal = Self.stopSignal(status) else {
                ended = status
                return false
            }
            _ = ckeysign_cont(pid, signal == SIGTRAP ? 0 : signal)
        }
    }

    /// Stops the child and detaches from it (the stop itself not delivered).
    func letGo() -> Bool {
        guard kill(pid, SIGSTOP) == 0 else { return false }
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, Self.allWaits)
            if r < 0 && errno == EINTR { continue }
            guard r == pid, let signal = Self.stopSignal(status) else {
                if r == pid { ended = status }
                return false
            }
            if signal == SIGSTOP { return ckeysign_detach(pid) == 0 }
            _ = ckeysign_cont(pid, signal == SIGTRAP ? 0 : signal)
        }
    }

    /// Why the child may not be served now (nil: it may): it must still run, untraced and
    /// non-dumpable.
    func unfit() -> String? {
        guard let status = procStatus() else { return "Carrel has ended" }
        guard Self.field(status, "TracerPid:") == "0" else { return "Carrel is being traced" }
        guard nonDumpable() else { return "Carrel is dumpable (it can be attached to)" }
        return nil
    }

    /// A non-dumpable process's /proc files are root's (proc(5)); a child of root's own
    /// proves nothing, and is not run by anyone but root. (The /proc/PID folder itself keeps
    /// the process's own user whatever its state: the files in it are what tell.)
    func nonDumpable() -> Bool {
        var st = stat()
        return stat("/proc/\(pid)/status", &st) == 0 && st.st_uid == 0
    }

    func procStatus() -> String? {
        let fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return (try? RootFiles.readAll(fd, limit: 65536, what: "status")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The signal a wait status says the child stopped with; nil when it did not stop.
    static func stopSignal(_ status: Int32) -> Int32? {
        status & 0xff == 0x7f ? (status >> 8) & 0xff : nil
    }

    /// The first value of `name`'s line in a /proc status text.
    static func field(_ status: String, _ name: String) -> String? {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        }
        return nil
    }
}
