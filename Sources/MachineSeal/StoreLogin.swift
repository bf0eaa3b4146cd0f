import Crypto

/// An enrolled machine's own login to the lab's store: a role named from the machine (so
/// that enrolling it again with a new key keeps its name) whose password is derived from the
/// machine key. Only root (enrolment) and the signing helper read that key: the password is
/// never written to a file, and the seat's Carrel gets it from its helper at the start.
/// Students, who know the shared seat role's password, cannot log in as a machine.
public enum StoreLogin {
    /// The fixed part of the derivation's label (HKDF-SHA256 `info`), followed by the role.
    static let label = "carrel machine store login 1 "

    /// `carrel_m_` and 16 lowercase hex digits of the SHA-256 of the machine's name: a role
    /// name PostgreSQL takes unquoted, the same one the store computes (schema version 8).
    public static func role(machine: String) -> String {
        "carrel_m_" + Hex.string(Array(SHA256.hash(data: Array(machine.utf8)).prefix(8)))
    }

    /// Whether `name` has a machine role's form.
    public static func isRole(_ name: String) -> Bool {
        name.utf8.count == 25 && name.hasPrefix("carrel_m_") && Hex.bytes(String(name.dropFirst(9))) != nil
    }

    /// The role's password: 64 hex digits, HKDF-SHA256 over the private key's raw bytes with
    /// the label and the role as `info` (another role, or another key, gives another password).
    /// Letters and digits only, which SCRAM's SASLprep leaves as they are.
    public static func password(key: Curve25519.Signing.PrivateKey, role: String) -> String {
        let derived = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: key.rawRepresentation),
                                             info: Array((label + role).utf8), outputByteCount: 32)
        return derived.withUnsafeBytes { Hex.string(Array($0)) }
    }

    /// What the seat asks its helper (one fixed message), and what the helper answers:
    /// `login ROLE` and the password on the next line.
    public static let request = "store login"

    /// The answer's text for `role` and `password`.
    public static func answer(role: String, password: String) -> String { "login \(role)\n\(password)" }

    /// The role and password an answer holds; nil for anything else.
    public static func parse(answer: String) -> (role: String, password: String)? {
        let lines = answer.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 2, lines[0].hasPrefix("login ") else { return nil }
        let role = String(lines[0].dropFirst(6)), password = String(lines[1])
        guard isRole(role), password.utf8.count == 64, Hex.bytes(password) != nil else { return nil }
        return (role, password)
    }
}
