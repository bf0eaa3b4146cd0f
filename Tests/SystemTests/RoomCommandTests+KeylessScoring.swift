#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit

extension RoomCommandTests {
    /// A sealed room's seat had the questions only: its result has no score. The console,
    /// given the sealed test and the passphrase, scores it from the result the seat wrote; a
    /// mark of its essay is refused without the test (nothing is recorded) and kept with it,
    /// and the console's score follows the mark.
    @Test(.timeLimit(.minutes(3)))
    func theConsoleScoresAKeylessSessionWithTheSealedTestAndItsEssayIsMarkedWithIt() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let database = String(url.split(separator: "/").last ?? "")
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let proctorBox = try Sandbox()
        let sealed = try Self.sealedEssay(writing: proctorBox.root, packageIn: seatBox.root)
        let (child, session) = try Self.startedSeat(seatBox, sealed, pg, url: url)
        child.send("answer q1 \(Response.text("quixotically").driverJSON)")
        #expect(child.expect("ack q1") != nil)
        child.send("answer e1 \(Response.essay("A reasoned essay of several words").driverJSON)")
        #expect(child.expect("ack e1") != nil)
        child.send("answer q2 \(Response.choice("Wrong-pick").driverJSON)")
        #expect(child.expect("ack q2") != nil)
        child.send("submit")
        #expect(child.expect("finished submitted", timeout: 20) != nil)
        _ = child.readToEnd()

        // Without the test: not scored yet, never 0 of 0.
        let watch = ["proctor", "--json", "--shared", url, "--room", "s1"]
        var plain = proctor.keyed(watch)
        #expect(SharedStoreTests.eventually(20) {
            plain = proctor.keyed(watch)
            return plain.output.contains("\"scoring\" : \"not_scored\"")
        }, "\(plain.output)")
        #expect(plain.output.contains("\"score_points\" : null"), "\(plain.output)")
        // With it: 1 (q1) of 6, the essay's 4 to mark.
        let scored = proctor.keyed(watch + ["--test", sealed])
        #expect(scored.status == 0, "\(scored.output)")
        #expect(scored.output.contains("\"scoring\" : \"scored\""), "\(scored.output)")
        #expect(scored.output.contains("\"score_points\" : 1,") && scored.output.contains("\"score_max\" : 6,")
                    && scored.output.contains("\"score_pending\" : 4,"), "\(scored.output)")
        // --test needs the passphrase, as `results` says.
        let unkeyed = ChildSpawn.run(ChildProcess.carrel, watch + ["--test", sealed], environment: ProcessInfo.processInfo.environment,
                                     timeout: 30)
        #expect(unkeyed.status == 64 && unkeyed.output.contains("give --passphrase-stdin too"), "\(unkeyed.output)")

        // A mark of the essay without the sealed test is refused, and nothing is kept.
        let mark = ["results", "mark", session, "e1", "3", "--comment", "Clear", "--shared", url]
        let bare = ChildSpawn.run(ChildProcess.carrel, mark, environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(bare.status == 64 && bare.output.contains("--passphrase-stdin --test"), "\(bare.output)")
        let keyedOnly = proctor.keyed(mark)
        #expect(keyedOnly.status == 64 && keyedOnly.output.contains("--test"), "\(keyedOnly.output)")
        #expect(pg.psql("SELECT count(*) FROM carrel_marks", database: database).output.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // With it, the mark is kept and the score follows.
        let marked = proctor.keyed(mark + ["--test", sealed])
        #expect(marked.status == 0, "\(marked.output)")
        #expect(marked.output.contains("Marked e1 of session") && marked.output.contains("3 of 4. Score 4 of 6, nothing left to mark."),
                "\(marked.output)")
        let after = proctor.keyed(watch + ["--test", sealed])
        #expect(after.output.contains("\"score_points\" : 4,") && after.output.contains("\"score_pending\" : 0,"), "\(after.output)")
        let shown = proctor.keyed(["results", "show", session, "--shared", url, "--json", "--test", sealed])
        #expect(shown.output.contains("\"comment\" : \"Clear\""), "\(shown.output)")
        // Without the test the mark scores nothing: the session is still not scored.
        let still = proctor.keyed(watch)
        #expect(still.output.contains("\"scoring\" : \"not_scored\""), "\(still.output)")
        let listed = ChildSpawn.run(ChildProcess.carrel, ["results", "show", session, "--shared", url],
                                    environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(listed.output.contains("not scored yet"), "\(listed.output)")
    }

    /// A sealed test with an essay, written (plain) in `folder` and sealed into `packageFolder`.
    static func sealedEssay(writing folder: String, packageIn packageFolder: String) throws -> String {
        let plain = folder + "/essay.yaml"
        try """
            carrel: 1
            id: essay-room
            title: Essay room
            time_limit: 10m
            policy: { multiplexer: allow }
            \(TestProctor.yaml)
            sections:
              - items:
                  - {id: q1, type: text, prompt: The hidden word, accept: [quixotically]}
                  - {id: e1, type: essay, prompt: Argue, points: 4}
                  - {id: q2, type: choice, prompt: Pick one, choices: [Right-pick, Wrong-pick], answer: Right-pick}
            """.write(toFile: plain, atomically: true, encoding: .utf8)
        let sealed = packageFolder + "/essay.carrel"
        let seal = ChildSpawn.run(ChildProcess.carrel, ["seal", plain, "--out", sealed],
                                  input: TestProctor.passphrase + "\n" + TestProctor.passphrase + "\n",
                                  environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(seal.status == 0, "\(seal.output)")
        return sealed
    }
}
