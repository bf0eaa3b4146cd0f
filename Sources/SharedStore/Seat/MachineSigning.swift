#if canImport(Glibc)
import Glibc
#endif
import Foundation
import MachineSeal

/// The seat's side of enrolment: asks the machine's signing helper (`carrel-keysign`, setuid
/// root, next to this executable) to sign its announcement. A machine that is not enrolled, or
/// a helper that refuses, leaves the announcement unsigned: the console holds such a seat back
/// as an unknown machine.
public enum MachineSigning {
    /// The helper installed next to this Carrel.
    public static var helperPath: String {
        let exe = ownPath() ?? CommandLine.arguments[0]
        return (exe as NSString).deletingLastPathComponent + "/carrel-keysign"
    }

    /// This executable's path, as the helper reads it for its caller.
    public static func ownPath() -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") }

    public struct Signed: Sendable, Equatable {
        public var signature: String
        public var statement: String
    }

    /// The helper's signature over `request`, or why there is none (one line).
    public static func sign(_ request: SealRequest, helper: String = helperPath) -> Result<Signed, MachineSigningFailure> {
        guard access(helper, X_OK) == 0 else { return .failure(.init("no signing helper at \(helper): this machine is not enrolled")) }
        let run = HelperRun.run(helper, input: Array(request.text.utf8), deadline: 5)
        guard let run else { return .failure(.init("the signing helper could not be run")) }
        guard run.status == 0 else {
            let why = String(decoding: run.error.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(.init(why.isEmpty ? "the signing helper refused (status \(run.status))" : why))
        }
        let text = String(decoding: run.output, as: UTF8.self)
        guard let newline = text.firstIndex(of: "\n") else { return .failure(.init("the signing helper said nothing")) }
        let signature = String(text[..<newline])
        var statement = String(text[text.index(after: newline)...])
        if statement.hasSuffix("\n") { statement.removeLast() }
        guard SealStatement.parse(statement) != nil, signature.utf8.count == 128, Hex.bytes(signature) != nil else {
            return .failure(.init("the signing helper's answer cannot be read"))
        }
        return .success(Signed(signature: signature, statement: statement))
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
