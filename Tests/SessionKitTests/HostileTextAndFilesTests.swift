#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import Testing

@Suite("Hostile text and planted files outside a session, against the real binary")
struct HostileTextAndFilesTests {
    static let osc52 = "\u{1B}]52;c;ZXZpbA==\u{07}"

    /// No byte of the output could act on a terminal: no ESC, no C1, no bidi override.
    static func expectInert(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let hostile = text.unicodeScalars.filter { TerminalSafety.isControl($0) && $0 != "\n" && $0 != "\t" && $0 != "\r" }
        #expect(hostile.isEmpty, "raw controls in output: \(hostile.map { $0.value })", sourceLocation: sourceLocation)
        #expect(!text.unicodeScalars.contains { TerminalSafety.isBidiControl($0) }, "raw bidi control in output", sourceLocation: sourceLocation)
    }

    @Test func validateQuotesHostileKeysAndTypes() throws {
        let box = try Sandbox()
        let file = box.root + "/hostile.yaml"
        let yaml = """
            carrel: 1
            id: t
            title: T
            "\\e]52;c;ZXZpbA==\\a": 1
            sections:
              - items:
                  - {id: q, type: "\\u202Eeciohc", prompt: P}
                  - {id: r, type: true_false, prompt: P, answer: true, "\\e]0;pwned\\a": x}
            """
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let r = box.run(ChildProcess.carrel, ["validate", file])
        #expect(r.status == 65)
        Self.expectInert(r.err)
        #expect(r.err.contains("\\u{1B}]52;c;ZXZpbA==\\u{7}"), "\(r.err)")
        #expect(r.err.contains("\\u{202E}eciohc"), "\(r.err)")
        #expect(r.err.contains("\\u{1B}]0;pwned"), "\(r.err)")
    }

    @Test func argumentErrorsQuoteWhatWasTyped() throws {
        let box = try Sandbox()
        let r = box.run(ChildProcess.carrel, ["take", "x.yaml", "--theme", "\u{1B}[2J"])
        #expect(r.status == 64)
        Self.expectInert(r.err)
        #expect(r.err.contains("\\u{1B}[2J"), "\(r.err)")
    }

    @Test func candidateNamesAreValidatedLikeContent() throws {
        let box = try Sandbox()
        let file = try box.strictAssessment()
        for name in ["Ada\u{85}", "\u{202E}adA", "Ada" + Self.osc52, "Ada\u{200B}", String(repeating: "n", count: 101)] {
            let r = box.run(ChildProcess.carrel, ["take", file, "--candidate", name])
            #expect(r.status == 64, "\(r.err)")
            #expect(r.err.contains("--candidate"), "\(r.err)")
            Self.expectInert(r.err)
        }
    }

    @Test func statusLockRefusalUnlockAndResultsQuoteAHostileCandidate() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        // The headless driver does not validate names: a journal written by an older
        // version could hold anything.
        let name = "Ada" + Self.osc52 + "\u{202E}"
        let (child, session) = try #require(try box.begin(file, candidate: name))
        child.send("answer q0 \(Response.text("=HYPERLINK(\"http://evil\",\"x\")").driverJSON)")
        #expect(child.expect("ack q0") != nil)
        child.send("answer q1 \(Response.text("abc\u{202E}fed").driverJSON)")
        #expect(child.expect("ack q1") != nil)

        let status = box.run(ChildProcess.carrel, ["status", "--state-dir", box.stateDir])
        #expect(status.err.contains("\\u{1B}]52;c;ZXZpbA==\\u{7}\\u{202E}"), "\(status.err)")
        Self.expectInert(status.err)
        let json = box.run(ChildProcess.carrel, ["status", "--json", "--state-dir", box.stateDir])
        #expect(json.err.contains("\\u001b]52"), "\(json.err)")
        Self.expectInert(json.err)
        let refused = box.run(ChildProcess.carrel, ["resume", "--state-dir", box.stateDir])
        #expect(refused.status == 75)
        Self.expectInert(refused.err)

        child.signal(SIGKILL)
        child.waitStatus()
        let unlocked = box.run(ChildProcess.carrel, ["unlock", "--state-dir", box.stateDir])
        #expect(unlocked.status == 0, "\(unlocked.err)")
        #expect(unlocked.err.contains("Ada\\u{1B}]52"))
        Self.expectInert(unlocked.err)

