import ArgumentParser
import AssessmentKit

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check assessment files and list every problem.",
        discussion: """
            Each problem is printed as FILE:LINE:COL: error: MESSAGE (warnings likewise), all \
            problems of all files in one run. Exits 0 when every file is valid, 65 when any is \
            invalid, 66 when any cannot be opened.

            A sealed package (.carrel, from `carrel seal`) is checked as far as its public header \
            allows; with --passphrase-stdin it is opened (one passphrase line per sealed file, in \
            order) and validated like the YAML it came from. A damaged or changed package exits \
            65, a wrong passphrase 77.
            """
    )

    @Argument(help: "Assessment files (.yaml, or sealed .carrel).")
    var files: [String]

    @Flag(name: .customLong("passphrase-stdin"), help: "Open sealed files with the proctor passphrase read from standard input.")
    var passphraseStdin = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one assessment file") }
    }

    func run() throws {
        var worst = ExitStatus.ok
        let reader = passphraseStdin ? SecretReader() : nil
        defer { reader?.finish() }
        for path in files {
            do {
                let loaded = try AssessmentFile.load(path)
                guard SealedAssessment.isSealed(loaded.bytes) else {
                    let assessment = try AssessmentFile.validated(path, loaded: loaded)
                    let n = assessment.itemCount
                    FileOutput.standardOutput.write("\(path): ok — \(assessment.title), \(n) item\(n == 1 ? "" : "s")\n")
                    continue
                }
                let header = try SealedFile.header(loaded, path: path)
                let n = header.metadata.items
                guard let reader else {
                    FileOutput.standardOutput.write("\(path): ok (sealed) — \(header.metadata.title), \(n) item\(n == 1 ? "" : "s"); its header is intact, the questions are checked when it is opened (--passphrase-stdin)\n")
                    continue
                }
                let passphrase = try reader.read(prompt: "Proctor passphrase of \(path): ")
                let assessment = try SealedFile.open(loaded, path: path, passphrase: passphrase)
                let count = assessment.itemCount
                FileOutput.standardOutput.write("\(path): ok (sealed, opened) — \(assessment.title), \(count) item\(count == 1 ? "" : "s")\n")
            } catch {
                Console.error(error.message)
                if worst == .ok || Self.rank(error.status) > Self.rank(worst) { worst = error.status }
            }
        }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }

    /// Which status wins when files fail differently: cannot open, then a wrong passphrase
    /// or a usage problem, then invalid.
    static func rank(_ status: ExitStatus) -> Int {
        switch status {
        case .cannotOpenInput: return 3
        case .wrongPassphrase, .usage: return 2
        default: return 1
        }
    }
}
