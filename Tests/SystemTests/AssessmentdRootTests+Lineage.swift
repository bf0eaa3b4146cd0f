#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// Programs that never stay: each forks its successor and exits at once, so no process of
    /// theirs lives a quarter of a second. `clone` forks with CLONE_PARENT, so that the kernel
    /// names the forker's own parent as each new process's parent.
    enum Phoenix: String, CaseIterable, CustomTestStringConvertible {
        case fork, clone
        var testDescription: String { rawValue }
        var source: String {
            let spawn = self == .fork ? "fork()" : "(pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0)"
            return """
                #define _GNU_SOURCE
                #include <sched.h>
                #include <signal.h>
                #include <sys/syscall.h>
                #include <unistd.h>
                int main(void) {
                    for (;;) {
                        pid_t child = \(spawn);
                        if (child > 0) _exit(0);
                        if (child < 0) usleep(1000);
                    }
                }

                """
        }
    }

    static func phoenix(_ kind: Phoenix, in lab: AssessmentdLab) throws -> String {
        let source = lab.folder + "/phoenix.c", program = lab.folder + "/phoenix"
        try kind.source.write(toFile: source, atomically: true, encoding: .utf8)
        try AssessmentdLab.must("/usr/bin/gcc", ["-O1", "-o", program, source])
        chmod(program, 0o755)
        chmod(lab.folder, 0o755)
        return program
    }

    /// Processes made on the machine each second (the kernel's count of forks in /proc/stat,
    /// over a third of a second): such a program makes thousands, the machine otherwise tens.
    /// Its processes live too briefly to be found in /proc reliably.
    static func forksPerSecond() -> Double {
        func forks() -> Double {
            let stat = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
            return stat.split(separator: "\n").first { $0.hasPrefix("processes ") }.flatMap { Double($0.dropFirst(10)) } ?? 0
        }
        let first = forks(), since = Date()
        Thread.sleep(forTimeInterval: 0.33)
        return (forks() - first) / Date().timeIntervalSince(since)
    }

    static let running = 500.0

    /// Started by the student before the exam (as from a shell before the session), and seen
    /// running (the machine forking thousands of times a second).
    static func startBeforeTheSession(_ program: String, as student: String) -> Bool {
        let run = ChildSpawn.runOutsideRunner("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/bin/sh",
                                                                   "-c", "\(program) </dev/null >/dev/null 2>&1 &"],
                                               environment: AssessmentdLab.environment)
        return run.status == 0 && Eventually.poll(3) { forksPerSecond() > running }
    }

    /// A session begun under `rule` while such a program runs: the lab, the session's client,
    /// the steps it began with, when the begin was asked, and the incidents that came in the
    /// seconds after it.
    struct PhoenixSession {
        let lab: AssessmentdLab
        let store: Listener
        let carrel: ChildProcess
        let steps: [StepReport]
        let asked: Date
    }

    static func phoenixSession(_ kind: Phoenix, _ rule: MachinePolicy.Processes) throws -> PhoenixSession {
        let lab = try AssessmentdLab()
        let program = try phoenix(kind, in: lab)
        #expect(startBeforeTheSession(program, as: lab.students[0]), "the program did not start")
        let store = try Listener()
        try lab.start()
        let carrel = try lab.client()
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: rule)
        let asked = Date()
        let steps = try #require(began(ask(carrel, AssessmentdLab.begin(session: "s-phoenix", port: store.port, policy: policy)).0),
                                 "\(lab.logText)")
        return PhoenixSession(lab: lab, store: store, carrel: carrel, steps: steps, asked: asked)
    }

    static func incidents(_ carrel: ChildProcess, quiet: Double) -> [Incident] {
        var incidents: [Incident] = []
        while let text = carrel.readLine(timeout: quiet) {
            if case let .incident(incident)? = AssessmentdLab.reply(text) { incidents.append(incident) }
        }
        return incidents
    }

    /// Under `processes: end` such a program, running when the session begins, is ended within
    /// two seconds, and is at most a few incidents.
    @Test(arguments: Phoenix.allCases) func aProgramThatForksItsSuccessorWithoutPauseIsEnded(_ kind: Phoenix) throws {
        let session = try Self.phoenixSession(kind, .end)
        #expect(session.steps.contains { $0.kind == .processes && $0.detail.contains("at its start") }, "\(session.steps)")
        let gone = Eventually.poll(2) { Self.forksPerSecond() < Self.running }
        let took = Date().timeIntervalSince(session.asked)
        let incidents = Self.incidents(session.carrel, quiet: 2)
        print("assessmentd: a \(kind.rawValue) phoenix running at begin: \(incidents.count) incident(s), gone: \(gone), \(Int(took * 1000)) ms after the begin was asked")
        #expect(gone, "still running \(session.lab.logText)")
        #expect(!incidents.isEmpty && incidents.allSatisfy { $0.kind == .process && $0.action == "ended" }, "\(incidents)")
        #expect(incidents.count <= 25, "\(incidents.count) incidents")
        // Nothing of it comes back.
        Thread.sleep(forTimeInterval: 1)
        #expect(Self.forksPerSecond() < Self.running)
        _ = Self.ask(session.carrel, AssessmentdLab.line(.end))
    }

    /// Under `processes: report` the plain forking program is one line: reported once, however
    /// many processes it goes through.
    @Test func aProgramThatForksItsSuccessorIsReportedOnce() throws {
        let session = try Self.phoenixSession(.fork, .report)
        let incidents = Self.incidents(session.carrel, quiet: 3)
        #expect(Self.forksPerSecond() > Self.running, "reported, not ended")
        let phoenix = incidents.filter { $0.detail.contains("phoenix") || $0.detail.contains("ended before it could be read") }
        #expect((1...2).contains(phoenix.count) && phoenix.allSatisfy { $0.action == "reported" }, "\(incidents)")
        _ = Self.ask(session.carrel, AssessmentdLab.line(.end))
    }
}
