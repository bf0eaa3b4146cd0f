#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// `begin` refused for the machine as found (`ModeWire.refusedHere`), saying `words`, the
    /// machine unchanged; the client is ended after.
    static func expectRefusedHere(_ client: ChildProcess, _ begin: String, saying words: String, lab: AssessmentdLab, before: String) {
        guard case let .failed(reason)? = ask(client, begin).0 else {
            Issue.record("the begin was not refused (\(words))")
            return
        }
        #expect(reason.hasPrefix(ModeWire.refusedHere) && reason.contains(words), "\(reason)")
        #expect(lab.snapshot() == before)
        client.signal(SIGKILL)
    }

    /// A script of the student's that starts Carrel in the background and goes on with
    /// commands of its own (builtins only: no process of its own to see) could read files and
    /// write over the exam's screen. Busy at the begin, it refuses an end mode; busy only
    /// after it (it waited for a child first), it is stopped until the end, and continued then.
    @Test func aShellThatStartsCarrelAndGoesOnIsRefusedOrStopped() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let student = lab.students[0]
        let fifo = lab.folder + "/quiet"
        mkfifo(fifo, 0o666)
        chmod(fifo, 0o666)
        // `$0` is the trusted Carrel, `$1` its socket, `$2` a FIFO nothing is written to: each
        // `read -t` waits in the shell itself, as a script reading a file of notes would.
        func script(waitingFirst: Bool) -> String {
            (waitingFirst ? "( exec /bin/sleep 30 ) & " : "") + "\"$0\" \"$1\" <&0 & " + (waitingFirst ? "wait %1; " : "")
                + "exec 9<>\"$2\"; while :; do read -t 0.05 -u 9 line; done"
        }
        func launched(_ waitingFirst: Bool) throws -> ChildProcess {
            try ChildProcess("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/bin/bash", "-c",
                                                  script(waitingFirst: waitingFirst), lab.trusted, lab.socket, fifo],
                             environment: AssessmentdLab.environment)
        }
        let busy = try launched(false)
        Thread.sleep(forTimeInterval: 0.3)
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .end)
        Self.expectRefusedHere(busy, AssessmentdLab.begin(session: "s-busy", port: store.port, policy: policy),
                               saying: "a shell running commands of its own", lab: lab, before: before)

        // Waiting at the begin, the shell is held (stopped) while Carrel runs: a trap of its own
        // (a resize, a signal) could otherwise run commands between two looks. Carrel going
        // away continues it (the kiosk starts Carrel again from it); so does the end.
        let later = try launched(true)
        Thread.sleep(forTimeInterval: 0.3)
        let steps = Self.began(Self.ask(later, AssessmentdLab.begin(session: "s-later", port: store.port, policy: policy)).0)
        #expect(steps?.contains { $0.kind == .processes && $0.detail.contains("held (stopped) while it runs") } == true,
                "\(String(describing: steps)) \(lab.logText)")
        func stoppedShell() -> pid_t? {
            AssessmentdLab.processes(of: lab.uid(student)).first { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").contains("(bash) T")
            }
        }
        #expect(Eventually.poll(3) { stoppedShell() != nil }, "the shell was not held: \(lab.logText)")
        #expect(Self.ask(later, AssessmentdLab.line(.end)).0 == .ended(session: "s-later", reason: .ended))
        #expect(Eventually.poll(3) { stoppedShell() == nil }, "the shell was not continued at the end")
        later.signal(SIGKILL)
        let again = try launched(true)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Self.began(Self.ask(again, AssessmentdLab.begin(session: "s-again", port: store.port, policy: policy)).0) != nil)
        #expect(Eventually.poll(3) { stoppedShell() != nil }, "the shell was not held: \(lab.logText)")
        // Carrel (here the probe, a child of the shell) ends without ending the mode.
        let probe = AssessmentdLab.processes(of: lab.uid(student)).first { pid in
            ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").hasPrefix(lab.trusted)
        }
        if let probe { kill(probe, SIGKILL) }
        #expect(Eventually.poll(3) { stoppedShell() == nil }, "the shell was not continued when Carrel went away")
        let proctor = try lab.client(lab.students[0])
        _ = Self.ask(proctor, AssessmentdLab.line(.unlock(session: "s-again", passphrase: "")))
        lab.stop()
        #expect(lab.snapshot() == before)
    }
}

