#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation
import MachineSeal
import SessionTestSupport
import Testing

/// The helper installed as `carrel seat enroll` leaves it (setuid root, /etc/carrel), used by a
/// student who is not root: their Carrel is signed for, a process of theirs that reaches for
/// the Carrel child's socket while the runtime loads gets nothing, and the helper killed takes
/// its Carrel with it. Enrols a test machine in /etc/carrel for the run (CI runs as root on a
/// machine of its own); skipped where a real enrolment is there. In the helper's serialized
/// suite: the others read /etc/carrel's absence.
extension KeysignTests {
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/etc/carrel"),
                   "needs a machine with no /etc/carrel (the test enrols one for its run)"))
    func aStudentsCarrelIsSignedForAndNoOtherProcessOfTheirsGetsItsSocket() throws {
        let environment = ProcessInfo.processInfo.environment
        let lab = "/tmp/carrel-lab-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        #expect(mkdir(lab, 0o755) == 0 && chmod(lab, 0o755) == 0)
        defer { try? FileManager.default.removeItem(atPath: lab) }
        let carrel = lab + "/carrel", helper = lab + "/carrel-keysign"
        try FileManager.default.copyItem(atPath: ChildProcess.carrel, toPath: carrel)
        try FileManager.default.copyItem(atPath: ChildProcess.buildFolder.appendingPathComponent("carrel-keysign").path, toPath: helper)
        #expect(chmod(carrel, 0o755) == 0 && chown(helper, 0, 0) == 0 && chmod(helper, 0o4755) == 0)
        // /etc/carrel as enrolment leaves it.
        #expect(mkdir("/etc/carrel", 0o755) == 0)
        defer { try? FileManager.default.removeItem(atPath: "/etc/carrel") }
        let key = Curve25519.Signing.PrivateKey()
        let digest = Hex.string(Array(SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: carrel)))))
        let config = MachineConfig(name: "pc09", lab: "lab1", carrel: carrel, digest: digest,
                                   publicKey: Hex.string(Array(key.publicKey.rawRepresentation)))
        try Hex.string(Array(key.rawRepresentation)).appending("\n").write(toFile: "/etc/carrel/machine-key", atomically: false, encoding: .utf8)
        try config.text.write(toFile: "/etc/carrel/machine.conf", atomically: false, encoding: .utf8)
        #expect(chmod("/etc/carrel/machine-key", 0o600) == 0 && chmod("/etc/carrel/machine.conf", 0o644) == 0)

        func asStudent(_ command: String, timeout: Double = 60) -> ChildSpawn.Output {
            ChildSpawn.run("/bin/sh", ["-c", "cd /tmp && exec runuser -u nobody -- " + command], environment: environment, timeout: timeout)
        }
        let check = asStudent("\(carrel) seat check")
        #expect(check.status == 0 && check.output.contains("verifies"), "a student's Carrel is signed for: \(check.output)")

        // The tester's thief: starts the helper, then asks the kernel for the Carrel child's
        // socket (pidfd_getfd) again and again while the runtime loads, and signs with it (or
        // asks for the machine's store login).
        let thief = lab + "/thief"
        try Self.thief.write(toFile: thief + ".c", atomically: false, encoding: .utf8)
        guard let cc = ChildSpawn.which("cc", environment: environment) ?? ChildSpawn.which("clang", environment: environment) else {
            Issue.record("no C compiler (cc or clang) to build the thief")
            return
        }
        let built = ChildSpawn.run(cc, ["-o", thief, thief + ".c"], environment: environment, timeout: 120)
        #expect(built.status == 0 && chmod(thief, 0o755) == 0, "\(built.output)")
        for _ in 0..<3 {
            let out = asStudent("\(thief) \(helper) passphrase", timeout: 60)
            #expect(out.output.contains("not got") && !out.output.contains("STOLEN"), "\(out.output)")
        }
        // The helper killed: its Carrel ends with it, and nothing of either is left running.
        var input: [Int32] = [0, 0]
        #expect(pipe(&input) == 0)
        let null = open("/dev/null", O_RDWR)
        defer { close(null); close(input[1]) }
        let started = try ChildSpawn.spawn(helper, ["passphrase"], environment: environment, stdin: input[0], stdout: null, stderr: null).get()
        close(input[0])
        var child: Int32 = 0
        #expect(Eventually.poll(20) {
            child = Int32((try? String(contentsOfFile: "/proc/\(started)/task/\(started)/children", encoding: .utf8))?
                .split(separator: " ").first.flatMap { Int($0) } ?? 0)
            return child > 0
        }, "the helper started its Carrel")
        // Once the helper has let go of it (after its `ready`), not only while it traces it.
        #expect(Eventually.poll(20) {
            (try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8))?.contains("TracerPid:\t0") == true
        }, "the helper let go of its Carrel")
        kill(started, SIGKILL)
        var status: Int32 = 0
        waitpid(started, &status, 0)
        // Ended: gone, or a zombie waiting for whoever adopted it to reap it.
        func ended() -> Bool {
            guard let status = try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8) else { return true }
            return status.contains("State:\tZ")
        }
        #expect(Eventually.poll(10, ended), "Carrel ended with its helper: \((try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8)) ?? "")")
    }

    /// The tester's program (docs/security-model.md, "Enrolled machines"), reduced to the theft.
    static let thief = """
        #define _GNU_SOURCE
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        #include <fcntl.h>
        #include <signal.h>
        #include <sys/syscall.h>
        #include <sys/stat.h>
        #include <sys/wait.h>
        #include <time.h>
        static int rd(const char *p, char *b, int n) { int f = open(p, O_RDONLY); if (f < 0) return -1;
          int r = read(f, b, n - 1); close(f); if (r < 0) r = 0; b[r] = 0; return r; }
        int main(int argc, char **argv) {
          if (argc < 2) return 1;
          int in[2]; if (pipe(in) != 0) return 1;
          pid_t h = fork();
          if (h == 0) { dup2(in[0], 0); close(in[1]); execv(argv[1], argv + 1); _exit(127); }
          close(in[0]);
          char path[128], buf[4096]; pid_t c = 0;
          snprintf(path, sizeof path, "/proc/%d/task/%d/children", h, h);
          for (long i = 0; i < 50000000 && !c; i++) if (rd(path, buf, sizeof buf) > 0) c = atoi(buf);
          if (!c) { printf("no child: not got\\n"); return 0; }
          int pfd = -1; for (long i = 0; i < 10000000 && pfd < 0; i++) pfd = syscall(SYS_pidfd_open, c, 0);
          int s = -1; struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
          while (1) {
            int fd = syscall(SYS_pidfd_getfd, pfd, 3, 0);
            if (fd >= 0) { struct stat st; fstat(fd, &st); if (S_ISSOCK(st.st_mode)) { s = fd; break; } close(fd); }
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if (t1.tv_sec - t0.tv_sec > 5) break;
          }
          printf("socket %s\\n", s >= 0 ? "STOLEN: signature at risk" : "not got");
          if (s >= 0) {
            const char *q = "store login\\n\\n";
            write(s, q, strlen(q));
            int n = read(s, buf, sizeof buf - 1);
            if (n > 0) { buf[n] = 0; if (strstr(buf, "login ")) printf("store login STOLEN\\n"); }
          }
          kill(h, SIGKILL); close(in[1]); waitpid(h, 0, 0);
          return 0;
        }
        """
}
