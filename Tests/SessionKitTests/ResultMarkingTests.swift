#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import GRDB
import Lockdown
import SessionTestSupport
import Testing
@testable import SessionKit

@Suite("carrel results mark", .serialized)
struct ResultMarkingTests {
    static let yaml = """
        carrel: 1
        id: marking
        title: Marking
        time_limit: 10m
        policy: { multiplexer: allow }
        sections:
          - items:
              - {id: essay, type: essay, prompt: Why?, points: 4}
              - {id: capital, type: choice, prompt: Capital?, choices: [Paris, Lyon], answer: Paris}
              - {id: second, type: essay, prompt: And then?, points: 2}

        """

    /// A session of the real state directory, run in this process to its end (or left running).
    static func session(_ box: Sandbox, capital: String = "Paris", finish: Bool = true) throws -> (SessionRuntime, String) {
        let (assessment, source) = try MemoryWorld.assessment(yaml)
        let runtime = try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none,
                                               context: box.context())
        _ = runtime.send(.answer("essay", .essay("Because the evidence says so.")))
        _ = runtime.send(.answer("capital", .choice(capital)))
        _ = runtime.send(.answer("second", .essay("Then it rained.")))
        let id = runtime.record.id
        if finish {
            _ = runtime.send(.submitRequested)
            guard case .finished? = runtime.send(.submitConfirmed).outcome else { throw TestFailure("the session did not finish") }
        }
        return (runtime, id)
    }

    /// The real binary against the sandbox's state; stdout and stderr together.
    static func carrel(_ box: Sandbox, _ arguments: [String]) -> ChildSpawn.Output {
        ChildSpawn.run(ChildProcess.carrel, arguments + ["--state-dir", box.stateDir], environment: box.environment, timeout: 60)
    }

    static func resultFile(_ box: Sandbox, _ id: String) -> String { "\(box.location.resultsDirectory)/\(id).json" }

    static func fileResult(_ box: Sandbox, _ id: String) throws -> ResultDocument {
        try JSONDecoder().decode(ResultDocument.self, from: Data(contentsOf: URL(fileURLWithPath: resultFile(box, id))))
    }

    static func journalResult(_ box: Sandbox, _ id: String) throws -> ResultDocument {
        let text = try #require(try box.journal().result(session: id))
        return try JSONDecoder().decode(ResultDocument.self, from: Data(text.utf8))
    }

    static func item(_ result: ResultDocument, _ id: String) throws -> ResultDocument.ItemResult {
        try #require(result.items.first { $0.id == id })
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test func markingTheEssaysFinishesTheScoreEverywhere() throws {
        let box = try Sandbox()
        let (_, id) = try Self.session(box)
        let before = try Self.fileResult(box, id)
        #expect(before.score == ScoreSummary(points: 1, max: 7, pending: 6))
        #expect(Self.carrel(box, ["results", "list"]).output.contains("1/7 +6?"))

        let first = Self.carrel(box, ["results", "mark", String(id.prefix(6)), "essay", "2.5", "--comment", "Clear, but no sources"])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output == "Marked essay of session \(id.prefix(8)) (Ada): 2.5 of 4. Score 3.5 of 7, 2 still to mark.\n")
        let marked = try Self.fileResult(box, id)
        let essay = try Self.item(marked, "essay")
        #expect(essay.points == 2.5)
        #expect(essay.outcome == .partial)
        #expect(essay.mark?.points == 2.5)
        #expect(essay.mark?.comment == "Clear, but no sources")
        #expect(marked.score == ScoreSummary(points: 3.5, max: 7, pending: 2))
        #expect(try Self.journalResult(box, id) == marked, "the journal and the file hold the same result")
        #expect(Self.mode(Self.resultFile(box, id)) == 0o600)

        #expect(Self.carrel(box, ["results", "mark", id, "second", "2"]).status == 0)
        let done = try Self.fileResult(box, id)
        #expect(try Self.item(done, "second").outcome == .correct)
        #expect(done.score == ScoreSummary(points: 5.5, max: 7, pending: 0))
        #expect(done.events.suffix(2).map(\.kind) == ["marked", "marked"])

        let list = Self.carrel(box, ["results", "list"]).output
        #expect(list.contains("5.5/7 "), "\(list)")
        #expect(!list.contains("?"), "nothing is left to mark: \(list)")
        let rows = Self.carrel(box, ["results", "export", "--format", "csv"]).output.components(separatedBy: "\r\n")
        let row = try #require(rows.first { $0.hasPrefix(id) }).components(separatedBy: ",")
        #expect(Array(row[4...6]) == ["5.5", "7", "0"], "points, max, pending: \(row)")
        let json = Self.carrel(box, ["results", "export", "--format", "json"])
        let exported = try JSONDecoder().decode([ResultDocument].self, from: Data(json.output.utf8))
        #expect(exported.first?.score.pending == 0)
        #expect(exported.first?.items.first?.mark?.comment == "Clear, but no sources")

        let shown = Self.carrel(box, ["results", "show", id]).output
        #expect(shown.contains("Score       5.5 of 7\n"), "\(shown)")
        #expect(shown.contains(" marked 2.5 at \(essay.mark?.at ?? "?"): Clear, but no sources\n"), "\(shown)")
        let timeline = shown.components(separatedBy: "\n").filter { $0.contains(" marked ") && $0.contains("was pending") }
        #expect(timeline.count == 2, "both marks are in the timeline: \(shown)")
        #expect(shown.contains("essay: 2.5 of 4, was pending — \"Clear, but no sources\""))
    }

    @Test func markingAgainReplacesTheMarkAndTheJournalKeepsEvery() throws {
        let box = try Sandbox()
        let (_, id) = try Self.session(box)
        for points in ["3", "0", "1.25"] {
            let run = Self.carrel(box, ["results", "mark", id, "essay", points])
            #expect(run.status == 0, "\(run.output)")
        }
        let result = try Self.fileResult(box, id)
        let essay = try Self.item(result, "essay")
        #expect(essay.points == 1.25)
        #expect(essay.outcome == .partial)
        #expect(essay.mark?.comment == nil)
        #expect(result.score == ScoreSummary(points: 2.25, max: 7, pending: 2))
        let journal = try box.journal()
        #expect(try journal.marks(session: id).map(\.points) == [3, 0, 1.25])
        let details = try journal.events(session: id).filter { $0.kind == "marked" }.map(\.detail)
        #expect(details == ["essay: 3 of 4, was pending", "essay: 0 of 4, was 3 partial", "essay: 1.25 of 4, was 0 incorrect"])
    }

    @Test func aChoiceScoreCanBeOverridden() throws {
        let box = try Sandbox()
        let (_, id) = try Self.session(box, capital: "Lyon")
        #expect(try Self.item(try Self.fileResult(box, id), "capital").outcome == .incorrect)
        let run = Self.carrel(box, ["results", "mark", id, "capital", "1", "--comment", "Lyon was the capital of Gaul"])
        #expect(run.status == 0, "\(run.output)")
        let result = try Self.fileResult(box, id)
        let capital = try Self.item(result, "capital")
        #expect(capital.points == 1)
        #expect(capital.outcome == .correct)
        #expect(capital.response == .string("Lyon"), "the answer itself is kept")
        #expect(result.score == ScoreSummary(points: 1, max: 7, pending: 6))
        #expect(try box.journal().events(session: id).last?.detail == "capital: 1 of 1, was 0 incorrect — \"Lyon was the capital of Gaul\"")
    }

    @Test(arguments: [
        (["ffffffff", "essay", "1"], "no session ffffffff"),
        (["", "essay", "1"], "name a session by its id or its first characters"),
        (["ID", "essay9", "1"], "no item essay9; its items are essay, capital, second"),
        (["ID", "essay", "4.5"], "cannot give 4.5 points: essay takes a mark from 0 to 4 points"),
        (["ID", "capital", "2"], "capital takes a mark from 0 to 1 point\n"),
        (["ID", "essay", "-1"], "POINTS cannot be negative (-1)"),
        (["ID", "essay", "-2.5", "--comment", "late"], "POINTS cannot be negative (-2.5)"),
        (["ID", "essay", "2", "-1"], "unknown option or argument \"-1\""),
        (["ID", "essay", "abc"], "POINTS is a number such as 2.5, not \"abc\""),
        (["ID", "essay", "nan"], "POINTS is a number such as 2.5, not \"nan\""),
        (["ID", "essay", "inf"], "POINTS is a number such as 2.5, not \"inf\""),
        (["ID", "essay", "1,000"], "POINTS \"1,000\" could be read as a whole number with a thousands separator or as a decimal"),
        (["ID", "essay", "1", "--comment", "\u{1B}]52;c;aGk=\u{7}"], "--comment contains U+001B (escape)"),
        (["ID", "essay", "1", "--comment", "good \u{202E}dab"], "--comment contains U+202E (right-to-left override)"),
        (["ID", "essay", "1", "--comment", "a\u{200B}b"], "--comment contains U+200B (zero width space)"),
        (["ID", "essay", "1", "--comment", String(repeating: "x", count: 501)], "--comment is longer than 500 characters"),
        (["ID", "essay", "1", "--comment", " "], "--comment is empty"),
    ])
    func refusalsSayWhyExit64AndRecordNothing(arguments: [String], message: String) throws {
        let box = try Sandbox()
        let (_, id) = try Self.session(box)
        let before = try Data(contentsOf: URL(fileURLWithPath: Self.resultFile(box, id)))
        let run = Self.carrel(box, ["results", "mark"] + arguments.map { $0 == "ID" ? id : $0 })
        #expect(run.status == 64)
        #expect(run.output.contains(message), "\(run.output)")
        #expect(!run.output.contains("\u{1B}") && !run.output.contains("\u{202E}"), "the refusal quotes what it refuses")
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.resultFile(box, id))) == before)
        let journal = try box.journal()
        #expect(try journal.marks(session: id).isEmpty)
        #expect(try !journal.events(session: id).contains { $0.kind == "marked" })
    }

    @Test func aRunningOrInterruptedSessionIsNotMarked() throws {
        let box = try Sandbox()
        let (runtime, id) = try Self.session(box, finish: false)
        let running = Self.carrel(box, ["results", "mark", id, "essay", "1"])
        #expect(running.status == 75)
        #expect(running.output.contains("session \(id.prefix(8)) is still running; mark it once it is submitted or ended"), "\(running.output)")
        _ = runtime.send(.hangUp("the test hangs up"))
        let interrupted = Self.carrel(box, ["results", "mark", id, "essay", "1"])
        #expect(interrupted.status == 75)
        #expect(interrupted.output.contains("continue it with `carrel resume \(id.prefix(8))` or end it with `carrel unlock \(id.prefix(8))`"),
                "\(interrupted.output)")
        #expect(try box.journal().marks(session: id).isEmpty)
    }

    @Test func aSymlinkAtTheResultFileIsRefusedAndNothingIsRecorded() throws {
        let box = try Sandbox()
        let (_, id) = try Self.session(box)
        let path = Self.resultFile(box, id)
        let victim = box.root + "/victim"
        try "keep".write(toFile: victim, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: victim)
        let run = Self.carrel(box, ["results", "mark", id, "essay", "2"])
        #expect(run.status == 73)
        #expect(run.output.contains("the mark was not recorded: the result file \(path) is a symbolic link"), "\(run.output)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path) == victim)
        #expect(try box.journal().marks(session: id).isEmpty)
        #expect(try Self.journalResult(box, id).score.pending == 6)
        #expect(try !box.journal().events(session: id).contains { $0.kind == "marked" })
    }

    /// A journal that cannot take the event, or a result file that cannot be written, leaves
    /// the mark, the event, the journal's result and the file as they were.
    @Test(arguments: ["event", "mark", "file"])
    func aFailedWriteRecordsNothing(failing: String) throws {
        let world = try MemoryWorld()
        let (assessment, source) = try MemoryWorld.assessment(Self.yaml)
        let runtime = try SessionRuntime.begin(assessment: assessment, source: source, candidate: nil, extraTime: .none, context: world.context)
        _ = runtime.send(.answer("essay", .essay("text")))
        _ = runtime.send(.submitRequested)
        _ = runtime.send(.submitConfirmed)
        let id = runtime.record.id
        let journal = try world.journal()
        let before = try journal.result(session: id)
        let file = world.storage.results[id]
        if failing == "file" { world.storage.failResultFiles = true } else { try world.storage.fail(failing) }
        #expect(throws: (any Error).self) {
            try journal.recordMark(session: id, item: "essay", points: 3, comment: nil, at: Date(), storage: world.storage)
        }
        #expect(try journal.result(session: id) == before)
        #expect(world.storage.results[id] == file)
        if failing == "file" {
            world.storage.failResultFiles = false
        } else {
            try world.storage.recover(failing)
        }
        #expect(try journal.marks(session: id).isEmpty)
        #expect(try !journal.events(session: id).contains { $0.kind == "marked" })
    }

    @Test func marksAreCheckedAgainstTheItem() throws {
        let result = try JSONDecoder().decode(ResultDocument.self, from: Data(Self.oldResult.utf8))
        for bad in [-0.5, 4.001, .nan, .infinity] {
            #expect(throws: MarkRefusal.pointsOutOfRange(item: "dog", max: 4)) {
                try result.marking("dog", points: bad, comment: nil, at: Date())
            }
        }
        #expect(throws: MarkRefusal.unknownItem("cat", known: ["canada", "dog"])) {
            try result.marking("cat", points: 1, comment: nil, at: Date())
        }
        let (marked, _) = try result.marking("dog", points: 4, comment: nil, at: Date(timeIntervalSince1970: 0))
        #expect(marked.items[1].outcome == .correct)
        #expect(marked.items[1].mark == ResultDocument.Mark(points: 4, comment: nil, at: "1970-01-01T00:00:00Z"))
        #expect(marked.score == ScoreSummary(points: 5, max: 5, pending: 0))
    }

    /// A result written before marks existed, exactly as earlier versions wrote it.
    static let oldResult = """
        {"session": "s-old", "candidate": "Ada", "status": "submitted",
         "assessment": {"id": "geo", "title": "Geography", "fingerprint": "sha256:00"},
         "started_at": "2026-11-22T09:00:00Z", "ended_at": "2026-11-22T09:10:00Z", "time_used_seconds": 600,
         "interruptions": 0, "score": {"points": 1, "max": 5, "pending": 4},
         "items": [{"id": "canada", "type": "choice", "response": "Ottawa", "points": 1, "max": 1, "flagged": false, "outcome": "correct"},
                   {"id": "dog", "type": "essay", "response": "A dog.", "points": 0, "max": 4, "flagged": false, "outcome": "pending"}],
         "events": [{"at": "2026-11-22T09:10:00Z", "kind": "submitted", "detail": ""}]}
        """

    @Test func aResultWrittenBeforeMarksStillReadsAndWritesTheSame() throws {
        let result = try JSONDecoder().decode(ResultDocument.self, from: Data(Self.oldResult.utf8))
        #expect(result.items.allSatisfy { $0.mark == nil })
        #expect(result.score.pending == 4)
        let written = String(decoding: try result.json(), as: UTF8.self)
        #expect(!written.contains("\"mark\""), "an unmarked item is written as before")
    }

    @Test func aV2JournalGetsTheMarkTableWhenOpened() throws {
        let queue = try DatabaseQueue()
        try Journal.migrator.migrate(queue, upTo: "v2")
        #expect(try queue.read { try !$0.tableExists("mark") })
        let journal = try Journal(writer: queue)
        #expect(try queue.read { try $0.tableExists("mark") })
        #expect(try journal.marks(session: "none").isEmpty)
        #expect(throws: MarkRefusal.unknownSession("none")) {
            try journal.recordMark(session: "none", item: "a", points: 1, comment: nil, at: Date(), storage: try MemoryStorage())
        }
    }
}
