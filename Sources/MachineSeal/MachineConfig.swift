/// What enrolment records of this machine in `machine.conf` (root's, readable by all): its
/// name and lab, the public half of its key, and the one Carrel the signing helper serves —
/// the executable's path and SHA-256 when it was enrolled. One `name=value` a line.
public struct MachineConfig: Sendable, Equatable {
    public var name: String
    public var lab: String
    public var carrel: String
    public var digest: String
    public var publicKey: String

    public init(name: String, lab: String, carrel: String, digest: String, publicKey: String) {
        self.name = name
        self.lab = lab
        self.carrel = carrel
        self.digest = digest
        self.publicKey = publicKey
    }

    static let keys = ["name", "lab", "carrel", "digest", "public_key"]

    public var text: String {
        zip(Self.keys, [name, lab, carrel, digest, publicKey]).map { "\($0)=\($1)\n" }.joined()
    }

    /// The configuration `text` holds; nil unless every key is there once with a value a
    /// statement can carry (the path: absolute; the digest and key: lowercase hex).
    public static func parse(_ text: String) -> MachineConfig? {
        guard let found = NamedValues.parse(text, keys: keys, limit: 4096), let name = found["name"], let lab = found["lab"], let carrel = found["carrel"], let digest = found["digest"],
              let publicKey = found["public_key"] else { return nil }
        let config = MachineConfig(name: name, lab: lab, carrel: carrel, digest: digest, publicKey: publicKey)
        guard [name, lab, carrel].allSatisfy(SealStatement.isValue), carrel.hasPrefix("/"),
              digest.utf8.count == 64, Hex.bytes(digest) != nil, publicKey.utf8.count == 64, Hex.bytes(publicKey) != nil else { return nil }
        return config
    }
}

/// What the seat asks the helper to sign: its session, room, seat, box key and Carrel version,
/// one `name=value` a line. The helper adds the machine, the executable's digest it measured
/// and the time itself.
public struct SealRequest: Sendable, Equatable {
    public var session: String
    public var room: String
    public var seat: String
    public var boxKey: String
    public var carrelVersion: String

    public init(session: String, room: String, seat: String, boxKey: String, carrelVersion: String) {
        self.session = session
        self.room = room
        self.seat = seat
        self.boxKey = boxKey
        self.carrelVersion = carrelVersion
    }

    static let keys = ["session", "room", "seat", "box_key", "carrel_version"]

    public var text: String {
        zip(Self.keys, [session, room, seat, boxKey, carrelVersion]).map { "\($0)=\($1)\n" }.joined()
    }

    public static func parse(_ text: String) -> SealRequest? {
        guard let found = NamedValues.parse(text, keys: keys, limit: 2048), let session = found["session"], let room = found["room"], let seat = found["seat"],
              let boxKey = found["box_key"], let version = found["carrel_version"] else { return nil }
        let request = SealRequest(session: session, room: room, seat: seat, boxKey: boxKey, carrelVersion: version)
        return [session, room, seat, boxKey, version].allSatisfy(SealStatement.isValue) ? request : nil
    }

    /// The statement the machine signs for this request (the digest as Carrel writes one,
    /// `sha256:HEX`, as a room's plan names its Carrel).
    public func statement(machine: MachineConfig, at: Int64) -> SealStatement {
        SealStatement(machine: machine.name, lab: machine.lab, session: session, room: room, seat: seat, boxKey: boxKey,
                      carrelVersion: carrelVersion, executableDigest: "sha256:" + machine.digest, at: at)
    }
}

/// `name=value` lines: each name one of `keys`, at most once (lines starting with `#` are
/// comments); nil for anything else, or for more than `limit` bytes.
enum NamedValues {
    static func parse(_ text: String, keys: [String], limit: Int) -> [String: String]? {
        guard text.utf8.count <= limit else { return nil }
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let eq = line.firstIndex(of: "=") else { return nil }
            let key = String(line[..<eq])
            guard keys.contains(key), found[key] == nil else { return nil }
            found[key] = String(line[line.index(after: eq)...])
        }
        return found
    }
}
