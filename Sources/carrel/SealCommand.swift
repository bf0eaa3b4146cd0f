#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit

struct SealCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seal",
        abstract: "Encrypt an assessment under its proctor passphrase, for labs and shared computers.",
        discussion: """
            Validates FILE.yaml, asks its proctor passphrase (at a terminal twice without echo; \
            from a pipe, two lines) and checks it against `proctor.passphrase`, then writes a \
            sealed package (mode 0600, atomically): a small header anyone can read (id, title, \
            number of questions, time limit, policy, fingerprint) and the whole assessment \
            encrypted with ChaCha20-Poly1305 under a key derived from the passphrase (scrypt). \
            `carrel take FILE.carrel` asks the passphrase on the start screen and opens it in \
            memory only; the journal keeps the sealed bytes, never the answer key. `validate` and \
            `inspect` show the header, or everything with --passphrase-stdin.

            An assessment without a proctor passphrase, or whose item ids spell an answer (ids \
            stay readable in results), is refused (65). A wrong passphrase exits 77.
            """
    )

    @Argument(help: ArgumentHelp("The assessment to seal (YAML).", valueName: "file.yaml"))
    var file: String

    @Option(help: ArgumentHelp("The sealed package to write (mode 0600).", valueName: "file.carrel"))
    var out: String

    func run() throws {
        try reportingFailures {
            let loaded = try AssessmentFile.load(file)
            if SealedAssessment.isSealed(loaded.bytes) {
                throw CarrelFailure(status: .usage, message: "\(file) is already sealed; seal the YAML file it was made from")
            }
            try refuseSameFile()
            let assessment = try AssessmentFile.validated(file, loaded: loaded)
            guard assessment.proctor.passphrase != nil else { throw SealedFile.failure(file, .noPassphrase) }
            let revealing = SealedAssessment.revealingIDs(assessment)
            for line in revealing { FileOutput.standardError.write("\(file): error: \(line)\n") }
            if !revealing.isEmpty {
                throw CarrelFailure(status: .invalidAssessment, message: "\(file) was not sealed: rename the items above and run `carrel seal` again")
            }
            let passphrase = try readPassphrase(assessment)
            let started = SessionClock.system.monotonic()
            let package: [UInt8]
            do throws(SealedAssessment.Failure) {
                package = try SealedAssessment.seal(assessment, passphrase: passphrase)
            } catch {
                throw SealedFile.failure(file, error)
            }
            do throws(FileSystemError) {
                try SecureFiles.writeAtomically(Data(package), to: out)
            } catch {
                throw CarrelFailure(status: .cannotCreate, message: "cannot write \(error.description); choose another --out")
            }
            let n = assessment.itemCount
            let seconds = SessionClock.system.monotonic() - started
            FileOutput.standardOutput.write("""
                \(out): sealed — \(assessment.title), \(n) item\(n == 1 ? "" : "s"), \(Fingerprint.of(assessment)) \
                (\(String(format: "%.1f", seconds)) s)
                Copy it to the lab and start the test with `carrel take \(out)`; keep \(file) off the students' machines.

                """)
        }
    }

    /// The passphrase, typed twice the same way, that the assessment's hash accepts.
    func readPassphrase(_ assessment: Assessment) throws(CarrelFailure) -> String {
        let reader = SecretReader()
        defer { reader.finish() }
        let first = try reader.read(prompt: "Proctor passphrase of \(assessment.id): ")
        let second = try reader.read(prompt: "Same passphrase again: ")
        guard PassphraseHash.normalise(first) == PassphraseHash.normalise(second) else {
            throw CarrelFailure(status: .usage, message: "the two passphrases differ; run `carrel seal` again")
        }
        return first
    }

    /// Sealing over the YAML itself would lose the only readable copy.
    func refuseSameFile() throws(CarrelFailure) {
        var source = stat(), target = stat()
        guard stat(file, &source) == 0, stat(out, &target) == 0 else { return }
        if source.st_dev == target.st_dev && source.st_ino == target.st_ino {
            throw CarrelFailure(status: .usage, message: "--out \(out) is the file being sealed; choose another output file (FILE.carrel)")
        }
    }
}
