#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import SessionKit
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs a helper program (tmux, xsel, wl-copy, …) with a deadline, through swift-subprocess.
/// Output goes to a private temporary file, never a pipe: a helper that daemonises (a tmux
/// server) would keep a pipe open forever. swift-subprocess starts the child with default
/// signal handling and an empty mask, whatever this process has.
public enum ProcessRunner {
    public struct Output: Sendable {
        public var status: Int32
        public var output: String
        public var timedOut: Bool
        /// Whether the helper ran at all: false when it could not be started.
        public var started = true

        /// Why a display helper did not clear: it could not reach the display (it ran and
        /// failed), it did not answer in time, or it could not be started.
        static func why(_ tool: String, _ r: Output, display: String) -> String {
            if r.timedOut { return "\(tool) did not answer within its deadline (display \(display))" }
            if !r.started { return "\(tool) could not be started: \(r.output)" }
            return "\(tool) could not reach display \(display)"
        }
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

    enum Ending: Sendable {
        case exited(Int32)
        case signalled
        case failed(String)
    }

    /// The async run's pid and ending, for the synchronous caller.
    final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Ending = .failed("did not run")
        private var childPid: pid_t = 0
        private var givenUp = false
        var value: Ending {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
        /// Records the helper's pid; a helper that starts after its deadline passed is killed
        /// at once.
        func started(_ pid: pid_t) {
            let late = lock.withLock {
                childPid = pid
                return givenUp
            }
            if late { kill(pid, SIGKILL) }
        }

        private var ownedDescriptors: [Int32] = []
        private var finished = false

        /// The run is over: descriptors the caller left to it are closed now.
        func finish() {
            let fds = lock.withLock {
                finished = true
                defer { ownedDescriptors = [] }
                return ownedDescriptors
            }
            for fd in fds { close(fd) }
        }

        /// The caller stops waiting: the run closes `fds` when it ends (the helper, or a late
        /// start, may still use them); false when it has already ended and the caller must.
        func leave(_ fds: [Int32]) -> Bool {
            lock.withLock {
                guard !finished else { return false }
                ownedDescriptors = fds
                return true
            }
        }

        /// Past the deadline: kills the helper if it runs, or as soon as it starts.
        func giveUp() {
            let pid = lock.withLock {
                givenUp = true
                return childPid
            }
            if pid > 0 { kill(pid, SIGKILL) }
        }
    }

    /// Runs `executable` to completion (or the deadline, when it is killed); synchronous,
    /// for the session's begin and end steps, which run on the main thread. The helper's
    /// async work runs on a thread of its own (`HelperThread`), never on Swift's shared pool,
    /// so a deadline holds however busy that pool is; still, never call it from a Swift
    /// concurrency task, whose thread it would block.
    public static func run(
        _ executable: String, _ arguments: [String], input: String? = nil,
        environment: [String: String], timeout: Double = 10
    ) -> Output {
        let scratch = FileManager.default.temporaryDirectory.path + "/carrel-run-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let outFD = open(scratch, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard outFD >= 0 else { return Output(status: -1, output: "cannot create a temporary file", timedOut: false, started: false) }
        unlink(scratch)
        var inFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if let input {
            let inputPath = scratch + ".in"
            let fd = open(inputPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 {
                unlink(inputPath)
                _ = SecureFiles.writeAll(fd, Data(input.utf8))
                lseek(fd, 0, SEEK_SET)
                close(inFD)
                inFD = fd
            }
        }

        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let (stdinFD, stdoutFD) = (inFD, outFD)
        Task.detached(executorPreference: HelperThread.shared) {
            box.value = await runAsync(executable, arguments, environment: environment, stdin: stdinFD, stdout: stdoutFD, box: box)
            box.finish()
            done.signal()
        }
        var timedOut = false
        if done.wait(timeout: .now() + max(0, timeout)) == .timedOut {
            // Past the deadline the helper is killed; its run then ends by itself, normally at
            // once. If even that is late, the caller goes on and the run closes the files.
            timedOut = true
            box.giveUp()
            if done.wait(timeout: .now() + 2) == .timedOut, box.leave([outFD, inFD].filter { $0 >= 0 }) {
                return Output(status: -1, output: "", timedOut: true)
            }
        }
        defer {
            close(outFD)
            if inFD >= 0 { close(inFD) }
        }

        lseek(outFD, 0, SEEK_SET)
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { read(outFD, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if timedOut { return Output(status: -1, output: text, timedOut: true) }
        switch box.value {
        case let .exited(code): return Output(status: code, output: text, timedOut: false)
        case .signalled: return Output(status: -1, output: text, timedOut: false)
        case let .failed(why): return Output(status: -1, output: why, timedOut: false, started: false)
        }
    }

    static func runAsync(_ executable: String, _ arguments: [String], environment: [String: String],
                         stdin: Int32, stdout: Int32, box: Box) async -> Ending {
        var variables: [Environment.Key: String] = [:]
        for (key, value) in environment { variables[Environment.Key(stringLiteral: key)] = value }
        let env = Environment.custom(variables)
        // A helper being replaced (or one whose writer a concurrent fork still holds open)
        // cannot be executed for a moment: ETXTBSY is retried briefly.
        for attempt in 0..<10 {
            do {
                let result = try await Subprocess.run(
                    .path(FilePath(executable)), arguments: Arguments(arguments), environment: env,
                    input: .fileDescriptor(FileDescriptor(rawValue: stdin), closeAfterSpawningProcess: false),
                    output: .fileDescriptor(FileDescriptor(rawValue: stdout), closeAfterSpawningProcess: false),
                    error: .fileDescriptor(FileDescriptor(rawValue: stdout), closeAfterSpawningProcess: false)
                ) { execution in
                    box.started(execution.processIdentifier.value)
                }
                switch result.terminationStatus {
                case let .exited(code): return .exited(Int32(truncatingIfNeeded: code))
                default: return .signalled
                }
            } catch {
                let busy = "\(error)".localizedCaseInsensitiveContains("text file busy")
                guard busy, attempt < 9 else { return .failed("\(error)") }
                usleep(20_000)
            }
        }
        return .failed("\(executable) stayed busy")
    }
}

/// The helper programs' thread: their async I/O never waits on Swift's shared pool.
enum HelperThread {
    static let shared = DedicatedThread(name: "carrel-helpers")
}
