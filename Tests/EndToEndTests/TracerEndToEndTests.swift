#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit
import Testing

extension TmuxHarness {
    /// The pid of the carrel running in `window` (the pane runs it under `sh -c`).
    func carrelPid(_ window: String, timeout: Double = 10) -> Int32? {
        let out = run(["display-message", "-p", "-t", "e2e:\(window)", "#{pane_pid}"]).output
        guard let shell = Int32(out.trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for name in names {
                guard let pid = Int32(name),
                      let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, Int32(fields[1]) == shell, stat.contains("(carrel)") { return pid }
            }
            usleep(50_000)
        }
        return nil
    }

    /// Attaches strace to `pid` (as root: carrel is non-dumpable) and waits until the kernel
    /// says it is traced; returns strace's pid, or nil when it never attached.
    func attachTracer(_ pid: Int32, strace: String) -> pid_t? {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        guard case let .success(tracer) = ChildSpawn.spawn(strace, ["-p", "\(pid)", "-o", "/dev/null"], environment: environment,
                                                          stdin: null, stdout: null, stderr: null) else { return nil }
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if TracerWatch.tracerPid(of: pid) != nil { return tracer }
            usleep(50_000)
        }
        Self.stop(tracer)
        return nil
    }

    static func stop(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

/// A tracer attached (as root) after launch, where only the seat's own checks can see it.
@Suite("Tracers attached after launch (tmux, strace, root)", .serialized)
struct TracerEndToEndTests {
    /// strace, when this runs as root (carrel is non-dumpable); otherwise the test fails saying why.
    static func straceAsRoot() -> String? {
        guard let strace = ChildSpawn.which("strace", environment: ProcessInfo.processInfo.environment), getuid() == 0 else {
            Issue.record("needs root and strace (scripts/install-deps) to attach to a non-dumpable carrel")
            return nil
        }
        return strace
    }

    @Test(.timeLimit(.minutes(4)))
    func aTracerAttachedWhileTheStartScreenWaitsMakesBeginRefuse() throws {
        let t = try #require(TmuxHarness())
        guard let strace = Self.straceAsRoot() else { return }
        let file = try t.fixture("geography.yaml", passphrase: nil)
        t.start("take", ["take", file, "--candidate", "Ada"])
        #expect(t.waitFor("take", "Enter continue") != nil)
        t.keys("take", "Enter")
        #expect(t.waitFor("take", "Begin? y/N") != nil)
        let pid = try #require(t.carrelPid("take"))
        let tracer = try #require(t.attachTracer(pid, strace: strace), "strace could not attach")
        defer { TmuxHarness.stop(tracer) }
        t.keys("take", "y")
        #expect(t.exitStatus("take") == 69)
        let screen = t.screen("take")
        #expect(screen.contains("a tracer (pid"), "\(screen)")
        #expect(t.location.lockState == .free, "nothing was locked")
        let journal = try t.journal()
        #expect(try journal.sessions(status: nil).allSatisfy { $0.status != .active }, "no session runs")
    }

    @Test(.timeLimit(.minutes(4)))
    func aTracerAttachedToADemoSessionIsInItsEventLog() throws {
        let t = try #require(TmuxHarness())
        guard let strace = Self.straceAsRoot() else { return }
        t.start("demo", ["demo"])
        #expect(t.waitFor("demo", "Carrel workshop demo") != nil)
        t.keys("demo", "F7")
        #expect(t.waitFor("demo", "Begin session — succeeded") != nil)
        let pid = try #require(t.carrelPid("demo"))
        let tracer = try #require(t.attachTracer(pid, strace: strace), "strace could not attach")
        let attached = Date()
        // The demo looks once a second; 5 s leaves room for a busy machine
        // (Benchmarks/README.md has the measured delay).
        let seen = t.waitFor("demo", "A tracer attached to this session: pid \(tracer)", timeout: 5)
        let delay = Date().timeIntervalSince(attached)
        TmuxHarness.stop(tracer)
        #expect(seen != nil, "\(t.screen("demo"))")
        print("tracer seen by the demo after \(String(format: "%.2f", delay)) s")
        t.keys("demo", "F8")
        #expect(t.waitFor("demo", "Session ended") != nil)
        t.keys("demo", "F9")
        #expect(t.exitStatus("demo") == 0)
    }
}
