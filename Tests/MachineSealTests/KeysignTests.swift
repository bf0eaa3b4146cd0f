#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation
import MachineSeal
import SessionTestSupport
import Testing

/// The privileged helper run for real, as root (CI runs the suite as root): it starts the
/// enrolled Carrel and signs for that child alone, and reads only a key nobody but root could
/// have written.
@Suite("carrel-keysign", .enabled(if: getuid() == 0, "the helper's checks need root"), .serialized)
struct KeysignTests {
    static var helper: String { ChildProcess.buildFolder.appendingPathComponent("carrel-keysign").path }

    /// A machine folder of root's with a key and a configuration naming `carrel`.
    struct Machine {
        let folder: String
        let key = Curve25519.Signing.PrivateKey()
        var environment: [String: String] {
            var env = ProcessInfo.processInfo.environment
            env["CARREL_MACHINE_DIR"] = folder
            return env
        }

        init(carrel: String = ChildProcess.carrel, digestOf: String? = nil) throws {
            folder = FileManager.default.temporaryDirectory.path + "/carrel-machine-\(getpid())-\(UInt32.random(in: 0 ... .max))"
            #expect(mkdir(folder, 0o755) == 0 && chmod(folder, 0o755) == 0)
            try write("machine-key", Hex.string(Array(key.rawRepresentation)) + "\n", mode: 0o600)
            try configure(carrel: carrel, digestOf: digestOf ?? carrel)
        }

        func configure(carrel: String, digestOf: String) throws {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: digestOf))
            let config = MachineConfig(name: "pc07", lab: "lab1", carrel: carrel, digest: Hex.string(Array(SHA256.hash(data: bytes))),
                                       publicKey: Hex.string(Array(key.publicKey.rawRepresentation)))
            try write("machine.conf", config.text, mode: 0o644)
        }

        func write(_ name: String, _ text: String, mode: mode_t) throws {
            let path = folder + "/" + name
            unlink(path)
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(chmod(path, mode) == 0)
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// A new folder of root's, mode 0755, in the temporary folder.
    static func folder(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.path + "/carrel-\(name)-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        chmod(path, 0o755)
        return path
    }

    static let request = "session=s1\nroom=r1\nseat=A1\nbox_key=\(String(repeating: "A", count: 43))=\ncarrel_version=0.1.0\n"

    /// What an answer with a signature would show: the statement's first line.
    static let signed = SealStatement.heading

    @Test func itSignsForTheCarrelItStartsOnly() throws {
        let machine = try Machine()
        defer { machine.remove() }
        // The real carrel asks: `carrel seat check` runs again as the helper's child, which
        // asks for a test signature and verifies it.
        let check = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("Machine pc07 (lab lab1) is enrolled"))
        // The helper run on its own, a request on its standard input: it serves no caller.
        let direct = ChildSpawn.run(Self.helper, [], input: Self.request, environment: machine.environment)
        #expect(direct.status == 2 && direct.output.contains("give the Carrel command"), "\(direct.output)")
        // From a shell, with a command: it starts the genuine Carrel, which alone has the socket;
        // the shell gets Carrel's output and never a signature.
        let quoted = Self.request.replacingOccurrences(of: "\n", with: "\\n")
        for command in ["", " seat check", " passphrase"] {
            let shell = ChildSpawn.run("/bin/sh", ["-c", "printf '\(quoted)' | \(Self.helper)\(command)"], environment: machine.environment)
            #expect(!shell.output.contains(Self.signed) && !shell.output.contains("box_key"), "\(command): \(shell.output)")
        }
        // A loader variable is not passed on to the Carrel the helper starts: it still signs.
        var preload = machine.environment
        preload["LD_PRELOAD"] = "/nonexistent.so"
        let preloaded = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: preload)
        #expect(preloaded.status == 0, "\(preloaded.output)")
    }

    /// The tester's exec race (docs/security-model.md): A starts the helper with its request on
    /// a pipe, then becomes the genuine carrel. The helper reads no request from its caller and
    /// trusts no parent: nothing is signed, whatever the helper is asked to run.
    @Test func theExecRaceRelayGetsNoSignature() throws {
        // Swift's toolchain brings clang: a machine without a C compiler fails here, never passes.
        let environment = ProcessInfo.processInfo.environment
        guard let cc = ChildSpawn.which("cc", environment: environment) ?? ChildSpawn.which("clang", environment: environment) else {
            Issue.record("no C compiler (cc or clang) to build the relay")
            return
        }
        let folder = try Self.folder("relay")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Relay.source.write(toFile: folder + "/relay.c", atomically: false, encoding: .utf8)
        let built = ChildSpawn.run(cc, ["-o", folder + "/relay", folder + "/relay.c"], environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(built.status == 0, "\(built.output)")
        let machine = try Machine()
        defer { machine.remove() }
        for asked in [[], ["passphrase"], ["seat", "check"]] {
            let run = ChildSpawn.run(folder + "/relay", [ChildProcess.carrel, Self.helper] + asked, input: Self.request,
                                     environment: machine.environment, timeout: 30)
            #expect(!run.timedOut && !run.output.contains(Self.signed), "\(asked): \(run.output)")
        }
    }

    @Test func aCopiedOrModifiedCarrelIsRefused() throws {
        let copies = try Self.folder("copy")
        defer { try? FileManager.default.removeItem(atPath: copies) }
        let copy = copies + "/carrel"
        try FileManager.default.copyItem(atPath: ChildProcess.carrel, toPath: copy)
        try FileManager.default.copyItem(atPath: Self.helper, toPath: copies + "/carrel-keysign")
        // Enrolled for the installed carrel: a copy elsewhere is not started by the helper.
        let machine = try Machine()
        defer { machine.remove() }
        let other = ChildSpawn.run(copy, ["seat", "check"], environment: machine.environment)
        #expect(other.status != 0 && other.output.contains("not started by this machine's signing helper"), "\(other.output)")
        // Enrolled for the copy: it signs, until a byte of the copy changes.
        try machine.configure(carrel: copy, digestOf: copy)
        #expect(ChildSpawn.run(copy, ["seat", "check"], environment: machine.environment).status == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let modified = ChildSpawn.run(copy, ["seat", "check"], environment: machine.environment)
        #expect(modified.status == 2 && modified.output.contains("changed since it was enrolled"), "\(modified.output)")
        // A Carrel others may write is refused even with the right digest.
        try machine.configure(carrel: copy, digestOf: copy)
        chmod(copy, 0o777)
        let writable = ChildSpawn.run(copy, ["seat", "check"], environment: machine.environment)
        #expect(writable.status == 2 && writable.output.contains("writable by root alone"), "\(writable.output)")
    }

    @Test func aKeyThatIsALinkOrReadableByOthersIsRefused() throws {
        let machine = try Machine()
        defer { machine.remove() }
        let key = machine.folder + "/machine-key"
        chmod(key, 0o644)
        let open = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(open.status != 0 && open.output.contains("readable by root alone"), "\(open.output)")
        chmod(key, 0o600)
        #expect(rename(key, key + ".real") == 0 && symlink(key + ".real", key) == 0)
        let linked = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(linked.status != 0 && linked.output.contains("not a regular file"), "\(linked.output)")
        unlink(key)
        #expect(rename(key + ".real", key) == 0)
        chmod(machine.folder, 0o777)
        let folder = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(folder.status != 0 && folder.output.contains("writable by root alone"), "\(folder.output)")
        chmod(machine.folder, 0o755)
        // Another key than the one enrolled.
        try machine.write("machine-key", MachineKey.newKeyFileText(), mode: 0o600)
        let swapped = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(swapped.status != 0 && swapped.output.contains("not the key enrolled"), "\(swapped.output)")
    }

    @Test func aSetuidHelperIgnoresTheTestFolder() throws {
        // Run as another user through the setuid bit, the helper reads /etc/carrel only.
        let copies = try Self.folder("suid")
        defer { try? FileManager.default.removeItem(atPath: copies) }
        let helper = copies + "/carrel-keysign"
        try FileManager.default.copyItem(atPath: Self.helper, toPath: helper)
        #expect(chown(helper, 0, 0) == 0 && chmod(helper, 0o4755) == 0)
        guard let setpriv = ChildSpawn.which("setpriv", environment: ProcessInfo.processInfo.environment) else { return }
        let machine = try Machine()
        defer { machine.remove() }
        let run = ChildSpawn.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", helper, "seat", "check"], input: Self.request,
                                 environment: machine.environment)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("/etc/carrel") && !run.output.contains(machine.folder), "\(run.output)")
    }
}

