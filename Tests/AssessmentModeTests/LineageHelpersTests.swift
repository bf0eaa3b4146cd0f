import ModeService
import Testing

/// Carrel's descendants are Carrel's only while they run what Carrel runs (its clipboard
/// helpers): a helper made to run another program — a tmux client obeys the server it connects
/// to, and a student can put a server of their own on the socket Carrel clears — is a stranger,
/// and so is all it forked since.
@Suite struct LineageHelpersTests {
    static let student: UInt32 = 1001
    let carrel = ProcessMark(pid: 200, start: 20)
    let table = [
        ProcessEntry(pid: 1, parent: 0, uids: [0], start: 1),
        ProcessEntry(pid: 100, parent: 1, uids: [1001], start: 10),  // the login's shell
        ProcessEntry(pid: 200, parent: 100, uids: [1001], start: 20),  // Carrel
    ]

    func seeded() -> Lineage {
        var lineage = Lineage(uid: Self.student)
        lineage.seed(table, owner: carrel, strangers: [], reported: [])
        return lineage
    }

    /// What /proc says of the processes this test makes: every one the student's, alive.
    func read(_ pid: Int32) -> ProcessEntry? {
        ProcessEntry(pid: pid, parent: 200, uids: [Self.student, Self.student], start: UInt64(pid))
    }

    @Test func aHelperCarrelRunsStaysCarrels() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 300, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 300, .exec))
        lineage.settle(read: read, helper: { $0 == 300 })
        #expect(lineage.lines[300] == .owner)
        #expect(lineage.take().isEmpty)
        // A helper's own child is Carrel's only while it serves a clipboard (xclip's).
        lineage.apply(ProcessEvent(pid: 301, .fork(parent: 300)))
        lineage.settle(read: read, helper: { _ in true }, serves: { $0 == 301 })
        #expect(lineage.lines[301] == .owner)
        #expect(lineage.take().isEmpty)
    }

    /// A helper made to start a server of its own (a tmux client that finds no server forks
    /// one, which reads the student's settings and runs without any exec) is no helper.
    @Test func aServerAHelperForksIsAStranger() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 340, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 340, .exec))
        lineage.settle(read: read, helper: { _ in true })
        #expect(lineage.lines[340] == .owner)
        lineage.apply(ProcessEvent(pid: 341, .fork(parent: 340)))
        lineage.apply(ProcessEvent(pid: 342, .fork(parent: 341)))
        lineage.apply(ProcessEvent(pid: 341, .exit))
        lineage.settle(read: read, helper: { _ in true }, serves: { _ in false })
        guard case .stranger? = lineage.lines[342] else {
            Issue.record("the server a helper forked was left Carrel's: \(String(describing: lineage.lines[342]))")
            return
        }
        #expect(lineage.take().map(\.pid) == [342])
        // Carrel's own children are Carrel's at their fork (their programs are looked at).
        lineage.apply(ProcessEvent(pid: 350, .fork(parent: 200)))
        #expect(lineage.lines[350] == .owner)
    }

    @Test func aHelperMadeToRunAnotherProgramIsAStrangerWithAllItForks() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 300, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 300, .exec))
        lineage.settle(read: read, helper: { $0 == 300 })
        // The tmux client told by the server to run the student's program: it forks twice,
        // the first child starting its own session, and the client returns to Carrel.
        lineage.apply(ProcessEvent(pid: 300, .exec))
        lineage.apply(ProcessEvent(pid: 302, .fork(parent: 300)))
        lineage.apply(ProcessEvent(pid: 303, .fork(parent: 302)))
        lineage.apply(ProcessEvent(pid: 302, .exit))
        lineage.apply(ProcessEvent(pid: 300, .exit))
        lineage.settle(read: read, helper: { _ in false })
        guard case let .stranger(root)? = lineage.lines[303] else {
            Issue.record("the program's grandchild was left Carrel's: \(String(describing: lineage.lines[303]))")
            return
        }
        let found = lineage.take()
        #expect(found.map(\.pid) == [303] && found.allSatisfy { $0.root == root })
        #expect(found.first?.new == true, "a new line: an incident")
    }

    @Test func aChildOfCarrelThatRunsAnythingButAHelperIsAStranger() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 310, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 310, .exec))
        lineage.settle(read: read, helper: { _ in false })
        guard case .stranger? = lineage.lines[310] else {
            Issue.record("Carrel's child running another program was left Carrel's")
            return
        }
        #expect(lineage.take().map(\.pid) == [310])
        // Carrel's own process is never looked at again (it runs no other program).
        lineage.apply(ProcessEvent(pid: 200, .exec))
        #expect(lineage.lines[200] == .owner)
    }

    @Test func aProgramThatRanAndEndedUnreadIsAStrangerOnlyWhenTheKernelSaidItRanNoHelper() {
        var lineage = seeded()
        let gone: (Int32) -> ProcessEntry? = { _ in nil }
        lineage.apply(ProcessEvent(pid: 320, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 320, .exec))
        lineage.apply(ProcessEvent(pid: 320, .exit))
        lineage.settle(read: gone, helper: { _ in false }, ranOther: { _ in false })
        #expect(lineage.take().isEmpty, "a helper that ended at once (tmux list-buffers) is nothing to say")
        lineage.apply(ProcessEvent(pid: 321, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 321, .exec))
        lineage.apply(ProcessEvent(pid: 321, .exit))
        lineage.settle(read: gone, helper: { _ in false }, ranOther: { $0 == 321 })
        #expect(lineage.take().map(\.pid) == [321])
        #expect(lineage.lines[320] == nil && lineage.lines[321] == nil)
    }

    @Test func aSetuidHelperOfRootsHasNoLine() {
        var lineage = seeded()
        lineage.apply(ProcessEvent(pid: 330, .fork(parent: 200)))
        lineage.apply(ProcessEvent(pid: 330, .exec))
        lineage.settle(read: { ProcessEntry(pid: $0, parent: 200, uids: [Self.student, 0], start: 1) }, helper: { _ in false })
        #expect(lineage.lines[330] == nil)
        #expect(lineage.take().isEmpty)
    }

    /// Without the events, the look at /proc allows only the descendants that run a helper,
    /// through parents that do.
    @Test func theLookAllowsCarrelsDescendantsOnlyThroughHelpers() {
        let table = self.table + [
            ProcessEntry(pid: 400, parent: 200, uids: [1001], start: 40),  // tmux, a helper
            ProcessEntry(pid: 401, parent: 400, uids: [1001], start: 41),  // what it was made to run
            ProcessEntry(pid: 402, parent: 401, uids: [1001], start: 42),  // and its child, a "helper"
        ]
        let strangers = ProcessRule.strangers(table, uid: Self.student, owners: [carrel], descendant: { $0.pid != 401 })
        #expect(Set(strangers.map(\.pid)) == [401, 402])
    }
}
