import ModeService
import Testing

/// What a stranger's line runs, and a stranger that lives a millisecond: each is said, by the
/// kernel's name for it when nothing of it is left to read.
extension LineageTests {
    /// A cron job's child takes the account's ids, runs `/bin/true` and ends, all between two
    /// reads of the events: its line is still new, and it is named.
    @Test func aStrangerThatEndsWithinOneBatchIsStillTakenWithItsName() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 1200, .fork(parent: 1)))
        lineage.apply(ProcessEvent(pid: 1200, .ids(real: 1001, effective: 1001)))
        lineage.apply(ProcessEvent(pid: 1200, .exec))
        lineage.apply(ProcessEvent(pid: 1200, .name("true")))
        lineage.apply(ProcessEvent(pid: 1200, .exit))
        lineage.settle(read: { _ in nil })
        let found = lineage.take()
        #expect(found.count == 1, "\(found)")
        #expect(found.first.map { $0.pid == 1200 && $0.new && $0.ended && $0.name == "true" } == true, "\(found)")
        #expect(lineage.takePrograms().map(\.pid) == [1200], "its program too (the watcher says one incident for both)")
        #expect(lineage.names.isEmpty, "an ended process's name is dropped once taken")
    }

    /// A shell reported once (started before the exam) runs programs: each is taken, once a
    /// process, the last it ran (a chain of execs says where it got to), named as read at its
    /// exec (a rename later, or a blank one, does not change that); a fork that runs nothing
    /// new is no program.
    @Test func eachProgramAReportedLineRunsIsTakenOnceAProcess() {
        var lineage = seeded(reported: [ProcessMark(pid: 300, start: 30)])
        lineage.apply(ProcessEvent(pid: 1300, .fork(parent: 300)))
        lineage.apply(ProcessEvent(pid: 1300, .exec))
        lineage.apply(ProcessEvent(pid: 1300, .name("python3")))
        lineage.apply(ProcessEvent(pid: 1301, .fork(parent: 300)))
        for step in ["chain", "chain", "notes"] {
            lineage.apply(ProcessEvent(pid: 1301, .exec))
            lineage.apply(ProcessEvent(pid: 1301, .name(step)))
        }
        lineage.apply(ProcessEvent(pid: 1301, .name("innocent")))
        lineage.apply(ProcessEvent(pid: 1300, .name("")))
        lineage.apply(ProcessEvent(pid: 1302, .fork(parent: 300)))
        lineage.apply(ProcessEvent(pid: 1301, .exit))
        #expect(lineage.take().map(\.new) == [false, false, false])
        let programs = lineage.takePrograms()
        #expect(programs.map(\.pid) == [1300, 1301])
        #expect(programs.map(\.name) == ["python3", "notes"])
        #expect(programs.map(\.ended) == [false, true])
        #expect(lineage.takePrograms().isEmpty, "each once")
        #expect(lineage.names[1301] == nil && lineage.names[1300] == "python3")
    }

    /// A program that forks a child and at once execs something harmless: the child goes on
    /// running the first program, and is taken as a program of the line too.
    @Test func aChildLeftRunningByAParentThatExecedIsTaken() {
        var lineage = seeded(reported: [ProcessMark(pid: 300, start: 30)])
        lineage.apply(ProcessEvent(pid: 1800, .fork(parent: 300)))
        lineage.apply(ProcessEvent(pid: 1800, .exec))
        lineage.apply(ProcessEvent(pid: 1801, .fork(parent: 1800)))
        lineage.apply(ProcessEvent(pid: 1800, .exec))
        lineage.apply(ProcessEvent(pid: 1800, .name("sleep 40")))
        _ = lineage.take()
        let programs = lineage.takePrograms()
        #expect(programs.map(\.pid) == [1800, 1801] && programs.map(\.leftBehind) == [false, true], "\(programs)")
        // Across batches too: forked in one, the parent's exec in the next.
        lineage.apply(ProcessEvent(pid: 1802, .fork(parent: 1800)))
        _ = lineage.take()
        #expect(lineage.takePrograms().isEmpty)
        lineage.apply(ProcessEvent(pid: 1800, .exec))
        #expect(lineage.takePrograms().map(\.pid) == [1800, 1802])
    }

    /// The owner's programs (its helpers) are nobody's business, and nothing of theirs is kept.
    @Test func theOwnersProgramsAreNotTakenNorNamed() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 1400, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 1400, .exec))
        lineage.apply(ProcessEvent(pid: 1400, .name("xclip")))
        lineage.settle(read: { ProcessEntry(pid: $0, parent: 200, uids: [Self.student], start: 1) }, helper: { $0 == 1400 })
        #expect(lineage.take().isEmpty && lineage.takePrograms().isEmpty)
        #expect(lineage.names.isEmpty)
    }

    /// A process the events could not place at once runs a program before it is read: once
    /// placed in a stranger's line, the program is taken.
    @Test func aProgramRunBeforeItsProcessWasPlacedIsTakenOncePlaced() {
        var lineage = seeded(reported: [ProcessMark(pid: 300, start: 30)])
        lineage.apply(ProcessEvent(pid: 1500, .fork(parent: 1)))
        lineage.apply(ProcessEvent(pid: 1500, .exec))
        lineage.apply(ProcessEvent(pid: 1500, .name("cat")))
        lineage.settle(read: { pid in pid == 1500 ? ProcessEntry(pid: 1500, parent: 300, uids: [1001], start: 150) : nil })
        #expect(lineage.take().map(\.new) == [false])
        #expect(lineage.takePrograms().map(\.name) == ["cat"])
    }

    /// A pid used again is not named by the process that had it before.
    @Test func aPidUsedAgainStartsWithoutTheOldName() {
        var lineage = seeded(reported: [ProcessMark(pid: 300, start: 30)])
        lineage.apply(ProcessEvent(pid: 1600, .fork(parent: 300)))
        lineage.apply(ProcessEvent(pid: 1600, .exec))
        lineage.apply(ProcessEvent(pid: 1600, .name("secret")))
        lineage.apply(ProcessEvent(pid: 1600, .exit))
        lineage.apply(ProcessEvent(pid: 1600, .fork(parent: 1)))
        lineage.apply(ProcessEvent(pid: 1600, .ids(real: 1001, effective: 1001)))
        let found = lineage.take()
        #expect(found.last.map { $0.pid == 1600 && $0.name == nil && !$0.ended } == true, "\(found)")
        #expect(found.first.map { $0.pid == 1600 && $0.name == "secret" && $0.ended } == true, "the old one keeps its own: \(found)")
    }

    /// A line placed at the begin that runs a program before a look reported it: that
    /// program is the line's first incident (`new`), not a second one after the look's.
    @Test func aProgramOfALineNotYetReportedIsItsFirstIncident() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 300, .exec))
        lineage.apply(ProcessEvent(pid: 300, .name("cat notes")))
        let programs = lineage.takePrograms()
        #expect(programs.map(\.new) == [true] && programs.map(\.name) == ["cat notes"])
        #expect(lineage.isReported(300))
        lineage.apply(ProcessEvent(pid: 300, .exec))
        #expect(lineage.takePrograms().map(\.new) == [false])
    }

    /// A program of the account forked by a process the lines do not place (a user service
    /// manager of the student's) that ends before it can be read is still a new line.
    @Test func aChainThatEndedUnreadIsAStrangersWhenItsForkerIsTheAccounts() {
        var lineage = seeded()
        let read: (Int32) -> ProcessEntry? = { pid in
            switch pid {
            case 50: ProcessEntry(pid: 50, parent: 1, uids: [1001], start: 5)  // the student's service manager
            case 60: ProcessEntry(pid: 60, parent: 1, uids: [0], start: 6)  // root's
            default: nil
            }
        }
        lineage.apply(ProcessEvent(pid: 1700, .fork(parent: 50)))
        lineage.apply(ProcessEvent(pid: 1700, .exec))
        lineage.apply(ProcessEvent(pid: 1700, .exit))
        lineage.apply(ProcessEvent(pid: 1710, .fork(parent: 60)))
        lineage.apply(ProcessEvent(pid: 1710, .exit))
        lineage.settle(read: read)
        let found = lineage.take()
        #expect(found.map(\.pid) == [1700] && found.allSatisfy { $0.new && $0.ended }, "\(found)")
    }

    /// Only an exec whose process is still that process at the end of the batch is read, once.
    @Test func onlyTheLastExecOfAProcessThatStillRunsIsRead() {
        let batch = [ProcessEvent(pid: 1, .exec), ProcessEvent(pid: 2, .exec), ProcessEvent(pid: 1, .exec),
                     ProcessEvent(pid: 3, .exec), ProcessEvent(pid: 2, .exit), ProcessEvent(pid: 3, .fork(parent: 9)),
                     ProcessEvent(pid: 3, .exec)]
        #expect(Lineage.readableExecs(batch) == [2, 6])
    }
}

