import Foundation
import Testing
@testable import AssessmentKit

/// A passphrase hash read from an assessment costs no more to check than a sealed header's key
/// may: the same bounds (at most 256 MiB of memory and four passes of scrypt), wherever the
/// hash is read (YAML, a sealed header, the journal's copy).
@Suite("Passphrase hash costs bounded as a sealed header's")
struct PassphraseCostTests {
    static func line(_ parameters: String) -> String {
        "scrypt$\(parameters)$\(Data(repeating: 1, count: 16).base64EncodedString())$\(Data(repeating: 2, count: 32).base64EncodedString())"
    }

    @Test(arguments: ["ln=20,r=16,p=4", "ln=20,r=8,p=1", "ln=19,r=1,p=1", "ln=18,r=9,p=1", "ln=18,r=16,p=1",
                      "ln=17,r=16,p=5", "ln=9,r=8,p=1", "ln=15,r=0,p=1", "ln=15,r=17,p=1", "ln=15,r=8,p=0"])
    func aCostAboveASealedHeadersIsRefused(parameters: String) {
        #expect(throws: PassphraseHash.ParseError.self) { try PassphraseHash(parsing: Self.line(parameters)) }
    }

    @Test(arguments: ["ln=10,r=1,p=1", "ln=15,r=8,p=1", "ln=18,r=8,p=4", "ln=17,r=16,p=4", "ln=16,r=16,p=1"])
    func aCostWithinTheBoundsIsRead(parameters: String) throws {
        let hash = try PassphraseHash(parsing: Self.line(parameters))
        let cost = SealedAssessment.Cost(logRounds: hash.logRounds, blockSize: hash.blockSize, parallelism: hash.parallelism)
        #expect(cost.problem == nil)
        #expect(cost.memory <= 256 * 1024 * 1024)
    }

    @Test func theRefusalSaysWhatIsAllowed() {
        do {
            _ = try PassphraseHash(parsing: Self.line("ln=20,r=16,p=4"))
            Issue.record("a 2 GiB hash was read")
        } catch {
            #expect(error.description.contains("ln=20, r=16, p=4"), "\(error.description)")
            #expect(error.description.contains("ln 10...18"), "\(error.description)")
            #expect(error.description.contains("carrel passphrase"), "\(error.description)")
        }
    }

    @Test func validateLocatesTheRefusal() {
        let yaml = "carrel: 1\nid: costly\ntitle: Costly\nproctor:\n  passphrase: \"\(Self.line("ln=20,r=16,p=4"))\"\n"
            + "sections:\n  - items:\n      - {id: q, type: text, prompt: P, accept: [a]}\n"
        let started = Date()
        let outcome = AssessmentReader.read(text: yaml, file: "costly.yaml")
        #expect(outcome.assessment == nil)
        let messages = outcome.diagnostics.map(\.description)
        #expect(messages.contains { $0.hasPrefix("costly.yaml:5:") && $0.contains("proctor.passphrase") }, "\(messages)")
        #expect(Date().timeIntervalSince(started) < 10, "refused without deriving a key")
    }
}