extension AssessmentdRootTests {
    /// A child forked by the program that then became Carrel (exec keeps the pid, so the child
    /// is Carrel's in /proc) is no process of Carrel's: under `processes: end` it is ended.
    @Test func aChildForkedBeforeCarrelsExecIsAStranger() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let student = lab.students[0]
        let launcher = "import os, sys, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\n    os._exit(0)\nos.execv(sys.argv[1], sys.argv[1:])"
        let carrel = try ChildProcess("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/usr/bin/python3", "-c",
                                                           launcher, lab.trusted, lab.socket], environment: AssessmentdLab.environment)
        Thread.sleep(forTimeInterval: 0.3)
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .end)
        #expect(Self.began(Self.ask(carrel, AssessmentdLab.begin(session: "s-forked", port: store.port, policy: policy)).0) != nil,
                "\(lab.logText)")
        var ended: Incident?
        while ended == nil, let text = carrel.readLine(timeout: 4) {
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.detail.contains("python3") { ended = incident }
        }
        #expect(ended?.action == "ended", "the child forked before Carrel's exec was not ended: \(String(describing: ended)) \(lab.logText)")
        #expect(Eventually.poll(3) {
            !AssessmentdLab.processes(of: lab.uid(student)).contains { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").contains("python3")
            }
        })
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
        #expect(lab.snapshot() == before)
    }
}

extension AssessmentdRootTests {
    /// Two shells between the login and Carrel (a script run from the login's shell): holding
    /// the nearer would hand the outer one the terminal back, so an end mode does not begin.
    /// With one, the held shell continued by another program is stopped again, and reported.
    @Test func aSecondShellRefusesAnEndModeAndAHeldShellStaysHeld() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let student = lab.students[0]
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .end)
        func launched(_ script: String) throws -> ChildProcess {
            try ChildProcess("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/bin/bash", "-c", script,
                                                  lab.trusted, lab.socket], environment: AssessmentdLab.environment)
        }
        let nested = try launched("/bin/bash -c '\"$0\" \"$1\"; true' \"$0\" \"$1\"; true")
        Thread.sleep(forTimeInterval: 0.3)
        Self.expectRefusedHere(nested, AssessmentdLab.begin(session: "s-nested", port: store.port, policy: policy),
                               saying: "a second shell", lab: lab, before: before)

        let single = try launched("\"$0\" \"$1\"; true")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Self.began(Self.ask(single, AssessmentdLab.begin(session: "s-single", port: store.port, policy: policy)).0) != nil)
        func shell(stopped: Bool) -> pid_t? {
            AssessmentdLab.processes(of: lab.uid(student)).first { pid in
                ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").contains("(bash) \(stopped ? "T" : "S")")
            }
        }
        let held = try #require(Eventually.poll(3) { shell(stopped: true) != nil } ? shell(stopped: true) : nil, "the shell was not held")
        kill(held, SIGCONT)
        var again: Incident?
        while again == nil, let text = single.readLine(timeout: 5) {
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.detail.hasPrefix("a shell held while Carrel runs was continued") {
                again = incident
            }
        }
        #expect(again?.action == "stopped until the end", "\(String(describing: again)) \(lab.logText)")
        #expect(Eventually.poll(3) { shell(stopped: true) == held })
        // Continued again at once (a login program does so every few seconds): stopped again,
        // said once a minute at most.
        kill(held, SIGCONT)
        #expect(Eventually.poll(3) { shell(stopped: true) == held }, "the shell continued again was not held again")
        var more: [String] = []
        while let text = single.readLine(timeout: 1.5) {
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.detail.contains("was continued") { more.append(incident.detail) }
        }
        #expect(more.isEmpty, "\(more)")
        #expect(Self.ask(single, AssessmentdLab.line(.end)).0 == .ended(session: "s-single", reason: .ended))
        #expect(lab.snapshot() == before)
    }
}
