#if canImport(Glibc)
import Glibc
#endif
import Foundation
import AssessmentKit
import SessionKit
import SessionTestSupport
import Testing

/// The real binary with a lab's shared store: a seat in one tmux window, the proctor's console
/// in another, against a private PostgreSQL.
@Suite("Shared store end to end (tmux)")
struct SharedEndToEndTests {
    /// Starts `carrel ARGS` without a state directory (the console has none).
    func startConsole(_ t: TmuxHarness, _ window: String, _ arguments: [String]) {
        let quoted = ([TmuxHarness.carrel] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        t.run(["new-window", "-d", "-n", window, "sh -c '\"$0\" \"$@\"; echo EXIT=$?; sleep 600' " + quoted.joined(separator: " ")])
        t.run(["resize-window", "-t", "e2e:\(window)", "-x", "80", "-y", "24"])
    }

    /// The store's URL with the password in it (the tmux windows have no password file).
    func urlWithPassword(_ pg: PrivatePostgres, database url: String) throws -> String {
        let password = try String(contentsOfFile: pg.folder + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return url.replacingOccurrences(of: "postgresql://carrel@", with: "postgresql://carrel:\(password)@")
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func theConsoleFollowsARealSeatAndOpensItsIntegrityReport() throws {
        let pg = try PrivatePostgres.shared()
        let url = try urlWithPassword(pg, database: try pg.database())
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        t.start("seat", ["take", file, "--candidate", "Ada", "--shared", url, "--room", "lab9", "--seat", "A1"])
        #expect(t.waitFor("seat", "Proctor passphrase:") != nil)
        startConsole(t, "console", ["proctor", "--shared", url, "--room", "lab9"])
        #expect(t.waitFor("console", "Carrel proctor — room lab9") != nil)
        // At its start screen the seat is there already, not started.
        #expect(t.waitFor("console", "Seat A1, Ada: not started, unverified, 0 of 8 answered") != nil)
        t.type("seat", "proctor phrase")
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Begin? y/N") != nil)
        t.keys("seat", "y")
        #expect(t.waitFor("seat", "This terminal is now locked to Carrel") != nil)
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Question 1 of") != nil)
        #expect(t.waitFor("console", "Seat A1, Ada: active, unverified, host ") != nil)
        #expect(t.waitFor("console", "0 of 8 answered") != nil)
        // The cursor is on the focused seat's row.
        #expect(t.cursorLine("console")?.hasPrefix("A1") == true)
        t.keys("seat", try #require(t.shownLetter("Ottawa", in: "seat")))
        #expect(t.waitFor("console", "1 of 8 answered", timeout: 5) != nil)
        t.keys("console", "Enter")
        #expect(t.waitFor("console", "Integrity report — seat A1, Ada") != nil)
        // The report itself, read from the store (not only the seat's line above it): its
        // assessment-mode line says why this machine was not locked; the timeline is a page on.
        #expect(t.waitFor("console", "assessment mode     not begun: no assessment-mode service") != nil, "\(t.screen("console"))")
        t.keys("console", "NPage")
        #expect(t.waitFor("console", "Timeline") != nil, "\(t.screen("console"))")
        #expect(!t.screen("console").contains("cannot be read now"))
        t.keys("console", "Escape")
        #expect(t.waitFor("console", "Seat A1, Ada") != nil)
        #expect(t.submit("seat"))
        #expect(t.waitFor("console", "submitted", timeout: 10) != nil)
        t.keys("console", "q")
        #expect(t.exitStatus("console") == 0)
        // The console wrote no password anywhere on screen.
        #expect(!t.screen("console").contains(url))
    }

    @Test(.timeLimit(.minutes(4)))
    func aPolicyThatRequiresTheStoreRefusesToBeginWhenItCannotBeReached() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml", replacing: [("policy: { multiplexer: allow }", "policy: { multiplexer: allow, shared: required }")])
        t.start("w", ["take", file, "--candidate", "Ada", "--shared", "postgresql://carrel@127.0.0.1:\(PrivatePostgres.freePort())/x"])
        #expect(t.exitStatus("w", timeout: 30) == 69)
        #expect(t.screen("w").replacingOccurrences(of: "\n", with: " ").contains("requires the lab's shared store"))
        // Nothing began: no session in the journal.
        #expect(((try? t.journal().sessions(status: nil)) ?? []).isEmpty)
    }

    /// Starts `carrel ARGS --state-dir …` with the store's password file in its environment.
    func startWithPasswordFile(_ t: TmuxHarness, _ pg: PrivatePostgres, _ window: String, _ arguments: [String]) {
        let quoted = (["/usr/bin/env", "PGPASSFILE=\(pg.passwordFile)", TmuxHarness.carrel] + arguments + ["--state-dir", t.stateDir])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        t.run(["new-window", "-d", "-n", window, "sh -c '\"$0\" \"$@\"; echo EXIT=$?; sleep 600' " + quoted.joined(separator: " ")])
        t.run(["resize-window", "-t", "e2e:\(window)", "-x", "80", "-y", "24"])
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func aSeatResumedAfterAKillGoesOnPublishingToTheStoreItsJournalNames() throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        startWithPasswordFile(t, pg, "seat", ["take", file, "--candidate", "Ada", "--shared", url, "--room", "lab7", "--seat", "B2"])
        #expect(t.enterTest("seat"))
        let pid = try #require(t.holderPid)
        kill(pid, SIGKILL)
        #expect(t.exitStatus("seat") != nil)
        let session = try #require(try t.journal().sessions(status: nil).first?.id)
        // The journal keeps the store, never its password.
        let options = try #require(try t.journal().sessions(status: nil).first?.options.shared)
        #expect(options.store == url)
        // `status` says how the seat stands with the store now (its process is gone), and the
        // whole command that continues it, store included.
        let status = ChildSpawn.run(TmuxHarness.carrel, ["status", "--state-dir", t.stateDir], environment: t.environment)
        #expect(status.output.contains("not connected (its process has ended)"), "\(status.output)")
        #expect(!status.output.contains("connected since"), "\(status.output)")
        let resume = "carrel resume --state-dir=\(t.stateDir) --shared=\(url) -- \(session)"
        #expect(status.output.contains("continue: \(resume)"), "\(status.output)")
        #expect(status.output.contains("end:      carrel unlock --state-dir=\(t.stateDir) -- \(session)"), "\(status.output)")
        // The printed command is the one that runs: the same arguments, read by the same parser.
        let shown = resume.split(separator: " ").dropFirst().map(String.init)
        #expect(shown == ["resume", "--state-dir=\(t.stateDir)", "--shared=\(url)", "--", session])

        // Resumed without --shared: it publishes to the same store, as the same seat.
        startWithPasswordFile(t, pg, "again", ["resume", session])
        #expect(t.waitFor("again", "Proctor passphrase to resume") != nil, "\(t.screen("again"))")
        t.type("again", "proctor phrase")
        t.keys("again", "Enter")
        #expect(t.waitFor("again", "Session resumed") != nil)
        t.keys("again", try #require(t.shownLetter("Ottawa", in: "again")))
        let stored = {
            pg.rows("SELECT count(*) FROM carrel_records WHERE session = '\(session)' AND kind = 'answer'", url: url)
                .first?.first.flatMap { Int($0) } ?? 0
        }
        let deadline = Date().addingTimeInterval(15)
        while stored() == 0 && Date() < deadline { usleep(200_000) }
        #expect(stored() > 0, "the answer given after resume reached the store")
        #expect(t.submit("again"))
    }

    @Test(.timeLimit(.minutes(4)))
    func aPublishingSessionWhoseStoreIsUnknownIsNotResumedWithoutIt() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        // A session that published, from a journal written before the store was kept.
        let journal = try t.journal()
        let assessment = try #require(AssessmentReader.read(text: try String(contentsOfFile: file, encoding: .utf8), file: file).assessment)
        var record = SessionRecord(id: "0123456789abcdef", assessmentID: assessment.id, assessmentTitle: assessment.title,
                                   fingerprint: Fingerprint.of(assessment), assessmentPath: file, candidate: "Ada", status: .active,
                                   seed: 1, extraTime: .none, options: SessionOptions(shared: SharedLabel(room: "lab7", seat: "B2")),
                                   startedAt: Date(), pid: 999_999, host: "h", tty: nil)
        record.position = 0
        try journal.createSession(record, source: StoredAssessment(bytes: Data(try String(contentsOfFile: file, encoding: .utf8).utf8), path: file))
        let r = ChildSpawn.run(TmuxHarness.carrel, ["resume", record.id, "--state-dir", t.stateDir], environment: t.environment)
        #expect(r.status == 64, "\(r.output)")
        #expect(r.output.contains("--shared URL"), "\(r.output)")
        #expect(r.output.contains("room lab7, seat B2"), "\(r.output)")
    }
}
