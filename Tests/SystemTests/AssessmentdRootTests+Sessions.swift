#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// The state letter of /proc/PID/status ("S", "T"…); nil when the process has gone.
    static func state(_ pid: pid_t) -> String? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("State:") }?.split(whereSeparator: \.isWhitespace).dropFirst().first.map(String.init)
    }

    /// Another student's login with a terminal, open when the mode begins: reported, and with
    /// `sessions: lock` stopped until the end.
    @Test func anotherLoginOpenAtBeginIsStoppedUntilTheEnd() throws {
        let lab = try AssessmentdLab()
        let store = try Listener()
        try lab.start()
        let other = lab.students[1]
        let opened = ChildSpawn.runOutsideRunner("/usr/bin/setpriv", ["--reuid=\(other)", "--regid=\(other)", "--init-groups", "/bin/sh", "-c",
                                                                      "/usr/bin/script -qec '/bin/sleep 33' /dev/null </dev/null >/dev/null 2>&1 &"],
                                                  environment: AssessmentdLab.environment)
        #expect(opened.status == 0)
        var sleeper: pid_t = 0
        #expect(Eventually.poll(5) {
            sleeper = AssessmentdLab.processes(of: lab.uid(other)).first { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").hasPrefix("/bin/sleep\u{0}33")
            } ?? 0
            return sleeper > 0
        })
        let carrel = try lab.client()
        carrel.send(AssessmentdLab.begin(session: "s-sessions", port: store.port, policy: MachinePolicy(sessions: .lock)))
        let steps = try #require(Self.began(AssessmentdLab.reply(carrel.readLine(timeout: 20))))
        #expect(steps.first { $0.kind == .sessions } == StepReport(kind: .sessions, applied: true, detail: "1 other login session(s) stopped until the end"))
        guard case let .incident(incident)? = AssessmentdLab.reply(carrel.readLine(timeout: 5)) else {
            Issue.record("no incident for the other login")
            return
        }
        #expect(incident.kind == .session && incident.action == "stopped" && incident.detail.contains("login session of \(other) on pts/"),
                "\(incident.detail)")
        #expect(Self.state(sleeper) == "T")
        #expect(Self.ask(carrel, AssessmentdLab.line(.end)).0 == .ended(session: "s-sessions", reason: .ended))
        #expect(Eventually.poll(2) { Self.state(sleeper) == "S" }, "\(Self.state(sleeper) ?? "gone")")
    }

    @Test func capabilitiesSayWhatThisMachineCanEnforce() throws {
        let lab = try AssessmentdLab()
        try lab.start()
        let carrel = try lab.client()
        guard case let .capabilities(list)? = Self.ask(carrel, AssessmentdLab.line(.capabilities)).0 else {
            Issue.record("no capabilities")
            return
        }
        #expect(list.map(\.kind) == [.network, .logins, .consoles, .devices, .sessions, .processes])
        #expect(list.first?.available == true, "\(list)")
        #expect(list.allSatisfy { !$0.reason.isEmpty })
        for capability in list { print("assessmentd: capability \(capability.kind.rawValue): \(capability.available) — \(capability.reason)") }
    }
}
