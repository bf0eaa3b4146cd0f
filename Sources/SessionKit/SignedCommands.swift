import AssessmentKit
import Foundation

/// What the proctor signs for one command: the room, the seat it is for (nil: every seat of
/// the room), the action and its argument, a sequence number, when it was issued and until
/// when it holds, and the fingerprint of the test it is for. The store keeps these bytes as
/// they were signed; a seat verifies the bytes it received and reads the command from them
/// only, never from the store's other columns.
public struct CommandEnvelope: Codable, Sendable, Equatable {
    /// The envelope's format.
    public var v: Int
    public var room: String
    public var seat: String?
    public var action: String
    public var argument: String?
    /// Microseconds since 1970 on the proctor's clock, and above every number the room's
    /// console has issued before: a seat applies each number once, in rising order.
    public var sequence: Int64
    /// Seconds since 1970 (the proctor's clock).
    public var issued: Double
    public var expires: Double
    public var fingerprint: String
    /// The session a command is for, when the console named one (a start that carries keys).
    public var session: String?
    /// The session's secrets wrapped to that seat's announced key (`KeyWrap`): a start only.
    public var keys: String?
    /// The seat's announced key they were wrapped to (the session's key depends on it).
    public var seatKey: String?
    /// A start that moves a session to this seat (`MoveOrder`): `keys` are then that session's,
    /// wrapped for it, and the seat continues it instead of beginning its own.
    public var move: MoveOrder?

    public static let format = 1
    /// How long a command holds after it is issued: a seat cut off for longer applies none of
    /// what was sent meanwhile (the console shows it refused, and the proctor sends it again).
    public static let validity: Double = 15 * 60
    /// How far the proctor's and the seat's clocks may disagree.
    public static let clockSkew: Double = 30

    public init(room: String, seat: String?, action: ProctorAction, sequence: Int64, issued: Double,
                expires: Double? = nil, fingerprint: String, session: String? = nil, keys: String? = nil,
                seatKey: String? = nil, move: MoveOrder? = nil) {
        self.move = move
        self.session = session
        self.keys = keys
        self.seatKey = seatKey
        v = Self.format
        self.room = room
        self.seat = seat
        self.action = action.name
        argument = action.argument
        self.sequence = sequence
        self.issued = issued
        self.expires = expires ?? issued + Self.validity
        self.fingerprint = fingerprint
    }

    /// The sequence number a console issues at `now`, after the room's `last`.
    public static func nextSequence(now: Date, after last: Int64) -> Int64 {
        // The room's last number comes from the store. One ahead of this clock (a number the
        // store made up, which every seat refuses) is not followed: a made-up number cannot
        // push every later command out of what seats accept, nor overflow this.
        let ceiling = sequence(at: now.timeIntervalSince1970 + clockSkew)
        let followed = last > 0 && last < ceiling ? last + 1 : 0
        return max(sequence(at: now.timeIntervalSince1970), followed)
    }

    static func sequence(at seconds: Double) -> Int64 {
        Int64(max(0, min(seconds, 1e11)) * 1_000_000)
    }

    /// The bytes a signature covers: a label that keeps them apart from anything else the
    /// key could sign, then the envelope's text.
    static func signedBytes(_ text: String) -> [UInt8] {
        Array("carrel proctor command v1\n".utf8) + Array(text.utf8)
    }
}

/// A command as the store holds it: its number there (the order seats read them in), the
/// envelope's text, and the signature (standard base64). Either may be missing or anything
/// at all: nothing in it is trusted before `verify`.
public struct SignedCommand: Sendable, Equatable {
    public var id: Int64
    public var envelope: String?
    public var signature: String?

    public init(id: Int64, envelope: String?, signature: String?) {
        self.id = id
        self.envelope = envelope
        self.signature = signature
    }

