#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

/// A lab machine for the assessment-mode service's root tests: test accounts made for the test
/// (two students and an administrator), a folder of root's with the trusted binary (a copy of
/// carrel-mode-probe, which speaks the protocol in place of Carrel), the service run for real on
/// a socket of its own, and the PAM line installed for the test and put back byte for byte.
final class AssessmentdLab {
    let folder: String
    let students: [String]
    let admin: String
    var service: pid_t = 0
    var started = 0
    let pamFile = "/etc/pam.d/common-account"
    var pamBefore: Data?
    /// The kernel's TIOCSTI setting as found: put back whatever a failed test left.
    let tiocstiBefore = try? String(contentsOfFile: ModePlan.tiocsti, encoding: .utf8)

    static var daemon: String { ChildProcess.buildFolder.appendingPathComponent("carrel-assessmentd").path }
    static var probe: String { ChildProcess.buildFolder.appendingPathComponent("carrel-mode-probe").path }
    static let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"]

    var socket: String { folder + "/assessmentd.sock" }
    var trusted: String { folder + "/carrel" }
    var state: String { folder + "/state" }
    var log: String { folder + "/service.log" }

    init() throws {
        folder = FileManager.default.temporaryDirectory.path + "/carrel-assessmentd-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o755)
        let tag = String(UInt32.random(in: 0 ... .max), radix: 36)
        students = ["cmt\(tag)a", "cmt\(tag)b"]
        admin = "cmt\(tag)x"
        for name in students { try Self.must("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", name]) }
        try Self.must("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", "-G", "sudo", admin])
        try FileManager.default.copyItem(atPath: Self.probe, toPath: trusted)
        // Installed as the package installs Carrel: setgid to a group no student is in, so that
        // it starts in the loader's secure mode.
        chown(trusted, 0, getgrnam("nogroup")?.pointee.gr_gid ?? 65534)
        chmod(trusted, 0o2755)
    }

    deinit {
        stop(signal: SIGKILL)
        // Whatever a failed test left: the service's own table and files go with the lab.
        _ = ChildSpawn.run("/usr/sbin/nft", ["delete", "table", "inet", ModePlan.table], environment: Self.environment)
        unlink(ModePlan.nologin)
        rmdir("/run/carrel")
        if let value = tiocstiBefore, (try? String(contentsOfFile: ModePlan.tiocsti, encoding: .utf8)) != value {
            try? value.write(toFile: ModePlan.tiocsti, atomically: false, encoding: .utf8)
        }
        restorePAM()
        for name in students + [admin] {
            // The test accounts' processes, each by its pid (userdel refuses an account that runs any).
            let uid = uid(name)
            // kill -1 as the account ends all of its processes at once, a program forking
            // without pause among them; then each that is left, by its pid.
            _ = ChildSpawn.run("/usr/bin/setpriv", ["--reuid=\(name)", "--regid=\(name)", "--init-groups", "/bin/sh", "-c", "kill -9 -1"],
                               environment: Self.environment)
            for pid in Self.processes(of: uid) { kill(pid, SIGKILL) }
            _ = Eventually.poll(5) { Self.processes(of: uid).isEmpty }
            _ = ChildSpawn.run("/usr/sbin/userdel", ["-r", name], environment: Self.environment)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    static func must(_ program: String, _ arguments: [String]) throws {
        let run = ChildSpawn.run(program, arguments, environment: environment, timeout: 30)
        guard run.status == 0 else { throw POSIXError(.EPERM, "\(program) \(arguments): \(run.output)") }
    }

    /// The pids whose real user is `uid` (none for root: nothing of root's is touched).
    static func processes(of uid: UInt32) -> [pid_t] {
        guard uid != 0 else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { pid_t($0) }.filter { pid in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let lines = status.split(separator: "\n")
            // A zombie is its parent's to reap; it runs nothing.
            guard !lines.contains(where: { $0.hasPrefix("State:") && $0.contains("Z") }) else { return false }
            return lines.contains { $0.hasPrefix("Uid:") && $0.split(whereSeparator: \.isWhitespace).dropFirst().first == "\(uid)" }
        }
    }

    func uid(_ account: String) -> UInt32 { getpwnam(account).map { $0.pointee.pw_uid } ?? 0 }

    /// A lab whose service serves, a store listening, and the machine as it was before any mode.
    static func serving() throws -> (lab: AssessmentdLab, store: Listener, before: String) {
        let lab = try AssessmentdLab()
        let store = try Listener()
        try lab.start()
        return (lab, store, lab.snapshot())
    }

    /// Starts the service and waits until it serves (its log says so).
    func start(_ extra: [String] = []) throws {
        let out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { close(out) }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(null) }
        switch ChildSpawn.spawn(Self.daemon, ["--socket", socket, "--carrel", trusted, "--state", state] + extra, environment: Self.environment,
                                stdin: null, stdout: out, stderr: out) {
        case let .success(pid): service = pid
        case let .failure(error): throw error
        }
        started += 1
        let serving = Eventually.poll(10) { self.logText.components(separatedBy: "serving ").count - 1 >= self.started }
        guard serving else { throw POSIXError(.ETIMEDOUT, "the service did not start: \(logText)") }
    }

    /// Stops the service with `signal` and waits for it.
    func stop(signal: Int32 = SIGTERM) {
        guard service > 0 else { return }
        kill(service, signal)
        var status: Int32 = 0
        while waitpid(service, &status, 0) < 0 && errno == EINTR {}
        service = 0
    }

    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// The trusted binary (or `program`) run as `account`, connected to the service.
    func client(_ account: String? = nil, program: String? = nil) throws -> ChildProcess {
        let who = account ?? students[0]
        let exe = program ?? trusted
        if who == "root" { return try ChildProcess(exe, [socket], environment: Self.environment) }
        return try ChildProcess("/usr/bin/setpriv", ["--reuid=\(who)", "--regid=\(who)", "--init-groups", exe, socket],
                                environment: Self.environment)
    }

    /// The package's PAM piece (packaging/pam/carrel-assessment): its Account lines.
    static func pamPiece() throws -> [String] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("packaging/pam/carrel-assessment"), encoding: .utf8)
        let block = text.components(separatedBy: "Account:\n").dropFirst().first ?? ""
        return block.split(separator: "\n").prefix { $0.hasPrefix("\t") }.map { "account" + $0 }
    }

    /// Installs the package's PAM piece into common-account, as pam-auth-update would.
    func installPAM() throws {
        pamBefore = try Data(contentsOf: URL(fileURLWithPath: pamFile))
        let lines = try Self.pamPiece()
        guard lines.contains(where: { $0.contains("pam_nologin.so file=\(ModePlan.nologin)") }) else {
            throw POSIXError(.ENOENT, "the PAM piece has no pam_nologin line: \(lines)")
        }
        let text = String(decoding: pamBefore ?? Data(), as: UTF8.self) + lines.joined(separator: "\n") + "\n"
        try text.write(toFile: pamFile, atomically: true, encoding: .utf8)
        chmod(pamFile, 0o644)
    }

    func restorePAM() {
        guard let pamBefore else { return }
        try? pamBefore.write(to: URL(fileURLWithPath: pamFile), options: .atomic)
        chmod(pamFile, 0o644)
        self.pamBefore = nil
    }

    /// Everything a mode may change, as text: the whole ruleset, the nologin file, the PAM and
    /// modprobe folders (names and contents).
    func snapshot() -> String {
        let ruleset = ChildSpawn.run("/usr/sbin/nft", ["list", "ruleset"], environment: Self.environment).output
        var text = "ruleset:\n\(ruleset)\nnologin: \((try? String(contentsOfFile: ModePlan.nologin, encoding: .utf8)) ?? "none")\n"
        text += "legacy_tiocsti: \((try? String(contentsOfFile: ModePlan.tiocsti, encoding: .utf8)) ?? "none")"
        for dir in ["/etc/pam.d", "/etc/modprobe.d", "/run/carrel"] {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
            for name in names {
                text += "\(dir)/\(name): \((try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? "?")\n"
            }
        }
        return text
    }

    enum Reach: Equatable { case reached, refused, hung }

    /// What happens when `account` (or root) opens a TCP connection to 127.0.0.1:`port`: it is
    /// made, refused at once, or still waiting after five seconds.
    func reach(_ port: UInt16, as account: String?) -> Reach {
        let script = "exec 3<>/dev/tcp/127.0.0.1/\(port)"
        let run = account.map {
            ChildSpawn.run("/usr/bin/setpriv", ["--reuid=\($0)", "--regid=\($0)", "--init-groups", "/bin/bash", "-c", script],
                           environment: Self.environment, timeout: 5)
        } ?? ChildSpawn.run("/bin/bash", ["-c", script], environment: Self.environment, timeout: 5)
        return run.status == 0 ? .reached : run.timedOut ? .hung : run.output.contains("refused") ? .refused : .hung
    }

    /// `su -l ACCOUNT -c true` run by root: PAM's account stack decides.
    func suSucceeds(_ account: String) -> Bool {
        ChildSpawn.run("/usr/bin/su", ["-l", account, "-c", "true"], environment: Self.environment).status == 0
    }

    static func begin(session: String, port: UInt16, hash: String? = nil, policy: MachinePolicy = MachinePolicy(),
                      maxDuration: Int = 600) -> String {
        let begin = ModeBegin(session: session, policy: policy, store: [Endpoint(host: "127.0.0.1", port: Int(port))], maxDuration: maxDuration,
                              passphraseHash: hash)
        return line(.begin(begin))
    }

    static func line(_ request: ModeRequest) -> String {
        (try? ModeWire.line(request)).map { String(decoding: $0.dropLast(), as: UTF8.self) } ?? ""
    }

    static func reply(_ line: String?) -> ModeReply? {
        line.flatMap { try? ModeWire.decode(ModeReply.self, line: Data($0.utf8)) }
    }
}

/// A TCP port on 127.0.0.1 that accepts connections (the kernel completes them from the backlog).
final class Listener {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard fd >= 0, bound == 0, named == 0, listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }
}

extension POSIXError {
    init(_ code: POSIXErrorCode, _ message: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
