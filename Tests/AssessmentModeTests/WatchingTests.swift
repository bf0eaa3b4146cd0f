import AssessmentMode
import ModeService
import Testing

/// The watchers' rules over a table of processes: who counts as a stranger, which sessions
/// are other logins, which USB names are new, how text from the machine is shown.
@Suite struct WatchingTests {
    // init (1) ─ login (100, root) ─ bash (200, 1001) ─ carrel (300, 1001) ─ editor (400, 1001) ─ helper (401)
    //                                                 └ python (500, 1001)
    //          ─ cron (600, root) ─ job (700, 1001);  sshd (800, root) ─ bash (900, 1002, pts/1)
    let table = [
        ProcessEntry(pid: 1, parent: 0, uids: [0, 0], start: 1),
        ProcessEntry(pid: 100, parent: 1, uids: [0, 0], start: 10, session: 100, tty: 0x401),
        ProcessEntry(pid: 200, parent: 100, uids: [1001, 1001], start: 20, session: 100, tty: 0x401, command: "-bash"),
        ProcessEntry(pid: 300, parent: 200, uids: [1001, 1001], start: 30, session: 100, tty: 0x401, command: "carrel take"),
        ProcessEntry(pid: 400, parent: 300, uids: [1001, 1001], start: 40, session: 100, tty: 0x401, command: "vi"),
        ProcessEntry(pid: 401, parent: 400, uids: [1001, 1001], start: 41, session: 100, tty: 0x401, command: "sh"),
        ProcessEntry(pid: 500, parent: 200, uids: [1001, 1001], start: 50, session: 100, tty: 0x401, command: "python3 -m http.server"),
        ProcessEntry(pid: 600, parent: 1, uids: [0, 0], start: 60),
        ProcessEntry(pid: 700, parent: 600, uids: [1001, 1001], start: 70, session: 600, command: "sh job.sh"),
        ProcessEntry(pid: 701, parent: 600, uids: [1001, 1001], start: 71, session: 600, zombie: true),
        ProcessEntry(pid: 800, parent: 1, uids: [0, 0], start: 80, session: 800),
        ProcessEntry(pid: 900, parent: 800, uids: [1002, 1002], start: 90, session: 900, tty: 0x8801, command: "-bash"),
        ProcessEntry(pid: 901, parent: 900, uids: [1002, 1002], start: 91, session: 900, command: "sleep 100"),
    ]
    let carrel = ProcessMark(pid: 300, start: 30)

    @Test func theOwnerItsAncestorsAndDescendantsAreAllowedOthersReported() {
        let strangers = ProcessRule.strangers(table, uid: 1001, owners: [carrel])
        #expect(strangers.map(\.pid) == [500, 700])
    }

    @Test func eachProcessIsReportedOnce() {
        let reported: Set<ProcessMark> = [ProcessMark(pid: 500, start: 50)]
        #expect(ProcessRule.strangers(table, uid: 1001, owners: [carrel], reported: reported).map(\.pid) == [700])
        // The same pid started again is another process.
        var again = table
        again[6].start = 55
        #expect(ProcessRule.strangers(again, uid: 1001, owners: [carrel], reported: reported).map(\.pid) == [500, 700])
    }

    @Test func anOwnerWhosePidWasReusedAllowsNothing() {
        let strangers = ProcessRule.strangers(table, uid: 1001, owners: [ProcessMark(pid: 300, start: 31)])
        #expect(strangers.map(\.pid) == [200, 300, 400, 401, 500, 700])
    }

    @Test func whileInterruptedOnlyTheFormerOwnersAncestorsAndAResumingCarrelAreAllowed() {
        let kept: Set<ProcessMark> = [ProcessMark(pid: 200, start: 20), ProcessMark(pid: 100, start: 10)]
        var after = table.filter { $0.pid != 300 }
        after[3].parent = 1
        #expect(ProcessRule.strangers(after, uid: 1001, owners: [], kept: kept).map(\.pid) == [400, 401, 500, 700])
        after.append(ProcessEntry(pid: 950, parent: 200, uids: [1001, 1001], start: 95, command: "carrel resume"))
        let resuming = ProcessRule.strangers(after, uid: 1001, owners: [ProcessMark(pid: 950, start: 95)], kept: kept)
        #expect(resuming.map(\.pid) == [400, 401, 500, 700])
    }