        for arguments in [["results", "list"], ["results", "show", String(session.prefix(8))], ["results", "show", String(session.prefix(8)), "--json"],
                          ["results", "export"], ["results", "export", "--format", "csv"]] {
            let r = box.run(ChildProcess.carrel, arguments + ["--state-dir", box.stateDir])
            #expect(r.status == 0, "\(arguments): \(r.err)")
            Self.expectInert(r.err)
        }
        let exported = box.run(ChildProcess.carrel, ["results", "export", "--state-dir", box.stateDir]).err
        #expect(exported.contains("abc\\u202efed"), "JSON escapes the student's U+202E: \(exported)")
        let csv = box.run(ChildProcess.carrel, ["results", "export", "--format", "csv", "--state-dir", box.stateDir]).err
        #expect(csv.contains("\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\""), "formula neutralised: \(csv)")
        #expect(csv.contains("abc\\u{202E}fed"), "\(csv)")
    }

    // MARK: planted files

    @Test func aJournalSymlinkedToAnEmptyFileIsNeverOpened() throws {
        for companion in ["", "-wal", "-shm"] {
            let box = try Sandbox()
            try box.location.prepare()
            let target = box.root + "/victim"
            #expect(FileManager.default.createFile(atPath: target, contents: Data()))
            if !companion.isEmpty {
                // A real journal, with only its companion planted.
                let child = try box.driver(["begin", try box.assessment()])
                #expect(child.expect("began ") != nil)
                child.send("submit")
                #expect(child.expect("finished") != nil)
                child.waitStatus()
                try? FileManager.default.removeItem(atPath: box.location.journalPath + companion)
            }
            try FileManager.default.createSymbolicLink(atPath: box.location.journalPath + companion, withDestinationPath: target)
            for arguments in [["status"], ["results", "list"], ["results", "export"], ["unlock"], ["resume"]] {
                let r = box.run(ChildProcess.carrel, arguments + ["--state-dir", box.stateDir])
                #expect(r.status == 73, "\(arguments) with journal\(companion) planted: \(r.err)")
                #expect(r.err.contains("symbolic link"), "\(r.err)")
            }
            let size = (try FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? -1
            #expect(size == 0, "the link's target never became a database (journal\(companion))")
        }
    }

    func exported(_ box: Sandbox) throws {
        let child = try box.driver(["begin", try box.assessment()])
        #expect(child.expect("began ") != nil)
        child.send("submit")
        #expect(child.expect("finished") != nil)
        child.waitStatus()
    }

    @Test func exportWritesOnlyANewOrARegularFile() throws {
        let box = try Sandbox()
        try exported(box)
        let fifo = box.root + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let intoFifo = box.run(ChildProcess.carrel, ["results", "export", "--out", fifo, "--state-dir", box.stateDir])
        #expect(intoFifo.status == 73)
        #expect(intoFifo.err.contains("is a FIFO"), "\(intoFifo.err)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "still a FIFO")

        let device = box.run(ChildProcess.carrel, ["results", "export", "--out", "/dev/null", "--state-dir", box.stateDir])
        #expect(device.status == 73)
        #expect(device.err.contains("is a device"), "\(device.err)")
        #expect(lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)

        let directory = box.run(ChildProcess.carrel, ["results", "export", "--out", box.root, "--state-dir", box.stateDir])
        #expect(directory.status == 73)
        #expect(directory.err.contains("is a directory"), "\(directory.err)")

        let link = box.root + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: box.root + "/elsewhere.json")
        let linked = box.run(ChildProcess.carrel, ["results", "export", "--out", link, "--state-dir", box.stateDir])
        #expect(linked.status == 73)
        #expect(!FileManager.default.fileExists(atPath: box.root + "/elsewhere.json"))

        let regular = box.root + "/old.json"
        try "old".write(toFile: regular, atomically: true, encoding: .utf8)
        let replaced = box.run(ChildProcess.carrel, ["results", "export", "--out", regular, "--state-dir", box.stateDir])
        #expect(replaced.status == 0, "\(replaced.err)")
        #expect(try String(contentsOfFile: regular, encoding: .utf8).hasPrefix("["))
        #expect(lstat(regular, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let fresh = box.root + "/new.csv"
        #expect(box.run(ChildProcess.carrel, ["results", "export", "--format", "csv", "--out", fresh, "--state-dir", box.stateDir]).status == 0)
        #expect(FileManager.default.fileExists(atPath: fresh))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: box.root).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "no temporary file left behind: \(leftovers)")
    }
}
