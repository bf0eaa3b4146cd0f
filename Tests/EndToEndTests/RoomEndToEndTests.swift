#if canImport(Glibc)
import Glibc
#endif
import Foundation
import AssessmentKit
import SessionKit
import SessionTestSupport
import Testing

/// Exam day from the proctor's chair, with the real binary: `carrel store init`, a room plan
/// with a roster and `--start proctor`, seats in tmux identified by candidate number, and the
/// proctor's actions as commands, against a private PostgreSQL.
@Suite("A room run by the proctor (tmux)")
struct RoomEndToEndTests {
    struct Lab {
        var owner: String
        var seat: String
        var seatRole: String
    }

    /// A fresh database with Carrel's roles (named for this test: roles belong to the cluster).
    func lab(_ pg: PrivatePostgres) throws -> Lab {
        let password = try String(contentsOfFile: pg.folder + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let owner = try pg.database().replacingOccurrences(of: "postgresql://carrel@", with: "postgresql://carrel:\(password)@") + "?sslmode=disable"
        let tag = UUID().uuidString.prefix(8).lowercased()
        let seatRole = "seat_\(tag)"
        let out = carrel(["store", "init", "--shared", owner, "--seat-role", seatRole, "--proctor-role", "proctor_\(tag)"])
        #expect(out.status == 0, "\(out.output)")
        let line = try #require(out.output.split(separator: "\n").first { $0.contains(":\(seatRole):") })
        let seatPassword = try #require(line.split(separator: ":").last)
        let seat = owner.replacingOccurrences(of: "carrel:\(password)@", with: "\(seatRole):\(seatPassword)@")
        return Lab(owner: owner, seat: seat, seatRole: seatRole)
    }

    func carrel(_ arguments: [String]) -> ChildSpawn.Output {
        let (arguments, input) = TestProctor.signing(arguments)
        return ChildSpawn.run(TmuxHarness.carrel, arguments, input: input, environment: ProcessInfo.processInfo.environment, timeout: 60)
    }

    func roster(_ t: TmuxHarness, _ text: String) throws -> String {
        let path = t.root + "/roster-\(UUID().uuidString.prefix(6)).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.timeLimit(.minutes(4)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func aSeatWaitsIsStartedPausedGivenTimeAMessageAndEndedByTheProctor() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try lab(pg)
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let list = try roster(t, "candidate,name,seat,extra_time\n1042,Ada Lovelace,A1,1.5\n1043,Grace Hopper,,\n")
        let opened = carrel(["room", "open", "lab1", file, "--roster", list, "--start", "proctor", "--machines", "any", "--shared", lab.owner])
        #expect(opened.status == 0, "\(opened.output)")
        #expect(opened.output.contains("roster of 2 candidates"))

        // The roster holds the accommodations: one given at the seat is refused.
        t.start("early", ["take", file, "--shared", lab.seat, "--room", "lab1", "--seat", "A9", "--extra-time", "unlimited"])
        #expect(t.waitFor("early", "has a roster") != nil)
        #expect(t.exitStatus("early") == 64)

        seatIdentifiesItsCandidateAndWaits(t, lab, file)

        // The same candidate at another seat is refused and both seats are flagged.
        t.start("twin", ["take", file, "--shared", lab.seat, "--room", "lab1", "--seat", "B2"])
        #expect(t.waitFor("twin", "Candidate number:") != nil)
        t.type("twin", "1042")
        t.keys("twin", "Enter")
        // The candidate is offered a move (for a machine that died); declined, the seat refuses.
        #expect(t.waitFor("twin", "Ada Lovelace (1042) has a session at seat A1.") != nil)
        t.type("twin", "n")
        #expect(t.waitFor("twin", "already seated at A1") != nil)
        let both = carrel(["proctor", "--shared", lab.owner, "--room", "lab1", "--json"]).output
        #expect(both.components(separatedBy: "\"candidate seated twice\"").count - 1 == 2, "both seats flagged: \(both)")
        #expect(both.contains("identity unchecked (the roster has no codes)"), "a roster without codes is said to leave identities unchecked")

        let start = carrel(["proctor", "start", "--shared", lab.owner, "--room", "lab1"])
        #expect(start.status == 0, "\(start.output)")
        #expect(start.output.contains("applied  A1 (Ada Lovelace, 1042)"))
        #expect(t.waitFor("seat", "This terminal is now locked to Carrel") != nil)
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Question 1 of 8") != nil)

        let ottawa = try #require(t.shownLetter("Ottawa", in: "seat"))
        pausedGivenTimeAndAMessage(t, lab, ottawa: ottawa)

        handRaisedAndAcknowledged(t, lab)

        let end = carrel(["proctor", "end", "--shared", lab.owner, "--room", "lab1", "--seat", "A1"])
        #expect(end.status == 0, "\(end.output)")
        #expect(t.waitFor("seat", "The proctor ended this session") != nil)
        let events = try t.journal().events(session: try #require(try t.journal().sessions(status: nil).first?.id))
        let commands = events.filter { $0.kind == "proctor_command" }.map(\.detail)
        #expect(commands.contains { $0.hasSuffix(" start") })
        #expect(commands.contains { $0.hasSuffix(" pause") })
        #expect(commands.contains { $0.hasSuffix(" time 600") })
        #expect(commands.contains { $0.hasSuffix(" end") })
        // Each command once.
        #expect(Set(commands).count == commands.count)
        let result = try #require(try t.result())
        #expect(result.status == .endedByProctor)
        #expect(result.room == "lab1" && result.seat == "A1" && result.candidateNumber == "1042" && result.candidate == "Ada Lovelace")
        #expect(result.events.contains { $0.kind == "proctor_command" && $0.detail.hasSuffix(" pause") })

        try markedFromTheProctorsMachine(t, lab, file, session: result.session)
    }

    /// The seat asks for the candidate number, checks it against the roster, has the
    /// candidate confirm their name, and waits for the proctor's start.
    func seatIdentifiesItsCandidateAndWaits(_ t: TmuxHarness, _ lab: Lab, _ file: String) {
        t.start("seat", ["take", file, "--shared", lab.seat, "--room", "lab1", "--seat", "A1"])
        #expect(t.waitFor("seat", "Candidate number:") != nil)
        t.type("seat", "999")
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Candidate 999 is not on the roster") != nil)
        t.type("seat", "1042")
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Ada Lovelace — is this you? y/N") != nil)
        // One key answers, as every y/N of Carrel: n asks the number again, y alone goes on.
        t.type("seat", "n")
        #expect(t.waitFor("seat", "is this you? y/N n") != nil)
        t.type("seat", "1042")
        t.keys("seat", "Enter")
        var asked = 0
        for _ in 0..<100 where asked < 2 {
            asked = t.screen("seat").components(separatedBy: "is this you? y/N").count - 1
            if asked < 2 { usleep(100_000) }
        }
        #expect(asked == 2, "\(t.screen("seat"))")
        t.type("seat", "y")
        #expect(t.waitFor("seat", "Waiting for the proctor to start") != nil)
        // No key at the seat begins it; the roster's extra time is shown.
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "time allowed 15 minutes") != nil)
        #expect(!t.screen("seat").contains("locked to Carrel"))
    }