    /// A process is the account's by its real user id, unless it runs as root: root's login
    /// programs borrowing the account's real or effective id for a moment are root's, and root
    /// is trusted (ending them would break the machine's logins).
    @Test func aProcessIsTheAccountsByItsRealUid() {
        var setuid = table
        setuid.append(ProcessEntry(pid: 1000, parent: 1, uids: [1001, 1002], start: 100, command: "a setuid game"))
        setuid.append(ProcessEntry(pid: 1010, parent: 1, uids: [0, 1001], start: 101, command: "login reading ~/.hushlogin"))
        setuid.append(ProcessEntry(pid: 1020, parent: 1, uids: [1001, 0], start: 102, command: "runuser -l s1 (setreuid for a moment)"))
        #expect(ProcessRule.strangers(setuid, uid: 1001, owners: [carrel]).map(\.pid) == [500, 700, 1000])
    }

    @Test func otherLoginSessionsOfStudentsAreFound() {
        let others = SessionRule.others(table, owners: [carrel]) { $0 >= 1000 }
        #expect(others.map(\.session) == [900])
        #expect(others.first?.members.map(\.pid) == [900, 901] && others.first?.uid == 1002)
        #expect(SessionRule.others(table, owners: [carrel]) { $0 >= 1000 && $0 != 1002 }.isEmpty)
    }

    @Test func theIncidentNamesTheProcessAndItsCommandLineSafely() {
        let entry = ProcessEntry(pid: 4242, parent: 1, uids: [1001, 1001], start: 1, command: "python3 -c '\u{1b}[2J\u{7}'")
        let incident = ProcessRule.incident(entry, account: "carrel1", action: "ended", at: 12)
        #expect(incident.kind == .process && incident.action == "ended" && incident.at == 12)
        #expect(incident.detail == "process 4242 of carrel1: python3 -c '?[2J?'")
        let long = Sanitise.text(String(repeating: "a", count: 500))
        #expect(long.count == 200 && long.hasSuffix("…"))
        #expect(Sanitise.text("tab\there\nnew\u{202E}line") == "tab?here?new?line")
    }

    @Test func newUSBDevicesAreTheNewDevicesNotInterfacesOrHubs() {
        let known: Set<String> = ["usb1", "1-0:1.0", "1-1"]
        #expect(DeviceRule.added(known.union(["1-2", "1-2:1.0", "usb2", "2-1.4"]), since: known) == ["1-2", "2-1.4"])
        #expect(DeviceRule.added(known, since: known).isEmpty)
    }

    @Test(arguments: [("db.lab.example", true), ("10.0.0.5", true), ("fd00::1", true), ("-x", false), ("a b", false), ("a;b", false),
                      ("", false), ("$(reboot)", false)])
    func storeHostsAreNamesOrAddresses(host: String, fine: Bool) {
        #expect(ModeEngine.isHost(host) == fine)
    }
}

extension WatchingTests {
    @Test func aStrangerIsActedOnAtTheSecondLookOnly() {
        let first = ProcessRule.confirm([table[6], table[8]], suspects: [])
        #expect(first.confirmed.isEmpty && first.suspects == [table[6].mark, table[8].mark])
        // 500 is still there; 700 has gone (or became Carrel); 901 is new.
        let second = ProcessRule.confirm([table[6], table[12]], suspects: first.suspects)
        #expect(second.confirmed.map(\.pid) == [500] && second.suspects == [table[12].mark])
    }
}

/// What a student tried: a program that forks a successor and exits between two looks, and a
/// program of theirs between the login and Carrel that holds the exam's terminal.
@Suite struct WatchingAttackTests {
    let base = WatchingTests().table
    let carrel = ProcessMark(pid: 300, start: 30)

