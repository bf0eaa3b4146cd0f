#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit

extension RoomCommandTests {
    /// What scores a sealed test and nothing else: accepted answers, the correct choice's
    /// field, a number, feedback and proctor notes, each spelled with words found nowhere else.
    static let scoringSecrets = ["quixotically", "xylophonist", "Feedback-walrus", "Note-narwhal", "Section-okapi", "4217.25",
                                 "Choice-feedback-lemur", "\"answer\":\"Right-pick\""]

    /// A sealed room started from the console: the seat is given the questions only. Its
    /// process, its journal (with its WAL), its result file and the store hold no answer,
    /// feedback or note; its result says what was answered and has no score; the proctor's
    /// passphrase scores it from the same responses.
    @Test(.timeLimit(.minutes(3)))
    func aSeatStartedFromTheConsoleNeverHoldsTheAnswerKey() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let database = String(url.split(separator: "/").last ?? "")
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let proctorBox = try Sandbox()
        let sealed = try Self.sealedKey(writing: proctorBox.root, packageIn: seatBox.root)
        let (child, session) = try Self.startedSeat(seatBox, sealed, pg, url: url)
        child.send("held")
        let held = try #require(child.expect("held ").flatMap { Data(base64Encoded: String($0.dropFirst(5))) })
        let heldText = String(decoding: held, as: UTF8.self)
        #expect(heldText.contains("Pick one"), "the questions are there: \(heldText.prefix(300))")
        child.send("answer q1 \(Response.text("quixotic").driverJSON)")
        #expect(child.expect("ack q1") != nil)
        child.send("answer q2 \(Response.choice("Right-pick").driverJSON)")
        #expect(child.expect("ack q2") != nil)
        child.send("submit")
        let finished = try #require(child.expect("finished submitted", timeout: 20))
        _ = child.readToEnd()
        let resultPath = String(finished.split(separator: " ")[2])
        let result = try JSONDecoder().decode(ResultDocument.self, from: Data(contentsOf: URL(fileURLWithPath: resultPath)))
        #expect(result.unscored == true && result.score.points == 0 && result.answered == 2, "\(result)")

        var places: [(String, String)] = [("the seat's process", heldText)]
        for file in try Self.filesUnder(seatBox.root) where file != sealed {
            places.append((file, String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)))
        }
        var listed = proctor.keyed(Self.resultsList(url))
        #expect(SharedStoreTests.eventually(20) {
            listed = proctor.keyed(Self.resultsList(url) + ["--test", sealed])
            return listed.output.contains("\"verified\" : true")
        }, "\(listed.output)")
        places.append(("the store", Self.storeDump(pg, database: database)))
        for (place, text) in places {
            for secret in Self.scoringSecrets {
                #expect(!text.contains(secret), "\(secret) in \(place)")
            }
        }
        // Where the passphrase and the package are, the same responses are scored.
        #expect(listed.output.contains("\"points\" : 1"), "\(listed.output)")
        let shown = proctor.keyed(["results", "show", session, "--shared", url, "--json", "--test", sealed])
        #expect(shown.output.contains("\"outcome\" : \"correct\""), "\(shown.output)")
        #expect(!shown.output.contains("\"unscored\""), "\(shown.output)")
        // Without the package the session is said to be not scored yet, never 0 of 0.
        let plain = proctor.keyed(["results", "show", session, "--shared", url])
        #expect(plain.output.contains("not scored yet"), "\(plain.output)")
        let table = proctor.keyed(["results", "list", "--shared", url, "--room", "s1"])
        #expect(!table.output.contains("0/0"), "\(table.output)")
    }

    /// Every regular file under `folder`.
    static func filesUnder(_ folder: String) throws -> [String] {
        let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        return names.map { folder + "/" + $0 }.filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }

    /// Every row of the store as text.
    static func storeDump(_ pg: PrivatePostgres, database: String) -> String {
        pg.psql("""
            SELECT string_agg(t::text, ' ') FROM (
              SELECT row_to_json(r)::text AS t FROM carrel_records r UNION ALL SELECT row_to_json(c)::text FROM carrel_commands c
              UNION ALL SELECT row_to_json(s)::text FROM carrel_sessions s UNION ALL SELECT row_to_json(x)::text FROM carrel_results x
              UNION ALL SELECT row_to_json(o)::text FROM carrel_rooms o) all_rows
            """, database: database).output
    }

    /// A sealed test of every secret in `scoringSecrets`, written (plain) in `folder` and
    /// sealed into `packageFolder`: the package's path.
    static func sealedKey(writing folder: String, packageIn packageFolder: String) throws -> String {
        let plain = folder + "/key.yaml"
        try """
            carrel: 1
            id: secret
            title: Secret
            time_limit: 10m
            shuffle: {choices: true}
            policy: { multiplexer: allow }
            \(TestProctor.yaml)
            sections:
              - proctor_note: Section-okapi
                items:
                  - id: q1
                    type: text
                    prompt: The hidden word
                    accept: [quixotically, {text: xylophonist, credit: 50%}]
                    feedback: Feedback-walrus
                    proctor_note: Note-narwhal
                  - id: q2
                    type: choice
                    prompt: Pick one
                    choices: [Right-pick, {text: Wrong-pick, feedback: Choice-feedback-lemur}]
                    answer: Right-pick
                  - {id: q3, type: numeric, prompt: A number, answer: 4217.25}
            """.write(toFile: plain, atomically: true, encoding: .utf8)
        let sealed = packageFolder + "/key.carrel"
        let seal = ChildSpawn.run(ChildProcess.carrel, ["seal", plain, "--out", sealed],
                                  input: TestProctor.passphrase + "\n" + TestProctor.passphrase + "\n",
                                  environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(seal.status == 0, "\(seal.output)")
        return sealed
    }
}
