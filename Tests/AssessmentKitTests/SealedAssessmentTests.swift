import Crypto
import Foundation
import Testing
@testable import AssessmentKit

@Suite("Sealed assessments")
struct SealedAssessmentTests {
    static let passphrase = "proctor phrase"
    /// Cheap scrypt for tests; production seals at `Cost.standard` or above.
    static let cheap = SealedAssessment.Cost(logRounds: 10, blockSize: 8, parallelism: 1)

    static func spelling() throws -> Assessment {
        let hash = try PassphraseHash.make(passphrase: passphrase, logRounds: 10)
        let outcome = AssessmentReader.read(text: """
            carrel: 1
            id: spelling
            title: Spelling — week 12
            description: |
              Type each word as you hear it.
            time_limit: 15m
            navigation: linear
            proctor:
              passphrase: "\(hash)"
            policy: {multiplexer: allow}
            sections:
              - title: Words
                proctor_note: Read each word twice.
                items:
                  - {id: word-1, type: text, prompt: Word 1, accept: [syzygy], proctor_note: “syzygy” — an eclipse happens at syzygy.}
                  - {id: word-2, type: choice, prompt: Which is spelled right?, choices: [rythm, rhythm], answer: rhythm, feedback: Two h's.}
            """, file: "s.yaml")
        return try #require(outcome.assessment, "\(outcome.diagnostics)")
    }

    static func sealed() throws -> (Assessment, [UInt8]) {
        let a = try spelling()
        return (a, try SealedAssessment.seal(a, passphrase: passphrase, cost: cheap))
    }

    @Test func roundTripGivesTheSameAssessmentAndFingerprint() throws {
        let (a, package) = try Self.sealed()
        #expect(SealedAssessment.isSealed(package))
        let opened = try SealedAssessment.open(package, passphrase: Self.passphrase, file: "s.carrel")
        #expect(opened == a)
        #expect(Fingerprint.of(opened) == Fingerprint.of(a))
        let header = try SealedAssessment.header(of: package)
        #expect(header.metadata.fingerprint.hasPrefix("sealed:"))
        #expect(header.metadata.fingerprint != Fingerprint.of(a), "the content's fingerprint is not public")
        #expect(header.metadata.items == 2)
        #expect(header.metadata.timeLimit == 900)
        #expect(header.metadata.navigation == .linear)
        #expect(header.metadata.policy == a.policy)
        #expect(header.cost == Self.cheap)
    }

    @Test func theLanguageIsInThePublicHeaderSoTheStartScreenSpeaksItBeforeOpening() throws {
        var a = try Self.spelling()
        #expect(try Self.sealed().1.count > 0)
        let plain = try SealedAssessment.header(of: try SealedAssessment.seal(a, passphrase: Self.passphrase, cost: Self.cheap))
        #expect(plain.metadata.language == nil && plain.metadata.preview.language == nil)
        a.language = "fr"
        let package = try SealedAssessment.seal(a, passphrase: Self.passphrase, cost: Self.cheap)
        let header = try SealedAssessment.header(of: package)
        #expect(header.metadata.language == "fr")
        #expect(header.metadata.preview.language == "fr")
        #expect(try SealedAssessment.open(package, passphrase: Self.passphrase, file: "s.carrel").language == "fr")
        // A header naming a language Carrel does not speak is damaged, not a quiet English.
        var forged = header.metadata
        forged.language = "xx"
        let refused = Self.replacingMetadata(package, header: header, with: forged)
        #expect(throws: SealedAssessment.Failure.self) { try SealedAssessment.header(of: refused) }
    }

    @Test func nothingOfTheKeyIsReadableInThePackage() throws {
        let (_, package) = try Self.sealed()
        let text = String(decoding: package, as: UTF8.self)
        for secret in ["syzygy", "rhythm", "rythm", "Two h's", "Read each word", "Word 1"] {
            #expect(!text.contains(secret), "\(secret) is readable in the package")
        }
        #expect(text.contains("Spelling — week 12"))
    }

    @Test func twoSealsOfTheSameAssessmentDifferInSaltNonceAndCiphertext() throws {
        let a = try Self.spelling()
        let one = try SealedAssessment.seal(a, passphrase: Self.passphrase, cost: Self.cheap)
        let two = try SealedAssessment.seal(a, passphrase: Self.passphrase, cost: Self.cheap)
        #expect(one != two)
        #expect(try SealedAssessment.header(of: one).salt != SealedAssessment.header(of: two).salt)
        #expect(try SealedAssessment.header(of: one).nonce != SealedAssessment.header(of: two).nonce)
    }

