import Crypto
import Foundation

/// What the proctor's start gives one session, wrapped to its seat: the session's own key
/// (records and liveness are authenticated with it) and, for a sealed test, the package key.
public struct SeatSecrets: Sendable, Equatable {
    public var sessionKey: [UInt8]
    public var packageKey: [UInt8]?

    public init(sessionKey: [UInt8], packageKey: [UInt8]? = nil) {
        self.sessionKey = sessionKey
        self.packageKey = packageKey
    }
}

/// A seat's key pair for one launch (X25519): the public half is announced to the console,
/// the private half lives only in this process's memory (non-dumpable while it waits and
/// runs) and opens what the proctor's start wraps to it.
public final class SeatBox: Sendable {
    private let privateKey: [UInt8]
    /// Standard base64 of the raw public key, as announced.
    public let publicKey: String

    public init() {
        let key = Curve25519.KeyAgreement.PrivateKey()
        privateKey = Array(key.rawRepresentation)
        publicKey = key.publicKey.rawRepresentation.base64EncodedString()
    }

    /// The short fingerprint of this seat's public key, as the seat shows it and the console
    /// lists it: 64 bits of its SHA-256 in four groups (`3f2a-91c0-77de-0b14`).
    public var fingerprint: String { Self.fingerprint(publicKey) ?? "" }

    /// The fingerprint of a seat's announced key (standard base64); nil for anything else.
    public static func fingerprint(_ publicKey: String) -> String? {
        guard let raw = Data(base64Encoded: publicKey), raw.count == 32 else { return nil }
        let hex = Fingerprint.hex(SHA256.hash(data: raw).prefix(8))
        return stride(from: 0, to: 16, by: 4).map { i in
            String(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 4)])
        }.joined(separator: "-")
    }

    /// The secrets `wrapped` holds for `session`, or nil when they were not wrapped to this
    /// seat's key for this session (or were changed on the way).
    public func open(_ wrapped: String, session: String) -> SeatSecrets? {
        // Every failure below (a key that is not one, a box that does not open) is the same
        // answer: these keys are not for this seat, and the start is refused.
        guard let bytes = Data(base64Encoded: wrapped), bytes.count > 32 + 12 + 16,
              let mine = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey),
              let ephemeral = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: bytes.prefix(32)),
              let shared = try? mine.sharedSecretFromKeyAgreement(with: ephemeral) else { return nil }
        let key = KeyWrap.boxKey(shared, ephemeral: Array(bytes.prefix(32)), seat: Array(mine.publicKey.rawRepresentation))
        guard let box = try? ChaChaPoly.SealedBox(combined: bytes.dropFirst(32)),
              let plain = try? ChaChaPoly.open(box, using: key, authenticating: Array(session.utf8)) else { return nil }
        switch plain.count {
        case 32: return SeatSecrets(sessionKey: Array(plain))
        case 64: return SeatSecrets(sessionKey: Array(plain.prefix(32)), packageKey: Array(plain.suffix(32)))
        default: return nil
        }
    }
}

/// Wrapping a session's secrets to a seat's public key: an ephemeral X25519 key agreement,
/// HKDF-SHA256 over the shared secret (salted with both public keys), ChaCha20-Poly1305 with
/// the session id as associated data. The store only ever holds the wrapped form.
public enum KeyWrap {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notASeatKey
        public var description: String { "the seat announced a key that is not an X25519 public key" }
    }

    /// `secrets` wrapped to `seatKey` (standard base64 of its raw public key) for `session`.
    public static func wrap(_ secrets: SeatSecrets, to seatKey: String, session: String) throws -> String {
        guard let raw = Data(base64Encoded: seatKey), raw.count == 32,
              let seat = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw) else { throw Failure.notASeatKey }
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: seat)
        let ephemeralRaw = Array(ephemeral.publicKey.rawRepresentation)
        let key = boxKey(shared, ephemeral: ephemeralRaw, seat: Array(raw))
        let plain = secrets.sessionKey + (secrets.packageKey ?? [])
        let box = try ChaChaPoly.seal(plain, using: key, authenticating: Array(session.utf8))
        return Data(ephemeralRaw + Array(box.combined)).base64EncodedString()
    }

    static func boxKey(_ shared: SharedSecret, ephemeral: [UInt8], seat: [UInt8]) -> SymmetricKey {
        shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: ephemeral + seat,
                                       sharedInfo: Array("carrel seat keys v1".utf8), outputByteCount: 32)
    }
}

/// Authentication of what a seat publishes, with its session's key.
public enum SessionMAC {
    /// HMAC-SHA256 of one record: its session, sequence number, kind and body, as sent; with
    /// its place in the session's chain (`link`) when it has one, written `2.LINK.MAC` so that
    /// the check finds the place the MAC vouches for.
    public static func record(key: [UInt8], session: String, seq: Int64, link: Int64? = nil, kind: String, body: String) -> String {
        guard let link else { return mac(key, "carrel record v1\n\(session)\n\(seq)\n\(kind)\n\(body)") }
        return "2.\(link)." + mac(key, "carrel record v2\n\(session)\n\(seq)\n\(link)\n\(kind)\n\(body)")
    }

    /// The chain place a record's MAC names (`2.LINK.MAC`), or nil (a record outside any
    /// chain, or not a MAC at all). Only the MAC's check says whether it is true.
    public static func link(of mac: String?) -> Int64? {
        guard let mac, mac.hasPrefix("2.") else { return nil }
        let parts = mac.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].count <= 18, let link = Int64(parts[1]), link > 0 else { return nil }
        return link
    }

    /// HMAC-SHA256 of a seat's claim to a store connection: its server process, which no
    /// other connection has while it lives.
    public static func live(key: [UInt8], session: String, pid: Int64) -> String {
        mac(key, "carrel live v1\n\(session)\n\(pid)")
    }

    /// The token a session's seat proves itself with to the store once the proctor's start gave
    /// it the session's key (the store keeps its SHA-256): derived from the key, so it is
    /// never written to disk, and the proctor can derive it too.
    public static func storeToken(key: [UInt8], session: String) -> String {
        mac(key, "carrel store token v1\n\(session)")
    }

    /// A fresh token for a session's seat before any key (43 characters of base64url, 256 bits
    /// from the system's random source).
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// True when `mac` is `expected`, compared in constant time.
    public static func matches(_ mac: String?, _ expected: String) -> Bool {
        guard let mac else { return false }
        let a = Array(mac.utf8)
        let b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    static func mac(_ key: [UInt8], _ text: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: key))).base64EncodedString()
    }
}

extension ProctorSigningKey {
    /// The key of `session` as started at the seat that announced `seatKey`, derived from the
    /// proctor's key: the start command gives it to that seat, and the proctor (with the
    /// passphrase) derives it again to verify what the seat published. Nothing in the store
    /// lets anyone else derive it, and a second start of the session (to a key the store swapped
    /// in) gives a different one, which the session's first start does not vouch for.
    public func sessionKey(_ session: String, seatKey: String) -> [UInt8] {
        let vault = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: seed), salt: Array("carrel".utf8),
                                           info: Array("carrel proctor vault v1".utf8), outputByteCount: 32)
        let code = HMAC<SHA256>.authenticationCode(for: Array("carrel session key v2\n\(session)\n\(seatKey)".utf8), using: vault)
        return Array(code)
    }
}
