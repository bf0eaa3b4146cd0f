#if canImport(Glibc)
import Glibc
#endif
import Foundation
import AssessmentKit
import SessionKit
import SessionTestSupport
import Testing

/// A machine dies in the middle of the exam, with the real binary: the candidate moves to a
/// spare seat with every answer, the time added and the time left, the old seat (revived) goes
/// on no more, and the results have one row for the candidate, with the move.
@Suite("A dead machine's candidate moves to a spare seat (tmux)")
struct MoveEndToEndTests {
    let room = RoomEndToEndTests()

    @Test(.timeLimit(.minutes(4)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func theSpareContinuesTheSameSessionAndTheOldSeatIsFenced() throws {
        let (lab, t, file) = try openRoom("lab2")
        let spare = try #require(TmuxHarness())

        let ottawa = try seatAnswersAndIsGivenTime(t, lab, file)

        machineDies(t)

        // At a spare, the candidate asks to move there.
        spareAsksToMove(spare, lab, file, room: "lab2")
        var asked = ""
        for _ in 0..<40 {
            asked = room.carrel(["proctor", "--shared", lab.owner, "--room", "lab2", "--json"]).output
            if asked.contains("\"move_request\" : \"A1\"") { break }
            usleep(250_000)
        }
        #expect(asked.contains("\"move_request\" : \"A1\""), "the console shows the request: \(asked)")

        let move = room.carrel(["proctor", "move", "--shared", lab.owner, "--room", "lab2", "--from", "A1", "--to", "S1", "--yes"])
        #expect(move.status == 0, "\(move.output)")
        #expect(move.output.contains("continues at S1"), "\(move.output)")
        #expect(spare.waitFor("spare", "This terminal is now locked to Carrel") != nil, "\(spare.screen("spare"))")
        spare.keys("spare", "Enter")
        #expect(spare.waitFor("spare", "Question 1 of 8") != nil)
        // The answer the store held is there, and the time added with it (15 + 10 minutes, most of it left).
        // The same order and draw: the answer under the same letter as at A1.
        #expect(spare.waitFor("spare", "\(ottawa)) Ottawa — selected", timeout: 5) != nil, "\(spare.screen("spare"))")
        #expect(spare.screen("spare").contains("⏱ 24:"), "the time left when A1 stopped: \(spare.screen("spare"))")

        // The old seat, revived, goes on no more.
        t.start("old", ["resume", "--shared", lab.seat])
        #expect(t.waitFor("old", "this session continues at seat S1") != nil, "\(t.screen("old"))")

        // The spare finishes; one session for the candidate, with the move.
        #expect(room.carrel(["proctor", "end", "--shared", lab.owner, "--room", "lab2", "--seat", "S1"]).status == 0)
        #expect(spare.waitFor("spare", "The proctor ended this session") != nil)
        // A room's score is shown once the store holds the result.
        #expect(spare.waitFor("spare", "of 13 points") != nil, "\(spare.screen("spare"))")
        let result = try #require(try spare.result())
        #expect(result.seat == "S1" && result.candidateNumber == "1042")
        #expect(result.items.contains { $0.points > 0 }, "the answer written at A1 is in the result, and scored")
        #expect(result.events.contains { $0.kind == "moved" && $0.detail.hasPrefix("from A1 to S1") })
        #expect(IntegrityReport(events: try spare.journal().events(session: result.session), interruptions: 0).lines
                    .contains { $0.hasPrefix("moved") && $0.contains("from A1 to S1") }, "the integrity report names the move")
        let seats = room.carrel(["proctor", "--shared", lab.owner, "--room", "lab2", "--json"]).output
        #expect(seats.components(separatedBy: "\"candidate_number\" : \"1042\"").count - 1 == 1, "one session for 1042: \(seats)")
        #expect(seats.contains("A1 → S1"), "\(seats)")
        // Every export: one row for the candidate, with the move; the store's check verifies it.
        let csv = room.carrel(["results", "export", "--format", "csv", "--shared", lab.owner, "--room", "lab2", "--strict"])
        #expect(csv.status == 0, "\(csv.output)")
        let rows = csv.output.components(separatedBy: .newlines).filter { $0.contains("1042") }
        #expect(rows.count == 1 && rows.first?.contains("A1 → S1") == true, "\(csv.output)")
        let checked = ChildSpawn.run(TmuxHarness.carrel, ["results", "export", "--shared", lab.owner, "--room", "lab2", "--passphrase-stdin"],
                                     input: TestProctor.passphrase + "\n", environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(checked.output.contains("\"verified\" : true"), "the moved session verifies with its keys: \(checked.output)")
    }

    /// A lab with room `name`, whose roster has Ada Lovelace (1042, seat A1, 1.5× the time) and
    /// whose seats the proctor starts; the harness of its seats and the test.
    func openRoom(_ name: String) throws -> (lab: RoomEndToEndTests.Lab, t: TmuxHarness, file: String) {
        let lab = try room.lab(try PrivatePostgres.shared())
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let list = try room.roster(t, "candidate,name,seat,extra_time\n1042,Ada Lovelace,A1,1.5\n")
        let opened = room.carrel(["room", "open", name, file, "--roster", list, "--start", "proctor", "--machines", "any",
                                  "--shared", lab.owner])
        #expect(opened.status == 0, "\(opened.output)")
        return (lab, t, file)
    }

    /// At spare seat S1 of `roomName`, candidate 1042 identifies, is asked whether to move the
    /// session at A1 here, says yes, and waits for the proctor.
    func spareAsksToMove(_ spare: TmuxHarness, _ lab: RoomEndToEndTests.Lab, _ file: String, room roomName: String) {
        spare.start("spare", ["take", file, "--shared", lab.seat, "--room", roomName, "--seat", "S1"])
        #expect(spare.waitFor("spare", "Candidate number:") != nil)
        spare.type("spare", "1042")
        spare.keys("spare", "Enter")
        #expect(spare.waitFor("spare", "Ada Lovelace (1042) has a session at seat A1.") != nil, "\(spare.screen("spare"))")
        spare.type("spare", "y")
        #expect(spare.waitFor("spare", "move your session here from seat A1") != nil, "\(spare.screen("spare"))")
    }

    /// The seat `seat` of `roomName` identifies candidate `number`, begins, answers the first
    /// question and is given 10 more minutes; the store has the answer. Returns the answer's letter.
    func seatAnswersAndIsGivenTime(_ t: TmuxHarness, _ lab: RoomEndToEndTests.Lab, _ file: String, room roomName: String = "lab2",
                                   seat: String = "A1", number: String = "1042") throws -> String {
        t.start("seat", ["take", file, "--shared", lab.seat, "--room", roomName, "--seat", seat])
        #expect(t.waitFor("seat", "Candidate number:") != nil)
        t.type("seat", number)
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "is this you? y/N") != nil)
        t.type("seat", "y")
        #expect(t.waitFor("seat", "Waiting for the proctor to start") != nil)
        #expect(room.carrel(["proctor", "start", "--shared", lab.owner, "--room", roomName]).status == 0)
        #expect(t.waitFor("seat", "This terminal is now locked to Carrel") != nil)
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Question 1 of 8") != nil)
        let ottawa = try #require(t.shownLetter("Ottawa", in: "seat"))
        t.keys("seat", ottawa)
        #expect(t.waitFor("seat", "saved") != nil)
        #expect(room.carrel(["proctor", "time", "--shared", lab.owner, "--room", roomName, "--seat", seat, "+10m"]).status == 0)
        #expect(t.waitFor("seat", "⏱ 24:") != nil, "15 minutes and 10 added: \(t.screen("seat"))")
        // The store has the answer before the machine dies.
        var json = ""
        for _ in 0..<60 {
            json = room.carrel(["proctor", "--shared", lab.owner, "--room", roomName, "--json"]).output
            if json.contains("\"answered\" : 1") { break }
            usleep(250_000)
        }
        #expect(json.contains("\"answered\" : 1"), "\(json)")
        sleep(3)
        return ottawa
    }

