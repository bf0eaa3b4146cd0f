#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import CAssessmentd

/// The programs the service runs (nft, systemctl), by absolute path: a small fixed
/// environment, an empty signal mask, no descriptor but stdin and one output pipe, a time limit.
enum Spawn {
    struct Result {
        var status: Int32
        var output: String
        var succeeded: Bool { status == 0 }
    }

    static let environment = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C", "LC_ALL=C"]

    /// Runs `program` with `arguments`, `input` on its stdin; its stdout and stderr together.
    static func run(_ program: String, _ arguments: [String], input: String = "", timeout: Double = 15) -> Result {
        let bytes = Array(input.utf8)
        // The input is written whole into the pipe before the child starts: it must fit.
        guard bytes.count < 60_000 else { return Result(status: -1, output: "the input for \(program) is too long") }
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        guard cad_pipe(&inPipe) == 0 else { return Result(status: -1, output: "no pipe for \(program)") }
        guard cad_pipe(&outPipe) == 0 else {
            close(inPipe[0]); close(inPipe[1])
            return Result(status: -1, output: "no pipe for \(program)")
        }
        _ = Descriptor.writeAll(inPipe[1], bytes)
        close(inPipe[1])
        let pid = spawn(program, arguments, stdin: inPipe[0], output: outPipe[1])
        close(inPipe[0])
        close(outPipe[1])
        defer { close(outPipe[0]) }
        guard let pid else { return Result(status: -1, output: "\(program) cannot be started: \(String(cString: strerror(errno)))") }
        let output = collect(outPipe[0], pid: pid, timeout: timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: code, output: String(decoding: output, as: UTF8.self))
    }

    static func spawn(_ program: String, _ arguments: [String], stdin: Int32, output: Int32) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        _ = cad_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        if r != 0 { errno = r }
        return r == 0 ? pid : nil
    }

    /// What the child writes until it closes its end; killed once `timeout` passes.
    static func collect(_ fd: Int32, pid: pid_t, timeout: Double) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Clock.now() + timeout
        while true {
            let left = deadline - Clock.now()
            if left <= 0 {
                kill(pid, SIGKILL)
                out += Array(" (killed after \(Int(timeout)) s)".utf8)
                return out
            }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&ready, 1, Int32(min(left, 1) * 1000))
            if n < 0 && errno != EINTR { return out }
            guard n > 0 else { continue }
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return out }
            if out.count < 65536 { out += chunk[0..<got] }
        }
    }
}

/// Wall-clock seconds since 1970.
enum Clock {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