    /// Signs `envelope` with the proctor's key: the text and signature to store.
    public static func sign(_ envelope: CommandEnvelope, with key: ProctorSigningKey) throws -> (envelope: String, signature: String) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(envelope), as: UTF8.self)
        let signature = try key.sign(CommandEnvelope.signedBytes(text))
        return (text, Data(signature).base64EncodedString())
    }

    /// The largest envelope a seat reads (a message of 500 characters fits many times over).
    static let maximumEnvelopeBytes = 8192

    /// What a seat checks a command against: its test's key and fingerprint, its room and
    /// seat, its clock, the last sequence number it applied, and when it joined the room.
    public struct Check: Sendable {
        public var key: ProctorKey?
        public var room: String
        public var seat: String
        public var fingerprint: String
        public var now: Date
        public var lastSequence: Int64
        /// The seat's session (its announced one while it waits).
        public var session: String?

        public init(key: ProctorKey?, room: String, seat: String, fingerprint: String, now: Date, lastSequence: Int64,
                    session: String? = nil) {
            self.session = session
            self.key = key
            self.room = room
            self.seat = seat
            self.fingerprint = fingerprint
            self.now = now
            self.lastSequence = lastSequence
        }
    }

    /// The command, when its signature verifies against the test's key and it is for this
    /// room, seat and test, within its time, and newer than the last applied; else why not.
    public func verify(_ check: Check) -> Result<ProctorCommand, CommandRefusal> {
        guard let key = check.key else { return .failure(.noKey) }
        guard let text = envelope, let signature, !text.isEmpty, !signature.isEmpty else { return .failure(.unsigned) }
        guard text.utf8.count <= Self.maximumEnvelopeBytes, let bytes = Data(base64Encoded: signature), bytes.count == 64,
              key.verifies(bytes, for: CommandEnvelope.signedBytes(text)) else {
            return .failure(.badSignature)
        }
        // Signed by the proctor from here on: what it says is what the console meant. Text that
        // does not decode is refused (`unreadable`), never read in part.
        guard let decoded = try? JSONDecoder().decode(CommandEnvelope.self, from: Data(text.utf8)),
              decoded.v == CommandEnvelope.format else {
            return .failure(.unreadable)
        }
        guard decoded.room == check.room else { return .failure(.otherRoom(decoded.room)) }
        if let seat = decoded.seat, seat != check.seat { return .failure(.otherSeat(seat)) }
        guard decoded.fingerprint == check.fingerprint else { return .failure(.otherTest) }
        if let target = decoded.session, target != check.session { return .failure(.otherSession) }
        let now = check.now.timeIntervalSince1970
        guard decoded.expires > decoded.issued, now < decoded.expires + CommandEnvelope.clockSkew else {
            return .failure(.expired)
        }
        guard decoded.issued <= now + CommandEnvelope.clockSkew,
              decoded.sequence <= CommandEnvelope.sequence(at: now + CommandEnvelope.clockSkew) else { return .failure(.fromTheFuture) }
        guard decoded.sequence > check.lastSequence else { return .failure(.notNewer) }
        guard let action = ProctorAction(name: decoded.action, argument: decoded.argument) else {
            return .failure(.unreadable)
        }
        guard decoded.move == nil || (action == .start && decoded.session != nil && decoded.keys != nil) else {
            return .failure(.unreadable)
        }
        return .success(ProctorCommand(id: id, action: action, sequence: decoded.sequence, keys: decoded.keys, seatKey: decoded.seatKey,
                                       move: decoded.move))
    }

    /// The envelope, when the signature is `key`'s over it (what a console checks of the
    /// commands it finds in the store); nil otherwise.
    public func envelope(signedBy key: ProctorKey) -> CommandEnvelope? {
        // Anything that does not verify or decode is no envelope (fails closed).
        guard let text = envelope, let signature, text.utf8.count <= Self.maximumEnvelopeBytes,
              let bytes = Data(base64Encoded: signature), bytes.count == 64,
              key.verifies(bytes, for: CommandEnvelope.signedBytes(text)),
              let decoded = try? JSONDecoder().decode(CommandEnvelope.self, from: Data(text.utf8)),
              decoded.v == CommandEnvelope.format else { return nil }
        return decoded
    }

    /// The lowest sequence a seat that joins its room at `joined` applies: nothing issued
    /// before it joined (allowing for the clocks' disagreement) was meant for this session.
    public static func floor(joined: Date) -> Int64 {
        CommandEnvelope.sequence(at: joined.timeIntervalSince1970 - CommandEnvelope.clockSkew)
    }
}

/// Why a seat did not apply a command; the journal and the console say it in these words.
public enum CommandRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The seat's test has no `proctor: key:`: nothing can command it.
    case noKey
    case unsigned
    case badSignature
    case unreadable
    case otherRoom(String)
    case otherSeat(String)
    case otherTest
    case otherSession
    /// Keys that this seat cannot open (wrapped to another seat, or changed).
    case notForThisSeat
    case expired
    case fromTheFuture
    /// Not newer than the last command applied (a replay, or issued out of order).
    case notNewer

    public var description: String {
        let v = { (t: String) in TerminalSafety.visible(String(t.prefix(60)), keepLineBreaks: false) }
        switch self {
        case .noKey: return "this test has no proctor key, so no command can be verified"
        case .unsigned: return "not signed"
        case .badSignature: return "the signature does not verify against this test's proctor key"
        case .unreadable: return "signed, but not a command this Carrel reads"
        case let .otherRoom(room): return "for room \(v(room)), not this one"
        case let .otherSeat(seat): return "for seat \(v(seat)), not this one"
        case .otherTest: return "for another test"
        case .otherSession: return "for another session"
        case .notForThisSeat: return "its keys were not wrapped to this seat"
        case .expired: return "expired"
        case .fromTheFuture: return "issued in the future (the proctor's clock is ahead of this seat's)"
        case .notNewer: return "not newer than the last command applied (replayed or out of order)"
        }
    }
}