    @Test func whileACarrelOwnsTheModeAStrangerIsActedOnAtFirstSight() {
        // Generation after generation: each is seen once and never again.
        var suspects = Set<ProcessMark>()
        var acted: [Int32] = []
        for generation in Int32(0)..<5 {
            let phoenix = ProcessEntry(pid: 2000 + generation, parent: 1, uids: [1001, 1001], start: UInt64(2000 + generation), command: "phoenix")
            let strangers = ProcessRule.strangers(base + [phoenix], uid: 1001, owners: [carrel]).filter { $0.pid >= 2000 }
            let (confirmed, next) = ProcessRule.confirm(strangers, suspects: suspects, live: true)
            suspects = next
            acted += confirmed.map(\.pid)
        }
        #expect(acted == [2000, 2001, 2002, 2003, 2004], "each generation at once")
        // Interrupted (no live owner): a second look first, as before.
        let once = ProcessEntry(pid: 3000, parent: 200, uids: [1001, 1001], start: 3000)
        let first = ProcessRule.confirm([once], suspects: [], live: false)
        #expect(first.confirmed.isEmpty && first.suspects == [once.mark])
        #expect(ProcessRule.confirm([once], suspects: first.suspects, live: false).confirmed.map(\.pid) == [3000])
    }

    @Test func aProgramOfTheStudentsBetweenTheLoginAndCarrelIsReportedAShellIsNot() {
        // login (100, root) ─ bash (200) ─ python wrap.py (250) ─ carrel (300)
        var table = base.filter { $0.pid != 300 }
        table.append(ProcessEntry(pid: 250, parent: 200, uids: [1001, 1001], start: 25, command: "python3 wrap.py"))
        table.append(ProcessEntry(pid: 300, parent: 250, uids: [1001, 1001], start: 30, command: "carrel take"))
        let programs: [Int32: String] = [200: "bash", 250: "python3.11", 100: "login", 1: "systemd"]
        let found = ProcessRule.strangeAncestors(table, uid: 1001, owner: carrel, reported: [], program: { programs[$0] })
        #expect(found.map(\.pid) == [250])
        #expect(ProcessRule.strangeAncestors(table, uid: 1001, owner: carrel, reported: [found[0].mark], program: { programs[$0] }).isEmpty,
                "once")
        // Renaming its command line does not make a program a shell: its file is what counts.
        #expect(ProcessRule.strangeAncestors(base, uid: 1001, owner: carrel, reported: [], program: { programs[$0] }).isEmpty)
        // A program that is not an installed one (a copy of python named bash in the student's
        // folder: the service names it nil) is reported too.
        let copied = ProcessRule.strangeAncestors(base, uid: 1001, owner: carrel, reported: [], program: { $0 == 200 ? nil : programs[$0] })
        #expect(copied.map(\.pid) == [200])
    }
}

/// A command line read in the middle of an exec: the kernel shows none for a moment.
@Suite struct SettledCommandLineTests {
    @Test func aLineEmptyForAMomentIsReadAgain() {
        var reads: [String?] = [nil, nil, "/bin/sleep 31"]
        var pauses = 0
        let line = ProcessRule.settledCommandLine(read: { reads.removeFirst() }, alive: { true }, pause: { pauses += 1; return true })
        #expect(line == "/bin/sleep 31" && pauses == 2)
    }

    @Test func aProcessThatKeepsNoneIsReadAtMostTriesTimes() {
        var count = 0, pauses = 0
        let line = ProcessRule.settledCommandLine(tries: 8, read: { count += 1; return nil }, alive: { true }, pause: { pauses += 1; return true })
        #expect(line == nil && count == 8 && pauses == 7)
    }

    @Test func aProcessThatEndedIsNotWaitedFor() {
        var count = 0
        let line = ProcessRule.settledCommandLine(read: { count += 1; return nil }, alive: { false }, pause: { true })
        #expect(line == nil && count == 1)
    }

    @Test func aReadableLineIsNotReadTwice() {
        var count = 0
        let line = ProcessRule.settledCommandLine(read: { count += 1; return "carrel take" }, alive: { true }, pause: { true })
        #expect(line == "carrel take" && count == 1)
    }

    @Test func noMorePausesThanTheBudgetAllowsInASecond() {
        var budget = ProcessRule.WaitBudget(limit: 3)
        var count = 0
        let line = ProcessRule.settledCommandLine(read: { count += 1; return nil }, alive: { true },
                                                  pause: { budget.take(now: 10.2) })
        #expect(line == nil && count == 4)
        // Spent for this second: the next line is read once; the next second has its own.
        count = 0
        _ = ProcessRule.settledCommandLine(read: { count += 1; return nil }, alive: { true }, pause: { budget.take(now: 10.9) })
        #expect(count == 1)
        let nextSecond = budget.take(now: 11.0)
        #expect(nextSecond)
    }
}
