#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
@testable import Lockdown
import Testing

@Suite("Injected code and tracers, against the real loader and ptrace")
struct InjectedCodeAndTracerTests {
    static let hiddenPreload = """
        #include <stdlib.h>
        __attribute__((constructor)) static void hide(void) { unsetenv("LD_PRELOAD"); }
        """

    @Test func aPreloadedLibraryThatUnsetsItsOwnVariableIsRefusedBeforeTheLock() throws {
        let box = try Sandbox()
        guard let lib = try box.sharedLibrary("hide", Self.hiddenPreload) else {
            Issue.record("no C compiler to build the preloaded library (install gcc: scripts/install-deps)")
            return
        }
        let file = try box.strictAssessment()
        let r = box.run(ChildProcess.driver, ["begin", file, "--state-dir", box.stateDir], environment: ["LD_PRELOAD": lib])
        #expect(r.status == 69)
        #expect(r.err.contains(lib), "\(r.err)")
        #expect(r.err.contains("extensions: allow"))
        #expect(box.location.lockState == .free)
    }

    @Test func anAuditModuleThatUnsetsItsVariableInLaVersionIsRefused() throws {
        let box = try Sandbox()
        let source = """
            #include <stdlib.h>
            unsigned int la_version(unsigned int version) { unsetenv("LD_AUDIT"); return version; }
            """
        guard let lib = try box.sharedLibrary("audit", source) else {
            Issue.record("no C compiler to build the audit module (install gcc: scripts/install-deps)")
            return
        }
        let file = try box.strictAssessment()
        let r = box.run(ChildProcess.driver, ["begin", file, "--state-dir", box.stateDir], environment: ["LD_AUDIT": lib])
        #expect(r.status == 69)
        #expect(r.err.contains(lib), "\(r.err)")
    }

    @Test func aPreloadThatDeletesItselfAfterLoadingIsStillSeen() throws {
        let box = try Sandbox()
        let source = """
            #include <stdlib.h>
            #include <unistd.h>
            __attribute__((constructor)) static void vanish(void) { unlink(getenv("LD_PRELOAD")); unsetenv("LD_PRELOAD"); }
            """
        guard let lib = try box.sharedLibrary("vanish", source) else {
            Issue.record("no C compiler to build the preloaded library")
            return
        }
        let r = box.run(ChildProcess.driver, ["begin", try box.strictAssessment(), "--state-dir", box.stateDir],
                            environment: ["LD_PRELOAD": lib])
        #expect(r.status == 69)
        #expect(r.err.contains("\(lib) (deleted)"), "\(r.err)")
    }

    @Test func aLibrarySwappedInThroughLDLibraryPathIsRefused() throws {
        let box = try Sandbox()
        // Copy the very libsqlite3 the driver loads, so that only its place differs.
        let interpreter = try #require(LoadedCode.interpreterPath())
        let listing = ChildSpawn.run(interpreter, ["--list", ChildProcess.driver], environment: [:], timeout: 30)
        let listed = LoadedCode.parseLoaderList(listing.output)
        let sqlite = try #require(listed.first { $0.contains("libsqlite3.so") })
        let dir = box.root + "/libs"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let real = URL(fileURLWithPath: sqlite).resolvingSymlinksInPath().path
        try FileManager.default.copyItem(atPath: real, toPath: dir + "/libsqlite3.so.0")
        let r = box.run(ChildProcess.driver, ["begin", try box.strictAssessment(), "--state-dir", box.stateDir],
                            environment: ["LD_LIBRARY_PATH": dir])
        #expect(r.status == 69)
        #expect(r.err.contains(dir + "/libsqlite3.so.0"), "\(r.err)")
    }

    @Test func aCleanStartWithTheStrictPolicyBegins() throws {
        let box = try Sandbox()
        // Outside the runner's own terminal: run inside tmux, the runner's ancestors are tmux's.
        let (shell, arguments) = ChildSpawn.outsideRunner(ChildProcess.driver,
                                                          ["begin", try box.strictAssessment(), "--state-dir", box.stateDir])
        let child = try ChildProcess(shell, arguments, environment: box.environment)
        #expect(child.expect("began ") != nil, "nothing injected, nothing refused")
        child.send("submit")
        #expect(child.expect("finished submitted") != nil)
    }

