import AssessmentKit
import Foundation
import Testing

@Suite("carrel validate, inspect, passphrase")
struct CLITests {
    @Test func validateAcceptsEverySampleAssessment() throws {
        let result = try CarrelProcess.run(["validate", "Assessments/geography.yaml", "Assessments/spelling.yaml", "Assessments/workshop.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Assessments/geography.yaml: ok — Capitals of the world, 8 items"))
        #expect(result.stderr.isEmpty)
    }

    @Test func validateListsEveryProblemAndExits65() throws {
        let file = try CarrelProcess.temporaryFile("""
            carrel: 1
            id: Bad_ID
            titel: T
            sections:
              - items:
                  - {id: q, type: choice, prompt: P, choices: [a, b], answer: c}
            """)
        let result = try CarrelProcess.run(["validate", file.path])
        #expect(result.status == 65)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains("\(file.path):1:1: error: the assessment is missing the required key `title`"))
        #expect(lines.contains("\(file.path):3:1: error: unknown key `titel` in the assessment; did you mean `title`?"))
        #expect(lines.contains { $0.hasPrefix("\(file.path):2:5: error: id \"Bad_ID\"") })
        #expect(lines.contains("\(file.path):6:67: error: answer \"c\" is not among the choices"))
        #expect(lines.last == "carrel: \(file.path) has 4 problems; fix the lines above and run `carrel validate \(file.path)` again")
    }

    @Test func aMissingFileExits66WithOneLine() throws {
        let result = try CarrelProcess.run(["validate", "Assessments/geography.yaml", "no-such-file.yaml"])
        #expect(result.status == 66)
        #expect(result.stderr == "carrel: cannot open no-such-file.yaml: No such file or directory; check the path and permissions\n")
    }

    @Test func aDirectoryIsNotAnAssessment() throws {
        let result = try CarrelProcess.run(["inspect", "Assessments"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("Assessments is a directory"))
    }

    @Test func usageErrorsExit64() throws {
        #expect(try CarrelProcess.run(["validate"]).status == 64)
        #expect(try CarrelProcess.run(["frobnicate"]).status == 64)
    }

    @Test func inspectPrintsTheSummaryAndFingerprint() throws {
        let result = try CarrelProcess.run(["inspect", "Assessments/geography.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout
        #expect(text.hasPrefix("Capitals of the world (geography-capitals)\n"))
        #expect(text.contains("  items:       8 (choice 2, multiple 1, true_false 1, text 1, numeric 1, order 1, match 1)"))
        #expect(text.contains("  points:      13"))
        #expect(text.contains("  time limit:  10m"))
        #expect(text.contains("  paste        block"))
        #expect(text.contains("never offered: autocorrect, spell check"))
        let data = try Data(contentsOf: CarrelProcess.packageRoot.appendingPathComponent("Assessments/geography.yaml"))
        let assessment = try #require(AssessmentReader.read(bytes: [UInt8](data), file: "g").assessment)
        #expect(text.contains("Fingerprint: \(Fingerprint.of(assessment))\n"))
    }

    @Test func inspectJSONIsMachineReadable() throws {
        let result = try CarrelProcess.run(["inspect", "--json", "Assessments/workshop.yaml"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["id"] as? String == "workshop-demo")
        #expect(object["items"] as? Int == 9)
        #expect((object["policy"] as? [String: String])?["multiplexer"] == "allow")
        #expect((object["fingerprint"] as? String)?.hasPrefix("sha256:") == true)
    }

    @Test func inspectShowsProctorNotesUnderTheirSectionAndItem() throws {
        let result = try CarrelProcess.run(["inspect", "Assessments/spelling.yaml"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let section = try #require(lines.firstIndex { $0.contains("1. Words") })
        #expect(lines[section + 1] == "       proctor: Read the word, the sentence that uses it, then the word again.")
        let item = try #require(lines.firstIndex { $0.contains("word-2") && $0.contains("text, 1 pt") })
        #expect(lines[item + 1].trimmingCharacters(in: .whitespaces) == "proctor: “syzygy” — An eclipse happens at syzygy.")
        let json = try CarrelProcess.run(["inspect", "--json", "Assessments/spelling.yaml"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sections = try #require(object["sections"] as? [[String: Any]])
        #expect((sections[0]["proctor_notes"] as? [String: String])?["word-3"] == "“rhythm” — Clap along to the rhythm.")
    }

    @Test func passphraseFromAPipeMakesAHashThatVerifies() throws {
        let result = try CarrelProcess.run(["passphrase"], stdin: "correct horse\ncorrect horse\n")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "the hash, then the key line: \(result.stdout)")
        let hash = try PassphraseHash(parsing: try #require(lines.first))
        #expect(hash.verify("correct horse"))
        #expect(!hash.verify("wrong horse"))
        #expect(!result.stdout.contains("correct horse"))
        // The second line is `key: ed25519:…`: the passphrase derives its signing key, and
        // another does not.
        let keyLine = try #require(lines.last)
        #expect(keyLine.hasPrefix("key: ed25519:"))
        let key = try ProctorKey(parsing: String(keyLine.dropFirst("key: ".count)))
        let signing = try #require(key.signingKey(passphrase: "correct horse"))
        #expect(key.signingKey(passphrase: "wrong horse") == nil)
        let signature = try signing.sign(Array("pause".utf8))
        #expect(key.verifies(signature, for: Array("pause".utf8)))
        #expect(!key.verifies(signature, for: Array("resume".utf8)))
    }

    @Test func passphraseRefusesMismatchesAndShortOnes() throws {
        let mismatch = try CarrelProcess.run(["passphrase"], stdin: "correct horse\ncorrect house\n")
        #expect(mismatch.status == 64)
        #expect(mismatch.stderr == "carrel: the two passphrases differ; run `carrel passphrase` again\n")
        let short = try CarrelProcess.run(["passphrase"], stdin: "abc\nabc\n")
        #expect(short.status == 64)
        #expect(short.stderr.contains("shorter than 8 characters"))
    }

    @Test func aHashFromPassphraseIsAcceptedByValidation() throws {
        let made = try CarrelProcess.run(["passphrase"], stdin: "proctor phrase\nproctor phrase\n")
        let lines = made.stdout.split(separator: "\n").map(String.init)
        let line = try #require(lines.first)
        let keyLine = try #require(lines.last)
        let file = try CarrelProcess.temporaryFile("""
            carrel: 1
            id: locked
            title: Locked
            proctor:
              passphrase: "\(line)"
              \(keyLine)
            sections:
              - items:
                  - {id: q, type: true_false, prompt: P, answer: true}
            """)
        let inspect = try CarrelProcess.run(["inspect", file.path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("passphrase required"))
        #expect(inspect.stdout.contains("commands:    signed with the proctor"), "\(inspect.stdout)")
    }
}
