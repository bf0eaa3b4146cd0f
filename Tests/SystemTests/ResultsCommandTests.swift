#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import Testing
@testable import SessionKit

@Suite("carrel results", .serialized)
struct ResultsCommandTests {
    /// Four sessions of two assessments: submitted, timed out, ended by the proctor, interrupted.
    static func populated() throws -> (Sandbox, [String]) {
        let box = try Sandbox()
        let a = try box.assessment("a.yaml", items: 3)
        let bText = try String(contentsOfFile: try box.assessment("b.yaml", items: 2), encoding: .utf8)
            .replacingOccurrences(of: "id: fixture", with: "id: second").replacingOccurrences(of: "time_limit: 10m", with: "time_limit: 2s")
        let b = box.root + "/b.yaml"
        try bText.write(toFile: b, atomically: true, encoding: .utf8)
        var ids: [String] = []

        let (s1, id1) = try #require(try box.begin(a, candidate: "Ada Lovelace"))
        s1.send("answer q0 \(Response.text("a0").driverJSON)")
        s1.send("answer q1 \(Response.text("line one, \"quoted\"\nline two").driverJSON)")
        s1.send("answer q2 \(Response.text("=SUM(A1:A9)").driverJSON)")
        s1.send("paste 42")
        s1.send("paste 7")
        s1.send("submit")
        _ = s1.expect("finished submitted")
        s1.waitStatus()
        ids.append(id1)

        let (s2, id2) = try #require(try box.begin(b, candidate: "Zoë \"Z\", Ng"))
        s2.send("answer q1 \(Response.text("a1").driverJSON)")
        _ = s2.expect("finished timed_out", timeout: 20)
        s2.waitStatus()
        ids.append(id2)

        let (s3, id3) = try #require(try box.begin(a, candidate: "Åsa Öberg"))
        s3.send("exit Ctrl-C")
        s3.send("confirm-end")
        _ = s3.expect("finished ended_by_candidate")
        s3.waitStatus()
        ids.append(id3)

