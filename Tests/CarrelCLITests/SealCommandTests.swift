import AssessmentKit
import Foundation
import Testing

/// `carrel seal`, and `validate` / `inspect` on the package, against the real binary.
@Suite("carrel seal")
struct SealCommandTests {
    static let phrase = "proctor phrase"
    static let twice = "\(phrase)\n\(phrase)\n"

    /// Assessments/spelling.yaml with a proctor passphrase added, in a folder of its own.
    static func spellingWithPassphrase(replacing: [(String, String)] = []) throws -> URL {
        var text = try String(contentsOf: CarrelProcess.packageRoot.appendingPathComponent("Assessments/spelling.yaml"), encoding: .utf8)
        let hash = try PassphraseHash.make(passphrase: phrase, logRounds: 10)
        text = text.replacingOccurrences(of: "carrel: 1\n", with: "carrel: 1\nproctor: { passphrase: \"\(hash)\" }\n")
        for (a, b) in replacing { text = text.replacingOccurrences(of: a, with: b) }
        return try CarrelProcess.temporaryFile(text, name: "spelling.yaml")
    }

    static func sealed() throws -> (yaml: URL, package: URL) {
        let yaml = try spellingWithPassphrase()
        let package = yaml.deletingLastPathComponent().appendingPathComponent("spelling.carrel")
        let result = try CarrelProcess.run(["seal", yaml.path, "--out", package.path], stdin: twice)
        #expect(result.status == 0, "\(result.stderr)")
        return (yaml, package)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func sealWritesAPrivatePackageWithoutTheKeyThatInspectOpensToTheSameFingerprint() throws {
        let (yaml, package) = try Self.sealed()
        var info = stat()
        #expect(lstat(package.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let bytes = try Data(contentsOf: package)
        for secret in ["syzygy", "schnauzer", "onomatopoeia", "proctor_note", "accept"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is readable in the package")
        }

        let plain = try Self.json(try CarrelProcess.run(["inspect", "--json", yaml.path]).stdout)
        let opened = try CarrelProcess.run(["inspect", "--json", "--passphrase-stdin", package.path], stdin: "\(Self.phrase)\n")
        #expect(opened.status == 0, "\(opened.stderr)")
        let openedJSON = try Self.json(opened.stdout)
        #expect(openedJSON["fingerprint"] as? String == plain["fingerprint"] as? String)
        #expect(openedJSON["sealed"] as? Bool == true)
        #expect(openedJSON["items"] as? Int == 8)
        #expect(opened.stdout.contains("syzygy"), "the proctor notes are shown once opened")

        let header = try CarrelProcess.run(["inspect", "--json", package.path])
        #expect(header.status == 0, "\(header.stderr)")
        let headerJSON = try Self.json(header.stdout)
        // Unopened, only the package's keyed fingerprint shows: the content's would let a
        // student confirm a guessed key offline.
        let shownFingerprint = try #require(headerJSON["fingerprint"] as? String)
        #expect(shownFingerprint.hasPrefix("sealed:"))
        #expect(shownFingerprint != plain["fingerprint"] as? String)
        #expect(headerJSON["opened"] as? Bool == false)
        #expect(headerJSON["title"] as? String == "Spelling — week 12")
        #expect(!header.stdout.contains("syzygy"))

        let text = try CarrelProcess.run(["inspect", package.path])
        #expect(text.stdout.contains("sealed:      yes"))
        #expect(text.stdout.contains("items:       8"))
        #expect(!text.stdout.contains("syzygy"))
    }

    @Test func validateReadsTheHeaderAndWithThePassphraseTheWholePackage() throws {
        let (yaml, package) = try Self.sealed()
        let header = try CarrelProcess.run(["validate", package.path, yaml.path])
        #expect(header.status == 0, "\(header.stderr)")
        #expect(header.stdout.contains("\(package.path): ok (sealed) — Spelling — week 12, 8 items"))
        let opened = try CarrelProcess.run(["validate", "--passphrase-stdin", package.path], stdin: "\(Self.phrase)\n")
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.contains("ok (sealed, opened)"))
        let wrong = try CarrelProcess.run(["validate", "--passphrase-stdin", package.path], stdin: "nope nope\n")
        #expect(wrong.status == 77)
        #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")
        let inspectWrong = try CarrelProcess.run(["inspect", "--passphrase-stdin", package.path], stdin: "nope nope\n")
        #expect(inspectWrong.status == 77)
        #expect(inspectWrong.stderr.contains("wrong proctor passphrase"))
    }

