import Crypto
import MachineSeal
import SessionKit
import Testing
@testable import SharedStore

/// The statement an enrolled machine signs, and the console's check of a waiting seat.
@Suite("Machine seals")
struct SealStatementTests {
    static let digest = String(repeating: "ab", count: 32)
    static let boxKey = String(repeating: "B", count: 43) + "="

    static func statement(session: String = "s1", seat: String = "A1", digest: String = digest, machine: String = "pc07",
                          lab: String = "lab1") -> SealStatement {
        SealStatement(machine: machine, lab: lab, session: session, room: "r1", seat: seat, boxKey: boxKey,
                      carrelVersion: "0.1.0", executableDigest: digest, at: 1_700_000_000)
    }

    @Test func aStatementReadsBackExactlyAndNothingElseDoes() throws {
        let s = Self.statement()
        #expect(SealStatement.parse(s.text) == s)
        #expect(s.text.hasPrefix("carrel machine announcement 1\nmachine pc07\nlab lab1\n"))
        #expect(SealStatement.parse(s.text + "\n") == nil)
        #expect(SealStatement.parse(s.text.replacingOccurrences(of: "seat A1", with: "seat  A1")) == nil)
        #expect(SealStatement.parse(s.text.replacingOccurrences(of: "at 1700000000", with: "at +1700000000")) == nil)
        // A value cannot carry a line break (one field passing for another) or a control character.
        var broken = s
        broken.seat = "A1\nroom r2"
        #expect(!broken.isWritable)
        broken.seat = "A\u{1b}1"
        #expect(!broken.isWritable)
        let key = Curve25519.Signing.PrivateKey()
        #expect(MachineKey.sign(broken, with: key) == nil)
    }

