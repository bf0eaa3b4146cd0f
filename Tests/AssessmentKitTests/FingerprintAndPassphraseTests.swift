import Foundation
import Testing
@testable import AssessmentKit

@Suite("Fingerprint")
struct FingerprintTests {
    static let blockStyle = """
        # A comment that does not matter
        carrel: 1
        id: geo
        title: Capitals
        sections:
          - title: One
            items:
              - id: canada
                type: choice
                prompt: What is the capital of Canada?
                choices: [Toronto, Ottawa]
                answer: Ottawa
        """

    /// The same content: other key order, flow style, quoting, explicit default points, no comment.
    static let flowStyle = """
        sections: [{items: [{answer: "Ottawa", choices: ['Toronto', "Ottawa"], points: 1, prompt: "What is the capital of Canada?", type: choice, id: canada}], title: One}]
        title: "Capitals"
        id: geo
        carrel: 1
        """

    func fingerprint(_ yaml: String) throws -> String {
        Fingerprint.of(try #require(AssessmentReader.read(text: yaml, file: "f.yaml").assessment))
    }

    /// The hex every digest is written in: two lowercase digits a byte, every byte value.
    @Test func digestsAreWrittenAsLowercaseHex() {
        #expect(Fingerprint.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(Fingerprint.hex([UInt8]()) == "")
        let all = (0...255).map { UInt8($0) }
        #expect(Fingerprint.hex(all) == all.map { String(format: "%02x", $0) }.joined())
    }

    @Test func stableAcrossKeyOrderWhitespaceAndComments() throws {
        let a = try fingerprint(Self.blockStyle)
        #expect(a.hasPrefix("sha256:"))
        #expect(a.count == 7 + 64)
        #expect(try fingerprint(Self.flowStyle) == a)
        #expect(try fingerprint(Self.blockStyle + "\n\n# trailing comment\n") == a)
    }

    @Test func changesWhenWhatStudentsSeeOrHowTheyAreScoredChanges() throws {
        let a = try fingerprint(Self.blockStyle)
        #expect(try fingerprint(Self.blockStyle.replacingOccurrences(of: "answer: Ottawa", with: "answer: Toronto")) != a)
        #expect(try fingerprint(Self.blockStyle.replacingOccurrences(of: "Canada?", with: "Canada ?")) != a)
        #expect(try fingerprint(Self.blockStyle + "\npolicy: { paste: allow }\n") != a)
    }
}

@Suite("Passphrase hash")
struct PassphraseTests {
    /// A low cost keeps the suite quick on a slow machine; the format and checks are the same.
    static let cheap = 10

    @Test func roundTripThroughTheHashLine() throws {
        let hash = try PassphraseHash.make(passphrase: "correct horse", logRounds: Self.cheap)
        let line = hash.description
        #expect(line.hasPrefix("scrypt$ln=10,r=8,p=1$"))
        let parsed = try PassphraseHash(parsing: line)
        #expect(parsed == hash)
        #expect(parsed.verify("correct horse"))
    }

    @Test func wrongPassphrasesAreRejected() throws {
        let hash = try PassphraseHash.make(passphrase: "correct horse", logRounds: Self.cheap)
        #expect(!hash.verify("correct horse "))
        #expect(!hash.verify("Correct horse"))
        #expect(!hash.verify(""))
    }

    @Test func saltsDifferSoEqualPassphrasesGiveDifferentLines() throws {
        let a = try PassphraseHash.make(passphrase: "same phrase", logRounds: Self.cheap)
        let b = try PassphraseHash.make(passphrase: "same phrase", logRounds: Self.cheap)
        #expect(a.salt != b.salt)
        #expect(a.key != b.key)
    }

    @Test func passphrasesCompareInNFC() throws {
        let hash = try PassphraseHash.make(passphrase: "caf\u{E9} cr\u{E8}me", logRounds: Self.cheap)
        #expect(hash.verify("cafe\u{301} cre\u{300}me"))
    }

    @Test(arguments: [
        "hunter22",
        "scrypt$ln=15,r=8,p=1$c2FsdA==",
        "bcrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "scrypt$ln=40,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "scrypt$ln=15,r=8,p=1,x=2$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "scrypt$ln=15,r=8,p=1$c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "scrypt$ln=15,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA==$c2hvcnQ=",
    ])
    func malformedHashLinesAreRefused(line: String) {
        #expect(throws: PassphraseHash.ParseError.self) { try PassphraseHash(parsing: line) }
    }
}
