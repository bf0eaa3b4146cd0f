#if canImport(Glibc)
import Glibc
#endif
import Foundation
import AssessmentKit
import SessionKit
import SessionTestSupport
import Testing

/// A student with the seat role's password and psql, while a candidate's machine is dead:
/// a session planted under the dead seat's name, a second session waiting at the spare's seat,
/// a forged finished session of the candidate. The proctor's move and lost pick only the
/// session the proctor's start keyed, name the spare by its seat key when two wait, and the
/// exports count no forged result.
@Suite("Moves and lost seats against a student with the seat role (tmux, PostgreSQL)")
struct MoveAttackEndToEndTests {
    let room = RoomEndToEndTests()
    let moves = MoveEndToEndTests()
    static let token = String(repeating: "Z", count: 43)

    func seatSQL(_ lab: RoomEndToEndTests.Lab, _ sql: String) -> String {
        SeatRoleAttackTests.seat(lab, sql).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A session announced under `seat` with `fields`, as any student may make one.
    func plant(_ lab: RoomEndToEndTests.Lab, _ session: String, seat: String, fields: String = "") {
        let body = "{\"room\":\"lab5\",\"seat\":\"\(seat)\",\"candidate_number\":\"1042\"\(fields)}"
        #expect(seatSQL(lab, "SELECT carrel_hello('\(session)', '\(body)', '\(Self.token)')") == "t")
    }

    @Test(.timeLimit(.minutes(4)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func plantedAndSecondSessionsAreNeverTheOnesMovedEndedOrCounted() throws {
        let (lab, t, file) = try moves.openRoom("lab5")
        let spare = try #require(TmuxHarness())
        _ = try moves.seatAnswersAndIsGivenTime(t, lab, file, room: "lab5")
        moves.machineDies(t)

        // A session planted at A1, claiming to run with an answer, and a finished one with a forged result.
        plant(lab, "plant-a1", seat: "A1")
        #expect(seatSQL(lab, SeatRoleAttackTests.publish("plant-a1", token: Self.token, seq: 1, kind: "status",
                                                         body: #"{"status":"active"}"#)).hasPrefix("1|"))
        plant(lab, "forged-b1", seat: "B1")
        #expect(seatSQL(lab, SeatRoleAttackTests.publish("forged-b1", token: Self.token, seq: 1, kind: "status",
                                                         body: #"{"status":"ended","end_reason":"submitted"}"#)).hasPrefix("1|"))

        // The real spare, and a second session waiting at its seat with its own key.
        moves.spareAsksToMove(spare, lab, file, room: "lab5")
        let shown = try #require(spare.waitFor("spare", "Seat key: "), "\(spare.screen("spare"))")
        let key = try #require(shown.split(separator: "\n").first { $0.contains("Seat key: ") }.flatMap { line in
            line.components(separatedBy: "Seat key: ").last?.split(separator: " ").first.map(String.init)
        })
        let boxKey = Data(repeating: 7, count: 32).base64EncodedString()
        plant(lab, "second-s1", seat: "S1", fields: ",\"box_key\":\"\(boxKey)\",\"attestation\":{\"move_from\":\"A1\"}")
        // Held open, as a student's psql would: the second session shows as waiting at S1.
        let hold = "\(SeatRoleAttackTests.psql) -X -q -d '\(lab.seat)' -c \"SELECT carrel_seat_lock('second-s1', '\(Self.token)', NULL)\" -c 'SELECT pg_sleep(120)'"
        t.run(["new-window", "-d", "-n", "hold", hold])
        var waiting = ""
        for _ in 0..<40 {
            waiting = room.carrel(["proctor", "--shared", lab.owner, "--room", "lab5", "--json"]).output
            if waiting.components(separatedBy: "\"move_request\" : \"A1\"").count - 1 == 2 { break }
            usleep(250_000)
        }
        #expect(waiting.components(separatedBy: "\"move_request\" : \"A1\"").count - 1 == 2, "\(waiting)")

        let refused = room.carrel(["proctor", "move", "--shared", lab.owner, "--room", "lab5", "--from", "A1", "--to", "S1", "--yes"])
        #expect(refused.status != 0 && refused.output.contains("2 sessions wait at seat S1") && refused.output.contains(key),
                "two sessions at the spare's seat: the proctor names one by its key: \(refused.output)")
        let moved = room.carrel(["proctor", "move", "--shared", lab.owner, "--room", "lab5", "--from", "A1", "--to", "S1",
                                 "--seat-key", key, "--yes"])
        #expect(moved.status == 0 && moved.output.contains("continues at S1"), "\(moved.output)")
        #expect(spare.waitFor("spare", "This terminal is now locked to Carrel") != nil, "\(spare.screen("spare"))")
        let planted = SeatRoleAttackTests.owner(lab, "SELECT status || '|' || coalesce(fate, '') FROM carrel_sessions WHERE session = 'plant-a1'")
        #expect(planted.output.hasPrefix("active|"), "the planted session was not the one moved: \(planted.output)")

        spare.keys("spare", "Enter")
        #expect(room.carrel(["proctor", "end", "--shared", lab.owner, "--room", "lab5", "--seat", "S1"]).status == 0)
        #expect(spare.waitFor("spare", "The proctor ended this session") != nil)
        // Exports with the passphrase: the forged and planted sessions are refused, and count no result.
        let csv = ChildSpawn.run(TmuxHarness.carrel, ["results", "export", "--format", "csv", "--shared", lab.owner, "--room", "lab5",
                                                      "--passphrase-stdin"],
                                 input: TestProctor.passphrase + "\n", environment: ProcessInfo.processInfo.environment, timeout: 60)
        let rows = csv.output.components(separatedBy: .newlines).filter { $0.contains("1042") }
        #expect(rows.filter { $0.contains("no start signed by the proctor") }.count == 2, "\(rows.joined(separator: "\n"))")
        #expect(rows.filter { $0.contains(",yes,") }.count == 1, "one verified row for the candidate: \(csv.output)")
    }
}
