import Crypto
import Foundation
import MachineSeal
import SessionTestSupport
import Testing

/// An enrolled machine's store login: its role's name from the machine's name, its password
/// from the key, and the helper's answer read strictly.
@Suite("A machine's store login")
struct StoreLoginTests {
    @Test func theRoleIsNamedFromTheMachineAndThePasswordFromTheKey() {
        let role = StoreLogin.role(machine: "pc07")
        #expect(role.hasPrefix("carrel_m_") && role.utf8.count == 25 && StoreLogin.isRole(role))
        #expect(role == "carrel_m_" + Hex.string(Array(SHA256.hash(data: Array("pc07".utf8)).prefix(8))))
        #expect(StoreLogin.role(machine: "pc08") != role)
        let key = Curve25519.Signing.PrivateKey(), other = Curve25519.Signing.PrivateKey()
        let password = StoreLogin.password(key: key, role: role)
        #expect(password.utf8.count == 64 && Hex.bytes(password) != nil)
        #expect(StoreLogin.password(key: key, role: role) == password, "the same key and role give the same password")
        #expect(StoreLogin.password(key: other, role: role) != password, "a new key gives a new password")
        #expect(StoreLogin.password(key: key, role: StoreLogin.role(machine: "pc08")) != password)
        // Neither half of the key is the password.
        #expect(!password.contains(Hex.string(Array(key.rawRepresentation)).prefix(16)))
        #expect(!password.contains(Hex.string(Array(key.publicKey.rawRepresentation)).prefix(16)))
    }

    @Test func anAnswerIsReadOnlyInItsOneForm() throws {
        let role = StoreLogin.role(machine: "pc07"), password = String(repeating: "ab", count: 32)
        let read = try #require(StoreLogin.parse(answer: StoreLogin.answer(role: role, password: password)))
        #expect(read.role == role && read.password == password)
        for bad in ["login \(role)", "login \(role)\n\(password)\n", "login carrel_seat\n\(password)", "login \(role)\nshort",
                    "signed \(role)\n\(password)", "login \(role)\n\(password.uppercased())", "refused no"] {
            #expect(StoreLogin.parse(answer: bad) == nil, "\(bad)")
        }
        #expect(!StoreLogin.isRole("carrel_m_0123456789abcdeg") && !StoreLogin.isRole("carrel_m_0123") && !StoreLogin.isRole("carrel_seat"))
    }
}

/// The helper tells the machine's store login to the Carrel it started, and to nobody else:
/// not to a shell writing the request to it, not to the exec-race relay.
extension KeysignTests {
    @Test func itGivesTheStoreLoginToItsOwnCarrelOnly() throws {
        let machine = try Machine()
        defer { machine.remove() }
        let role = StoreLogin.role(machine: "pc07")
        let password = StoreLogin.password(key: machine.key, role: role)
        // Its own child asks (`seat check` prints the role it was given, never the password).
        let check = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(check.status == 0 && check.output.contains("log in to the store as \(role)"), "\(check.output)")
        #expect(!check.output.contains(password))
        // Anyone else writing the request gets Carrel's output, never the login.
        for command in ["", " seat check", " passphrase"] {
            let shell = ChildSpawn.run("/bin/sh", ["-c", "printf 'store login\\n\\n' | \(Self.helper)\(command)"], environment: machine.environment)
            #expect(!shell.output.contains(password) && !shell.output.contains("login \(role)"), "\(command): \(shell.output)")
        }
        let environment = ProcessInfo.processInfo.environment
        guard let cc = ChildSpawn.which("cc", environment: environment) ?? ChildSpawn.which("clang", environment: environment) else {
            Issue.record("no C compiler (cc or clang) to build the relay")
            return
        }
        let folder = try Self.folder("login-relay")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Relay.source.write(toFile: folder + "/relay.c", atomically: false, encoding: .utf8)
        #expect(ChildSpawn.run(cc, ["-o", folder + "/relay", folder + "/relay.c"], environment: environment, timeout: 60).status == 0)
        for asked in [[], ["passphrase"], ["seat", "check"]] {
            let run = ChildSpawn.run(folder + "/relay", [ChildProcess.carrel, Self.helper] + asked, input: "store login\n\n",
                                     environment: machine.environment, timeout: 30)
            #expect(!run.timedOut && !run.output.contains(password), "\(asked): \(run.output)")
        }
        // Another machine's key (the helper reads its own): another password, which the store
        // would refuse.
        try machine.write("machine-key", MachineKey.newKeyFileText(), mode: 0o600)
        let swapped = ChildSpawn.run(ChildProcess.carrel, ["seat", "check"], environment: machine.environment)
        #expect(swapped.status != 0 && !swapped.output.contains("log in to the store"), "\(swapped.output)")
    }
}
