import Crypto

/// What a lab machine's key signs for a seat waiting at its start screen: the machine, the
/// seat's session, room, seat and box key (the X25519 key the proctor's start wraps the test's
/// keys to), the Carrel that asked (its version, and the SHA-256 of the executable the signing
/// helper measured), and when. One line per field, in this order, each `NAME VALUE`, after a
/// fixed first line: the text signed is exactly `text`, so there is one way to write a
/// statement and nothing else can be read as one.
///
/// Kept free of Foundation and of the rest of Carrel: the privileged helper (`carrel-keysign`)
/// links it and nothing more than swift-crypto.
public struct SealStatement: Sendable, Equatable {
    public static let heading = "carrel machine announcement 1"
    public static let names = ["machine", "lab", "session", "room", "seat", "box_key", "carrel_version", "executable_digest", "at"]

    public var machine: String
    public var lab: String
    public var session: String
    public var room: String
    public var seat: String
    public var boxKey: String
    public var carrelVersion: String
    public var executableDigest: String
    /// Seconds since 1970 on the seat machine's clock when it was signed.
    public var at: Int64

    public init(machine: String, lab: String, session: String, room: String, seat: String, boxKey: String,
                carrelVersion: String, executableDigest: String, at: Int64) {
        self.machine = machine
        self.lab = lab
        self.session = session
        self.room = room
        self.seat = seat
        self.boxKey = boxKey
        self.carrelVersion = carrelVersion
        self.executableDigest = executableDigest
        self.at = at
    }

    var values: [String] { [machine, lab, session, room, seat, boxKey, carrelVersion, executableDigest, String(at)] }

    /// The bytes signed, as text.
    public var text: String {
        ([Self.heading] + zip(Self.names, values).map { "\($0) \($1)" }).joined(separator: "\n")
    }

    /// Whether every value can be written in a statement: 1 to 200 bytes, no control characters.
    public var isWritable: Bool { values.allSatisfy(Self.isValue) }

    /// A value a statement may hold: 1 to 200 bytes of UTF-8, no control characters (no line
    /// breaks, so one value cannot pass for another field), no space at either end.
    public static func isValue(_ value: String) -> Bool {
        let bytes = value.utf8.count
        return bytes >= 1 && bytes <= 200 && !value.hasPrefix(" ") && !value.hasSuffix(" ") && value.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f && !(0x80...0x9f).contains($0.value) }
    }

    /// The statement `text` holds, or nil when it is not exactly one statement as `text` writes it.
    public static func parse(_ text: String) -> SealStatement? {
        guard text.utf8.count <= 3000 else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count == names.count + 1, lines[0] == heading else { return nil }
        var values: [String] = []
        for (name, line) in zip(names, lines.dropFirst()) {
            guard line.hasPrefix(name + " ") else { return nil }
            values.append(String(line.dropFirst(name.count + 1)))
        }
        guard let at = Int64(values[8]) else { return nil }
        let statement = SealStatement(machine: values[0], lab: values[1], session: values[2], room: values[3], seat: values[4],
                                      boxKey: values[5], carrelVersion: values[6], executableDigest: values[7], at: at)
        return statement.isWritable && statement.text == text ? statement : nil
    }
}

/// The machine key (Ed25519): its seed as the key file holds it (64 hex digits), signing and
/// checking a statement. Keys and signatures travel as lowercase hex.
public enum MachineKey {
    /// The private key a key file's text holds (64 hex digits, an optional final line break).
    public static func privateKey(fileText: String) -> Curve25519.Signing.PrivateKey? {
        var text = Substring(fileText)
        if text.hasSuffix("\n") { text = text.dropLast() }
        guard text.utf8.count == 64, let seed = Hex.bytes(String(text)) else { return nil }
        return try? Curve25519.Signing.PrivateKey(rawRepresentation: seed)
    }

    /// A new key, as a key file holds it.
    public static func newKeyFileText() -> String {
        Hex.string(Array(Curve25519.Signing.PrivateKey().rawRepresentation)) + "\n"
    }

    /// The public half, as the store keeps it.
    public static func publicHex(_ key: Curve25519.Signing.PrivateKey) -> String {
        Hex.string(Array(key.publicKey.rawRepresentation))
    }

    public static func sign(_ statement: SealStatement, with key: Curve25519.Signing.PrivateKey) -> String? {
        guard statement.isWritable, let signature = try? key.signature(for: Array(statement.text.utf8)) else { return nil }
        return Hex.string(Array(signature))
    }

    /// The statement `text` holds when `signature` is `publicKey`'s over exactly that text.
    public static func verify(text: String, signature: String, publicKey: String) -> SealStatement? {
        guard let statement = SealStatement.parse(text), signature.utf8.count == 128, publicKey.utf8.count == 64,
              let raw = Hex.bytes(publicKey), let signatureBytes = Hex.bytes(signature),
              let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw),
              key.isValidSignature(signatureBytes, for: Array(text.utf8)) else { return nil }
        return statement
    }
}

/// Lowercase hex, both ways.
public enum Hex {
    public static func string(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even number of lowercase hex digits; nil for anything else.
    public static func bytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let high = nibble(utf8[i]), let low = nibble(utf8[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }
}
