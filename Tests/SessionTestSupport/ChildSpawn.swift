#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Foundation

/// How the tests start the programs they drive (the driver, the real binary, tmux, mount):
/// default signal handling and an empty mask, whatever the test thread blocks, and a
/// synchronous run that never needs Swift concurrency's shared pool.
public enum ChildSpawn {
    /// Starts a program with the given descriptors as its stdin, stdout and stderr, default
    /// signal handling and an empty signal mask; no other descriptor is passed on.
    public static func spawn(_ executable: String, _ arguments: [String], environment: [String: String],
                             stdin: Int32, stdout: Int32, stderr: Int32) -> Result<pid_t, POSIXError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else the test process has open reaches the child: a descriptor another test
        // opened without close-on-exec (a file filling a disk, say) would otherwise live as long
        // as the child and keep what it holds from being freed.
        _ = carrel_spawn_actions_close_from(&actions, 3)

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

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        var spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        // A helper being replaced (or a freshly written one whose writer another fork still
        // holds open) gives ETXTBSY for a moment.
        var retries = 0
        while spawned == ETXTBSY && retries < 10 {
            usleep(20_000)
            retries += 1
            spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        return spawned == 0 ? .success(pid) : .failure(POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO))
    }


    public struct Output: Sendable {
        public var status: Int32
        public var output: String
        public var timedOut: Bool
    }

    /// Finds `name` on PATH; nil when the program is not installed.
    public static func which(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    public static func run(
        _ executable: String, _ arguments: [String], input: String? = nil,
        environment: [String: String], timeout: Double = 10
    ) -> Output {
        let scratch = FileManager.default.temporaryDirectory.path + "/carrel-run-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let outFD = open(scratch, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard outFD >= 0 else { return Output(status: -1, output: "cannot create a temporary file", timedOut: false) }
        unlink(scratch)
        defer { close(outFD) }

        var inFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if let input {
            let inputPath = scratch + ".in"
            let fd = open(inputPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 {
                unlink(inputPath)
                _ = Array(input.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                lseek(fd, 0, SEEK_SET)
                close(inFD)
                inFD = fd
            }
        }
        defer { if inFD >= 0 { close(inFD) } }

        var pid: pid_t = 0
        switch spawn(executable, arguments, environment: environment, stdin: inFD, stdout: outFD, stderr: outFD) {
        case let .success(child): pid = child
        case let .failure(error): return Output(status: -1, output: String(cString: strerror(error.code.rawValue)), timedOut: false)
        }

        var status: Int32 = 0
        var timedOut = false
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { break }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                timedOut = true
                break
            }
            usleep(5_000)
        }
        lseek(outFD, 0, SEEK_SET)
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { read(outFD, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        let exitCode: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
        return Output(status: timedOut ? -1 : exitCode, output: String(decoding: bytes, as: UTF8.self), timedOut: timedOut)
    }

    /// Runs a program outside the test runner's terminal and process tree: in a session of
    /// its own (no controlling terminal) under a shell whose parent has exited, so that none
    /// of its ancestors is the runner's — which may be a developer's tmux or screen, and the
    /// strict policy would rightly refuse that. Tests that expect the strict policy to let a
    /// clean start begin run their program this way, so the suite passes inside a multiplexer.
    /// stdin is /dev/null; stdout and stderr are returned together.
    public static func runOutsideRunner(
        _ executable: String, _ arguments: [String], environment: [String: String], timeout: Double = 30
    ) -> Output {
        let base = FileManager.default.temporaryDirectory.path + "/carrel-outside-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let out = base + ".out", done = base + ".status"
        defer {
            unlink(out)
            unlink(done)
        }
        let script = #"out=$1; done=$2; shift 2; ( setsid "$@" > "$out" 2>&1 < /dev/null; echo $? > "$done.part"; mv "$done.part" "$done" ) &"#
        let started = run("/bin/sh", ["-c", script, "sh", out, done, executable] + arguments, environment: environment, timeout: timeout)
        guard started.status == 0 else { return started }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32?
        while Date() < deadline {
            if let text = try? String(contentsOfFile: done, encoding: .utf8) {
                status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
                break
            }
            usleep(20_000)
        }
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return Output(status: status ?? -1, output: output, timedOut: status == nil)
    }

    /// The command line that starts `executable` outside the runner's terminal and process
    /// tree (see `runOutsideRunner`), for a child whose pipes the test keeps: its exit status
    /// is not the caller's to wait for, so the test reads what it says instead.
    public static func outsideRunner(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        // A background job's stdin would be /dev/null: the caller's is handed over as fd 3.
        ("/bin/sh", ["-c", #"exec 3<&0; ( setsid "$0" "$@" 0<&3 3<&- ) &"#, executable] + arguments)
    }
}