    /// The machine dies: its Carrel is killed (-9) and its window closed.
    func machineDies(_ t: TmuxHarness) {
        _ = ChildSpawn.run("/usr/bin/pkill", ["-9", "-f", "--", "state-dir \(t.stateDir)"], environment: ProcessInfo.processInfo.environment,
                           timeout: 10)
        _ = t.run(["kill-window", "-t", "e2e:seat"])
    }

    @Test(.timeLimit(.minutes(4)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func aSeatThatWillNotComeBackIsEndedWithItsResultAndItsRevivalIsToldWhy() throws {
        let (lab, t, file) = try openRoom("lab3")
        _ = try seatAnswersAndIsGivenTime(t, lab, file, room: "lab3")
        machineDies(t)
        // A session anyone may announce under the dead seat's name, claiming to run: never the one ended.
        let token = String(repeating: "P", count: 43)
        #expect(SeatRoleAttackTests.seat(lab, "SELECT carrel_hello('plant-lost', '{\"room\":\"lab3\",\"seat\":\"A1\",\"candidate_number\":\"1042\"}', '\(token)')").status == 0)
        #expect(SeatRoleAttackTests.seat(lab, SeatRoleAttackTests.publish("plant-lost", token: token, seq: 1, kind: "status",
                                                                         body: #"{"status":"active"}"#)).output.hasPrefix("1|"))

        let lost = room.carrel(["proctor", "lost", "--shared", lab.owner, "--room", "lab3", "--seat", "A1", "--test", file, "--yes"])
        #expect(lost.status == 0, "\(lost.output)")
        #expect(lost.output.contains("ended by the proctor, seat lost") && lost.output.contains("scores 1 of 13"), "\(lost.output)")
        let planted = SeatRoleAttackTests.owner(lab, "SELECT status || '|' || coalesce(fate, '') FROM carrel_sessions WHERE session = 'plant-lost'")
        #expect(planted.output.hasPrefix("active|"), "the planted session was not the one ended: \(planted.output)")
        // A second time finds nothing to end.
        #expect(room.carrel(["proctor", "lost", "--shared", lab.owner, "--room", "lab3", "--seat", "A1", "--yes"]).status != 0)

        let checked = ChildSpawn.run(TmuxHarness.carrel, ["results", "export", "--format", "csv", "--shared", lab.owner, "--room", "lab3",
                                                          "--passphrase-stdin", "--strict"],
                                     input: TestProctor.passphrase + "\n", environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(checked.status == 0, "\(checked.output)")
        let rows = checked.output.components(separatedBy: .newlines).filter { $0.contains("1042") && !$0.contains("no_proctor_start") }
        #expect(rows.count == 1, "\(checked.output)")
        #expect(rows.first?.contains("seat_lost") == true && rows.first?.contains("ended by the proctor, seat lost") == true, "\(checked.output)")
        #expect(rows.first?.contains(",yes,") == true, "verified from the session's own records: \(checked.output)")

        t.start("old", ["resume", "--shared", lab.seat])
        #expect(t.waitFor("old", "the proctor ended this session: its seat was lost") != nil, "\(t.screen("old"))")
    }

    @Test(.timeLimit(.minutes(4)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func aSeatStillConnectedMovesOnlyWhenSaidAndThenStopsSayingWhere() throws {
        let (lab, t, file) = try openRoom("lab6")
        let spare = try #require(TmuxHarness())
        _ = try seatAnswersAndIsGivenTime(t, lab, file, room: "lab6")
        spareAsksToMove(spare, lab, file, room: "lab6")

        let refused = room.carrel(["proctor", "move", "--shared", lab.owner, "--room", "lab6", "--from", "A1", "--to", "S1", "--yes"])
        #expect(refused.status != 0 && refused.output.contains("still connected"), "\(refused.output)")
        let moved = room.carrel(["proctor", "move", "--shared", lab.owner, "--room", "lab6", "--from", "A1", "--to", "S1",
                                 "--while-connected", "--yes"])
        #expect(moved.status == 0, "\(moved.output)")
        // The old seat stops, and says where the session went; the spare goes on with it.
        #expect(t.waitFor("seat", "EXIT=69", timeout: 30) != nil, "\(t.screen("seat"))")
        let said = t.screen("seat").replacingOccurrences(of: "\n", with: "")
        #expect(said.contains("this session continues at seat S1"), "\(t.screen("seat"))")
        #expect(spare.waitFor("spare", "This terminal is now locked to Carrel") != nil)
    }
}
