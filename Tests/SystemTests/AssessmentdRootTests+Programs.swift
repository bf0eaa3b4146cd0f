#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// A session begun under `processes: report`, its client, and the incidents heard until
    /// `found` holds (or `timeout` seconds pass).
    static func reportSession(_ lab: AssessmentdLab, store: Listener, session: String) throws -> ChildProcess {
        try lab.start()
        let carrel = try lab.client()
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .report)
        _ = try #require(began(ask(carrel, AssessmentdLab.begin(session: session, port: store.port, policy: policy)).0), "\(lab.logText)")
        return carrel
    }

    /// `command` run by `/bin/sh` as `student`, outside the test runner (as a process of the
    /// account started elsewhere): whether the shell succeeded.
    static func runAsStudent(_ student: String, _ command: String) -> Bool {
        ChildSpawn.runOutsideRunner("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/bin/sh", "-c", command],
                                    environment: AssessmentdLab.environment).status == 0
    }

    /// A C program of the test's, built in the lab's folder (which the student may enter).
    static func program(_ lab: AssessmentdLab, named name: String, _ source: String) throws -> String {
        let file = lab.folder + "/\(name).c", program = lab.folder + "/" + name
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        try AssessmentdLab.must("/usr/bin/gcc", ["-O1", "-o", program, file])
        chmod(program, 0o755)
        chmod(lab.folder, 0o755)
        return program
    }

    static func incidents(_ carrel: ChildProcess, until found: ([Incident]) -> Bool, timeout: Double) -> [Incident] {
        var incidents: [Incident] = []
        let deadline = Date().addingTimeInterval(timeout)
        while !found(incidents), Date() < deadline, let text = carrel.readLine(timeout: max(0.1, deadline.timeIntervalSinceNow)) {
            if case let .incident(incident)? = AssessmentdLab.reply(text) { incidents.append(incident) }
        }
        return incidents
    }

    /// A shell of the student's from before the exam is reported once at the begin; what it
    /// runs during the exam is reported too, each program named — those that end at once
    /// (`true`, five `cat`s) included.
    @Test func eachProgramAReportedShellRunsIsReported() throws {
        let lab = try AssessmentdLab()
        let student = lab.students[0]
        let fifo = lab.folder + "/go"
        #expect(mkfifo(fifo, 0o666) == 0)
        chmod(fifo, 0o666)
        chmod(lab.folder, 0o755)
        // The shell waits on the fifo with a builtin: it runs nothing until told.
        let script = "read x < \(fifo); /bin/true short-marker; for i in 1 2 3 4 5; do /bin/cat /etc/hostname; done; /bin/sleep 33"
        #expect(Self.runAsStudent(student, "/bin/bash -c '\(script)' </dev/null >/dev/null 2>&1 &"))
        let store = try Listener()
        let carrel = try Self.reportSession(lab, store: store, session: "s-programs")
        let atBegin = Self.incidents(carrel, until: { $0.contains { $0.detail.contains("read x") } }, timeout: 4)
        #expect(atBegin.contains { $0.detail.contains("read x") }, "the shell from before: \(atBegin) \(lab.logText)")
        // Told to go on: it runs two programs.
        let writer = open(fifo, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        _ = "go\n".withCString { write(writer, $0, 3) }
        close(writer)
        let ran = { (found: [Incident]) in found.filter { $0.detail.contains("of \(student) ran: ") } }
        let later = Self.incidents(carrel, until: { ran($0).count >= 7 }, timeout: 6)
        #expect(ran(later).contains { $0.detail.contains("ran: /bin/sleep 33") }, "\(later) \(lab.logText)")
        // `true` lives a millisecond: named by its command line when the service read it in
        // time, else by the file the kernel said it opened to run.
        let cats = ran(later).filter { $0.detail.contains("cat") }
        // (Read at the very moment of its exec, a process may show its short name alone: `[cat]`.)
        #expect(cats.count == 5 && cats.allSatisfy { $0.detail.contains("/bin/cat /etc/hostname") || $0.detail.contains("cat (it ended at once)") || $0.detail.hasSuffix("ran: [cat]") || $0.detail.contains("[cat] (it ended at once)") },
                "five cats: \(later)")
        let short = ran(later).filter { $0.detail.contains("true") }
        #expect(short.count == 1 && short.allSatisfy { $0.detail.contains("true short-marker") || $0.detail.contains("true (it ended at once)") || $0.detail.hasSuffix("ran: [true]") || $0.detail.contains("[true] (it ended at once)") },
                "the program that ended at once: \(later)")
        print("assessmentd: a program of a reported shell that lived a millisecond: \(short.map(\.detail))")
        #expect(later.allSatisfy { $0.action == "reported" })
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
        _ = ChildSpawn.run("/usr/bin/pkill", ["-u", student, "-f", "sleep 33"], environment: AssessmentdLab.environment)
    }

    /// Programs of the account that live a millisecond (a cron job's `true`), each started on
    /// its own: every one is reported, by its name when nothing of it can be read.
    @Test func shortLivedProgramsOfTheAccountAreEachReported() throws {
        let lab = try AssessmentdLab()
        let student = lab.students[0]
        let store = try Listener()
        let carrel = try Self.reportSession(lab, store: store, session: "s-short")
        _ = Self.incidents(carrel, until: { _ in false }, timeout: 1)
        for n in 1...5 {
            let run = ChildSpawn.runOutsideRunner("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups",
                                                                      "/bin/true", "marker-\(n)"], environment: AssessmentdLab.environment)
            #expect(run.status == 0)
            Thread.sleep(forTimeInterval: 0.4)
        }
        // Each is a new line of the account (`setpriv` taking its ids): an incident each, named
        // by what it ran when the service read it (at its exec, or while it ran), said to have
        // ended when it lost that race; `true`, run after `setpriv` was seen, is one more.
        let lines = { (found: [Incident]) in found.filter { $0.detail.contains("of \(student): ") } }
        var heard = Self.incidents(carrel, until: { lines($0).count >= 5 }, timeout: 6)
        heard += Self.incidents(carrel, until: { _ in false }, timeout: 1)
        let reported = lines(heard)
        #expect(reported.count == 5, "\(heard) \(lab.logText)")
        // Every incident names what ran — `true`, or `setpriv` when the line's first process was
        // read (or had its exec file told) before it ran `true`, which its own incident names then.
        #expect(heard.allSatisfy { $0.detail.contains("true marker-") || $0.detail.contains("true (it ended at once)") || $0.detail.contains("[true] (it ended at once)")
                                   || $0.detail.hasSuffix("ran: [true]") || $0.detail.contains("/usr/bin/setpriv") }, "\(heard)")
        #expect(heard.filter { $0.detail.contains("true") }.count >= 5, "each `true` named: \(heard)")
        print("assessmentd: 5 programs that lived a millisecond: \(heard.filter { $0.detail.contains("true marker-") }.count) named, \(heard.count) incidents")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
    }

    /// A program that blanks its own command line and name at once is still named by the
    /// file it runs.
    @Test func aProgramThatBlanksItsCommandLineIsNamedByItsFile() throws {
        let lab = try AssessmentdLab()
        let student = lab.students[0]
        let program = try Self.program(lab, named: "blank-notes", """
            #include <string.h>
            #include <sys/prctl.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                for (int i = 0; i < argc; i++) memset(argv[i], 0, strlen(argv[i]));
                prctl(PR_SET_NAME, "", 0, 0, 0);
                sleep(30);
                return 0;
            }

            """)
        let store = try Listener()
        let carrel = try Self.reportSession(lab, store: store, session: "s-blank")
        #expect(Self.runAsStudent(student, "\(program) secret-args </dev/null >/dev/null 2>&1 &"))
        let heard = Self.incidents(carrel, until: { $0.contains { $0.detail.contains("blank-notes") } }, timeout: 6)
        #expect(heard.contains { $0.detail.contains("of \(student)") && $0.detail.contains(program) }, "\(heard) \(lab.logText)")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
        _ = ChildSpawn.run("/usr/bin/pkill", ["-u", student, "-x", "blank-notes"], environment: AssessmentdLab.environment)
        _ = ChildSpawn.run("/usr/bin/pkill", ["-u", student], environment: AssessmentdLab.environment)
    }

    /// Under `processes: end`, a process of root's that borrows the account's effective or real
    /// id for a moment (as login programs and `runuser` do) is root's: not ended.
    @Test func rootBorrowingTheAccountsEffectiveIdIsNotEnded() throws {
        let lab = try AssessmentdLab()
        let uid = lab.uid(lab.students[0])
        let store = try Listener()
        try lab.start()
        let carrel = try lab.client()
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .end)
        _ = try #require(Self.began(Self.ask(carrel, AssessmentdLab.begin(session: "s-borrow", port: store.port, policy: policy)).0),
                         "\(lab.logText)")
        // Its effective id, then its real id as `runuser` does (setreuid), each for a moment.
        let run = ChildSpawn.runOutsideRunner("/usr/bin/python3", ["-c", "import os, time; os.seteuid(\(uid)); time.sleep(0.6); os.seteuid(0); "
                                                                   + "os.setreuid(\(uid), -1); time.sleep(0.6); os.setreuid(0, -1); time.sleep(0.6)"],
                                              environment: AssessmentdLab.environment)
        #expect(run.status == 0, "root's process was ended: \(run.status) \(lab.logText)")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
    }

    /// A program that forks and at once execs something harmless leaves its work to the child:
    /// the child is named by what it runs.
    @Test func aChildLeftRunningByAnExecIsNamed() throws {
        let lab = try AssessmentdLab()
        let student = lab.students[0]
        let program = try Self.program(lab, named: "swap-notes", """
            #include <unistd.h>
            int main(void) {
                if (fork() == 0) { sleep(20); return 0; }
                execl("/bin/sleep", "sleep", "21", (char *)0);
                return 1;
            }

            """)
        let store = try Listener()
        let carrel = try Self.reportSession(lab, store: store, session: "s-swap")
        #expect(Self.runAsStudent(student, "\(program) </dev/null >/dev/null 2>&1 &"))
        // The launching shell's line names the file in its arguments; the child must be named
        // by what it runs itself.
        let left = { (found: [Incident]) in found.filter { $0.detail.contains("(its parent went on to run another program)") } }
        let heard = Self.incidents(carrel, until: { !left($0).isEmpty }, timeout: 6)
        print("assessmentd: a child left running by an exec: \(heard.map(\.detail))")
        #expect(left(heard).contains { $0.detail.contains("of \(student) ran: \(program)") }, "\(heard) \(lab.logText)")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
        _ = ChildSpawn.run("/usr/bin/pkill", ["-u", student], environment: AssessmentdLab.environment)
    }

    /// A program that calls itself Carrel is named by the file it runs.
    @Test func aProgramWithABorrowedNameIsNamedByItsFile() throws {
        let lab = try AssessmentdLab()
        let student = lab.students[0]
        let store = try Listener()
        let carrel = try Self.reportSession(lab, store: store, session: "s-named")
        #expect(Self.runAsStudent(student, "/bin/bash -c 'exec -a carrel /bin/sleep 32' </dev/null >/dev/null 2>&1 &"))
        let heard = Self.incidents(carrel, until: { $0.contains { $0.detail.contains("runs /usr/bin/sleep") } }, timeout: 6)
        #expect(heard.contains { $0.detail.contains("carrel 32 (runs /usr/bin/sleep)") }, "\(heard) \(lab.logText)")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
        _ = ChildSpawn.run("/usr/bin/pkill", ["-u", student, "-f", "carrel 32"], environment: AssessmentdLab.environment)
    }
}
