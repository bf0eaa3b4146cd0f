import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore

/// Seats a start holds back: not an enrolled machine the room permits, or not the room's Carrel.
enum HeldSeats {
    typealias Seat = (seat: SeatView, standing: MachineStanding)

    /// `seats` split by the room's machines; all startable in a room without an open plan
    /// (the start refuses such a room anyway).
    static func split(_ seats: [SeatView], room: String, reader: SharedReader) async throws -> ([SeatView], [Seat]) {
        guard let machines = try await reader.machineRoom(room) else { return (seats, []) }
        let (startable, held) = machines.split(seats)
        return (startable, held)
    }

    /// Flags every waiting seat its start would hold back ("unknown machine, held back"), and
    /// every seat whose candidate a roster without codes named ("identity unchecked").
    static func flag(_ seats: inout [SeatView], reader: SharedReader) async throws {
        var unproven: Set<String> = []
        for room in Set(seats.map(\.room)) {
            guard let machines = try await reader.machineRoom(room) else { continue }
            machines.flag(&seats, room: room)
            unproven.formUnion(machines.unproven(seats, room: room))
        }
        // A waiting seat that proved no candidate does not make a genuine one "seated twice".
        if !unproven.isEmpty { SharedReader.flagTwiceSeated(&seats, unproven: unproven) }
        for room in Set(seats.filter { $0.candidateNumber != nil }.map(\.room)) where try await reader.identitiesUnchecked(room) {
            for i in seats.indices where seats[i].room == room && seats[i].candidateNumber != nil
                && !seats[i].warnings.contains(uncheckedIdentity) {
                seats[i].warnings.append(uncheckedIdentity)
            }
        }
    }

    /// A roster without codes: anyone who knows a candidate number could say they are that one.
    static let uncheckedIdentity = "identity unchecked (the roster has no codes)"

    static func lines(_ held: [Seat], room: String) -> [String] {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        return held.sorted(by: { $0.seat.seat < $1.seat.seat }).map { seat, standing in
            "held back  \(v(seat.seat)): \(standing.words); after reading its seat key on its screen: "
                + "carrel proctor admit --room \(v(room)) --seat \(v(seat.seat)) --seat-key KEY"
        }
    }

    static func failure(_ held: [Seat], startedAny: Bool) -> CarrelFailure {
        let n = held.count
        return CarrelFailure(status: .refused, message: "\(n) seat\(n == 1 ? " was" : "s were") held back (\(names(held))): "
            + "\(startedAny ? "the others were started; " : "")admit each one after reading its seat key on its screen, then start again")
    }

    /// "A3 unknown machine, A7 other Carrel" (the first four, then how many more).
    static func names(_ held: [Seat]) -> String {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        let sorted = held.sorted(by: { $0.seat.seat < $1.seat.seat })
        var parts = sorted.prefix(4).map { "\(v($0.seat.seat)) \($0.standing.warning.map(short) ?? "")" }
        if sorted.count > 4 { parts.append("\(sorted.count - 4) more") }
        return parts.joined(separator: ", ")
    }

    /// What the console says a command did: "start sent to 28 seats (command 5); held back: A3
    /// unknown machine, A7 other Carrel", or "start not sent: held back: …" when every seat was.
    static func note(_ action: ProctorAction, seats: [SeatView], held: [Seat], ids: [Int64]) -> String {
        let sent = seats.filter { seat in !held.contains(where: { $0.seat.session == seat.session }) }
        if sent.isEmpty && !held.isEmpty { return "\(action.name) not sent: held back: \(names(held))" }
        let words = sent.count == 1 ? "seat \(TerminalSafety.visible(sent[0].seat, keepLineBreaks: false))" : "\(sent.count) seats"
        let note = "\(action.name) sent to \(words) (command \(ids.map(String.init).joined(separator: ", ")))"
        return held.isEmpty ? note : note + "; held back: \(names(held))"
    }

    /// "unknown machine" of "unknown machine, held back".
    static func short(_ warning: String) -> String { String(warning.prefix(while: { $0 != "," })) }
}

struct ProctorAdmit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admit",
        abstract: "Admit one held-back seat (unknown machine, other Carrel) after reading its seat key on its screen.",
        discussion: """
            A start sends keys without a look only to seats on enrolled machines the room permits, \
            running the room's Carrel. Any other waiting seat is held back. Go to the seat, read \
            the seat key its start screen shows, and give it here: the seat is admitted only when \
            that key is the one it announced, and the next start (`s` in the console, or \
            `carrel proctor start`) includes it.
            """)

    @OptionGroup var store: StoreOption
    @OptionGroup var roomOption: RoomOption
    @Option(help: ArgumentHelp("The seat to admit.", valueName: "seat")) var seat: String
    @Option(name: .customLong("seat-key"), help: ArgumentHelp("The seat key its screen shows (3f2a-91c0-77de-0b14).", valueName: "key"))
    var seatKey: String

    var roomName: String? { roomOption.name }

    static func key(_ text: String) -> String? {
        let key = text.lowercased()
        let groups = key.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 4, groups.allSatisfy({ $0.count == 4 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return key
    }

    func validate() throws {
        if let problem = SharedOptions.labelProblem(seat) { throw ValidationError("--seat: \(problem)") }
        guard Self.key(seatKey) != nil else { throw ValidationError("--seat-key: give the seat key as its screen shows it, four groups of four: 3f2a-91c0-77de-0b14") }
    }

    func run() async throws {
        try await reportingFailures {
            let url = try store.required(by: "proctor admit")
            let (room, seat, key) = (roomName ?? "", self.seat, Self.key(seatKey) ?? "")
            let words = try await ProctorStore.using(url, doing: "admit seat \(seat) in room \(room)") {
                try await Self.admit(room: room, seat: seat, key: key, reader: $0)
            }
            FileOutput.standardOutput.write(words + "\n")
        }
    }

    static func admit(room: String, seat: String, key: String, reader: SharedReader) async throws -> String {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        let waiting = try await reader.seats(room: room).filter {
            $0.room == room && $0.seat == seat && $0.status == "not_started" && $0.connected
        }
        guard !waiting.isEmpty else {
            throw CarrelFailure(status: .usage, message: "no seat \(v(seat)) is waiting to start in room \(v(room))")
        }
        // The key read on the seat's screen must be the key this session announced: a seat
        // whose screen shows another key is not the one the store lists.
        guard let match = waiting.first(where: { $0.seatKey.flatMap(SeatBox.fingerprint) == key }), let full = match.seatKey else {
            throw CarrelFailure(status: .refused, message: "seat \(v(seat)) announced another seat key than \(key): read it again on its screen; if it still differs, another program is claiming this seat — nothing was admitted")
        }
        guard let machines = try await reader.machineRoom(room) else {
            throw CarrelFailure(status: .refused, message: "room \(v(room)) has no open plan (`carrel room open`)")
        }
        let standing = machines.standing(of: match)
        if standing.startable {
            return "Seat \(v(seat)) needs no admission: \(standing.words). The next start includes it."
        }
        try await reader.admit(room: room, session: match.session, seatKey: full)
        return "Seat \(v(seat)) admitted (\(standing.words)); the next start sends it the keys."
    }
}
