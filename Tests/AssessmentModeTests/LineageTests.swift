import ModeService
import Testing

/// The lines the kernel's process events keep: a stranger known at its fork however short
/// its life, the owner's descendants allowed, each line reported once.
@Suite struct LineageTests {
    static let student: UInt32 = 1001
    let table = [
        ProcessEntry(pid: 1, parent: 0, uids: [0], start: 1),
        ProcessEntry(pid: 100, parent: 1, uids: [1001], start: 10),  // the kiosk's shell
        ProcessEntry(pid: 200, parent: 100, uids: [1001], start: 20),  // Carrel
        ProcessEntry(pid: 210, parent: 200, uids: [1001], start: 21),  // a helper Carrel runs
        ProcessEntry(pid: 300, parent: 1, uids: [1001], start: 30),  // started before the exam
    ]
    let carrel = ProcessMark(pid: 200, start: 20)

    /// Placed as after lost events, the helper known to be Carrel's.
    func seeded(reported: Set<ProcessMark> = []) -> Lineage {
        var lineage = Lineage(uid: Self.student)
        let strangers = ProcessRule.strangers(table, uid: Self.student, owners: [carrel])
        lineage.seed(table, owner: carrel, strangers: strangers, reported: reported, keep: [210])
        return lineage
    }

    /// At the begin Carrel has started nothing: a child it has then was forked by the program
    /// that became Carrel (exec keeps the pid), a stranger's, not Carrel's.
    @Test func aChildTheOwnerHasAtItsFirstPlacingIsNotItsLine() {
        var lineage = Lineage(uid: Self.student)
        let strangers = ProcessRule.strangers(table, uid: Self.student, owners: [], kept: [ProcessMark(pid: 100, start: 10), carrel])
        lineage.seed(table, owner: carrel, strangers: strangers, reported: [])
        #expect(lineage.lines[200] == .owner)
        guard case .stranger? = lineage.lines[210] else {
            Issue.record("the child present at the begin was taken for Carrel's: \(String(describing: lineage.lines[210]))")
            return
        }
        lineage.apply(ProcessEvent(pid: 211, .fork(parent: 210)))
        #expect(lineage.take().map(\.pid) == [211])
    }

    /// Nothing can be read of a link that forks its successor and ends at once; the events
    /// still make every link one line with the stranger it came from, reported once.
    @Test func aProgramThatForksASuccessorAndEndsIsOneLineReportedOnce() {
        var lineage = seeded(reported: [ProcessMark(pid: 300, start: 30)])
        let nothing: (Int32) -> ProcessEntry? = { _ in nil }
        var found: [Lineage.Found] = []
        var parent: Int32 = 300
        for child in Int32(5000)..<5200 {
            lineage.apply(ProcessEvent(pid: child, .fork(parent: parent)))
            lineage.apply(ProcessEvent(pid: parent, .exit))
            lineage.settle(read: nothing)
            parent = child
            found += lineage.take()
        }
        #expect(found.map(\.pid) == Array(5000..<5200))
        #expect(Set(found.map(\.root)).count == 1 && found.allSatisfy { !$0.new })
        #expect(lineage.lines.count == 3, "the owner, its helper and the last link: \(lineage.lines)")
    }

