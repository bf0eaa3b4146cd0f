import Testing
@testable import SharedStore

/// `carrel store init` sends the server a SCRAM verifier of each new role's password, never the
/// password itself (a server that logs its statements would keep it).
@Suite("Store set-up")
struct StoreSetupTests {
    /// Worked out independently (Python's hashlib and hmac) for these inputs.
    @Test func theVerifierIsPostgreSQLsForThePassword() throws {
        let verifier = try StoreSetup.scramVerifier("pencil", salt: Array(0..<16))
        #expect(verifier == "SCRAM-SHA-256$4096:AAECAwQFBgcICQoLDA0ODw==$zHCdol2044/ZyWzPLi7oxApCkamKw9Z+E4U/QApd/5Y=:dd5peBOitVnLNFu7VmwP+HiDaaw4OUCv396eVCWhYiE=")
    }

    @Test func aNewPasswordsVerifierHoldsNothingOfItAndIsSaltedEachTime() throws {
        let password = StoreSetup.randomPassword()
        let one = try StoreSetup.scramVerifier(password)
        let two = try StoreSetup.scramVerifier(password)
        #expect(!one.contains(password))
        #expect(one != two, "a new salt each time")
        #expect(one.hasPrefix("SCRAM-SHA-256$4096:"))
    }
}
