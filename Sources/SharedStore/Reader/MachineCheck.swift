import AssessmentKit
import MachineSeal
import SessionKit

/// Whether a waiting seat may be sent its room's keys: its announcement carries a statement
/// signed by an enrolled machine the room's plan permits, for this very session, room, seat
/// and seat key, by the room's Carrel — or a proctor admitted it after reading its seat key on
/// its screen. Any other seat is held back.
public enum MachineStanding: Sendable, Equatable {
    /// Signed by this enrolled, permitted machine, for the room's Carrel.
    case enrolled(machine: String)
    /// Admitted one by one by a proctor (`carrel proctor admit`).
    case admitted
    /// The room accepts any machine (`--machines any`): the proctor checks each seat key.
    case anyMachine
    /// No statement, one that does not verify, a machine not enrolled or not permitted.
    case unknownMachine(String)
    /// A signed statement whose executable is not the room's Carrel (or an unsigned seat that
    /// says it runs another).
    case otherCarrel(String)
    /// A room whose roster has codes, and a seat whose candidate was not found with their code
    /// by this session (whatever machine it is on).
    case unidentified
    /// Its candidate is live in another session of the room too (another seat, or another
    /// terminal at this one): started only once a proctor admits the one they checked.
    case seatedTwice

    /// Started by `*` `s` `y` and `proctor start` without a look at its seat key.
    public var startable: Bool {
        switch self {
        case .enrolled, .admitted, .anyMachine: return true
        case .unknownMachine, .otherCarrel, .unidentified, .seatedTwice: return false
        }
    }

    /// The console's flag for a held-back seat (nil: it is not held back).
    public var warning: String? {
        switch self {
        case .enrolled, .admitted, .anyMachine: return nil
        case .unknownMachine: return MachineRoom.unknownWarning
        case .otherCarrel: return MachineRoom.otherWarning
        case .unidentified: return MachineRoom.unidentifiedWarning
        case .seatedTwice: return MachineRoom.seatedTwiceWarning
        }
    }

    /// In words, with why.
    public var words: String {
        switch self {
        case let .enrolled(machine): return "enrolled machine \(TerminalSafety.visible(machine, keepLineBreaks: false))"
        case .admitted: return "admitted by a proctor"
        case .anyMachine: return "any machine (the room does not ask for enrolled ones)"
        case let .unknownMachine(why): return "unknown machine (\(why))"
        case let .otherCarrel(why): return "other Carrel (\(why))"
        case .unidentified: return "candidate not identified with the roster's code at this seat"
        case .seatedTwice: return "candidate seated twice (admit the seat where you checked them)"
        }
    }
}

/// What a room's plan and the store say about machines, read at once (`SharedReader.machineRoom`).
public struct MachineRoom: Sendable, Equatable {
    public enum Rule: String, Sendable, Equatable { case enrolled, listed, any }

    public struct Seal: Sendable, Equatable {
        public var statement: String
        public var signature: String
        public init(statement: String, signature: String) {
            self.statement = statement
            self.signature = signature
        }
    }

    public struct Machine: Sendable, Equatable {
        public var lab: String
        public var publicKey: String
        public init(lab: String, publicKey: String) {
            self.lab = lab
            self.publicKey = publicKey
        }
    }

    public static let unknownWarning = "unknown machine, held back"
    public static let otherWarning = "other Carrel, held back"
    public static let unidentifiedWarning = "candidate not identified with a code, held back"
    /// As the console flags it already (`SharedReader.flagTwiceSeated`).
    public static let seatedTwiceWarning = "candidate seated twice"

    public var rule: Rule
    public var lab: String?
    public var listed: [String]
    /// The room's Carrel (`carrel_digest` of its plan).
    public var carrelDigest: String
    /// Enrolled machines not retired, by name.
    public var machines: [String: Machine]
    /// Each waiting session's signed statement, as its announcement carried it.
    public var seals: [String: Seal]
    /// Sessions a proctor admitted, with the seat key they were admitted with.
    public var admissions: [String: String]
    /// The roster has codes: a seat is started only for a candidate its own session found with
    /// the candidate's code (`identified`), or once a proctor admits it.
    public var codes = false
    /// Waiting sessions whose candidate their own lookup found with the code (the token of
    /// that lookup is the one the session announced itself with), each with the roster line's
    /// name and seat: what the console shows is the roster's word, never the seat's.
    public var identified: [String: RosterName] = [:]

    /// Sessions of the room past their start that proved their candidate's code.
    public var proven: Set<String> = []

    /// What the console says of a running seat, in a room with codes, that proved no code (a
    /// proctor admitted it without one): its name is its own word.
    public static let unprovenWarning = "candidate not identified with a code"

    public struct RosterName: Sendable, Equatable {
        public var name: String
        public var seat: String?
        public init(name: String, seat: String?) {
            self.name = name
            self.seat = seat
        }
    }
    /// The store's clock when this was read (seconds since 1970): a statement signed further
    /// than `window` from it is held back, so one cannot be signed ahead and used later.
    public var storeTime: Int64?

    /// How far a statement's `at` may be from the store's time: ten minutes, room for a lab
    /// machine's clock drift and a seat that waits a while before its start.
    public static let window: Int64 = 600

    public init(rule: Rule, lab: String?, listed: [String], carrelDigest: String, machines: [String: Machine],
                seals: [String: Seal], admissions: [String: String], storeTime: Int64? = nil) {
        self.rule = rule
        self.lab = lab
        self.listed = listed
        self.carrelDigest = carrelDigest
        self.machines = machines
        self.seals = seals
        self.admissions = admissions
        self.storeTime = storeTime
    }

