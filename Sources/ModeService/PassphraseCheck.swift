import Crypto
import Foundation
import _CryptoExtras

/// The proctor's passphrase hash as `carrel passphrase` prints it (`scrypt$ln=15,r=8,p=1$SALT$KEY`,
/// standard base64), checked with the bounds Carrel reads it with everywhere (AssessmentKit's
/// PassphraseHash and SealedAssessment.Cost): ln 10–18, r 1–16, p 1–4, at most 256 MiB, so a
/// hash given at begin cannot make each check take seconds and gigabytes.
public struct PassphraseCheck: Sendable, Equatable {
    public let logRounds: Int
    public let blockSize: Int
    public let parallelism: Int
    let salt: [UInt8]
    let key: [UInt8]

    public static let maximumBytes = 1024
    static let maximumMemory = 256 * 1024 * 1024

    /// Throws why when `text` is not a hash Carrel accepts.
    public init(parsing text: String) throws(ChangeError) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == "scrypt" else { throw ChangeError("the passphrase hash is not one `carrel passphrase` prints") }
        var params: [String: Int] = [:]
        for field in parts[1].split(separator: ",") {
            let kv = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2, let value = Int(kv[1]), params[kv[0]] == nil else {
                throw ChangeError("the passphrase hash has unreadable parameters")
            }
            params[kv[0]] = value
        }
        guard Set(params.keys) == ["ln", "r", "p"], let ln = params["ln"], let r = params["r"], let p = params["p"],
              (10...18).contains(ln), (1...16).contains(r), (1...4).contains(p), 128 * r * (1 << ln) <= Self.maximumMemory else {
            throw ChangeError("the passphrase hash asks for scrypt parameters beyond the limits (ln 10–18, r 1–16, p 1–4, 256 MiB)")
        }
        guard let salt = Data(base64Encoded: parts[2]), salt.count >= 16, let key = Data(base64Encoded: parts[3]), key.count == 32 else {
            throw ChangeError("the passphrase hash's salt or key is not base64 of the right length")
        }
        (logRounds, blockSize, parallelism) = (ln, r, p)
        self.salt = Array(salt)
        self.key = Array(key)
    }

    /// Whether `passphrase` (NFC-normalised, as Carrel hashes it) derives the key; the keys are
    /// compared in constant time, and a passphrase over the limit never matches.
    public func verify(_ passphrase: String) -> Bool {
        guard passphrase.utf8.count <= Self.maximumBytes else { return false }
        let bytes = Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
        let derived: [UInt8]
        do {
            derived = try KDF.Scrypt.deriveKey(from: bytes, salt: salt, outputByteCount: key.count, rounds: 1 << logRounds,
                                               blockSize: blockSize, parallelism: parallelism).withUnsafeBytes { Array($0) }
        } catch {
            return false
        }
        guard derived.count == key.count else { return false }
        var difference: UInt8 = 0
        for i in key.indices { difference |= derived[i] ^ key[i] }
        return difference == 0
    }
}