    @Test func aSignatureVerifiesOnlyForItsKeyAndText() throws {
        let key = Curve25519.Signing.PrivateKey()
        let s = Self.statement()
        let signature = try #require(MachineKey.sign(s, with: key))
        let pub = MachineKey.publicHex(key)
        #expect(MachineKey.verify(text: s.text, signature: signature, publicKey: pub) == s)
        #expect(MachineKey.verify(text: Self.statement(seat: "A2").text, signature: signature, publicKey: pub) == nil)
        #expect(MachineKey.verify(text: s.text, signature: signature, publicKey: MachineKey.publicHex(.init())) == nil)
        #expect(MachineKey.verify(text: s.text, signature: String(signature.dropLast()) + "0", publicKey: pub) == nil
                || signature.hasSuffix("0"))
        let file = MachineKey.newKeyFileText()
        #expect(MachineKey.privateKey(fileText: file) != nil)
        #expect(MachineKey.privateKey(fileText: "zz" + file.dropFirst(2)) == nil)
    }

    @Test func configurationAndRequestAreReadStrictly() {
        let config = MachineConfig(name: "pc07", lab: "lab1", carrel: "/usr/local/bin/carrel", digest: Self.digest,
                                   publicKey: String(repeating: "c", count: 64))
        #expect(MachineConfig.parse(config.text) == config)
        #expect(MachineConfig.parse(config.text + "name=pc08\n") == nil)
        #expect(MachineConfig.parse(config.text.replacingOccurrences(of: "=/usr", with: "=usr")) == nil)
        let request = SealRequest(session: "s1", room: "r1", seat: "A1", boxKey: Self.boxKey, carrelVersion: "0.1.0")
        #expect(SealRequest.parse(request.text) == request)
        #expect(SealRequest.parse(request.text + "machine=other\n") == nil)
        let signed = request.statement(machine: config, at: 5)
        #expect(signed.machine == "pc07" && signed.executableDigest == "sha256:" + Self.digest && signed.at == 5)
    }

    // MARK: the console's check

    static func seat(_ session: String, seat: String, boxKey: String? = boxKey, digest: String? = digest) -> SeatView {
        var view = SeatView(session: session, candidate: nil, seat: seat, room: "r1", assessment: "t", assessmentTitle: "T",
                            status: "not_started", answered: 0, total: 3, timeLeftSeconds: nil, pasteAttempts: 0, focusLosses: 0,
                            exitAttempts: 0, interruptions: 0, lastSeen: "", lastHeardSeconds: 0, connected: true)
        view.seatKey = boxKey
        view.executableDigest = digest
        return view
    }

    @Test func onlyAnEnrolledPermittedMachineRunningTheRoomsCarrelStartsWithoutALook() throws {
        let key = Curve25519.Signing.PrivateKey()
        let other = Curve25519.Signing.PrivateKey()
        func seal(_ s: SealStatement, _ k: Curve25519.Signing.PrivateKey = key) throws -> MachineRoom.Seal {
            MachineRoom.Seal(statement: s.text, signature: try #require(MachineKey.sign(s, with: k)))
        }
        var room = MachineRoom(rule: .enrolled, lab: "lab1", listed: [], carrelDigest: Self.digest,
                               machines: ["pc07": .init(lab: "lab1", publicKey: MachineKey.publicHex(key)),
                                          "pc09": .init(lab: "lab2", publicKey: MachineKey.publicHex(other))],
                               seals: [:], admissions: [:])
        room.seals["good"] = try seal(Self.statement(session: "good"))
        room.seals["forged"] = try seal(Self.statement(session: "forged"), other)
        room.seals["moved"] = try seal(Self.statement(session: "other-session"))
        room.seals["modified"] = try seal(Self.statement(session: "modified", digest: String(repeating: "cd", count: 32)))
        room.seals["stranger"] = try seal(Self.statement(session: "stranger", machine: "pc99"))
        room.seals["otherlab"] = try seal(Self.statement(session: "otherlab", machine: "pc09", lab: "lab2"), other)
        #expect(room.standing(of: Self.seat("good", seat: "A1")) == .enrolled(machine: "pc07"))
        #expect(room.standing(of: Self.seat("good", seat: "A2")) == .unknownMachine("signed for another session, seat or seat key"))
        #expect(room.standing(of: Self.seat("good", seat: "A1", boxKey: String(repeating: "C", count: 43) + "=")).startable == false)
        #expect(room.standing(of: Self.seat("forged", seat: "A1")) == .unknownMachine("the signature is not pc07's"))
        #expect(room.standing(of: Self.seat("moved", seat: "A1")).startable == false)
        #expect(room.standing(of: Self.seat("stranger", seat: "A1")) == .unknownMachine("pc99 is not enrolled"))
        #expect(room.standing(of: Self.seat("otherlab", seat: "A1")) == .unknownMachine("pc09 is not one of this room's machines"))
        if case .otherCarrel = room.standing(of: Self.seat("modified", seat: "A1")) {} else { Issue.record("a modified Carrel passed") }
        #expect(room.standing(of: Self.seat("unsigned", seat: "A3")) == .unknownMachine("no machine signature"))
        #expect(room.standing(of: Self.seat("unsigned", seat: "A3", digest: "ff")).warning == MachineRoom.otherWarning)
        // Admitted with the seat key it announced — and no other.
        room.admissions["unsigned"] = Self.boxKey
        #expect(room.standing(of: Self.seat("unsigned", seat: "A3")) == .admitted)
        #expect(room.standing(of: Self.seat("unsigned", seat: "A3", boxKey: String(repeating: "D", count: 43) + "=")).startable == false)
        // A list names machines; "any" asks for none.
        room.rule = .listed
        room.listed = ["pc09"]
        #expect(room.standing(of: Self.seat("otherlab", seat: "A1")) == .enrolled(machine: "pc09"))
        #expect(room.standing(of: Self.seat("good", seat: "A1")).startable == false)
        room.rule = .any
        #expect(room.standing(of: Self.seat("stranger", seat: "A1")) == .anyMachine)
        var seats = [Self.seat("good", seat: "A1"), Self.seat("unsigned", seat: "A4")]
        room.rule = .enrolled
        room.admissions = [:]
        room.flag(&seats, room: "r1")
        #expect(seats[0].warnings.isEmpty && seats[1].warnings == [MachineRoom.unknownWarning])
        let (startable, held) = room.split(seats)
        #expect(startable.map(\.session) == ["good"] && held.map(\.seat.session) == ["unsigned"])
    }

    /// A statement is bound to its time: one signed more than ten minutes from the store's
    /// clock (ahead of the exam, kept for later) is held back.
    @Test func aStatementFarFromTheStoresTimeIsHeldBack() throws {
        let key = Curve25519.Signing.PrivateKey()
        var statement = Self.statement(session: "s")
        let now = statement.at
        var room = MachineRoom(rule: .enrolled, lab: "lab1", listed: [], carrelDigest: Self.digest,
                               machines: ["pc07": .init(lab: "lab1", publicKey: MachineKey.publicHex(key))],
                               seals: [:], admissions: [:], storeTime: now)
        for (at, startable) in [(now, true), (now - 599, true), (now + 599, true), (now - 601, false), (now - 86400, false), (now + 601, false)] {
            statement.at = at
            room.seals["s"] = MachineRoom.Seal(statement: statement.text, signature: try #require(MachineKey.sign(statement, with: key)))
            let standing = room.standing(of: Self.seat("s", seat: "A1"))
            #expect(standing.startable == startable, "\(at - now): \(standing.words)")
            if !startable { #expect(standing.words.contains("from the store's time")) }
        }
    }

    /// A roster with codes: a seat is started only when its own session found its candidate
    /// with the code, at the seat the roster gives that candidate; the console names it as the
    /// roster does, whatever name it announced; a seat that proved nothing makes no genuine seat
    /// "seated twice".
    @Test func withCodesOnlyTheProvenCandidateAtTheRostersSeatStartsAndIsNamedByTheRoster() {
        var room = MachineRoom(rule: .any, lab: nil, listed: [], carrelDigest: Self.digest, machines: [:], seals: [:], admissions: [:])
        room.codes = true
        room.identified = ["s-own": MachineRoom.RosterName(name: "Alan Turing", seat: "A2"),
                           "s-free": MachineRoom.RosterName(name: "Ada", seat: nil)]
        var swapped = Self.seat("s-own", seat: "A1")
        swapped.candidate = "Grace Hopper"
        swapped.candidateNumber = "1002"
        var right = Self.seat("s-own", seat: "A2")
        right.candidate = "Grace Hopper"
        #expect(room.standing(of: swapped) == .unidentified, "proven as 1002, but not at 1002's seat")
        #expect(room.standing(of: right) == .anyMachine)
        #expect(room.standing(of: Self.seat("s-free", seat: "Z9")) == .anyMachine, "no seat on the roster line: any seat")
        #expect(room.standing(of: Self.seat("s-none", seat: "A3")) == .unidentified)
        var seats = [right]
        room.flag(&seats, room: "r1")
        #expect(seats[0].candidate == "Alan Turing", "named as the roster names the proven candidate")

        // A genuine seat of 1001 and a seat that only says it is 1001.
        var genuine = Self.seat("s-1001", seat: "A1")
        genuine.status = "active"
        genuine.candidateNumber = "1001"
        var claimant = Self.seat("s-fake", seat: "A7")
        claimant.candidateNumber = "1001"
        var both = [genuine, claimant]
        SharedReader.flagTwiceSeated(&both)
        #expect(both.allSatisfy { $0.warnings.contains("candidate seated twice") })
        SharedReader.flagTwiceSeated(&both, unproven: room.unproven(both, room: "r1"))
        #expect(both.allSatisfy { !$0.warnings.contains("candidate seated twice") }, "\(both.map(\.warnings))")
    }

    /// One candidate at two terminals of the same seat is two sessions: both are flagged and
    /// held back, until a proctor admits the one they checked; a seat running without a proven
    /// code (admitted by hand) is flagged for as long as it runs.
    @Test func oneCandidateInTwoSessionsAtOneSeatIsHeldBackAndAnUnprovenRunningSeatIsFlagged() {
        var room = MachineRoom(rule: .any, lab: nil, listed: [], carrelDigest: Self.digest, machines: [:], seals: [:], admissions: [:])
        room.codes = true
        room.identified = ["s-x": MachineRoom.RosterName(name: "Alan Turing", seat: "A2"),
                           "s-y": MachineRoom.RosterName(name: "Alan Turing", seat: "A2")]
        var x = Self.seat("s-x", seat: "A2")
        x.candidateNumber = "1002"
        var y = Self.seat("s-y", seat: "A2")
        y.candidateNumber = "1002"
        var seats = [x, y]
        SharedReader.flagTwiceSeated(&seats)
        #expect(seats.allSatisfy { $0.warnings.contains("candidate seated twice") }, "\(seats.map(\.warnings))")
        #expect(seats.allSatisfy { room.standing(of: $0) == .seatedTwice })
        room.admissions["s-y"] = Self.boxKey
        #expect(room.standing(of: seats[1]) == .admitted)
        #expect(room.split(seats).startable.map(\.session) == ["s-y"])

        var admitted = Self.seat("s-hand", seat: "A1")
        admitted.status = "active"
        var provenSeat = Self.seat("s-proven", seat: "A3")
        provenSeat.status = "active"
        room.proven = ["s-proven"]
        var running = [admitted, provenSeat]
        room.flag(&running, room: "r1")
        #expect(running[0].warnings == [MachineRoom.unprovenWarning])
        #expect(running[1].warnings.isEmpty)
    }
}