    @Test func theLoaderListingAndTheMapsAreReadAsTheLoaderAndKernelWriteThem() {
        let listing = """
            \tlinux-vdso.so.1 (0x00007ffd)
            \tlibsqlite3.so.0 => /lib/x86_64-linux-gnu/libsqlite3.so.0 (0x00007f55)
            \tlibmissing.so => not found
            \t/lib64/ld-linux-x86-64.so.2 (0x00007f55)
            """
        #expect(LoadedCode.parseLoaderList(listing) == ["/lib/x86_64-linux-gnu/libsqlite3.so.0", "/lib64/ld-linux-x86-64.so.2"])
        let maps = """
            55a6-55a7 r--p 00000000 fe:00 254145 /usr/bin/carrel
            55a7-55a8 r-xp 00004000 fe:00 254145 /usr/bin/carrel
            7f10-7f11 r-xp 00026000 fe:00 333151 /tmp/evil lib.so (deleted)
            7f12-7f13 rwxp 00000000 00:00 0
            7f14-7f15 r-xp 00000000 00:00 0 [vdso]
            7f16-7f17 r-xp 00000000 fe:00 12                         /usr/lib/padded.so
            """
        let parsed = LoadedCode.parseMaps(maps)
        #expect(parsed.map(\.path) == ["/usr/bin/carrel", "/tmp/evil lib.so (deleted)", "", "/usr/lib/padded.so"])
        #expect(parsed.first?.inode == 254145 && parsed.first?.major == 0xFE)
        // A 20-digit inode (a FUSE file system picks its own) is read whole; an executable line
        // not of the kernel's form is reported, never passed over.
        let odd = LoadedCode.parseMaps("""
            7f20-7f21 r-xp 00000000 00:2d 18446744073709551615 /run/user/1000/fuse/lib.so
            7f22-7f23 r-xp 00000000 00:2d 18446744073709551616 /run/user/1000/fuse/other.so
            7f24-7f25 r-xp 0000 zz:yy 12 /tmp/odd.so
            7f26-7f27 r--p 0000 zz:yy 12 /tmp/not-executable.so
            """)
        #expect(odd.first?.path == "/run/user/1000/fuse/lib.so" && odd.first?.inode == UInt64.max)
        #expect(odd.count == 3 && odd.dropFirst().allSatisfy { $0.path.hasPrefix("an executable mapping Carrel cannot read: ") })
        #expect(LoadedCode.unexpected(Array(odd.dropFirst()), expected: ["/bin/sh"]).count == 2)
        let found = LoadedCode.unexpected(parsed, expected: [])
        #expect(found.contains("/tmp/evil lib.so (deleted)"))
        #expect(found.contains("executable memory not backed by any file"))
        // The loader is found by the address it was mapped at, whichever line holds it.
        func holder(_ address: UInt) -> String? {
            var text = maps
            return text.withUTF8 { LoadedCode.path(containing: address, maps: $0) }
        }
        #expect(holder(0x55a6) == "/usr/bin/carrel" && holder(0x55a7) == "/usr/bin/carrel")
        #expect(holder(0x7f10) == "/tmp/evil lib.so (deleted)" && holder(0x7f16) == "/usr/lib/padded.so")
        #expect(holder(0x7f12) == "" && holder(0x7f17) == nil && holder(0x1000) == nil)
        var garbled = "zz-7f11 r-xp 0 fe:00 1 /a\n7f10-7f11 r-xp 0 fe:00 1 /b\n"
        #expect(garbled.withUTF8 { LoadedCode.path(containing: 0x7f10, maps: $0) } == "/b")
    }

    @Test func theTracerFieldIsReadFromAStatusFile() {
        #expect(TracerWatch.parseTracerPid("Name:\tcarrel\nState:\tS\nTracerPid:\t4242\nUid:\t0\n") == 4242)
        #expect(TracerWatch.parseTracerPid("Name:\tcarrel\nTracerPid:\t0\n") == nil)
        #expect(TracerWatch.parseTracerPid("TracerPid:   77  \n") == 77)
        #expect(TracerWatch.parseTracerPid("Name:\tTracerPid: 5\nPPid:\t1\n") == nil)
        #expect(TracerWatch.parseTracerPid("TracerPid:\tabc\n") == nil)
        #expect(TracerWatch.parseTracerPid("") == nil)
    }

    @Test func thisTestRunnerShowsTheObjectsItWasStartedWith() throws {
        let mapped = try #require(LoadedCode.currentMappings())
        #expect(mapped.contains { $0.path.contains("libc.so") })
    }

