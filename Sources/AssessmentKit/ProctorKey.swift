import Crypto
import _CryptoExtras
import Foundation

/// The public half of the proctor's signing key, as `carrel passphrase` prints it and an
/// assessment carries it (`proctor: key:`):
/// `ed25519:PUBLIC$ln=15,r=8,p=1$SALT` (standard base64).
///
/// The private half is never stored anywhere: it is derived again from the proctor
/// passphrase whenever the proctor signs (scrypt with the key's own salt, then Ed25519). Its
/// salt differs from the passphrase hash's, so the hash printed beside it (a scrypt output
/// anyone can read) says nothing about the signing key.
public struct ProctorKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public let publicKey: [UInt8]
    public let logRounds: Int
    public let blockSize: Int
    public let parallelism: Int
    public let salt: [UInt8]

    static let prefix = "ed25519:"
    static let saltLength = 16
    /// Keeps the seed apart from every other scrypt output Carrel makes from the passphrase.
    static let domain = Array("carrel proctor signing key v1".utf8)

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notAKey
        case badParameters(String)

        public var description: String {
            switch self {
            case .notAKey:
                return "not a proctor key; run `carrel passphrase` and paste its `key:` line (ed25519:…)"
            case let .badParameters(why):
                return "proctor key has \(why); make a new one with `carrel passphrase`"
            }
        }
    }

    public init(parsing text: String) throws(ParseError) {
        guard text.hasPrefix(Self.prefix) else { throw .notAKey }
        let parts = text.dropFirst(Self.prefix.count).split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw .notAKey }
        guard let key = Data(base64Encoded: parts[0]), key.count == 32,
              (try? Curve25519.Signing.PublicKey(rawRepresentation: key)) != nil else {
            throw .badParameters("a public key that is not base64 of 32 bytes")
        }
        let cost: SealedAssessment.Cost
        switch SealedAssessment.Cost.reading(parts[1]) {
        case let .success(read): cost = read
        case let .failure(problem): throw .badParameters(problem.description)
        }
        let (ln, r, p) = (cost.logRounds, cost.blockSize, cost.parallelism)
        guard let salt = Data(base64Encoded: parts[2]), salt.count == Self.saltLength else {
            throw .badParameters("a salt that is not base64 of \(Self.saltLength) bytes")
        }
        self.init(publicKey: Array(key), logRounds: ln, blockSize: r, parallelism: p, salt: Array(salt))
    }

    init(publicKey: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int, salt: [UInt8]) {
        self.publicKey = publicKey
        self.logRounds = logRounds
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
    }

    public var description: String {
        Self.prefix + Data(publicKey).base64EncodedString()
            + "$ln=\(logRounds),r=\(blockSize),p=\(parallelism)$" + Data(salt).base64EncodedString()
    }

    /// A new key for `passphrase`, with a fresh salt.
    public static func make(passphrase: String, logRounds: Int = PassphraseHash.defaultLogRounds) throws -> ProctorKey {
        let salt = SealedAssessment.randomBytes(saltLength)
        let signing = try derive(passphrase, salt: salt, logRounds: logRounds, blockSize: 8, parallelism: 1)
        return ProctorKey(publicKey: Array(signing.publicKey.rawRepresentation), logRounds: logRounds,
                          blockSize: 8, parallelism: 1, salt: salt)
    }

    /// The signing key `passphrase` gives for this public key, or nil when it gives another
    /// (a wrong passphrase, or a key made from another one).
    public func signingKey(passphrase: String) -> ProctorSigningKey? {
        // A derivation that fails (a passphrase beyond the limit) gives no key: nothing is
        // signed, and the caller says the passphrase is not this key's.
        guard let signing = try? Self.derive(passphrase, salt: salt, logRounds: logRounds, blockSize: blockSize,
                                            parallelism: parallelism) else { return nil }
        let derived = Array(signing.publicKey.rawRepresentation)
        guard derived.count == publicKey.count else { return nil }
        var difference: UInt8 = 0
        for i in derived.indices { difference |= derived[i] ^ publicKey[i] }
        return difference == 0 ? ProctorSigningKey(signing) : nil
    }

    /// True when `signature` is this key's over `message`.
    public func verifies(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        // A key that cannot be read verifies nothing (fails closed).
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    static func derive(_ passphrase: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int) throws
        -> Curve25519.Signing.PrivateKey {
        // The same scrypt as a sealed package's key, with the label before the key's own salt.
        let seed = try SealedAssessment.deriveKey(
            passphrase, salt: domain + salt, cost: .init(logRounds: logRounds, blockSize: blockSize, parallelism: parallelism))
        return try seed.withUnsafeBytes { try Curve25519.Signing.PrivateKey(rawRepresentation: $0) }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The proctor's private signing key, derived from the passphrase for one console or
/// command and kept only in its memory.
public struct ProctorSigningKey: Sendable {
    /// The Ed25519 seed (the key type itself is not `Sendable`).
    let seed: [UInt8]

    init(_ key: Curve25519.Signing.PrivateKey) { seed = Array(key.rawRepresentation) }

    /// An Ed25519 signature of `message`.
    public func sign(_ message: some DataProtocol) throws -> [UInt8] {
        Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: message))
    }
}
