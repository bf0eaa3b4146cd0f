#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import MachineSeal
import SharedStore

/// `carrel seat`: a lab machine's enrolment, done once by its administrator.
struct SeatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seat",
        abstract: "Enrol this lab machine, so that its proctor starts its seats without a look at each.",
        subcommands: [SeatEnroll.self, SeatCheck.self])
}

/// Where enrolment keeps this machine's files: /etc/carrel (CARREL_MACHINE_DIR in tests).
enum MachineFolder {
    static var path: String {
        if let named = ProcessEnvironment.current["CARREL_MACHINE_DIR"], named.hasPrefix("/") { return named }
        return "/etc/carrel"
    }

    static var config: String { path + "/machine.conf" }
    static var key: String { path + "/machine-key" }

    /// The enrolment recorded on this machine.
    static func readConfig() throws(CarrelFailure) -> MachineConfig {
        guard let text = try? String(contentsOfFile: config, encoding: .utf8), let parsed = MachineConfig.parse(text) else {
            throw CarrelFailure(status: .refused, message: "this machine is not enrolled (no readable \(config)); run `carrel seat enroll` as root")
        }
        return parsed
    }
}

struct SeatEnroll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enrol this machine (as root): its machine key, the signing helper, and the key's public half in the store.",
        discussion: """
            Makes the machine key in /etc/carrel/machine-key (root's alone, mode 0600) when there \
            is none, records this Carrel's path and SHA-256 in /etc/carrel/machine.conf, makes \
            carrel-keysign (next to carrel) setuid root, and registers the machine's public key \
            with the store under its name and lab. The machine also gets a store login of its \
            own (carrel_m_…, a member of the seat role with a connection limit of its own): its \
            password is derived from the machine key, never stored, and only the signing helper \
            gives it to the seat's Carrel, so a student who holds every connection of the shared \
            seat role keeps no enrolled seat out. Refused when the server could not take one \
            more machine's connections (`carrel store init` says how many it takes). Give the \
            owner's or a proctor's URL. Run it again after installing another Carrel: the key \
            stays, the digest is recorded anew.
            """)

    @OptionGroup var store: StoreOption
    @Option(help: ArgumentHelp("The lab this machine belongs to (rooms may take all of a lab's machines).", valueName: "name"))
    var lab: String
    @Option(help: ArgumentHelp("This machine's name in the store (default: its host name).", valueName: "name"))
    var machine: String?

    func validate() throws {
        for (flag, value) in [("--lab", lab), ("--machine", machine ?? "x")] {
            if let problem = SharedOptions.labelProblem(value) { throw ValidationError("\(flag): \(problem)") }
        }
    }

    func run() async throws {
        try await reportingFailures {
            guard geteuid() == 0 else {
                throw CarrelFailure(status: .usage, message: "a machine is enrolled by root (its key must be one the seat's account cannot read); run `sudo carrel seat enroll …`")
            }
            let url = try store.required(by: "seat enroll")
            let name = machine ?? Self.hostName()
            guard SealStatement.isValue(name), SharedOptions.labelProblem(name) == nil else {
                throw CarrelFailure(status: .usage, message: "this machine's host name cannot name it; give --machine NAME")
            }
            let key = try MachineFiles.keyMadeIfMissing()
            let publicKey = MachineKey.publicHex(key)
            guard let carrel = MachineSigning.ownPath(), SelfAttestation.digest.hasPrefix("sha256:") else {
                throw CarrelFailure(status: .internalError, message: "this Carrel cannot read its own executable")
            }
            let config = MachineConfig(name: name, lab: lab, carrel: carrel, digest: String(SelfAttestation.digest.dropFirst(7)),
                                       publicKey: publicKey)
            try MachineFiles.writeConfig(config)
            let helper = MachineSigning.helperPath
            try MachineFiles.makeSetuid(helper)
            let lab = self.lab
            // The machine's own store login: its password is derived from the key here, as the
            // helper derives it for the seat, and only its SCRAM verifier is sent.
            let role = StoreLogin.role(machine: name)
            let password = StoreLogin.password(key: key, role: role)
            let login = try await ProctorStore.using(url, doing: "enrol machine \(name)") {
                try await $0.enroll(machine: name, lab: lab, publicKey: publicKey, loginPassword: password)
            }
            let check = MachineSigning.helperCheck(helper)
            let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
            FileOutput.standardOutput.write("""
                Machine \(v(name)) is enrolled in lab \(v(lab)) (public key \(publicKey.prefix(16))…).
                Its seats log in to the store as \(v(login.role)) (password derived from the machine key; none is stored); the server takes \(login.capacity) enrolled machines and has \(login.enrolled).
                Its helper \(v(helper)) signs for \(v(carrel)) (SHA-256 \(config.digest.prefix(16))…) alone; enrol again after installing another Carrel.
                \(check.map { "Check FAILED: \(v($0))" } ?? "Check: the helper signed a test announcement that verifies.")

                """)
            if let failed = check { throw CarrelFailure(status: .refused, message: "the helper does not sign: \(v(failed))") }
        }
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, 255) == 0 else { return "" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

struct SeatCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Say which restrictions of assessment mode this machine can enforce, then check that it is enrolled and that its helper signs for this Carrel.")

    func run() throws {
        try reportingFailures {
            FileOutput.standardOutput.write(Self.assessmentMode())
            let config = try MachineFolder.readConfig()
            let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
            // `carrel seat check` on an enrolled machine is started again by its helper (Carrel.main).
            if let failed = Self.selfCheck(config) {
                throw CarrelFailure(status: .refused, message: "machine \(v(config.name)) (lab \(v(config.lab))): \(v(failed))")
            }
            FileOutput.standardOutput.write("Machine \(v(config.name)) (lab \(v(config.lab))) is enrolled; its helper signed a test announcement for this Carrel that verifies.\n")
            // The login's name only: its password stays in this process.
            switch MachineSigning.storeLogin() {
            case let .success(login): FileOutput.standardOutput.write("Its seats log in to the store as \(v(login.role)).\n")
            case let .failure(failure): throw CarrelFailure(status: .refused, message: "machine \(v(config.name)): no store login: \(v(failure.why))")
            }
        }
    }

    /// What assessment mode can do on this machine, in words, one restriction a line.
    static func assessmentMode() -> String {
        let client = AssessmentModeClient()
        switch client.capabilities() {
        case let .failure(error):
            return "Assessment mode: not available here: \(TerminalSafety.visible(error.description, keepLineBreaks: false)).\n"
                + "  A test whose policy says `machine: lock` will not begin on this machine; with `machine: prefer` (the default)\n"
                + "  its sessions begin with only Carrel's own terminal locked. Install the carrel package's carrel-assessmentd service.\n"
        case let .success(list):
            var out = "Assessment mode (carrel-assessmentd at \(client.socketPath)):\n"
            for capability in list {
                let reason = TerminalSafety.visible(capability.reason, keepLineBreaks: false)
                out += "  \(capability.kind.rawValue): " + (capability.available ? "can enforce (\(reason))" : "cannot enforce: \(reason)") + "\n"
            }
            let missing = list.filter { !$0.available }.map(\.kind.rawValue)
            out += missing.isEmpty
                ? "  Every restriction can be enforced.\n"
                : "  A test whose policy says `machine: lock` and needs \(missing.joined(separator: ", ")) will not begin here; with `machine: prefer` the session says so in its integrity report.\n"
            return out
        }
    }

    /// Asks the helper that started this Carrel to sign a test announcement and checks it with the enrolled public key:
    /// nil when it verifies, else why not.
    static func selfCheck(_ config: MachineConfig) -> String? {
        let request = SealRequest(session: "check-" + UUID().uuidString.lowercased(), room: "enrolment-check", seat: "check",
                                  boxKey: SeatBoxCheck.sampleKey, carrelVersion: SelfAttestation.version)
        switch MachineSigning.sign(request) {
        case let .failure(failure): return failure.why
        case let .success(signed):
            guard let statement = MachineKey.verify(text: signed.statement, signature: signed.signature, publicKey: config.publicKey) else {
                return "its signature does not verify with the enrolled key"
            }
            guard statement.session == request.session, statement.executableDigest == SelfAttestation.digest else {
                return "it signed something else than was asked"
            }
            return nil
        }
    }
}

enum SeatBoxCheck {
    /// A well-formed box key for the check (nothing is ever wrapped to it).
    static let sampleKey = String(repeating: "A", count: 43) + "="
}