        let (s4, id4) = try #require(try box.begin(b, candidate: "Grace"))
        s4.send("answer q0 \(Response.text("a0").driverJSON)")
        _ = s4.expect("ack q0")
        s4.signal(SIGKILL)
        s4.waitStatus()
        ids.append(id4)
        return (box, ids)
    }

    @Test func listFiltersAndShowsEveryStatus() throws {
        let (box, ids) = try Self.populated()
        let list = try box.carrel(["results", "list", "--json"])
        #expect(list.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.out.joined(separator: "\n").utf8)) as? [[String: Any]])
        #expect(rows.map { $0["session"] as? String } == ids)
        #expect(rows.map { $0["status"] as? String } == ["submitted", "timed_out", "ended_by_candidate", "interrupted"])
        #expect(rows[0]["points"] as? Double == 1)
        #expect(rows[0]["pending"] as? Double == 0)

        let onlyA = try box.carrel(["results", "list", "--assessment", "fixture", "--json"]).out.joined(separator: "\n")
        #expect(onlyA.components(separatedBy: "\"session\"").count - 1 == 2)
        let timedOut = try box.carrel(["results", "list", "--status", "timed_out"]).out
        #expect(timedOut.count == 2, "header and one row: \(timedOut)")
        #expect(timedOut.last?.hasPrefix(String(ids[1].prefix(8))) == true)
        let future = try box.carrel(["results", "list", "--since", "2999-01-01"]).out
        #expect(future == ["No sessions match."])
        #expect(try box.carrel(["results", "list", "--status", "finished"]).status == 64)
    }

    @Test func showCountsWhatTheEventsRecorded() throws {
        let (box, ids) = try Self.populated()
        let shown = try box.carrel(["results", "show", String(ids[0].prefix(8)), "--json"])
        #expect(shown.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.out.joined(separator: "\n").utf8)) as? [String: Any])
        let integrity = try #require(object["integrity"] as? [String: Any])
        let events = try box.journal().events(session: ids[0])
        #expect(integrity["paste_attempts"] as? Int == events.filter { $0.kind == "paste_blocked" }.count)
        #expect(integrity["paste_attempts"] as? Int == 2)
        #expect(integrity["exit_attempts"] as? Int == 0)
        let pasteboards = try #require(integrity["pasteboards"] as? [String: [String]])
        #expect(pasteboards["tmux"] == ["on entry — tmux: not present", "on exit — tmux: not present"])

        let ended = try box.carrel(["results", "show", ids[2]]).out
        #expect(ended.contains("  exit attempts       1"))
        #expect(ended.contains { $0.hasPrefix("Status      ended_by_candidate") })
        let waiting = try box.carrel(["results", "show", ids[3]]).out
        #expect(waiting.contains("Result      none yet (the session has not ended)"))
        #expect(try box.carrel(["results", "show", "zzzz"]).status == 64)
    }

    @Test func csvRoundTripsThroughARealParser() throws {
        let (box, ids) = try Self.populated()
        let out = box.root + "/grades.csv"
        let export = try box.carrel(["results", "export", "--format", "csv", "--out", out])
        #expect(export.status == 0)
        #expect(mode(out) == 0o600)
        let python = try #require(ChildSpawn.which("python3", environment: box.environment), "python3 reads the CSV")
        let script = "import csv,json,sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))))"
        let parsed = ChildSpawn.run(python, ["-c", script, out], environment: box.environment)
        #expect(parsed.status == 0, "\(parsed.output)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [[String]])
        // Two assessments with the same item ids: each keeps its own columns.
        #expect(rows.first == ["session", "candidate", "assessment", "status", "points", "max", "pending", "started", "ended",
                               "time_used_seconds", "interruptions", "paste_attempts", "focus_losses",
                               "exit_attempts", "wrong_passphrases", "room", "seat", "candidate_number",
                               "verified", "outcome", "status_words", "time_allowed_seconds", "extra_time", "time_added_seconds",
                               "time_added", "pauses", "moves",
                               "fixture:q0", "fixture:q1", "fixture:q2", "second:q0", "second:q1"])
        #expect(rows.count == 5, "three results, and the interrupted session's row without one")
        #expect(rows[1][0] == ids[0])
        #expect(rows[1][1] == "Ada Lovelace")
        #expect(rows[1][6] == "0")
        #expect(rows[1][11] == "2")
        #expect(rows[1][28] == "line one, \"quoted\"\nline two")
        // A formula stays text in a spreadsheet.
        #expect(rows[1][29] == "'=SUM(A1:A9)")
        #expect(rows[1][31] == "")
        #expect(rows[2][1] == "Zoë \"Z\", Ng")
        #expect(rows[2][3] == "timed_out")
        #expect(rows[2][28] == "")
        #expect(rows[2][31] == "a1")
        #expect(rows[3][1] == "Åsa Öberg")
        #expect(rows[3][3] == "ended_by_candidate")
        #expect(rows[4][0] == ids[3] && rows[4][3] == "interrupted" && rows[4][4] == "", "\(rows[4])")
        #expect(rows[4][19] == "interrupted" && rows[4][20] == "interrupted, never resumed; no result", "\(rows[4])")
        #expect(rows[1][18] == "no" && rows[1][19] == "finished" && rows[1][20] == "finished, submitted", "\(rows[1])")
        let raw = try String(contentsOfFile: out, encoding: .utf8)
        #expect(raw.contains("\r\n"), "RFC 4180 line ends")
    }

    @Test func theStoredDigestIsTheResultsOwnAndOlderResultsWithoutOneExportTheSame() throws {
        let (box, ids) = try Self.populated()
        let journal = try box.journal()
        let stored = try journal.gradebookRows(sessions: ids)
        #expect(stored.map(\.session) == Array(ids.prefix(3)), "the interrupted session has no result yet")
        for row in stored {
            #expect(row.json == nil, "the whole document is not read when the digest is there")
            let document = try JSONDecoder().decode(ResultDocument.self, from: Data(try #require(try journal.result(session: row.session)).utf8))
            let digest = ResultDigest(document)
            #expect(try JSONDecoder().decode(ResultHeading.self, from: Data(try #require(row.heading).utf8)) == digest.heading)
            #expect(try JSONDecoder().decode([String].self, from: Data(try #require(row.items).utf8)) == document.items.map(\.id))
            #expect(row.csv == CSV.fields(digest.cells))
            let cells = try #require(try journal.gradebookCells(session: row.session))
            #expect(try JSONDecoder().decode([String].self, from: Data(cells.utf8)) == digest.cells)
        }
        let csv = try box.carrel(["results", "export", "--format", "csv"])
        let one = try box.carrel(["results", "export", "--format", "csv", "--assessment", "fixture"])
        let list = try box.carrel(["results", "list", "--json"])
        #expect(csv.status == 0 && one.status == 0 && list.status == 0)
        #expect(ids.prefix(3).allSatisfy { id in csv.out.contains { $0.hasPrefix(id + ",") } }, "\(csv.out)")
        // A journal from before digests: the same gradebooks and the same scores, read whole.
        try journal.writer.write { try $0.execute(sql: "UPDATE result SET heading = NULL, items = NULL, csv = NULL, cells = NULL") }
        #expect(try journal.gradebookRows(sessions: ids).allSatisfy { $0.json != nil })
        #expect(try box.carrel(["results", "export", "--format", "csv"]).out == csv.out)
        #expect(try box.carrel(["results", "export", "--format", "csv", "--assessment", "fixture"]).out == one.out)
        #expect(try box.carrel(["results", "list", "--json"]).out == list.out)
    }

    @Test func oneAssessmentExportsPlainItemColumns() throws {
        let (box, _) = try Self.populated()
        let export = try box.carrel(["results", "export", "--format", "csv", "--assessment", "second"])
        #expect(export.status == 0)
        #expect(export.out.first?.hasSuffix("paste_attempts,focus_losses,exit_attempts,wrong_passphrases,room,seat,candidate_number,verified,outcome,status_words,time_allowed_seconds,extra_time,time_added_seconds,time_added,pauses,moves,q0,q1\r") == true, "\(export.out)")
    }

    @Test func formulasAreNeutralisedButNumbersStayNumbers() {
        #expect(CSV.field("=1+1") == "'=1+1")
        #expect(CSV.field("+1+1") == "'+1+1")
        #expect(CSV.field("-2+3") == "'-2+3")
        #expect(CSV.field("@SUM(A1)") == "'@SUM(A1)")
        #expect(CSV.field("-2.5") == "-2.5")
        #expect(CSV.field("+7") == "+7")
        #expect(CSV.field("-1,5") == "\"'-1,5\"")
        #expect(CSV.field("plain") == "plain")
    }

    @Test func jsonExportHoldsTheResultDocuments() throws {
        let (box, ids) = try Self.populated()
        let export = try box.carrel(["results", "export", "--assessment", "fixture"])
        #expect(export.status == 0)
        let docs = try JSONDecoder().decode([ResultDocument].self, from: Data(export.out.joined(separator: "\n").utf8))
        #expect(docs.map(\.session) == [ids[0], ids[2]])
        #expect(docs.map(\.status) == [.submitted, .endedByCandidate])
    }

    @Test func exportRefusesASymlinkAtTheOutputPath() throws {
        let (box, _) = try Self.populated()
        let target = box.root + "/victim"
        try "keep".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: box.root + "/out.csv", withDestinationPath: target)
        let export = try box.carrel(["results", "export", "--format", "csv", "--out", box.root + "/out.csv"])
        #expect(export.status == 73)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep")
    }
}