    /// One flipped byte in the header, salt, nonce, metadata, checksum, ciphertext or tag:
    /// exit 65 with one line, whether or not the passphrase is given.
    @Test func aFlippedByteAnywhereExits65WithOneLine() throws {
        let (_, package) = try Self.sealed()
        let bytes = [UInt8](try Data(contentsOf: package))
        let headerLength = try SealedAssessment.header(of: bytes).length
        let regions = [("magic", 2), ("version", 14), ("cost", 16), ("salt", 20), ("nonce", 40), ("metadata", 70),
                       ("checksum", headerLength - 3), ("ciphertext", headerLength + 10), ("tag", bytes.count - 3)]
        for (name, offset) in regions {
            var bad = bytes
            bad[offset] ^= 0x04
            let file = package.deletingLastPathComponent().appendingPathComponent("bad-\(name).carrel")
            try Data(bad).write(to: file)
            let opened = try CarrelProcess.run(["inspect", "--passphrase-stdin", file.path], stdin: "\(Self.phrase)\n")
            #expect(opened.status == 65, "\(name): \(opened.stderr)")
            #expect(opened.stderr.split(separator: "\n").count == 1, "\(name): \(opened.stderr)")
            #expect(opened.stderr.hasPrefix("carrel: \(file.path): error: sealed package"), "\(name): \(opened.stderr)")
            if offset < headerLength {
                #expect(try CarrelProcess.run(["validate", file.path]).status == 65, "\(name) without the passphrase")
            }
        }
        let file = package.deletingLastPathComponent().appendingPathComponent("bad-tag.carrel")
        let line = try CarrelProcess.run(["validate", "--passphrase-stdin", file.path], stdin: "\(Self.phrase)\n").stderr
        #expect(line == "carrel: \(file.path): error: sealed package is damaged or was changed (authentication failed); copy the .carrel file again from the proctor's original\n")
    }

    @Test func sealRefusesWhatCannotBeSealedSafely() throws {
        // No proctor passphrase: refused with the remedy.
        let plain = try CarrelProcess.temporaryFile(try String(contentsOf: CarrelProcess.packageRoot.appendingPathComponent("Assessments/spelling.yaml"), encoding: .utf8))
        let out = plain.deletingLastPathComponent().appendingPathComponent("x.carrel")
        let none = try CarrelProcess.run(["seal", plain.path, "--out", out.path], stdin: Self.twice)
        #expect(none.status == 65)
        #expect(none.stderr.contains("has no proctor passphrase"))
        #expect(none.stderr.contains("carrel passphrase"))
        #expect(!FileManager.default.fileExists(atPath: out.path))

        let yaml = try Self.spellingWithPassphrase()
        let target = yaml.deletingLastPathComponent().appendingPathComponent("s.carrel")
        let wrong = try CarrelProcess.run(["seal", yaml.path, "--out", target.path], stdin: "wrong phrase\nwrong phrase\n")
        #expect(wrong.status == 77, "\(wrong.stderr)")
        let differ = try CarrelProcess.run(["seal", yaml.path, "--out", target.path], stdin: "\(Self.phrase)\nproctor phrasE\n")
        #expect(differ.status == 64)
        let oneLine = try CarrelProcess.run(["seal", yaml.path, "--out", target.path], stdin: "\(Self.phrase)\n")
        #expect(oneLine.status == 64)
        #expect(!FileManager.default.fileExists(atPath: target.path))

        // Item ids that spell their answers would stay readable in every result.
        let revealing = try Self.spellingWithPassphrase(replacing: [("id: word-2,", "id: syzygy,")])
        let leak = try CarrelProcess.run(["seal", revealing.path, "--out", target.path], stdin: Self.twice)
        #expect(leak.status == 65)
        #expect(leak.stderr.contains("item id `syzygy` gives away the answer"))

        // Never through a symlink, never over the source, never a package sealed again.
        let victim = yaml.deletingLastPathComponent().appendingPathComponent("victim")
        try Data("keep".utf8).write(to: victim)
        let link = yaml.deletingLastPathComponent().appendingPathComponent("link.carrel")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: victim.path)
        let linked = try CarrelProcess.run(["seal", yaml.path, "--out", link.path], stdin: Self.twice)
        #expect(linked.status == 73)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep")
        #expect(try CarrelProcess.run(["seal", yaml.path, "--out", yaml.path], stdin: Self.twice).status == 64)
        let (_, package) = try Self.sealed()
        let again = try CarrelProcess.run(["seal", package.path, "--out", target.path], stdin: Self.twice)
        #expect(again.status == 64)
        #expect(again.stderr.contains("already sealed"))
    }
}
