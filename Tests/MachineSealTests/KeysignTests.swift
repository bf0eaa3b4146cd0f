#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation
import MachineSeal
import SessionTestSupport
import Testing

/// The privileged helper run for real, as root (CI runs the suite as root): it signs for the
/// enrolled Carrel and nothing else, and reads only a key nobody but root could have written.
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

    @Test func itSignsForTheEnrolledCarrelOnly() throws {
        let machine = try Machine()
        defer { machine.remove() }
        // The real carrel asks (`carrel seat check` runs the helper and verifies its answer).
        let check = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("Machine pc07 (lab lab1) is enrolled"))
        // The test runner asks: not the enrolled Carrel.
        let direct = ChildSpawn.run(Self.helper, [], input: Self.request, environment: machine.environment)
        #expect(direct.status == 2)
        #expect(direct.output.contains("the caller is not the enrolled Carrel"))
        // A shell asks.
        let shell = ChildSpawn.run("/bin/sh", ["-c", "printf '\(Self.request.replacingOccurrences(of: "\n", with: "\\n"))' | \(Self.helper)"],
                                   environment: machine.environment)
        #expect(shell.status == 2 && shell.output.contains("the caller is not the enrolled Carrel"), "\(shell.output)")
        // A loader variable that would put other code into the real Carrel.
        var preload = machine.environment
        preload["LD_PRELOAD"] = "/nonexistent.so"
        let preloaded = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: preload)
        #expect(preloaded.status != 0 && preloaded.output.contains("LD_PRELOAD"), "\(preloaded.output)")
    }

    @Test func aCopiedOrModifiedCarrelIsRefused() throws {
        let copies = try Self.folder("copy")
        defer { try? FileManager.default.removeItem(atPath: copies) }
        let copy = copies + "/carrel"
        try FileManager.default.copyItem(atPath: ChildProcess.carrel, toPath: copy)
        try FileManager.default.copyItem(atPath: Self.helper, toPath: copies + "/carrel-keysign")
        // Enrolled for the installed carrel: a copy elsewhere is another caller.
        let machine = try Machine()
        defer { machine.remove() }
        let other = ChildSpawn.run(copy, ["seat", "check"], environment: machine.environment)
        #expect(other.status != 0 && other.output.contains("the caller is not the enrolled Carrel"), "\(other.output)")
        // Enrolled for the copy: it signs, until a byte of the copy changes.
        try machine.configure(carrel: copy, digestOf: copy)
        #expect(ChildSpawn.run(copy, ["seat", "check"], environment: machine.environment).status == 0)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let modified = ChildSpawn.run(copy, ["seat", "check"], environment: machine.environment)
        #expect(modified.status != 0 && modified.output.contains("changed since it was enrolled"), "\(modified.output)")
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
        let run = ChildSpawn.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", helper], input: Self.request,
                                 environment: machine.environment)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("/etc/carrel") && !run.output.contains(machine.folder), "\(run.output)")
    }
}
