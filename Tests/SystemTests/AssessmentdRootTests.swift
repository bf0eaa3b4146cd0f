#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

/// The assessment-mode service run for real, as root, with test accounts it makes: the account
/// reaches the store and nothing else, `su` to students is refused, a stray process is reported,
/// and every rule and file is gone after end, unlock, or a restart of the service.
@Suite("carrel-assessmentd", .enabled(if: getuid() == 0 && access("/usr/sbin/nft", X_OK) == 0, "the service needs root and nftables"),
       .serialized)
struct AssessmentdRootTests {
    /// Sends `line` and waits for the first reply that is not an incident; the seconds it took.
    static func ask(_ client: ChildProcess, _ line: String, timeout: Double = 20) -> (ModeReply?, Double) {
        let sent = Date()
        client.send(line)
        while let text = client.readLine(timeout: timeout) {
            guard let reply = AssessmentdLab.reply(text) else { continue }
            if case .incident = reply { continue }
            return (reply, Date().timeIntervalSince(sent))
        }
        return (nil, Date().timeIntervalSince(sent))
    }

    static func began(_ reply: ModeReply?) -> [StepReport]? {
        if case let .began(_, steps)? = reply { steps } else { nil }
    }

    @Test func aModeLimitsTheAccountAndLeavesNothingBehind() throws {
        let lab = try AssessmentdLab()
        let pam = try Data(contentsOf: URL(fileURLWithPath: lab.pamFile))
        try lab.installPAM()
        let store = try Listener(), other = try Listener()
        let student = lab.students[0], second = lab.students[1]
        #expect(lab.reach(other.port, as: student) == .reached && lab.suSucceeds(student) && lab.suSucceeds(second))
        try lab.start()
        let before = lab.snapshot()
        let carrel = try lab.client()
        let (reply, seconds) = Self.ask(carrel, AssessmentdLab.begin(session: "s-limits", port: store.port))
        let steps = try #require(Self.began(reply), "\(String(describing: reply)) \(lab.logText)")
        print("assessmentd: begin with every step took \(Int(seconds * 1000)) ms: \(steps.map { "\($0.kind.rawValue)=\($0.applied)" })")
        #expect(steps.first { $0.kind == .network }?.applied == true && steps.first { $0.kind == .logins }?.applied == true)
        // The store is reachable, nothing else is, for the account only.
        #expect(lab.reach(store.port, as: student) == .reached)
        #expect(lab.reach(other.port, as: student) == .refused)
        #expect(lab.reach(other.port, as: nil) == .reached && lab.reach(other.port, as: lab.admin) == .reached)
        // No program may type into a terminal it shares (where the kernel has the setting).
        if access(ModePlan.tiocsti, F_OK) == 0 {
            #expect((try? String(contentsOfFile: ModePlan.tiocsti, encoding: .utf8))?.hasPrefix("0") == true)
            #expect(steps.contains { $0.kind == .processes && $0.applied && $0.detail.contains("TIOCSTI off") })
        }
        // No new login of a student; an administrator still logs in.
        #expect(!lab.suSucceeds(student) && !lab.suSucceeds(second))
        #expect(lab.suSucceeds(lab.admin))
        // A process of the account started outside Carrel is reported.
        let started = Date()
        let stray = ChildSpawn.runOutsideRunner("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/bin/sh",
                                                                     "-c", "/bin/sleep 31 </dev/null >/dev/null 2>&1 &"],
                                                 environment: AssessmentdLab.environment)
        #expect(stray.status == 0)
        var seen: Double?
        var heard: [String] = []
        while seen == nil, let text = carrel.readLine(timeout: 6) {
            heard.append(text)
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.detail.contains("sleep 31") {
                seen = Date().timeIntervalSince(started)
                #expect(incident.kind == .process && incident.action == "reported" && incident.detail.contains("of \(student)"))
            }
        }
        let latency = try #require(seen, "no incident for the stray process; Carrel heard: \(heard); the service said: \(lab.logText)")
        print("assessmentd: a stray process was reported after \(Int(latency * 1000)) ms")
        #expect(latency <= 4)
        // The status carries what happened.
        guard case let .status(mode?)? = Self.ask(carrel, AssessmentdLab.line(.status)).0 else {
            Issue.record("no status while the mode runs")
            return
        }
        #expect(!mode.interrupted && mode.uid == lab.uid(student) && (mode.incidents ?? []).contains { $0.detail.contains("sleep 31") })
        let (ended, _) = Self.ask(carrel, AssessmentdLab.line(.end))
        #expect(ended == .ended(session: "s-limits", reason: .ended))
        #expect(lab.snapshot() == before)
        #expect(lab.reach(other.port, as: student) == .reached && lab.suSucceeds(student) && lab.suSucceeds(second))
        lab.stop()
        lab.restorePAM()
        #expect(try Data(contentsOf: URL(fileURLWithPath: lab.pamFile)) == pam)
    }

    @Test func aKilledCarrelLeavesTheModeUntilTheProctorUnlocksIt() throws {
        let lab = try AssessmentdLab()
        let store = try Listener(), other = try Listener()
        try lab.installPAM()
        try lab.start()
        let before = lab.snapshot()
        let hash = try PassphraseHash.make(passphrase: "quiet room", logRounds: 12).description
        let carrel = try lab.client()
        let (reply, _) = Self.ask(carrel, AssessmentdLab.begin(session: "s-killed", port: store.port, hash: hash))
        #expect(Self.began(reply) != nil, "\(String(describing: reply))")
        carrel.signal(SIGKILL)
        carrel.waitStatus()
        let proctor = try lab.client()
        let status = Eventually.poll(5) {
            if case let .status(mode?)? = Self.ask(proctor, AssessmentdLab.line(.status)).0 { return mode.interrupted }
            return false
        }
        #expect(status, "the mode is not shown as interrupted")
        #expect(lab.reach(other.port, as: lab.students[0]) == .refused && access(ModePlan.nologin, F_OK) == 0)
        // A wrong passphrase is refused after a pause; the right one ends the mode.
        let (wrong, pause) = Self.ask(proctor, AssessmentdLab.line(.unlock(session: "s-killed", passphrase: "loud room")))
        #expect(wrong == .refused(reason: "wrong passphrase") && pause >= 0.9, "\(String(describing: wrong)) after \(pause) s")
        let (unlocked, _) = Self.ask(proctor, AssessmentdLab.line(.unlock(session: "s-killed", passphrase: "quiet room")))
        #expect(unlocked == .ended(session: "s-killed", reason: .unlocked))
        #expect(lab.snapshot() == before)
        #expect(lab.reach(other.port, as: lab.students[0]) == .reached)
    }

    @Test func aServiceKilledDuringAModePutsTheMachineBackAtItsNextStart() throws {
        let lab = try AssessmentdLab()
        let store = try Listener(), other = try Listener()
        try lab.start()
        let before = lab.snapshot()
        let carrel = try lab.client()
        #expect(Self.began(Self.ask(carrel, AssessmentdLab.begin(session: "s-crash", port: store.port)).0) != nil)
        lab.stop(signal: SIGKILL)
        #expect(lab.snapshot() != before && lab.reach(other.port, as: lab.students[0]) == .refused)
        try lab.start()
        #expect(lab.logText.contains("restored at start: session s-crash"), "\(lab.logText)")
        #expect(lab.snapshot() == before)
        #expect(lab.reach(other.port, as: lab.students[0]) == .reached)
        // SIGTERM during a mode puts the machine back too, and tells the owner.
        let again = try lab.client()
        #expect(Self.began(Self.ask(again, AssessmentdLab.begin(session: "s-stop", port: store.port)).0) != nil)
        lab.stop(signal: SIGTERM)
        #expect(AssessmentdLab.reply(again.expect("{\"ended\"", timeout: 5)) == .ended(session: "s-stop", reason: .restored))
        #expect(lab.snapshot() == before)
    }

    @Test func twoBeginsAtOnceMakeOneMode() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let first = try lab.client(lab.students[0]), second = try lab.client(lab.students[1])
        first.send(AssessmentdLab.begin(session: "s-one", port: store.port))
        second.send(AssessmentdLab.begin(session: "s-two", port: store.port))
        let replies = [first, second].map { AssessmentdLab.reply($0.readLine(timeout: 20)) }
        let winners = replies.indices.filter { Self.began(replies[$0]) != nil }
        #expect(winners.count == 1, "\(replies)")
        let loser = replies[winners.first == 0 ? 1 : 0]
        guard case let .failed(reason)? = loser else {
            Issue.record("the second begin did not fail: \(String(describing: loser))")
            return
        }
        #expect(reason.hasPrefix("assessment mode already runs for session s-") && reason.contains("(uid \(lab.uid(lab.students[winners.first ?? 0]))"))
        let owner = winners.first == 0 ? first : second
        #expect(Self.ask(owner, AssessmentdLab.line(.end)).0 != nil)
        #expect(lab.snapshot() == before)
    }

    @Test func callersOtherThanTheTrustedCarrelAreRefused() throws {
        let lab = try AssessmentdLab()
        try lab.start()
        let copy = lab.folder + "/carrel-copy"
        try FileManager.default.copyItem(atPath: lab.trusted, toPath: copy)
        let script = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'{\"status\":{}}\\n'); print(s.recv(4096).decode())"
        let python = ChildSpawn.run("/usr/bin/setpriv", ["--reuid=\(lab.students[0])", "--regid=\(lab.students[0])", "--init-groups",
                                                        "/usr/bin/python3", "-c", script, lab.socket], environment: AssessmentdLab.environment)
        #expect(python.output.contains("\"refused\"") && python.output.contains("not the trusted Carrel"), "\(python.output)")
        let cases: [(String?, String?, String)] = [
            (nil, copy, "not the trusted Carrel"), ("root", nil, "root does not take exams"), (lab.admin, nil, "is an administrator"),
        ]
        for (account, program, words) in cases {
            let client = try lab.client(account, program: program)
            let (reply, _) = Self.ask(client, AssessmentdLab.line(.status))
            guard case let .refused(reason)? = reply else {
                Issue.record("\(account ?? "student") \(program ?? "trusted"): not refused: \(String(describing: reply))")
                continue
            }
            #expect(reason.contains(words), "\(reason)")
        }
        // The trusted file changed after the service measured it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: lab.trusted))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let changed = try lab.client()
        guard case let .refused(reason)? = Self.ask(changed, AssessmentdLab.line(.status)).0 else {
            Issue.record("a changed Carrel was not refused")
            return
        }
        #expect(reason.contains("not the one this service measured"), "\(reason)")
    }

    @Test func theCostOfBegin() throws {
        let lab = try AssessmentdLab()
        let store = try Listener()
        try lab.start()
        let none = MachinePolicy(network: .allow, logins: .allow, sessions: .report, consoles: .allow, devices: .allow, processes: .ignore)
        var figures: [String: [Double]] = [:]
        for round in 0..<5 {
            for (name, policy) in [("no steps", none), ("every step", MachinePolicy())] {
                let carrel = try lab.client()
                // Connected and checked first: the figure is the begin's, not the client's start.
                #expect(Self.ask(carrel, AssessmentdLab.line(.status)).0 == .status(nil))
                let (reply, seconds) = Self.ask(carrel, AssessmentdLab.begin(session: "s-cost-\(round)", port: store.port, policy: policy))
                #expect(Self.began(reply) != nil, "\(String(describing: reply))")
                figures[name, default: []].append(seconds * 1000)
                #expect(Self.ask(carrel, AssessmentdLab.line(.end)).0 != nil)
            }
        }
        for (name, values) in figures.sorted(by: { $0.key < $1.key }) {
            let sorted = values.sorted()
            print("assessmentd: begin with \(name): median \(Int(sorted[sorted.count / 2])) ms, max \(Int(sorted.last ?? 0)) ms")
        }
        let served = lab.logText.split(separator: "\n").filter { $0.contains("answered in") }.map { $0.split(separator: " ").suffix(2).joined(separator: " ") }
        print("assessmentd: the service's own time for each begin (no steps, every step, alternately): \(served.joined(separator: ", "))")
        let median = { (name: String) in (figures[name] ?? [0]).sorted()[(figures[name] ?? [0]).count / 2] }
        #expect(median("every step") - median("no steps") <= 1000, "\(figures)")
    }
}