/// The tester's relay (the exec race against a helper that trusted its parent), with the
/// genuine carrel and the helper given as arguments and the helper's arguments after them.
enum Relay {
    static let source = #"""
    #include <stdio.h>
    #include <stdlib.h>
    #include <unistd.h>
    #include <fcntl.h>
    #include <signal.h>
    #include <sys/wait.h>
    int main(int argc, char **argv) {
      if (argc < 3) return 64;
      char req[4096]; ssize_t n = 0, r;
      while ((r = read(0, req + n, sizeof req - n)) > 0) n += r;
      int out[2], in[2], hold[2];
      pipe(out); pipe(hold);
      pid_t a = fork();
      if (a == 0) {
        pipe(in);
        pid_t b = fork();
        if (b == 0) {
          dup2(in[0], 0); dup2(out[1], 1); dup2(out[1], 2);
          close(in[1]); close(out[0]); close(hold[1]); close(hold[0]);
          execv(argv[2], argv + 2); _exit(127);
        }
        close(in[0]); close(out[0]); close(out[1]);
        write(in[1], req, n);
        fcntl(in[1], F_SETFD, FD_CLOEXEC);
        dup2(hold[0], 0); close(hold[0]); close(hold[1]);
        int dn = open("/dev/null", O_WRONLY); dup2(dn, 1); dup2(dn, 2);
        execl(argv[1], "carrel", "passphrase", (char *)0);
        _exit(127);
      }
      close(out[1]); close(hold[0]);
      char buf[65536]; ssize_t m = 0;
      while ((r = read(out[0], buf + m, sizeof buf - m)) > 0) m += r;
      kill(a, SIGKILL); waitpid(a, 0, 0);
      write(1, buf, m);
      return 0;
    }
    """#
}