/// The incidents a burst of processes makes: bounded, and counted past the bound.
@Suite struct BurstTests {
    @Test func linesAndProgramsHaveABudgetEachAndTheRestIsCountedOnce() {
        var burst = ProcessRule.Burst(limit: 3)
        #expect((0..<5).map { _ in burst.take(now: 100, program: true) } == [true, true, true, false, false])
        let line = burst.take(now: 101, program: false)
        #expect(line, "a loop of programs does not hide a new line")
        let early = burst.leftOut(now: 105)
        #expect(early == nil, "said once the ten seconds are over")
        for _ in 0..<10_000 { _ = burst.take(now: 106, program: true) }
        let stillEarly = burst.leftOut(now: 109)
        #expect(stillEarly == nil, "however many: no incident before then")
        let counted = burst.leftOut(now: 110), again = burst.leftOut(now: 111)
        #expect(counted == 10_002 && again == nil)
        let next = burst.take(now: 111, program: true)
        #expect(next, "a new ten seconds")
    }
}

/// A process told by the file it runs as well as by its command line, which it can change.
@Suite struct DescribeProcessTests {
    @Test func aLineThatNamesAnotherProgramSaysTheFile() {
        #expect(ProcessRule.describe(command: "carrel 900", executable: "/home/ada/hide", system: false)
            == "carrel 900 (runs /home/ada/hide)")
        #expect(ProcessRule.describe(command: "[]", executable: "/tmp/x", system: false) == "[] (runs /tmp/x)")
        #expect(ProcessRule.describe(command: "[]", executable: nil, system: false) == "[it ended before it could be read]",
                "nothing left of it: on its way out")
        #expect(ProcessRule.describe(command: "bash", executable: "/home/ada/bash", system: false) == "bash (runs /home/ada/bash)",
                "a copy named like a shell")
    }

    @Test func aLineThatNamesItsFileIsLeftAlone() {
        #expect(ProcessRule.describe(command: "-bash", executable: "/usr/bin/bash", system: true) == "-bash")
        #expect(ProcessRule.describe(command: "/home/ada/notes.sh 3", executable: "/home/ada/notes.sh", system: false)
            == "/home/ada/notes.sh 3")
        #expect(ProcessRule.describe(command: "sleep 31", executable: nil, system: false) == "sleep 31")
        #expect(ProcessRule.describe(command: "/bin/sleep 31", executable: "/usr/bin/sleep", system: true) == "/bin/sleep 31")
        #expect(ProcessRule.describe(command: "/bin/sleep 31", executable: "/usr/bin/sleep", system: false)
            == "/bin/sleep 31 (runs /usr/bin/sleep)", "a name borrowed by a file of the student's")
    }

    /// A process gone before it could be read: by what was read at its exec, else by the files
    /// the kernel said it opened to run; the files are added when the line does not name them.
    @Test func aProcessGoneIsToldByWhatIsKnown() {
        #expect(ProcessRule.gone(name: nil, files: []) == "[it ended before it could be read]")
        #expect(ProcessRule.gone(name: nil, files: ["/usr/bin/cat"]) == "/usr/bin/cat (it ended at once)")
        #expect(ProcessRule.gone(name: nil, files: ["/home/s1/x.sh", "/usr/bin/dash"]) == "/home/s1/x.sh then /usr/bin/dash (it ended at once)")
        #expect(ProcessRule.gone(name: "cat notes", files: ["/usr/bin/cat"]) == "cat notes (it ended at once)")
        #expect(ProcessRule.gone(name: "[sleep]", files: ["/tmp/hide"]) == "[sleep] (ran /tmp/hide) (it ended at once)")
        #expect(ProcessRule.gone(name: nil, files: ["/usr/bin/setpriv", "/usr/bin/true"]) == "/usr/bin/true (it ended at once)",
                "where a chain got to")
        #expect(ProcessRule.gone(name: "/bin/true x", files: ["/usr/bin/true"]) == "/bin/true x (it ended at once)")
        #expect(ProcessRule.gone(name: "[true]", files: ["/usr/bin/true"]) == "[true] (it ended at once)")
        let hostile = ProcessRule.gone(name: nil, files: ["/tmp/\u{1B}]0;x\u{07}"])
        #expect(!hostile.contains("\u{1B}") && !hostile.contains("\u{07}"), "\(hostile)")
    }

    @Test func theFilesNameIsMadeSafeToShow() {
        let shown = ProcessRule.describe(command: "x", executable: "/tmp/\u{1B}[2Jevil\nname", system: false)
        #expect(!shown.contains("\u{1B}") && !shown.contains("\n"), "\(shown)")
        #expect(shown.hasPrefix("x (runs /tmp/"))
    }
}