    @Test func aWrongPassphraseIsNotDamage() throws {
        let (_, package) = try Self.sealed()
        #expect(throws: SealedAssessment.Failure.wrongPassphrase) {
            try SealedAssessment.open(package, passphrase: "not the phrase", file: "s.carrel")
        }
        #expect(throws: SealedAssessment.Failure.wrongPassphrase) {
            try SealedAssessment.seal(try Self.spelling(), passphrase: "not the phrase", cost: Self.cheap)
        }
    }

    /// One flipped byte in every region of the package: refused as damaged, never as a wrong
    /// passphrase, and never opened.
    @Test func aFlippedByteAnywhereIsRefusedAsDamaged() throws {
        let (_, package) = try Self.sealed()
        let header = try SealedAssessment.header(of: package)
        let metadataEnd = header.length - 32
        let regions: [(String, Int)] = [
            ("magic", 3), ("version", 14), ("kdf", 15), ("log rounds", 16), ("block size", 17), ("parallelism", 18),
            ("salt", 19), ("salt end", 34), ("nonce", 35), ("nonce end", 46), ("metadata length", 50),
            ("metadata", 60), ("metadata end", metadataEnd - 2), ("checksum", metadataEnd + 5),
            ("ciphertext", header.length), ("ciphertext middle", (header.length + package.count) / 2),
            ("tag", package.count - 16), ("tag end", package.count - 1),
        ]
        for (name, offset) in regions {
            for mask: UInt8 in [0x01, 0x80] {
                var bad = package
                bad[offset] ^= mask
                do {
                    _ = try SealedAssessment.open(bad, passphrase: Self.passphrase, file: "s.carrel")
                    Issue.record("\(name) (byte \(offset)) flipped with \(mask): opened")
                } catch {
                    #expect(!error.isWrongPassphrase, "\(name): \(error)")
                }
            }
        }
    }

    @Test func aFlippedByteInTheBodyIsCaughtOnlyByAuthentication() throws {
        let (_, package) = try Self.sealed()
        var bad = package
        bad[bad.count - 20] ^= 0x40
        #expect(try SealedAssessment.header(of: bad).metadata.id == "spelling")
        #expect(throws: SealedAssessment.Failure.damaged("authentication failed")) {
            try SealedAssessment.open(bad, passphrase: Self.passphrase, file: "s.carrel")
        }
    }

    @Test func everyTruncationIsRefused() throws {
        let (_, package) = try Self.sealed()
        for length in [0, 5, 14, 15, 30, 50, 51, 80, package.count / 2, package.count - 17, package.count - 16, package.count - 1] {
            let cut = Array(package.prefix(length))
            #expect(throws: SealedAssessment.Failure.self, "cut at \(length)") {
                try SealedAssessment.open(cut, passphrase: Self.passphrase, file: "s.carrel")
            }
        }
        #expect(throws: SealedAssessment.Failure.notSealed) { try SealedAssessment.header(of: Array("carrel: 1\n".utf8)) }
        // Bytes added at the end move the tag: only authentication can tell.
        #expect(throws: SealedAssessment.Failure.damaged("authentication failed")) {
            try SealedAssessment.open(package + [0], passphrase: Self.passphrase, file: "s.carrel")
        }
    }

    /// A forged header whose checksum matches but which asks for an absurd scrypt cost is
    /// refused at once, before any key is derived.
    @Test func absurdKeyDerivationCostsAreRefusedQuickly() throws {
        let (_, package) = try Self.sealed()
        for (ln, r, p) in [(30, 8, 1), (18, 16, 1), (9, 8, 1), (15, 0, 1), (15, 8, 0), (15, 8, 200), (255, 255, 255)] {
            var forged = package
            forged[16] = UInt8(ln)
            forged[17] = UInt8(r)
            forged[18] = UInt8(p)
            let header = try SealedAssessment.header(of: package)
            let checksumAt = header.length - 32
            forged.replaceSubrange(checksumAt..<header.length, with: Array(SHA256.hash(data: forged[0..<checksumAt])))
            let start = Date()
            do {
                _ = try SealedAssessment.open(forged, passphrase: Self.passphrase, file: "s.carrel")
                Issue.record("ln \(ln) r \(r) p \(p) opened")
            } catch {
                guard case .unreasonableCost = error else {
                    Issue.record("ln \(ln) r \(r) p \(p): \(error)")
                    continue
                }
            }
            #expect(Date().timeIntervalSince(start) < 5, "refused before deriving a key")
        }
    }

    /// The passphrase hash in the header is checked first, so its cost is bounded too.
    @Test func aHeaderWhosePassphraseHashAsksForGigabytesIsRefused() throws {
        let (_, package) = try Self.sealed()
        let header = try SealedAssessment.header(of: package)
        var metadata = header.metadata
        // Such a hash is refused when parsed; the forger writes it into the header anyway.
        metadata.passphrase = PassphraseHash(logRounds: 20, blockSize: 16, parallelism: 1, salt: Array(repeating: 1, count: 16),
                                             key: Array(repeating: 2, count: 32))
        let forged = Self.replacingMetadata(package, header: header, with: metadata)
        let start = Date()
        #expect(throws: SealedAssessment.Failure.self) {
            try SealedAssessment.open(forged, passphrase: Self.passphrase, file: "s.carrel")
        }
        #expect(Date().timeIntervalSince(start) < 5, "refused before deriving a key")
    }

    static func replacingMetadata(_ package: [UInt8], header: SealedAssessment.Header, with metadata: SealedAssessment.Metadata) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = Array((try? encoder.encode(metadata)) ?? Data())
        var forged = Array(package[0..<(header.version == 1 ? 47 : 79)])
        let m = UInt32(json.count)
        forged += [UInt8(m >> 24), UInt8(m >> 16 & 0xFF), UInt8(m >> 8 & 0xFF), UInt8(m & 0xFF)] + json
        forged += Array(SHA256.hash(data: forged))
        return forged + package[header.length...]
    }

    /// Someone who rewrites the header with a passphrase of their own (and a fresh checksum)
    /// gets through the passphrase check but not the authentication.
    @Test func aHeaderForgedWithAnotherPassphraseDoesNotOpen() throws {
        let (a, package) = try Self.sealed()
        let header = try SealedAssessment.header(of: package)
        var metadata = header.metadata
        metadata.passphrase = try PassphraseHash.make(passphrase: "student phrase", logRounds: 10)
        let forged = Self.replacingMetadata(package, header: header, with: metadata)
        #expect(try SealedAssessment.header(of: forged).metadata.passphrase == metadata.passphrase)
        #expect(throws: SealedAssessment.Failure.damaged("authentication failed")) {
            try SealedAssessment.open(forged, passphrase: "student phrase", file: "s.carrel")
        }
        #expect(try SealedAssessment.open(package, passphrase: Self.passphrase, file: "s.carrel") == a)
    }

    @Test func anAssessmentWithoutAPassphraseCannotBeSealed() throws {
        var a = try Self.spelling()
        a.proctor = ProctorSettings()
        #expect(throws: SealedAssessment.Failure.noPassphrase) {
            try SealedAssessment.seal(a, passphrase: Self.passphrase, cost: Self.cheap)
        }
    }

    @Test func itemIDsThatSpellAnAnswerAreRefused() throws {
        var a = try Self.spelling()
        a.sections[0].items[0].id = "syzygy"
        a.sections[0].items[1].id = "spell-rhythm-2"
        let lines = SealedAssessment.revealingIDs(a)
        #expect(lines.count == 2)
        #expect(lines[0].contains("`syzygy`"))
        #expect(lines[1].contains("`spell-rhythm-2`"))
        #expect(throws: SealedAssessment.Failure.self) { try SealedAssessment.seal(a, passphrase: Self.passphrase, cost: Self.cheap) }
        // Short answers and ids that merely contain letters of an answer are fine.
        #expect(SealedAssessment.appears(["a"], in: ["a", "b"]) == false)
        #expect(SealedAssessment.appears(["ottawa"], in: ["canada"]) == false)
        #expect(SealedAssessment.appears(["naive"], in: SealedAssessment.words(of: "Naïve").map { $0 }) == true)
        #expect(SealedAssessment.appears(["new", "york"], in: ["capital", "new", "york"]) == true)
        #expect(SealedAssessment.appears(["rhythm"], in: ["rhythms"]) == false)
    }

    @Test func thePreviewHasThePublicFactsAndNothingElse() throws {
        let (a, package) = try Self.sealed()
        let preview = try SealedAssessment.header(of: package).metadata.preview
        #expect(preview.title == a.title)
        #expect(preview.description == a.description)
        #expect(preview.items.count == a.items.count)
        #expect(preview.timeLimit == a.timeLimit)
        #expect(preview.policy == a.policy)
        #expect(preview.proctor == a.proctor)
        #expect(preview.items.allSatisfy { $0.prompt == "(sealed)" && $0.proctorNote == nil })
        #expect(Fingerprint.of(preview) != Fingerprint.of(a))
    }

    @Test func costsAreBounded() {
        #expect(SealedAssessment.Cost.standard.problem == nil)
        #expect(SealedAssessment.Cost.standard.memory == 32 * 1024 * 1024)
        #expect(SealedAssessment.Cost(logRounds: 19, blockSize: 8, parallelism: 1).problem != nil)
        #expect(SealedAssessment.Cost(logRounds: 18, blockSize: 16, parallelism: 1).problem != nil)
        #expect(SealedAssessment.Cost(logRounds: 18, blockSize: 8, parallelism: 1).problem == nil)
    }

    /// A plain SHA-256 of the content in the header would let a student who saw every prompt
    /// and choice try each possible key offline until the hash matched.
    @Test func theHeaderFingerprintCannotConfirmAGuessedKey() throws {
        let (a, package) = try Self.sealed()
        let shown = try SealedAssessment.header(of: package).metadata.fingerprint
        let plain = Fingerprint.of(a)
        let hex = String(plain.dropFirst("sha256:".count))
        #expect(!String(decoding: package, as: UTF8.self).contains(hex), "the package holds no plain fingerprint")
        #expect(shown != plain)
        let again = try SealedAssessment.seal(a, passphrase: Self.passphrase, cost: Self.cheap)
        #expect(try SealedAssessment.header(of: again).metadata.fingerprint != shown, "keyed by each package's own key")
        #expect(Fingerprint.of(try SealedAssessment.open(again, passphrase: Self.passphrase, file: "s")) == plain,
                "opened, it is the same content")
    }

    /// Sealing every guessed key and comparing sizes must not tell the keys apart: the size
    /// goes by buckets, and tests whose answers differ in length seal to the same size.
    @Test func thePackageSizeDoesNotTellAnswersApart() throws {
        let hash = try PassphraseHash.make(passphrase: Self.passphrase, logRounds: 10)
        func quiz(_ answers: [String]) throws -> Assessment {
            let items = answers.enumerated().map { i, answer in
                "      - {id: q\(i), type: choice, prompt: Question \(i), choices: [a, bb, ccc, dddd], answer: \(answer)}"
            }.joined(separator: "\n")
            let text = "carrel: 1\nid: quiz\ntitle: Quiz\nproctor:\n  passphrase: \"\(hash)\"\nsections:\n  - items:\n" + items
            let outcome = AssessmentReader.read(text: text, file: "q.yaml")
            return try #require(outcome.assessment, "\(outcome.diagnostics)")
        }
        var sizes = Set<Int>()
        for key in [["a", "a", "a"], ["dddd", "dddd", "dddd"], ["bb", "ccc", "a"], ["a", "bb", "dddd"]] {
            let package = try SealedAssessment.seal(try quiz(key), passphrase: Self.passphrase, cost: Self.cheap)
            sizes.insert(package.count)
            #expect(try SealedAssessment.open(package, passphrase: Self.passphrase, file: "q") == quiz(key))
        }
        #expect(sizes.count == 1, "every key seals to one size: \(sizes.sorted())")
    }

    @Test(arguments: [0, 1, 4093, 4094, 4095, 4096, 4097, 5000, 9999, 70_000, 1_000_000, 16 * 1024 * 1024 - 3])
    func paddingReachesItsBucketAndReadsBackAsComments(length: Int) throws {
        let yaml = [UInt8](repeating: UInt8(ascii: "x"), count: length)
        let out = SealedAssessment.padded(yaml)
        let expected = SealedAssessment.bucket(length + 3)  // the text, its line break, a comment
        #expect(out.count == max(expected, length + 1), "\(length) → \(out.count)")
        #expect(out.count >= 4096)
        #expect(Double(out.count) <= max(4096, Double(length) * 1.13) + 3)
        #expect(Array(out.prefix(length)) == yaml)
        // What follows the text is comment lines only: `#`, spaces, a line break.
        let tail = out.dropFirst(length + 1)
        for line in tail.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            #expect(line.first == UInt8(ascii: "#") && line.dropFirst().allSatisfy { $0 == UInt8(ascii: " ") })
        }
    }

    @Test func buckets() {
        #expect(SealedAssessment.bucket(1) == 4096)
        #expect(SealedAssessment.bucket(4096) == 4096)
        #expect(SealedAssessment.bucket(4097) == 4352)   // 2^12: buckets of 256 bytes
        #expect(SealedAssessment.bucket(100_000) == 100_352)   // 2^16: buckets of 2 KiB
        #expect(SealedAssessment.bucket(16 * 1024 * 1024) == 16 * 1024 * 1024)
    }
}
