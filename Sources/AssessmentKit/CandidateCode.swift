import Crypto
import _CryptoExtras
import Foundation

/// A candidate's code from the room's roster (`code` column): what proves, at the seat, that
/// the person typing a candidate number is that candidate. The store keeps only a slow hash
/// of it, salted per room and per candidate; the seat sends the same hash of what was typed.
public enum CandidateCode {
    /// PBKDF2-SHA256 rounds: a roster of a thousand codes is hashed in a few seconds when the
    /// room opens, and one typed code in milliseconds at the seat.
    public static let rounds = 20_000
    public static let minimumCharacters = 4
    public static let maximumCharacters = 64

    /// The code as compared: letters upper-cased, spaces and dashes dropped (`7f3k 92qd` is
    /// `7F3K-92QD`).
    public static func normalized(_ code: String) -> String {
        String(code.uppercased().filter { !$0.isWhitespace && $0 != "-" })
    }

    /// Why a roster's code cannot be used, or nil.
    public static func problem(_ code: String) -> String? {
        let plain = normalized(code)
        if plain.count < minimumCharacters { return "code is shorter than \(minimumCharacters) characters" }
        if plain.count > maximumCharacters { return "code is longer than \(maximumCharacters) characters" }
        if TerminalSafety.firstUnsafe(in: plain) != nil { return "code has a character that cannot be typed at a seat" }
        return nil
    }

    /// A fresh salt for a room (base64 of 16 random bytes).
    public static func salt() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// The hash the store keeps for `candidate`'s `code` in a room salted with `salt` (base64).
    public static func hash(_ code: String, candidate: String, salt: String) -> String {
        let material = Array("carrel candidate code v1\n\(salt)\n\(candidate.lowercased())".utf8)
        let key = (try? KDF.Insecure.PBKDF2.deriveKey(from: Array(normalized(code).utf8), salt: material, using: .sha256,
                                                       outputByteCount: 32, unsafeUncheckedRounds: rounds))
        // PBKDF2 with these fixed, valid parameters does not fail; if it ever did, the hash
        // matches no code and the candidate is asked again.
        return key.map { $0.withUnsafeBytes { Data($0).base64EncodedString() } } ?? ""
    }
}
