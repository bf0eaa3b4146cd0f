import Crypto
import Foundation
import Testing
@testable import AssessmentKit

/// Format 2: what a seat's package key opens holds no answer key.
@Suite("Sealed assessments split in two")
struct SealedSplitTests {
    static let passphrase = SealedAssessmentTests.passphrase
    static let cheap = SealedAssessmentTests.cheap

    /// Every secret of `everyKind`, none of which a student sees.
    static let secrets = ["quixotically", "xylophonist", "Feedback-walrus", "Note-narwhal", "Section-note-okapi",
                          "Mark-feedback-lemur", "Gap-accept-ibex", "\"answer\":\"Gamma\""]

    /// One item of every kind, its key and notes spelled with words found nowhere else.
    static func everyKind(shuffleChoices: Bool = true) throws -> Assessment {
        let hash = try PassphraseHash.make(passphrase: passphrase, logRounds: 10)
        let outcome = AssessmentReader.read(text: """
            carrel: 1
            id: split
            title: Split
            shuffle: {choices: \(shuffleChoices)}
            proctor:
              passphrase: "\(hash)"
            sections:
              - proctor_note: Section-note-okapi
                items:
                  - {id: q1, type: choice, prompt: Pick, choices: [Alpha, Beta, Gamma], answer: Gamma, feedback: Feedback-walrus, proctor_note: Note-narwhal}
                  - {id: q2, type: multiple, prompt: Several, choices: [One, Two, Three], answer: [Three, One], points: 2}
                  - {id: q3, type: true_false, prompt: True?, answer: true}
                  - id: q4
                    type: text
                    prompt: Word
                    accept:
                      - {text: quixotically, feedback: Mark-feedback-lemur}
                      - {text: xylophonist, credit: 50%}
                  - {id: q5, type: numeric, prompt: Number, answer: 42.5, tolerance: 0.25}
                  - {id: q6, type: essay, prompt: Write, min_words: 3, points: 4}
                  - {id: q7, type: order, prompt: Order, items: [Zebra, Apple, Mango]}
                  - {id: q8, type: match, prompt: Match, pairs: {Kenya: Nairobi, Chad: Zanzibar-key}, distractors: [Accra]}
                  - id: q9
                    type: gaps
                    prompt: A {1} and {2}.
                    gaps:
                      - accept: [Gap-accept-ibex]
                      - {choices: [Gap-wrong-tapir, Right-pick], answer: Right-pick, points: 3}
            """, file: "split.yaml")
        return try #require(outcome.assessment, "\(outcome.diagnostics)")
    }

    static func packageKey(_ package: [UInt8]) throws -> [UInt8] {
        let header = try SealedAssessment.header(of: package)
        return try SealedAssessment.packageKey(passphrase: passphrase, salt: header.salt, cost: header.cost)
    }

    @Test func thePackageKeyOpensTheQuestionsWithoutTheirKey() throws {
        let full = try Self.everyKind()
        let package = try SealedAssessment.seal(full, passphrase: Self.passphrase, cost: Self.cheap)
        let header = try SealedAssessment.header(of: package)
        #expect(header.version == 2 && header.isSplit)
        let seat = try SealedAssessment.open(package, packageKey: try Self.packageKey(package), file: "s.carrel")
        #expect(seat.keyless)
        #expect(seat == full.withoutKey)
        #expect(seat.items.map(\.id) == full.items.map(\.id))
        #expect(seat.items.map(\.prompt) == full.items.map(\.prompt))
        // Everything a seat's memory holds of the test, as text: no answer, feedback or note.
        let held = String(decoding: try JSONEncoder().encode(seat), as: UTF8.self)
        for secret in Self.secrets + ["42.5", "0.25"] {
            #expect(!held.contains(secret), "\(secret) is in the keyless test")
        }
        #expect(seat.items.allSatisfy { $0.feedback == nil && $0.proctorNote == nil && $0.marking == nil && $0.points == 0 })
        // What students need is there: choices, entries, sides and word limits.
        #expect(seat.items[0].kind == .choice(choices: ["Alpha", "Beta", "Gamma"], answer: ""))
        #expect(seat.items[6].kind == .order(items: ["Apple", "Mango", "Zebra"]), "sorted: the written order is the key")
        guard case let .match(pairs, distractors) = seat.items[7].kind else { throw Failure("q8 is not a match") }
        #expect(pairs.map(\.left) == ["Kenya", "Chad"] && Set(pairs.map(\.right)).count == 1)
        #expect(distractors == ["Accra", "Nairobi", "Zanzibar-key"], "every right-hand entry, sorted: no pairing shows")
        #expect(seat.items[5].kind == .essay(minWords: 3, maxWords: nil))
        // The passphrase still opens the whole test, key and all.
        #expect(try SealedAssessment.open(package, passphrase: Self.passphrase, file: "s.carrel") == full)
    }