    /// A pause stops the clock and holds answer keys; time is added, the room resumed, and a
    /// message shown until dismissed.
    func pausedGivenTimeAndAMessage(_ t: TmuxHarness, _ lab: Lab, ottawa: String) {
        let pause = carrel(["proctor", "pause", "--shared", lab.owner, "--room", "lab1", "--seat", "A1"])
        #expect(pause.status == 0, "\(pause.output)")
        #expect(t.waitFor("seat", "Paused by the proctor — the clock is stopped") != nil)
        let before = t.screen("seat").split(separator: "\n").first.map(String.init) ?? ""
        // Answer keys wait while paused.
        t.keys("seat", ottawa)
        sleep(2)
        #expect(!t.screen("seat").contains("✓ saved"))
        #expect(t.screen("seat").split(separator: "\n").first.map(String.init) == before, "the clock moved during the pause")
        #expect(carrel(["proctor", "time", "--shared", lab.owner, "--room", "lab1", "--seat", "A1", "+10m"]).status == 0)
        #expect(carrel(["proctor", "resume", "--shared", lab.owner, "--room", "lab1"]).status == 0)
        #expect(t.waitFor("seat", "24:5") != nil)
        // status counts the added time, and says when the store last confirmed the seat's records.
        let status = ChildSpawn.run(TmuxHarness.carrel, ["status", "--state-dir", t.stateDir], environment: t.environment).output
        #expect(status.contains("used of 25m (10m added by the proctor)"), "\(status)")
        #expect(status.contains("the store last confirmed every record at 20"), "\(status)")

        let message = carrel(["proctor", "message", "--shared", lab.owner, "--room", "lab1", "Question 3: read Sydney as Canberra"])
        #expect(message.status == 0, "\(message.output)")
        #expect(t.waitFor("seat", "Message from the proctor") != nil)
        t.keys("seat", "x")
        #expect(t.waitFor("seat", "Message from the proctor", present: false) != nil)
    }