    /// Whether the plan lets `machine` (enrolled in `lab`) take part.
    func permits(_ machine: String, lab machineLab: String) -> Bool {
        switch rule {
        case .any: return true
        case .enrolled: return lab.map { $0 == machineLab } ?? true
        case .listed: return listed.contains(machine)
        }
    }

    /// Where `seat` stands.
    public func standing(of seat: SeatView) -> MachineStanding {
        // One candidate, proven with the code, live in two sessions (two terminals): neither
        // starts without a proctor's look. (Without codes anyone may type a number: the flag
        // alone says so, and holds no seat back.)
        if codes, seat.warnings.contains(Self.seatedTwiceWarning) {
            if let key = seat.seatKey, admissions[seat.session] == key { return .admitted }
            return .seatedTwice
        }
        // Identity first, on any machine: a roster name is no one's without the code.
        if codes {
            // Found with the code, and at the seat the roster gives that candidate (when it gives one).
            let line = identified[seat.session]
            if line == nil || (line?.seat.map { $0 != seat.seat } ?? false) {
                if let key = seat.seatKey, admissions[seat.session] == key { return .admitted }
                return .unidentified
            }
        }
        if rule == .any { return .anyMachine }
        let signed = check(seat)
        if case .enrolled = signed { return signed }
        if let key = seat.seatKey, admissions[seat.session] == key { return .admitted }
        return signed
    }

    /// Where a waiting seat stands to take a session moved to it (`carrel proctor move`): in a
    /// room with codes, its own session found a candidate with the code (at whatever seat: a
    /// spare is never the roster's seat); then, as for a start, the machine. A proctor's
    /// admission of its seat key stands for both.
    public func standingForMove(of seat: SeatView) -> MachineStanding {
        let admitted = seat.seatKey.map { admissions[seat.session] == $0 } ?? false
        if codes, identified[seat.session] == nil { return admitted ? .admitted : .unidentified }
        if rule == .any { return .anyMachine }
        let signed = check(seat)
        if case .enrolled = signed { return signed }
        return admitted ? .admitted : signed
    }

    /// The statement's check alone (no admission).
    func check(_ seat: SeatView) -> MachineStanding {
        let claimsOther = seat.executableDigest.map { $0 != carrelDigest } ?? false
        guard let seal = seals[seat.session] else {
            return claimsOther ? .otherCarrel("unsigned, says it runs another") : .unknownMachine("no machine signature")
        }
        guard let statement = SealStatement.parse(seal.statement) else { return .unknownMachine("a statement that cannot be read") }
        guard let machine = machines[statement.machine] else {
            return .unknownMachine("\(statement.machine) is not enrolled")
        }
        guard MachineKey.verify(text: seal.statement, signature: seal.signature, publicKey: machine.publicKey) != nil else {
            return .unknownMachine("the signature is not \(statement.machine)'s")
        }
        guard statement.session == seat.session, statement.room == seat.room, statement.seat == seat.seat,
              statement.boxKey == seat.seatKey else {
            return .unknownMachine("signed for another session, seat or seat key")
        }
        if let now = storeTime, abs(statement.at - now) > Self.window {
            return .unknownMachine("signed \((statement.at - now) / 60) minutes from the store's time (more than \(Self.window / 60) apart)")
        }
        guard machine.lab == statement.lab, permits(statement.machine, lab: machine.lab) else {
            return .unknownMachine("\(statement.machine) is not one of this room's machines")
        }
        guard statement.executableDigest == carrelDigest else {
            return .otherCarrel("\(statement.machine) runs Carrel \(statement.executableDigest.prefix(12))…")
        }
        return .enrolled(machine: statement.machine)
    }

    /// The waiting seats of this room whose claim to a candidate nothing proves: in a room
    /// with codes, those not found with the code (they may not count as a candidate's seat).
    public func unproven(_ seats: [SeatView], room: String) -> Set<String> {
        guard codes else { return [] }
        return Set(seats.filter { $0.room == room && $0.status == "not_started" && identified[$0.session] == nil }.map(\.session))
    }

    /// Flags each held-back waiting seat of `seats` in this room (`warnings`); a waiting seat
    /// found with its code is named as the roster names it; in a room with codes, a seat past
    /// its start that proved none is flagged.
    public func flag(_ seats: inout [SeatView], room: String) {
        if codes {
            for i in seats.indices where seats[i].room == room && seats[i].status != "not_started"
                && !proven.contains(seats[i].session) && !seats[i].warnings.contains(Self.unprovenWarning) {
                seats[i].warnings.append(Self.unprovenWarning)
            }
        }
        for i in seats.indices where seats[i].room == room && seats[i].status == "not_started" && seats[i].connected {
            if codes, let line = identified[seats[i].session] { seats[i].candidate = line.name }
            if let warning = standing(of: seats[i]).warning, !seats[i].warnings.contains(warning) {
                seats[i].warnings.append(warning)
            }
        }
    }

    /// `seats` split into those started without a look and those held back, with why.
    public func split(_ seats: [SeatView]) -> (startable: [SeatView], held: [(seat: SeatView, standing: MachineStanding)]) {
        var startable: [SeatView] = []
        var held: [(SeatView, MachineStanding)] = []
        for seat in seats {
            let standing = standing(of: seat)
            if standing.startable { startable.append(seat) } else { held.append((seat, standing)) }
        }
        return (startable, held)
    }
}
