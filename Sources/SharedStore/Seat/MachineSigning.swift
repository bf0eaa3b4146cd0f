#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MachineSeal

/// The seat's side of enrolment. On an enrolled machine a waiting seat's Carrel does not ask
/// a helper: it is started by one. `carrel take … --room` runs the machine's helper
/// (`carrel-keysign`, setuid root, next to this executable) in its place; the helper checks
/// the enrolled executable, starts it as the user, and signs announcements for that child
/// alone, over the socket it gave it (descriptor 3). A Carrel not started so announces
/// unsigned: the console holds such a seat back as an unknown machine.
public enum MachineSigning {
    /// The helper installed next to this Carrel.
    public static var helperPath: String {
        let exe = ownPath() ?? CommandLine.arguments[0]
        return (exe as NSString).deletingLastPathComponent + "/carrel-keysign"
    }

    /// This executable's path.
    public static func ownPath() -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") }

    public struct Signed: Sendable, Equatable {
        public var signature: String
        public var statement: String
    }

    /// Whether the helper started this process (its variable was set at the start).
    public static var startedByHelper: Bool { launch.asked }

    /// Started by the helper, and it answered: false when it has ended since.
    public static var helperAnswers: Bool { launch.socket != nil }

    /// Call first thing, once the process is non-dumpable: answers the helper's launch (its
    /// socket, if it started this process) before any thread is made.
    public static func answerLaunch() { _ = launch }

    static let launch: (asked: Bool, socket: Int32?) = {
        guard let value = getenv(SealWire.variable).map({ String(cString: $0) }) else { return (false, nil) }
        unsetenv(SealWire.variable)
        let fd = SealWire.descriptor
        var st = stat()
        guard value == String(fd), fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK else { return (true, nil) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        guard SealWire.write(fd, "ready"), SealWire.read(fd) == "ready" else {
            close(fd)
            return (true, nil)
        }
        return (true, fd)
    }()

    static let asking = NSLock()

    /// On an enrolled machine whose enrolment names this executable, runs the helper in place
    /// of this process with the same `arguments` (it starts this Carrel again, as its child).
    /// Returns when it does not: the machine is not enrolled for this executable, or this
    /// process was started by the helper already.
    public static func relaunch(_ arguments: [String], machineFolder: String) {
        guard !launch.asked, let text = try? String(contentsOfFile: machineFolder + "/machine.conf", encoding: .utf8),
              let config = MachineConfig.parse(text), config.carrel == ownPath() else { return }
        let helper = helperPath
        var st = stat()
        guard stat(helper, &st) == 0, st.st_uid == 0, st.st_mode & S_ISUID != 0 || geteuid() == 0 else { return }
        let argv: [UnsafeMutablePointer<CChar>?] = ([helper] + arguments).map { strdup($0) } + [nil]
        execv(helper, argv)
        for p in argv { free(p) }
    }

    /// The helper's signature over `request`, or why there is none (one line).
    public static func sign(_ request: SealRequest) -> Result<Signed, MachineSigningFailure> {
        guard let fd = launch.socket else {
            return .failure(.init("not started by this machine's signing helper (carrel-keysign): the machine is not enrolled for this Carrel"))
        }
        asking.lock()
        defer { asking.unlock() }
        guard SealWire.write(fd, String(request.text.dropLast())), let answer = SealWire.read(fd) else {
            return .failure(.init("the signing helper did not answer"))
        }
        if answer.hasPrefix("refused ") { return .failure(.init("the signing helper refused: " + answer.dropFirst(8))) }
        guard answer.hasPrefix("signed "), let newline = answer.firstIndex(of: "\n") else {
            return .failure(.init("the signing helper's answer cannot be read"))
        }
        let signature = String(answer[answer.index(answer.startIndex, offsetBy: 7)..<newline])
        let statement = String(answer[answer.index(after: newline)...])
        guard SealStatement.parse(statement) != nil, signature.utf8.count == 128, Hex.bytes(signature) != nil else {
            return .failure(.init("the signing helper's answer cannot be read"))
        }
        return .success(Signed(signature: signature, statement: statement))
    }

    /// The machine's own store login from the helper that started this process (role and
    /// password), or why there is none. Asked once, at the start of a seat in a room; the
    /// password stays in this (non-dumpable) process's memory and is sent to the store only
    /// through SCRAM.
    public static func storeLogin() -> Result<(role: String, password: String), MachineSigningFailure> {
        guard let fd = launch.socket else {
            return .failure(.init("not started by this machine's signing helper (carrel-keysign)"))
        }
        asking.lock()
        defer { asking.unlock() }
        guard SealWire.write(fd, StoreLogin.request), let answer = SealWire.read(fd) else {
            return .failure(.init("the signing helper did not answer"))
        }
        if answer.hasPrefix("refused ") { return .failure(.init("the signing helper refused: " + answer.dropFirst(8))) }
        guard let login = StoreLogin.parse(answer: answer) else {
            return .failure(.init("the signing helper's answer cannot be read (an older helper? enrol again)"))
        }
        return .success(login)
    }

    /// `attestation` with the machine's signed statement for this waiting seat added (as is
    /// when the machine cannot sign; `why` is told then).
    public static func sealed(_ attestation: [String: String]?, session: String, room: String, seat: String, boxKey: String,
                              version: String, why: (String) -> Void = { _ in }) -> [String: String]? {
        let request = SealRequest(session: session, room: room, seat: seat, boxKey: boxKey, carrelVersion: version)
        switch sign(request) {
        case let .success(signed):
            var facts = attestation ?? [:]
            facts["machine_statement"] = signed.statement
            facts["machine_signature"] = signed.signature
            return facts
        case let .failure(failure):
            why(failure.why)
            return attestation
        }
    }
}

extension MachineSigning {
    /// Runs `helper seat check` (the helper starts this machine's enrolled Carrel, which asks
    /// for a test signature and checks it): nil when it passed, else what it said.
    public static func helperCheck(_ helper: String = helperPath) -> String? {
        guard let run = HelperRun.run(helper, arguments: ["seat", "check"], input: [], deadline: 20) else {
            return "the signing helper could not be run"
        }
        guard run.status != 0 else { return nil }
        let said = String(decoding: (run.error + run.output).prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return said.isEmpty ? "the check failed (status \(run.status))" : said
    }
}

public struct MachineSigningFailure: Error, Equatable {
    public var why: String
    init(_ why: String) { self.why = why }
}

/// One run of a small helper program: its standard input written, its output and errors read
/// (each up to 64 KiB) within a deadline, after which it is killed.
struct HelperRun {
    var status: Int32
    var output: [UInt8]
    var error: [UInt8]

