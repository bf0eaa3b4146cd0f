#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// Carrel's descendants are its own only while they run what it runs: its helpers (tmux
    /// here, which ends at once: nothing said), not a program a helper is made to run (ended
    /// under `processes: end`, and said, with what it forked to outlive the helper), nor any
    /// other program Carrel's child runs, nor a server a helper starts.
    @Test func aProgramCarrelsHelperIsMadeToRunIsAStranger() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let student = lab.students[0]
        // The student's program: it forks a child that starts a session of its own and lives
        // on, and returns at once (the helper's caller sees nothing wrong).
        let hidden = try Self.program(lab, named: "notes-helper", """
            #include <unistd.h>
            int main(void) {
                if (fork() == 0) { setsid(); if (fork() == 0) { sleep(40); } _exit(0); }
                return 0;
            }
            """)
        let socket = lab.folder + "/tmux-socket"
        let server = try ChildProcess("/usr/bin/python3", ["-c", TmuxServerCheckTests.telling, socket, hidden], environment: AssessmentdLab.environment)
        defer { server.signal(SIGKILL) }
        #expect(Eventually.poll(5) { access(socket, F_OK) == 0 })
        let carrel = try lab.client()
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .end)
        #expect(Self.began(Self.ask(carrel, AssessmentdLab.begin(session: "s-helpers", port: store.port, policy: policy)).0) != nil,
                "\(lab.logText)")
        let running = { (words: String) in
            AssessmentdLab.processes(of: lab.uid(student)).filter { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").contains(words)
            }
        }
        // A helper as Carrel runs it: nothing to say.
        carrel.send("!run /usr/bin/tmux -V")
        // The same helper, told by the server to run the student's program.
        carrel.send("!run /usr/bin/tmux -S \(socket) list-buffers")
        var incidents: [Incident] = []
        let deadline = Date().addingTimeInterval(6)
        while Date() < deadline, !incidents.contains(where: { $0.detail.contains("notes-helper") }), let text = carrel.readLine(timeout: 1) {
            if case let .incident(incident)? = AssessmentdLab.reply(text) { incidents.append(incident) }
        }
        #expect(incidents.contains { $0.detail.contains("notes-helper") && $0.action == "ended" }, "\(incidents) \(lab.logText)")
        #expect(Eventually.poll(3) { running("notes-helper").isEmpty }, "the program outlived the helper: \(lab.logText)")
        // Any other program Carrel's child runs.
        carrel.send("!run /bin/sleep 37")
        var slept: Incident?
        while slept == nil, let text = carrel.readLine(timeout: 4) {
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.detail.contains("sleep 37") { slept = incident }
        }
        #expect(slept?.action == "ended", "\(String(describing: slept)) \(lab.logText)")
        #expect(Eventually.poll(3) { running("sleep").isEmpty })
        #expect(!incidents.contains { $0.detail.contains("tmux") }, "the helper itself is Carrel's: \(incidents)")
        // A helper made to start a server of its own (which would read the student's settings
        // and run without any exec): the server is a stranger.
        carrel.send("!run /usr/bin/tmux -f /dev/null -S \(lab.folder)/own-server new-session -d /bin/sleep 51")
        var started: Incident?
        var heard: [String] = []
        while started == nil, let text = carrel.readLine(timeout: 4) {
            heard.append(text)
            // One line, told by the first of its processes still running: the server (which names
            // itself "tmux: server (SOCKET)" once it runs), the program of its window, or the
            // helper's fork that was to start it, ended before it could (and before it was read).
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.kind == .process { started = incident }
        }
        #expect(started?.action == "ended", "\(String(describing: started)) \(heard) \(lab.logText)")
        #expect(Eventually.poll(3) { running("own-server").isEmpty && running("sleep 51").isEmpty }, "the helper's server outlived it")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
        #expect(lab.snapshot() == before)
    }
}
