import ArgumentParser
import AssessmentKit

struct PassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Read a proctor passphrase twice and print the hash and signing-key lines for an assessment.",
        discussion: """
            At a terminal the passphrase is read twice without echo. From a pipe, the first two \
            lines are read (printf 'secret phrase\\nsecret phrase\\n' | carrel passphrase). The \
            two lines printed go into the assessment as

              proctor:
                passphrase: "scrypt$ln=15,r=8,p=1$..."
                key: "ed25519:...$ln=15,r=8,p=1$..."

            The first is a salted scrypt hash: the passphrase itself is never stored. The second \
            is the public half of the proctor's signing key: the console and `carrel proctor` \
            derive the private half from the passphrase (scrypt with its own salt, then Ed25519) \
            and sign every command with it, and a seat obeys only commands that verify against \
            its test's key. A test without the key line can be watched but not commanded. \
            Passphrases are \
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
            let key: ProctorKey
            do {
                hash = try PassphraseHash.make(passphrase: first)
                key = try ProctorKey.make(passphrase: first)
            } catch {
                throw CarrelFailure(status: .internalError, message: "could not hash the passphrase: \(error)")
            }
            FileOutput.standardOutput.write("\(hash)\nkey: \(key)\n")
            if reader.interactive {
                FileOutput.standardError.write("Put the first line in the assessment under `proctor: passphrase:` and the key after it as `key:` (both in quotes).\n")
            }
        }
    }
}