    // MARK: tracers

    static func strace(_ box: Sandbox) -> String? { ChildSpawn.which("strace", environment: box.environment) }

    @Test func aTracerAttachedFromTheStartIsRefused() throws {
        let box = try Sandbox()
        guard let strace = Self.strace(box) else {
            Issue.record("strace is not installed (scripts/install-deps installs it)")
            return
        }
        let r = box.run(strace, ["-f", "-o", "/dev/null", ChildProcess.driver, "begin", try box.strictAssessment(), "--state-dir", box.stateDir])
        #expect(r.status == 69)
        #expect(r.err.contains("a tracer (pid"), "\(r.err)")
    }

    /// `carrel passphrase` waiting for its first line: a real carrel process, running.
    static func waitingCarrel(_ box: Sandbox, as user: [String] = []) throws -> ChildProcess {
        let child = try ChildProcess(user.isEmpty ? ChildProcess.carrel : "/usr/bin/setpriv",
                                     user + (user.isEmpty ? [] : ["--", ChildProcess.carrel]) + ["passphrase"],
                                     environment: box.environment)
        // Wait until carrel itself runs (after setpriv's exec) and sleeps in its read.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/exe")
            let status = (try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)) ?? ""
            if exe?.hasSuffix("/carrel") == true && status.contains("State:\tS") { break }
            usleep(50_000)
        }
        usleep(200_000)
        return child
    }

    @Test func carrelIsNonDumpableSoTheSameUserCannotAttachStrace() throws {
        let box = try Sandbox()
        guard let strace = Self.strace(box), getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            Issue.record("needs root (to run carrel and strace as another user), setpriv and strace")
            return
        }
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let probe = ChildSpawn.run("/usr/bin/setpriv", nobody + ["--", "/bin/sh", "-c", "test -x '\(ChildProcess.carrel)'"],
                                      environment: box.environment)
        guard probe.status == 0 else {
            Issue.record("the built carrel is not executable by another user here; cannot run this check")
            return
        }
        // Control: the same user can attach to an ordinary process of its own.
        let sleeper = try ChildProcess("/usr/bin/setpriv", nobody + ["--", "/bin/sleep", "30"], environment: box.environment)
        usleep(300_000)
        let control = ChildSpawn.run("/usr/bin/setpriv", nobody + ["--", strace, "-p", "\(sleeper.pid)", "-o", "/dev/null"],
                                        environment: box.environment, timeout: 2)
        #expect(control.output.contains("attached"), "control attach: \(control.output)")
        sleeper.signal(SIGKILL)

        let carrel = try Self.waitingCarrel(box, as: nobody)
        let denied = ChildSpawn.run("/usr/bin/setpriv", nobody + ["--", strace, "-p", "\(carrel.pid)", "-o", "/dev/null"],
                                       environment: box.environment, timeout: 10)
        #expect(!denied.timedOut && denied.status != 0)
        #expect(denied.output.contains("Operation not permitted"), "\(denied.output)")
        var info = stat()
        #expect(stat("/proc/\(carrel.pid)/mem", &info) == 0 && info.st_uid == 0, "non-dumpable: /proc/PID files belong to root")
        carrel.signal(SIGKILL)
    }

    @Test func aTracerThatStillAttachesAsRootIsSeenByTheWatch() throws {
        let box = try Sandbox()
        guard let strace = Self.strace(box), getuid() == 0 else {
            Issue.record("needs root and strace to attach to a non-dumpable process")
            return
        }
        let carrel = try Self.waitingCarrel(box)
        var watch = TracerWatch(pid: carrel.pid)
        #expect(watch.poll() == nil, "nothing traces it yet")
        let tracer = try ChildProcess(strace, ["-p", "\(carrel.pid)", "-o", "/dev/null"], environment: box.environment)
        var change: TracerWatch.Change?
        let deadline = Date().addingTimeInterval(20)
        while change == nil && Date() < deadline {
            change = watch.poll()
            usleep(50_000)
        }
        #expect(change == .attached(pid: Int(tracer.pid), name: "strace"))
        tracer.signal(SIGKILL)
        tracer.waitStatus()
        var gone: TracerWatch.Change?
        while gone == nil && Date() < deadline.addingTimeInterval(10) {
            gone = watch.poll()
            usleep(50_000)
        }
        #expect(gone == .detached)
        carrel.signal(SIGKILL)
    }
}