    /// F12 calls the proctor; the console shows the raised hand and the seat's facts, and the
    /// acknowledgement reaches the seat.
    func handRaisedAndAcknowledged(_ t: TmuxHarness, _ lab: Lab) {
        t.keys("seat", "F12")
        #expect(t.waitFor("seat", "The proctor has been called") != nil)
        var json = ""
        for _ in 0..<40 {
            json = carrel(["proctor", "--shared", lab.owner, "--room", "lab1", "--json"]).output
            if json.contains("\"hand\" : \"raised\"") { break }
            usleep(250_000)
        }
        #expect(json.contains("\"hand\" : \"raised\""))
        #expect(json.contains("\"carrel_version\" : \"0.1.0\""))
        #expect(json.contains("\"terminal\" : \"80x24\""))
        #expect(json.contains("\"candidate_number\" : \"1042\""))
        #expect(carrel(["proctor", "acknowledge", "--shared", lab.owner, "--room", "lab1"]).status == 0)
        #expect(t.waitFor("seat", "the proctor is coming") != nil)
    }

    func markedFromTheProctorsMachine(_ t: TmuxHarness, _ lab: Lab, _ file: String, session: String) throws {
        // Marked from the proctor's machine (whose journal has no such session): kept in the
        // store, read back by results at once, and taken by the seat's journal when it next connects.
        let proctorState = t.root + "/proctor-state"
        try FileManager.default.createDirectory(atPath: proctorState, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let mark = carrel(["results", "mark", session, "canada", "0.5", "--comment", "marked in the store",
                           "--shared", lab.owner, "--state-dir", proctorState])
        #expect(mark.status == 0, "\(mark.output)")
        #expect(mark.output.contains("Kept in the shared store"))
        let exported = carrel(["results", "export", "--format", "json", "--shared", lab.owner, "--room", "lab1", "--state-dir", proctorState])
        #expect(exported.output.contains("marked in the store"))
        t.keys("seat", "Enter")
        #expect(t.exitStatus("seat") == 0)
        t.start("again", ["take", file, "--shared", lab.seat, "--room", "lab1", "--seat", "A1"])
        #expect(t.waitFor("again", "Candidate number:") != nil)
        t.type("again", "1043")
        t.keys("again", "Enter")
        #expect(t.waitFor("again", "Grace Hopper — is this you? y/N") != nil)
        t.type("again", "y")
        t.keys("again", "Enter")
        #expect(t.waitFor("again", "Waiting for the proctor to start") != nil)
        // The seat's earlier start was the earlier session's: this one waits for its own.
        sleep(3)
        #expect(t.screen("again").contains("Waiting for the proctor to start"), "\(t.screen("again"))")
        #expect(carrel(["proctor", "start", "--shared", lab.owner, "--room", "lab1", "--seat", "A1"]).status == 0)
        var taken = false
        for _ in 0..<60 where !taken {
            taken = (try? t.journal().events(session: session).contains { $0.kind == "marked" }) ?? false
            if !taken { usleep(250_000) }
        }
        #expect(taken, "the seat's journal took the store's mark")
    }

    /// The roster's language asks the candidate in their own words and takes their own yes:
    /// a French candidate answers `o`, a Japanese one はい (a word an input method sends at once).
    @Test(.timeLimit(.minutes(3)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func theIdentityQuestionIsAskedInTheCandidatesLanguageAndTakesItsYes() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try lab(pg)
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let list = try roster(t, "candidate,name,language\n2001,Marie Curie,fr\n2002,Hideki Yukawa,ja\n")
        let opened = carrel(["room", "open", "lang1", file, "--roster", list, "--start", "proctor", "--machines", "any", "--shared", lab.owner])
        #expect(opened.status == 0, "\(opened.output)")
        t.start("fr", ["take", file, "--shared", lab.seat, "--room", "lang1", "--seat", "F1"])
        #expect(t.waitFor("fr", "Candidate number:") != nil)
        t.type("fr", "2001")
        t.keys("fr", "Enter")
        #expect(t.waitFor("fr", "Marie Curie — est-ce bien vous ? o/N") != nil, "\(t.screen("fr"))")
        // o is yes: the seat goes on to wait for the start (the console lists it, below).
        t.type("fr", "o")
        t.start("ja", ["take", file, "--shared", lab.seat, "--room", "lang1", "--seat", "J1"])
        #expect(t.waitFor("ja", "Candidate number:") != nil)
        t.type("ja", "2002")
        t.keys("ja", "Enter")
        #expect(t.waitFor("ja", "Hideki Yukawa さんですか？ y/N") != nil, "\(t.screen("ja"))")
        t.type("ja", "はい")
        // Both are waiting for the proctor's start: the console lists them.
        var json = ""
        for _ in 0..<40 {
            json = carrel(["proctor", "--shared", lab.owner, "--room", "lang1", "--json"]).output
            if json.contains("\"candidate_number\" : \"2001\"") && json.contains("\"candidate_number\" : \"2002\"") { break }
            usleep(250_000)
        }
        #expect(json.contains("\"candidate_number\" : \"2001\"") && json.contains("\"candidate_number\" : \"2002\""), "\(json)")

        // The roster as room show lists it: each candidate, their accommodations, and where they sit.
        let shown = carrel(["room", "show", "lang1", "--shared", lab.owner])
        #expect(shown.output.contains("Candidates:"), "\(shown.output)")
        #expect(shown.output.contains("2001  Marie Curie    language fr; at F1 (not started)"), "\(shown.output)")
        #expect(shown.output.contains("2002  Hideki Yukawa  language ja; at J1 (not started)"), "\(shown.output)")
        let shownJSON = carrel(["room", "show", "lang1", "--json", "--shared", lab.owner]).output
        #expect(shownJSON.contains("\"seated_at\" : \"F1\"") && shownJSON.contains("\"language\" : \"fr\""), "\(shownJSON)")

        // Started, killed and resumed: the receipt still names the candidate with their number.
        t.keys("ja", "C-c")
        t.keys("fr", "Enter")
        #expect(carrel(["proctor", "start", "--shared", lab.owner, "--room", "lang1", "--seat", "F1"]).status == 0)
        #expect(t.waitFor("fr", "verrouillé sur Carrel") != nil, "\(t.screen("fr"))")
        t.keys("fr", "Enter")
        #expect(t.waitFor("fr", "⏱") != nil, "\(t.screen("fr"))")
        #expect(t.killAndResume("fr", in: "again"))
        #expect(t.waitFor("again", "⏱") != nil, "\(t.screen("again"))")
        #expect(t.submitIn("again", yes: "o", asking: "Rendre votre copie", done: "plus verrouillé", leave: false))
        let receipt = t.screen("again")
        #expect(receipt.contains("Marie Curie (2001)"), "the receipt after the resume names the candidate's number: \(receipt)")
    }

    @Test(.timeLimit(.minutes(3)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func aWrongTestIsRefusedAndTheSeatRoleCannotWritePlansOrCommands() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try lab(pg)
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        let other = try t.fixture("spelling.yaml")
        #expect(carrel(["room", "open", "lab2", file, "--shared", lab.owner]).status == 0)
        t.start("wrong", ["take", other, "--shared", lab.seat, "--room", "lab2", "--seat", "C3", "--candidate", "Eve"])
        #expect(t.waitFor("wrong", "this is not the test of room lab2") != nil)
        #expect(t.exitStatus("wrong") == 69)
        let json = carrel(["proctor", "--shared", lab.owner, "--room", "lab2", "--json"]).output
        #expect(json.contains("\"wrong test\""))

        // The seat's role: no plan, no command, no table.
        let refused = carrel(["room", "open", "lab3", file, "--shared", lab.seat])
        #expect(refused.status == 69)
        #expect(refused.output.contains("permission denied"))
        let forged = carrel(["proctor", "end", "--shared", lab.seat, "--room", "lab2"])
        #expect(forged.status == 69)
        #expect(forged.output.contains("permission denied"))

        // A roster with bad lines: every one reported, nothing stored.
        let bad = try roster(t, "candidate,name,extra-time\n1,Ada,\n1,Bob,\n")
        let out = carrel(["room", "open", "lab4", file, "--roster", bad, "--shared", lab.owner])
        #expect(out.status == 65)
        #expect(out.output.contains("\(bad):1: error: unknown column"))
        #expect(out.output.contains("\(bad):3: error: duplicate candidate"))
        #expect(carrel(["room", "show", "lab4", "--shared", lab.owner]).status == 66)

        // No record larger than 4 MB is kept: a seat's password cannot grow the store without bound.
        // (`carrel_publish` is the only writer of the records, and the seat's role may call it.)
        let database = String(lab.owner.split(separator: "/").last?.split(separator: "?").first ?? "")
        let token = String(repeating: "h", count: 40)
        for session in ["huge", "small"] {
            let hello = pg.psql("SELECT carrel_hello('\(session)', '{\"room\":\"lab9\",\"seat\":\"\(session)\"}', '\(token)')",
                                database: database)
            #expect(hello.status == 0, "\(hello.output)")
        }
        let big = pg.psql("""
            CALL carrel_publish_committed(ARRAY['huge', 'small'], ARRAY['\(token)', '\(token)'], ARRAY['', ''], ARRAY[1, 1]::int8[],
              ARRAY['event', 'event'], ARRAY[now(), now()],
              ARRAY[jsonb_build_object('kind', 'x', 'detail', repeat('x', 5000000))::text, '{"kind":"x","detail":"ok"}'], ARRAY['', ''])
            """, database: database)
        #expect(big.status == 0 && big.output.hasPrefix("1|"), "\(big.output)")
        let kept = pg.psql("SELECT string_agg(session, ',' ORDER BY session) FROM carrel_records WHERE session IN ('huge', 'small')",
                           database: database)
        #expect(kept.output.trimmingCharacters(in: .whitespacesAndNewlines) == "small")
    }

    /// The console asks the proctor passphrase once, signs what it sends, and starts a waiting
    /// seat with its session's key; the seat's liveness then verifies in the console.
    @Test(.timeLimit(.minutes(3)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func theConsoleAsksThePassphraseOnceAndSignsWhatItSends() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try lab(pg)
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        #expect(carrel(["room", "open", "lab6", file, "--start", "proctor", "--machines", "any", "--shared", lab.owner]).status == 0)
        t.start("seat", ["take", file, "--shared", lab.seat, "--room", "lab6", "--seat", "F1", "--candidate", "Ada"])
        #expect(t.waitFor("seat", "Waiting for the proctor") != nil)
        let quoted = ([TmuxHarness.carrel, "proctor", "--shared", lab.owner, "--room", "lab6"])
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        t.run(["new-window", "-d", "-n", "console", "sh -c '\"$0\" \"$@\"; echo EXIT=$?; sleep 600' " + quoted.joined(separator: " ")])
        t.run(["resize-window", "-t", "e2e:console", "-x", "80", "-y", "24"])
        #expect(t.waitFor("console", "Proctor passphrase (signs the console's commands") != nil)
        t.type("console", TestProctor.passphrase)
        t.keys("console", "Enter")
        #expect(t.waitFor("console", "Seat F1, Ada: waiting") != nil)
        #expect(!t.screen("console").contains(TestProctor.passphrase), "the passphrase is never shown")
        // The seat shows its key; the console lists the same before it sends anything.
        let shown = try #require(t.waitFor("seat", "Seat key: "))
        let key = try #require(shown.components(separatedBy: "Seat key: ").last?.prefix(19))
        #expect(t.waitFor("console", "seat key \(key)") != nil)
        t.keys("console", "s")
        #expect(t.waitFor("console", "Start 1 seat and send each its keys: F1? y/N") != nil, "\(t.screen("console"))")
        t.keys("console", "y")
        #expect(t.waitFor("seat", "This terminal is now locked to Carrel", timeout: 20) != nil)
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Question 1 of") != nil)
        // Once the console shows the seat running, p pauses it (a seat not running is sent nothing).
        #expect(t.waitFor("console", "Seat F1, Ada: active") != nil, "\(t.screen("console"))")
        t.keys("console", "p")
        #expect(t.waitFor("seat", "Paused by the proctor", timeout: 20) != nil)
        let json = ChildSpawn.run(TmuxHarness.carrel, ["proctor", "--json", "--shared", lab.owner, "--room", "lab6", "--passphrase-stdin"],
                                  input: TestProctor.passphrase + "\n", environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(json.output.contains("\"verified\" : true"), "\(json.output)")
        t.keys("console", "c")
        #expect(t.waitFor("seat", "Question 1 of", timeout: 20) != nil)
        // The seat's integrity report says its records were checked with the proctor's key.
        t.keys("console", "Enter")
        #expect(t.waitFor("console", "Records: every record so far was written by this seat") != nil, "\(t.screen("console"))")
        t.keys("console", "Escape")
        t.keys("console", "q")
        #expect(t.exitStatus("console") == 0)
    }

    /// A sealed room's seat had the questions only. The console, given the sealed test, says the
    /// finished seat's score on its line (the passphrase it asks opens the test), follows a mark
    /// of its essay at once, and without the test says the seat is not scored yet.
    @Test(.timeLimit(.minutes(4)), .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
    func theConsoleScoresASealedRoomsFinishedSeatWithTheSealedTest() throws {
        let pg = try PrivatePostgres.shared()
        let lab = try lab(pg)
        let t = try #require(TmuxHarness())
        let plain = t.root + "/scored-room.yaml"
        try """
            carrel: 1
            id: scored-room
            title: Scored room
            time_limit: 10m
            policy: { multiplexer: allow }
            \(TestProctor.yaml)
            sections:
              - items:
                  - {id: q1, type: choice, prompt: The capital of Canada, choices: [Ottawa, Toronto], answer: Ottawa}
                  - {id: e1, type: essay, prompt: Argue, points: 4}
            """.write(toFile: plain, atomically: true, encoding: .utf8)
        let package = t.root + "/scored-room.carrel"
        let sealed = ChildSpawn.run(TmuxHarness.carrel, ["seal", plain, "--out", package],
                                    input: TestProctor.passphrase + "\n" + TestProctor.passphrase + "\n",
                                    environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(sealed.status == 0, "\(sealed.output)")
        #expect(carrel(["room", "open", "lab7", package, "--start", "proctor", "--machines", "any", "--shared", lab.owner]).status == 0)
        t.start("seat", ["take", package, "--shared", lab.seat, "--room", "lab7", "--seat", "G1", "--candidate", "Ada"])
        #expect(t.waitFor("seat", "Waiting for the proctor") != nil)
        let start = carrel(["proctor", "start", "--shared", lab.owner, "--room", "lab7"])
        #expect(start.status == 0, "\(start.output)")
        #expect(t.waitFor("seat", "This terminal is now locked to Carrel", timeout: 20) != nil)
        t.keys("seat", "Enter")
        #expect(t.waitFor("seat", "Question 1 of 2") != nil)
        let ottawa = try #require(t.shownLetter("Ottawa", in: "seat"))
        t.keys("seat", ottawa)
        #expect(t.waitFor("seat", "✓ saved") != nil)
        t.keys("seat", "Tab")
        #expect(t.waitFor("seat", "Question 2 of 2") != nil)
        t.type("seat", "A reasoned essay")
        #expect(t.waitFor("seat", "✓ saved") != nil)
        #expect(carrel(["proctor", "end", "--shared", lab.owner, "--room", "lab7", "--seat", "G1"]).status == 0)
        #expect(t.waitFor("seat", "The proctor ended this session") != nil)
        let session = try #require(try t.journal().sessions(status: nil).first?.id)

        func console(_ window: String, _ extra: [String]) {
            let quoted = ([TmuxHarness.carrel, "proctor", "--shared", lab.owner, "--room", "lab7"] + extra)
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            t.run(["new-window", "-d", "-n", window, "sh -c '\"$0\" \"$@\"; echo EXIT=$?; sleep 600' " + quoted.joined(separator: " ")])
            t.run(["resize-window", "-t", "e2e:\(window)", "-x", "80", "-y", "24"])
        }
        console("console", ["--test", package])
        #expect(t.waitFor("console", "Proctor passphrase (signs the console's commands and opens the --test files)") != nil)
        t.type("console", TestProctor.passphrase)
        t.keys("console", "Enter")
        // One of 5: the choice right, the essay's 4 points to mark by hand.
        #expect(t.waitFor("console", "score 1 of 5, 4 to mark", timeout: 30) != nil, "\(t.screen("console"))")
        let marked = ChildSpawn.run(TmuxHarness.carrel, ["results", "mark", session, "e1", "3", "--shared", lab.owner,
                                                         "--passphrase-stdin", "--test", package],
                                    input: TestProctor.passphrase + "\n", environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(marked.status == 0, "\(marked.output)")
        #expect(t.waitFor("console", "score 4 of 5", timeout: 20) != nil, "the mark is counted at once: \(t.screen("console"))")
        t.keys("console", "Enter")
        #expect(t.waitFor("console", "Integrity report") != nil)
        #expect(t.screen("console").contains("score 4 of 5"), "the report says the score: \(t.screen("console"))")
        t.keys("console", "Escape")
        t.keys("console", "q")
        #expect(t.exitStatus("console") == 0)

        // Without the test the same seat is not scored yet, never 0.
        console("watch", [])
        #expect(t.waitFor("watch", "Proctor passphrase (signs the console's commands; Enter alone") != nil)
        t.keys("watch", "Enter")
        #expect(t.waitFor("watch", "not scored yet (give --test)", timeout: 30) != nil, "\(t.screen("watch"))")
        #expect(!t.screen("watch").contains("score 0"))
        t.keys("watch", "q")
        #expect(t.exitStatus("watch") == 0)
    }
}
