import ArgumentParser
import AssessmentKit

struct PassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Read a proctor passphrase twice and print the hash line for an assessment.",
        discussion: """
            At a terminal the passphrase is read twice without echo. From a pipe, the first two \
            lines are read (printf 'secret phrase\\nsecret phrase\\n' | carrel passphrase). The \
            line printed goes into the assessment as

              proctor:
                passphrase: "scrypt$ln=15,r=8,p=1$..."

            It is a salted scrypt hash: the passphrase itself is never stored. Passphrases are \
            compared after Unicode NFC normalisation and must be at least 8 characters and at most \
            1 024 bytes of UTF-8 (a longer one is refused, never shortened).
            """
    )

    static let minimumLength = 8

    func run() throws {
        try reportingFailures {
            let reader = SecretReader()
            defer { reader.finish() }
            let first = try reader.read(prompt: "Proctor passphrase: ")
            let normalised = PassphraseHash.normalise(first)
            guard normalised.count >= Self.minimumLength else {
                throw CarrelFailure(status: .usage, message: "the passphrase is shorter than \(Self.minimumLength) characters; choose a longer one")
            }
            let second = try reader.read(prompt: "Same passphrase again: ")
            guard PassphraseHash.normalise(second) == normalised else {
                throw CarrelFailure(status: .usage, message: "the two passphrases differ; run `carrel passphrase` again")
            }
            let hash: PassphraseHash
            do {
                hash = try PassphraseHash.make(passphrase: first)
            } catch {
                throw CarrelFailure(status: .internalError, message: "could not hash the passphrase: \(error)")
            }
            FileOutput.standardOutput.write("\(hash)\n")
            if reader.interactive {
                FileOutput.standardError.write("Put this line in the assessment under `proctor: passphrase:` (in quotes).\n")
            }
        }
    }
}