    static func run(_ path: String, arguments: [String] = [], input: [UInt8], deadline: Double) -> HelperRun? {
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        // Blocking pipes (the helper reads its standard input as a file), close-on-exec.
        func made(_ fds: inout [Int32]) -> Bool {
            guard pipe(&fds) == 0 else { return false }
            return fds.allSatisfy { fcntl($0, F_SETFD, FD_CLOEXEC) == 0 }
        }
        guard made(&inPipe), made(&outPipe), made(&errPipe) else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        for fd in [inPipe[0], outPipe[1], errPipe[1]] { close(fd) }
        guard spawned == 0 else {
            for fd in [inPipe[1], outPipe[0], errPipe[0]] { close(fd) }
            return nil
        }
        // A request is far smaller than a pipe's buffer: written whole at once.
        _ = input.withUnsafeBytes { write(inPipe[1], $0.baseAddress, $0.count) }
        close(inPipe[1])
        let (output, error) = readBoth(outPipe[0], errPipe[0], until: Date().addingTimeInterval(deadline))
        close(outPipe[0])
        close(errPipe[0])
        if output == nil { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard let output, (status & 0x7f) == 0 else { return nil }
        return HelperRun(status: (status >> 8) & 0xff, output: output, error: error)
    }

    /// Both descriptors read to their end; nil output when the deadline passed first.
    static func readBoth(_ out: Int32, _ err: Int32, until deadline: Date) -> ([UInt8]?, [UInt8]) {
        var bytes: [[UInt8]] = [[], []]
        var open = [true, true]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while open.contains(true) {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return (nil, bytes[1]) }
            var fds = [pollfd(fd: open[0] ? out : -1, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: open[1] ? err : -1, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Int32(min(left, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { return (nil, bytes[1]) }
            for i in 0..<2 where open[i] && fds[i].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if bytes[i].count < 65536 { bytes[i] += buffer[0..<n] }
                } else if n == 0 || errno != EINTR {
                    open[i] = false
                }
            }
        }
        return (bytes[0], bytes[1])
    }
}
