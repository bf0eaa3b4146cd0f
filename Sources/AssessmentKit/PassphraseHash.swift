import Crypto
import _CryptoExtras
import Foundation

/// A salted scrypt hash of the proctor passphrase, as printed by `carrel passphrase`:
/// `scrypt$ln=15,r=8,p=1$SALT$KEY` (standard base64). The parameters travel with the hash,
/// so stronger settings later still verify old files.
public struct PassphraseHash: Sendable, Hashable, Codable, CustomStringConvertible {
    public let logRounds: Int
    public let blockSize: Int
    public let parallelism: Int
    public let salt: [UInt8]
    public let key: [UInt8]

    public static let defaultLogRounds = 15
    static let keyLength = 32
    static let saltLength = 16

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notAHash
        case badParameters(String)

        public var description: String {
            switch self {
            case .notAHash:
                return "not a passphrase hash; run `carrel passphrase` and paste the line it prints (plain text is never stored)"
            case let .badParameters(why):
                return "passphrase hash has \(why); make a new one with `carrel passphrase`"
            }
        }
    }

    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0] == "scrypt" else { throw .notAHash }
        // Bounded exactly as a sealed header's key (at most 256 MiB and 4 passes): a hostile
        // file cannot make each check take seconds and gigabytes, wherever the hash is read.
        let cost: SealedAssessment.Cost
        switch SealedAssessment.Cost.reading(parts[1]) {
        case let .success(read): cost = read
        case let .failure(problem): throw .badParameters(problem.description)
        }
        let (ln, r, p) = (cost.logRounds, cost.blockSize, cost.parallelism)
        guard let salt = Data(base64Encoded: parts[2]), salt.count >= Self.saltLength else {
            throw .badParameters("a salt that is not base64 of at least \(Self.saltLength) bytes")
        }
        guard let key = Data(base64Encoded: parts[3]), key.count == Self.keyLength else {
            throw .badParameters("a key that is not base64 of \(Self.keyLength) bytes")
        }
        self.init(logRounds: ln, blockSize: r, parallelism: p, salt: Array(salt), key: Array(key))
    }

    init(logRounds: Int, blockSize: Int, parallelism: Int, salt: [UInt8], key: [UInt8]) {
        self.logRounds = logRounds
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
        self.key = key
    }

    /// One limit for every passphrase Carrel reads (`passphrase`, launch, unlock, resume):
    /// a longer one is refused, never shortened, so no prefix ever matches.
    public static let maximumBytes = 1024

    /// Why typed bytes are not a passphrase Carrel accepts.
    public enum InputProblem: Error, Equatable, CustomStringConvertible {
        case notUTF8
        case tooLong

        public var description: String {
            switch self {
            case .notUTF8:
                return "the passphrase is not valid UTF-8 text; type it again in a UTF-8 terminal (nothing was compared)"
            case .tooLong:
                return "the passphrase is longer than \(PassphraseHash.maximumBytes) bytes; Carrel never shortens a passphrase, so use a shorter one"
            }
        }
    }

    /// The passphrase in `bytes` (one line, without its line break): strict UTF-8 (no
    /// replacement characters, so different bytes never become the same text) within the limit.
    public static func passphrase(bytes: [UInt8]) throws(InputProblem) -> String {
        guard bytes.count <= maximumBytes else { throw .tooLong }
        var decoded = String.UnicodeScalarView()
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar): decoded.append(scalar)
            case .emptyInput: break decoding
            case .error: throw .notUTF8
            }
        }
        return String(decoded)
    }

    /// Hashes a new passphrase with a fresh random salt.
    public static func make(passphrase: String, logRounds: Int = defaultLogRounds) throws -> PassphraseHash {
        guard passphrase.utf8.count <= maximumBytes else { throw InputProblem.tooLong }
        var salt = [UInt8](repeating: 0, count: saltLength)
        var rng = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: .min ... .max, using: &rng) }
        let key = try derive(passphrase, salt: salt, logRounds: logRounds, blockSize: 8, parallelism: 1)
        return PassphraseHash(logRounds: logRounds, blockSize: 8, parallelism: 1, salt: salt, key: key)
    }

    /// Constant-time comparison of the derived key; the passphrase is NFC-normalised first.
    public func verify(_ passphrase: String) -> Bool {
        // Beyond the limit nothing matches: a long passphrase is never compared by a prefix.
        guard passphrase.utf8.count <= Self.maximumBytes, let candidate = try? Self.derive(
            passphrase, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        guard candidate.count == key.count else { return false }
        var difference: UInt8 = 0
        for i in key.indices { difference |= candidate[i] ^ key[i] }
        return difference == 0
    }

    public var description: String {
        "scrypt$ln=\(logRounds),r=\(blockSize),p=\(parallelism)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Passphrases typed on different systems compare equal once in NFC.
    public static func normalise(_ passphrase: String) -> String {
        passphrase.precomposedStringWithCanonicalMapping
    }

    private static func derive(
        _ passphrase: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int
    ) throws -> [UInt8] {
        let bytes = Array(normalise(passphrase).utf8)
        let derived = try KDF.Scrypt.deriveKey(
            from: bytes, salt: salt, outputByteCount: keyLength,
            rounds: 1 << logRounds, blockSize: blockSize, parallelism: parallelism)
        return derived.withUnsafeBytes { Array($0) }
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
