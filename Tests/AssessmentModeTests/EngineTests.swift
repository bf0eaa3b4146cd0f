import AssessmentMode
import Foundation
import ModeService
import Testing

/// The mode's lifecycle over a machine in memory.
@Suite struct EngineTests {
    @Test func beginMakesEachChangeInOrderAfterWritingItDown() throws {
        let bench = Bench()
        bench.machine.settings["/proc/sys/kernel/sysrq"] = "176"
        let out = bench.begin(bench.request())
        guard case let .began(session, steps)? = out.first?.reply else {
            Issue.record("no began: \(out)")
            return
        }
        #expect(session == "s1" && out.first?.connection == 1)
        #expect(steps.map(\.kind) == [.network, .logins, .consoles, .devices, .processes, .processes])
        #expect(steps.allSatisfy { $0.applied })
        // Every change is in the record on disk before it is made.
        let performs = bench.events.list.enumerated().filter { $0.element.hasPrefix("perform") }
        for (n, perform) in performs.enumerated() {
            #expect(bench.events.list[perform.offset - 1] == "save \(n + 1)", "\(bench.events.list)")
        }
        #expect(performs.map(\.element) == ["perform nftables carrel_assessment", "perform file /run/carrel/nologin", "perform console",
                                            "perform sysctl /proc/sys/kernel/sysrq", "perform mask ctrl-alt-del.target",
                                            "perform file /etc/modprobe.d/carrel-assessment.conf", "perform sysctl \(ModePlan.tiocsti)"])
        let record = try #require(bench.store.record)
        #expect(record.changes.count == 7 && record.uid == 1001 && record.account == "carrel1" && !record.interrupted)
        #expect(bench.machine.consoleLocked && bench.machine.settings["/proc/sys/kernel/sysrq"] == "0")
        #expect(bench.machine.settings[ModePlan.tiocsti] == "0")
        #expect(bench.engine.owner == 1)
    }

    /// The machine as the watcher found it refuses the mode (a program of the student's between
    /// the login and Carrel under `processes: end`): every change undone, the reason told.
    @Test func aRefusalOfTheMachineAsFoundUndoesEverything() throws {
        let bench = Bench()
        let initial = bench.machine.snapshot
        let why = ModeWire.refusedHere + " a program of carrel1 stands between the login and Carrel"
        let out = bench.begin(bench.request(MachinePolicy(processes: .end)), watched: AtBegin(refusal: why))
        #expect(out == [Outgoing(1, .failed(reason: why + "; nothing was left changed"))])
        #expect(bench.machine.snapshot == initial && bench.store.bytes == nil && bench.engine.record == nil)
    }

    /// A kernel before 6.2 has no setting for TIOCSTI and lets any program type into a terminal
    /// it shares: reported when the policy prefers the mode, a refusal when it requires it.
    @Test func aKernelThatAlwaysAllowsTypingIntoATerminalIsReportedOrRefused() throws {
        let bench = Bench()
        bench.machine.settings[ModePlan.tiocsti] = nil
        let initial = bench.machine.snapshot
        let refused = bench.begin(bench.request(MachinePolicy(machine: .lock)))
        #expect(refused == [Outgoing(1, .failed(reason: "the processes step cannot be applied: \(ModePlan.tiocsti) does not exist on this machine; nothing was left changed"))])
        #expect(bench.machine.snapshot == initial)
        let out = bench.begin(bench.request())
        guard case let .began(_, steps)? = out.first?.reply else {
            Issue.record("no began: \(out)")
            return
        }
        let typing = try #require(steps.first { $0.kind == .processes && !$0.applied })
        #expect(typing.detail == "\(ModePlan.tiocsti) does not exist on this machine")
        #expect(steps.contains { $0.kind == .processes && $0.applied && $0.detail.hasPrefix("another program of carrel1 is reported") })
        #expect(bench.engine.end(bench.student) == [Outgoing(1, .ended(session: "s1", reason: .ended))])
        #expect(bench.machine.snapshot == initial)
    }

    @Test func aRequiredStepThatFailsUndoesEverythingInReverse() throws {
        let bench = Bench()
        let initial = bench.machine.snapshot
        bench.machine.failing[.lockConsoleSwitch] = "no virtual console on this machine"
        let out = bench.begin(bench.request(MachinePolicy(machine: .lock)))
        #expect(out == [Outgoing(1, .failed(reason: "the consoles step cannot be applied: no virtual console on this machine; nothing was left changed"))])
        #expect(bench.machine.snapshot == initial)
        let reverts = bench.events.list.filter { $0.hasPrefix("revert") }
        #expect(reverts == ["revert console", "revert file /run/carrel/nologin", "revert nftables carrel_assessment"])
        #expect(bench.store.bytes == nil && bench.engine.record == nil && bench.engine.owner == nil)
    }

    @Test func anOptionalStepThatFailsIsReportedAndTheRestApplied() throws {
        let bench = Bench()
        bench.machine.failing[.maskUnit("ctrl-alt-del.target")] = "systemd is not running on this machine"
        let out = bench.begin(bench.request())
        guard case let .began(_, steps)? = out.first?.reply else {
            Issue.record("no began: \(out)")
            return
        }
        let consoles = try #require(steps.first { $0.kind == .consoles })
        #expect(!consoles.applied && consoles.detail == "systemd is not running on this machine")
        #expect(steps.filter(\.applied).map(\.kind) == [.network, .logins, .devices, .processes, .processes])
        // The step's own changes are undone; the others stay.
        #expect(!bench.machine.consoleLocked && bench.machine.settings["/proc/sys/kernel/sysrq"] == "176")
        #expect(bench.machine.tables["carrel_assessment"] != nil && bench.machine.files[ModePlan.nologin] != nil)
        #expect(bench.store.record?.changes.map(\.step) == [.network, .logins, .devices, .processes])
    }

    @Test func aRecordThatCannotBeWrittenChangesNothing() {
        let bench = Bench()
        bench.store.failSaves = true
        let out = bench.begin(bench.request())
        #expect(out == [Outgoing(1, .failed(reason: "the service cannot keep its record (the disk is full); nothing was changed"))])
        #expect(!bench.events.list.contains { $0.hasPrefix("perform") })
    }

    @Test func endRevertsInReverseAndPutsBackWhatWasThere() throws {
        let bench = Bench()
        bench.machine.files[ModePlan.modprobeBlock] = "options usb-storage quirks=1\n"
        bench.machine.masked = ["ctrl-alt-del.target"]
        let initial = bench.machine.snapshot
        _ = bench.begin(bench.request())
        #expect(bench.machine.snapshot != initial)
        // Only the owner ends it.
        let other = Caller(connection: 2, uid: 1001, account: "carrel1")
        #expect(bench.engine.end(other) == [Outgoing(2, .refused(reason: "this connection does not own the assessment mode"))])
        bench.events.list = []
        #expect(bench.engine.end(bench.student) == [Outgoing(1, .ended(session: "s1", reason: .ended))])
        #expect(bench.events.list.filter { $0.hasPrefix("revert") } == [
            "revert sysctl \(ModePlan.tiocsti)", "revert file /etc/modprobe.d/carrel-assessment.conf", "revert mask ctrl-alt-del.target", "revert sysctl /proc/sys/kernel/sysrq",
            "revert console", "revert file /run/carrel/nologin", "revert nftables carrel_assessment",
        ])
        #expect(bench.machine.snapshot == initial)
        #expect(bench.store.bytes == nil && bench.engine.record == nil)
        #expect(bench.engine.end(bench.student) == [Outgoing(1, .refused(reason: "no assessment mode runs"))])
    }

    @Test func oneModeAtATime() throws {
        let bench = Bench()
        _ = bench.begin(bench.request(), now: 0)
        let second = bench.begin(bench.request(session: "s2"), as: Caller(connection: 2, uid: 1002, account: "carrel2"))
        #expect(second == [Outgoing(2, .failed(reason: "assessment mode already runs for session s1 (uid 1001, since 1970-01-01T00:00:00Z)"))])
        #expect(bench.engine.record?.begin.session == "s1" && bench.engine.owner == 1)
    }

    @Test(arguments: [
        (ModeBegin(session: "", policy: MachinePolicy(), store: [], maxDuration: 60, passphraseHash: nil), "the session's name is empty"),
        (ModeBegin(session: "s\u{1b}[2J", policy: MachinePolicy(), store: [], maxDuration: 60, passphraseHash: nil), "control characters"),
        (ModeBegin(session: "s", policy: MachinePolicy(), store: [], maxDuration: 0, passphraseHash: nil), "max_duration"),
        (ModeBegin(session: "s", policy: MachinePolicy(), store: [Endpoint(host: "a;b", port: 1)], maxDuration: 9, passphraseHash: nil), "a;b:1"),
        (ModeBegin(session: "s", policy: MachinePolicy(), store: [Endpoint(host: "db", port: 0)], maxDuration: 9, passphraseHash: nil), "db:0"),
        (ModeBegin(session: "s", policy: MachinePolicy(), store: [], maxDuration: 9, passphraseHash: "hunter2"), "passphrase hash"),
    ])
    func anUnreasonableRequestIsRefusedBeforeAnythingChanges(request: ModeBegin, words: String) {
        let bench = Bench()
        let out = bench.begin(request)
        guard case let .failed(reason)? = out.first?.reply else {
            Issue.record("not failed: \(out)")
            return
        }
        #expect(reason.contains(words), "\(reason)")
        #expect(bench.events.list.isEmpty)
    }

    @Test func theTimeLimitEndsTheModeAndIsAtMostADay() {
        let bench = Bench()
        _ = bench.begin(bench.request(maxDuration: 90), now: 1000)
        #expect(bench.engine.expire(now: 1089).isEmpty)
        #expect(bench.engine.expire(now: 1090) == [Outgoing(1, .ended(session: "s1", reason: .timeLimit))])
        #expect(bench.engine.record == nil && bench.store.bytes == nil)
        _ = bench.begin(bench.request(maxDuration: 7 * 86_400), now: 0)
        #expect(bench.engine.record?.endsBy == 86_400)
    }

    @Test func theOwnerGoingAwayLeavesTheModeInterrupted() throws {
        let bench = Bench()
        _ = bench.begin(bench.request())
        bench.engine.left(7)
        #expect(bench.engine.owner == 1)
        bench.engine.left(1)
        #expect(bench.engine.owner == nil)
        let status = bench.engine.status(Caller(connection: 3, uid: 1001, account: "carrel1"))
        guard case let .status(mode?)? = status.first?.reply else {
            Issue.record("no status: \(status)")
            return
        }
        #expect(mode.interrupted && mode.session == "s1" && mode.uid == 1001)
        #expect(try #require(bench.store.record).interrupted)
        #expect(bench.machine.tables["carrel_assessment"] != nil)
    }

    @Test func incidentsGoToTheOwnerAndTheLatest200AreKept() throws {
        let bench = Bench()
        let session = Incident(kind: .session, detail: "login session of carrel2 on tty3", at: 1, action: "reported")
        let out = bench.begin(bench.request(), watched: AtBegin(steps: [StepReport(kind: .sessions, applied: true, detail: "1 other")],
                                                                incidents: [session]))
        #expect(out.count == 2 && out.last == Outgoing(1, .incident(session)))
        let many = (0..<250).map { Incident(kind: .process, detail: "process \($0)", at: Double($0), action: "reported") }
        #expect(bench.engine.note(many).count == 250)
        let kept = try #require(bench.store.record).incidents
        #expect(kept.count == 200 && kept.first?.detail == "process 50" && kept.last?.detail == "process 249")
        bench.engine.left(1)
        #expect(bench.engine.note([session]).isEmpty)
        #expect(bench.engine.record?.status.incidents?.last == session)
    }

    @Test func processesStoppedAtBeginAreContinuedOnEnd() {
        let bench = Bench()
        let stopped = [ProcessMark(pid: 4242, start: 99)]
        _ = bench.begin(bench.request(MachinePolicy(sessions: .lock)), watched: AtBegin(stopped: stopped))
        bench.engine.stopped([ProcessMark(pid: 4243, start: 100)])
        _ = bench.engine.end(bench.student)
        #expect(bench.machine.continued == stopped + [ProcessMark(pid: 4243, start: 100)])
    }
}