    @Test func aStrangerNotYetReportedIsReportedAtItsChildsFork() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 400, .fork(parent: 300)))
        let found = lineage.take()
        #expect(found.count == 1 && found[0].pid == 400 && found[0].new)
        #expect(lineage.isReported(300) && lineage.isReported(400))
    }

    /// Below Carrel's helper, every generation is Carrel's while it serves a clipboard (xclip's
    /// process holding the emptied selection), whatever ids it takes.
    @Test func theOwnersDescendantsThatServeAClipboardAreAllowedAtEveryGeneration() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 220, .fork(parent: 210)))
        lineage.apply(ProcessEvent(pid: 230, .fork(parent: 220)))
        lineage.apply(ProcessEvent(pid: 230, .ids(real: 1001, effective: 0)))
        let read = { (pid: Int32) in ProcessEntry(pid: pid, parent: pid - 10, uids: [1001, 1001], start: UInt64(pid)) }
        lineage.settle(read: read, serves: { _ in true })
        #expect(lineage.take().isEmpty)
        #expect(lineage.lines[220] == .owner && lineage.lines[230] == .owner)
        lineage.apply(ProcessEvent(pid: 240, .fork(parent: 230)))
        lineage.settle(read: read, serves: { _ in true })
        #expect(lineage.lines[240] == .owner)
    }

    /// A child of a process the events do not place (the kiosk's shell, init after
    /// CLONE_PARENT) is read: the account's is a stranger, another's is left alone, one that
    /// ended before it was read is nobody's.
    @Test func aChildOfAnUnplacedParentIsReadAndPlacedByItsIds() {
        var lineage = seeded()
        let read: (Int32) -> ProcessEntry? = { pid in
            switch pid {
            case 500: ProcessEntry(pid: 500, parent: 1, uids: [1001], start: 50)
            case 510: ProcessEntry(pid: 510, parent: 1, uids: [0], start: 51)
            case 520: ProcessEntry(pid: 520, parent: 100, uids: [1001, 1002], start: 52)  // a setuid program of another account
            case 530: ProcessEntry(pid: 530, parent: 210, uids: [1001], start: 53)
            default: nil
            }
        }
        for pid: Int32 in [500, 510, 520, 530, 540] { lineage.apply(ProcessEvent(pid: pid, .fork(parent: 1))) }
        lineage.apply(ProcessEvent(pid: 540, .exit))
        lineage.settle(read: read)
        let found = lineage.take()
        #expect(found.map(\.pid) == [500, 520])
        #expect(found.allSatisfy(\.new) && found[0].root != found[1].root)
        #expect(lineage.lines[510] == nil && lineage.lines[540] == nil)
        #expect(lineage.lines[530] == .owner, "/proc names the owner's helper as its parent")
    }

    /// A program of the account that the events first see as a child of a process they do
    /// not place, forking faster than the events are read: every link but the newest has ended
    /// when the batch is settled; the newest is read, and the whole chain is one stranger's
    /// line from then on. While no link can be read the chain waits, never dropped while the
    /// events say a link lives.
    @Test func aChainFasterThanTheEventsIsPlacedByItsNewestLink() {
        var lineage = seeded()
        var parent: Int32 = 100
        for child in Int32(8000)..<8050 {
            lineage.apply(ProcessEvent(pid: child, .fork(parent: parent)))
            lineage.apply(ProcessEvent(pid: parent == 100 ? 0 : parent, .exit))
            parent = child
        }
        lineage.settle(read: { _ in nil })
        #expect(lineage.take().isEmpty)
        guard case .pending? = lineage.lines[8049] else {
            Issue.record("the newest link was dropped: \(String(describing: lineage.lines[8049]))")
            return
        }
        #expect(lineage.lines.count == 4, "the owner, its helper, the stranger from before, the newest link: \(lineage.lines)")
        lineage.apply(ProcessEvent(pid: 8050, .fork(parent: 8049)))
        lineage.apply(ProcessEvent(pid: 8049, .exit))
        var asked: [Int32] = []
        lineage.settle(read: { pid in
            asked.append(pid)
            return pid == 8050 ? ProcessEntry(pid: 8050, parent: 100, uids: [1001], start: 805) : nil
        })
        #expect(asked == [8050, 100], "the newest link, then its parent in /proc (the kiosk's shell, no line)")
        let found = lineage.take()
        #expect(found.map(\.pid) == [8050] && found[0].new)
        lineage.apply(ProcessEvent(pid: 8051, .fork(parent: 8050)))
        #expect(lineage.take().map(\.new) == [false])
    }

    /// A process of another account that takes the student's ids (a cron job, `su`) is a
    /// stranger from that moment.
    @Test func takingTheAccountsIdsMakesAStranger() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 600, .ids(real: 1001, effective: 1001)))
        lineage.apply(ProcessEvent(pid: 610, .ids(real: 1002, effective: 1002)))
        // Root's login program reading the account's files with its effective id, or `runuser`
        // borrowing its real id for a moment, is root's.
        lineage.apply(ProcessEvent(pid: 620, .ids(real: 0, effective: 1001)))
        lineage.apply(ProcessEvent(pid: 630, .ids(real: 1001, effective: 0)))
        let found = lineage.take()
        #expect(found.map(\.pid) == [600] && found[0].new)
    }

    /// A pid used again after its process ended is judged afresh: a stranger's old pid in a
    /// new process of the account is a new line, reported again.
    @Test func aPidUsedAgainIsJudgedAfresh() {
        var lineage = seeded(reported: [ProcessMark(pid: 300, start: 30)])
        lineage.apply(ProcessEvent(pid: 300, .exit))
        lineage.apply(ProcessEvent(pid: 300, .fork(parent: 1)))
        lineage.settle(read: { _ in ProcessEntry(pid: 300, parent: 1, uids: [1001], start: 99) })
        let found = lineage.take()
        #expect(found.count == 1 && found[0].new)
        lineage.apply(ProcessEvent(pid: 210, .exit))
        lineage.apply(ProcessEvent(pid: 210, .fork(parent: 300)))
        #expect(lineage.take().map(\.new) == [false], "the helper's old pid, now the stranger's child")
    }

    /// A stranger found by a look at /proc becomes a reported line: its children are not
    /// reported again.
    @Test func aStrangerAdoptedFromALookIsNotReportedAgain() {
        var lineage = seeded()
        lineage.adopt(300)
        lineage.apply(ProcessEvent(pid: 700, .fork(parent: 300)))
        #expect(lineage.take().map(\.new) == [false])
        lineage.adopt(210)
        #expect(lineage.lines[210] == .owner)
    }
}

extension LineageTests {
    /// After events were lost a child of the owner's helper reaches the lines unplaced: /proc
    /// names its ancestors, and the nearest with a line decides. Carrel's helpers are not
    /// taken for strangers because a fork went unseen.
    @Test func aProcessWhoseForkWasMissedTakesTheLineOfItsNearestPlacedAncestor() {
        var lineage = seeded()
        let read: (Int32) -> ProcessEntry? = { pid in
            switch pid {
            case 900: ProcessEntry(pid: 900, parent: 211, uids: [1001], start: 90)
            case 211: ProcessEntry(pid: 211, parent: 210, uids: [1001], start: 22)  // its fork was not seen
            case 910: ProcessEntry(pid: 910, parent: 311, uids: [1001], start: 91)
            case 311: ProcessEntry(pid: 311, parent: 300, uids: [1001], start: 31)
            default: nil
            }
        }
        lineage.apply(ProcessEvent(pid: 900, .fork(parent: 211)))
        lineage.apply(ProcessEvent(pid: 910, .fork(parent: 311)))
        lineage.settle(read: read)
        #expect(lineage.lines[900] == .owner)
        let found = lineage.take()
        #expect(found.map(\.pid) == [910] && found[0].new, "a grandchild of the stranger from before, in its line")
        #expect(lineage.lines[910] == lineage.lines[300])
    }
}