    @Test func choicesKeepTheirWrittenOrderOnlyWhenStudentsSeeIt() throws {
        let shown = try Self.everyKind(shuffleChoices: false).withoutKey
        #expect(shown.items[1].kind == .multiple(choices: ["One", "Two", "Three"], answers: [], scoring: .allOrNothing))
        let shuffled = try Self.everyKind(shuffleChoices: true).withoutKey
        #expect(shuffled.items[1].kind == .multiple(choices: ["One", "Three", "Two"], answers: [], scoring: .allOrNothing))
    }

    /// The seat holds the package key and sees every question: the header's fingerprint must
    /// not let it try each possible key offline.
    @Test func thePackageKeyCannotConfirmAGuessedKey() throws {
        let full = try Self.everyKind()
        let package = try SealedAssessment.seal(full, passphrase: Self.passphrase, cost: Self.cheap)
        let key = SymmetricKey(data: try Self.packageKey(package))
        let shown = try SealedAssessment.header(of: package).metadata.fingerprint
        #expect(SealedAssessment.keyedFingerprint(Fingerprint.of(full), key: key) != shown)
    }

    /// A byte changed in the student part is refused even by the passphrase, which reads the
    /// scoring part: the seats were shown this test's questions or nothing opens.
    @Test func aChangedStudentPartRefusesThePackage() throws {
        let package = try SealedAssessment.seal(try Self.everyKind(), passphrase: Self.passphrase, cost: Self.cheap)
        let header = try SealedAssessment.header(of: package)
        let student = try #require(header.scoring?.studentLength)
        for offset in [header.length, header.length + student / 2, header.length + student - 1] {
            var bad = package
            bad[offset] ^= 0x20
            #expect(throws: SealedAssessment.Failure.damaged("authentication failed")) {
                try SealedAssessment.open(bad, passphrase: Self.passphrase, file: "s.carrel")
            }
            #expect(throws: SealedAssessment.Failure.damaged("authentication failed")) {
                try SealedAssessment.open(bad, packageKey: try Self.packageKey(package), file: "s.carrel")
            }
        }
    }

    /// Both parts are padded: keys of different lengths seal to one size.
    @Test func bothPartsArePaddedToTheirBucket() throws {
        let full = try Self.everyKind()
        let package = try SealedAssessment.seal(full, passphrase: Self.passphrase, cost: Self.cheap)
        let header = try SealedAssessment.header(of: package)
        let student = try #require(header.scoring?.studentLength)
        #expect(student - 16 == SealedAssessment.bucket(student - 16))
        let scoring = package.count - header.length - student - 16
        #expect(scoring == SealedAssessment.bucket(scoring))
        var longer = full
        longer.sections[0].items[3].kind = .text(accept: ["quixotically-and-much-longer"], caseSensitive: false)
        longer.sections[0].items[3].marking = nil
        #expect(try SealedAssessment.seal(longer, passphrase: Self.passphrase, cost: Self.cheap).count == package.count)
    }

    /// Packages sealed before the split (format 1) still open, with the passphrase or with
    /// the package key, whole as before.
    @Test func formatOnePackagesStillOpen() throws {
        let full = try Self.everyKind()
        let old = try Self.sealFormatOne(full)
        let header = try SealedAssessment.header(of: old)
        #expect(header.version == 1 && !header.isSplit)
        #expect(try SealedAssessment.open(old, passphrase: Self.passphrase, file: "old.carrel") == full)
        let key = try SealedAssessment.packageKey(passphrase: Self.passphrase, salt: header.salt, cost: header.cost)
        let opened = try SealedAssessment.open(old, packageKey: key, file: "old.carrel")
        #expect(opened == full && !opened.keyless)
    }

    /// `carrel seal` as it wrote packages before format 2.
    static func sealFormatOne(_ assessment: Assessment) throws -> [UInt8] {
        let hash = try #require(assessment.proctor.passphrase)
        let plaintext = SealedAssessment.padded(Array(AssessmentWriter.yaml(assessment).utf8))
        let salt = SealedAssessment.randomBytes(16), nonce = SealedAssessment.randomBytes(12)
        let key = try SealedAssessment.deriveKey(passphrase, salt: salt, cost: cheap)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let fingerprint = SealedAssessment.keyedFingerprint(Fingerprint.of(assessment), key: key)
        let metadata = Array(try encoder.encode(SealedAssessment.Metadata(assessment, passphrase: hash, fingerprint: fingerprint)))
        var header = SealedAssessment.magic + [1, 1, UInt8(cheap.logRounds), UInt8(cheap.blockSize), UInt8(cheap.parallelism)]
        header += salt + nonce + SealedAssessment.bigEndianBytes(metadata.count) + metadata
        header += Array(SHA256.hash(data: header))
        let box = try ChaChaPoly.seal(plaintext, using: key, nonce: try ChaChaPoly.Nonce(data: nonce), authenticating: header)
        return header + Array(box.ciphertext) + Array(box.tag)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
