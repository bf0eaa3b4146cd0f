#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// A process whose main thread has ended while another thread of it runs (the leader shows
    /// as a zombie, its exe and command line empty) still runs: it is reported and ended like
    /// any other stranger, not passed over as dead.
    @Test func aProcessWhoseMainThreadEndedIsStillAStranger() throws {
        let lab = try AssessmentdLab()
        let source = lab.folder + "/leader.c", program = lab.folder + "/leader"
        try "#include <pthread.h>\n#include <unistd.h>\nstatic void *work(void *a) { (void)a; sleep(30); return 0; }\nint main(void) { pthread_t t; pthread_create(&t, 0, work, 0); pthread_exit(0); }\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        try AssessmentdLab.must("/usr/bin/gcc", ["-O1", "-pthread", "-o", program, source])
        chmod(program, 0o755)
        chmod(lab.folder, 0o755)
        // A killed process takes a moment to be gone (the mode's owner, the probe, stays).
        // Read here, not with the lab's helper, which passes over a zombie leader as this bug did.
        func leaders() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { Int32($0) != nil }.compactMap { pid in
                let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                let threads = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }.map { $0.dropFirst(8).trimmingCharacters(in: .whitespaces) }
                return status.hasPrefix("Name:\tleader") && threads != "0" ? pid : nil
            }
        }
        let student = lab.students[0]
        // Started before the session (a launcher started during it is itself a stranger, ended
        // at its start, maybe before it starts the program).
        let started = ChildSpawn.runOutsideRunner("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/bin/sh",
                                                                       "-c", "\(program) </dev/null >/dev/null 2>&1 &"],
                                                   environment: AssessmentdLab.environment)
        #expect(started.status == 0)
        #expect(Eventually.poll(3) { !leaders().isEmpty }, "the program did not start")
        let store = try Listener()
        try lab.start()
        let carrel = try lab.client()
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .end)
        #expect(Self.began(Self.ask(carrel, AssessmentdLab.begin(session: "s-leader", port: store.port, policy: policy)).0) != nil,
                "\(lab.logText)")
        var ended = false
        while !ended, let text = carrel.readLine(timeout: 6) {
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.action == "ended" { ended = true }
        }
        #expect(ended, "the process whose main thread ended was not ended: \(lab.logText)")
        #expect(Eventually.poll(5) { leaders().isEmpty }, "still running: \(leaders())")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
    }
}
