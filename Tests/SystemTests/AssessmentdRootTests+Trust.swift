#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// Without the package's PAM piece the nologin file refuses nothing: the logins step is
    /// reported as not applied (and why), and `machine: lock` does not begin.
    @Test func withoutThePAMPieceTheLoginsStepIsNotApplied() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let carrel = try lab.client()
        let (locked, _) = Self.ask(carrel, AssessmentdLab.begin(session: "s-nopam", port: store.port, policy: MachinePolicy(machine: .lock)))
        guard case let .failed(reason)? = locked else {
            Issue.record("machine: lock began without the PAM piece: \(String(describing: locked))")
            return
        }
        #expect(reason.contains("the logins step cannot be applied") && reason.contains("pam-auth-update"), "\(reason)")
        #expect(lab.snapshot() == before)
        let steps = try #require(Self.began(Self.ask(carrel, AssessmentdLab.begin(session: "s-nopam", port: store.port)).0))
        let logins = try #require(steps.first { $0.kind == .logins })
        #expect(!logins.applied && logins.detail.contains("pam-auth-update"), "\(logins)")
        #expect(lab.suSucceeds(lab.students[1]), "logins were never refused: the report says so")
        _ = Self.ask(carrel, AssessmentdLab.line(.end))
        #expect(lab.snapshot() == before)
    }

    /// The genuine Carrel with a library of the student's is not the trusted Carrel: code run
    /// in it before its start could leave behind what no look finds (a kernel ring writing for
    /// it later). Installed setgid, it starts in the loader's secure mode: the library never
    /// runs, and the variable that named it is refused. The same file not setgid is refused.
    @Test func theTrustedCarrelWithCodeOfTheStudentsIsRefused() throws {
        let lab = try AssessmentdLab()
        let source = lab.folder + "/pre.c", library = lab.folder + "/pre.so", marker = lab.folder + "/marks/ran"
        mkdir(lab.folder + "/marks", 0o777)
        chmod(lab.folder + "/marks", 0o777)
        try """
            #include <fcntl.h>
            #include <unistd.h>
            __attribute__((constructor)) static void injected(void) { close(open("\(marker)", O_CREAT | O_WRONLY, 0666)); }
            unsigned int la_version(unsigned int v) { return v; }

            """.write(toFile: source, atomically: true, encoding: .utf8)
        try AssessmentdLab.must("/usr/bin/gcc", ["-shared", "-fPIC", "-o", library, source])
        let student = lab.students[0]
        chown(library, lab.uid(student), 0)
        chmod(library, 0o755)
        try lab.start()
        func ask(_ variables: [String]) throws -> ModeReply? {
            let client = try ChildProcess("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/usr/bin/env"]
                                          + variables + [lab.trusted, lab.socket], environment: AssessmentdLab.environment)
            return Self.ask(client, AssessmentdLab.line(.status)).0
        }
        for variable in ["LD_PRELOAD=\(library)", "LD_AUDIT=\(library)", "LD_LIBRARY_PATH=\(lab.folder)"] {
            guard case let .refused(reason)? = try ask([variable]) else {
                Issue.record("\(variable): the Carrel with the student's code was not refused")
                continue
            }
            let name = String(variable.prefix { $0 != "=" })
            #expect(reason.contains("started with \(name) set"), "\(variable): \(reason)")
        }
        #expect(access(marker, F_OK) != 0, "the student's library ran inside the trusted Carrel")
        guard case .status? = try ask([]) else {
            Issue.record("the trusted Carrel alone was not served: \(lab.logText)")
            return
        }
        // Not setgid: not started in the loader's secure mode, whatever its bytes.
        chmod(lab.trusted, 0o755)
        guard case let .refused(reason)? = try ask([]) else {
            Issue.record("a Carrel not installed setgid was served")
            return
        }
        #expect(reason.contains("not started in the loader's secure mode") && reason.contains("2755"), "\(reason)")
    }

    /// A program of the student's that launches Carrel (here python) would run through the
    /// exam: under `processes: end` the begin is refused with why, the machine untouched;
    /// under `report` it begins and the program is reported.
    @Test func aProgramThatLaunchesCarrelRefusesAnEndModeAndIsReportedOtherwise() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let student = lab.students[0]
        let launcher = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
        func launched() throws -> ChildProcess {
            try ChildProcess("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/usr/bin/python3", "-c", launcher,
                                                  lab.trusted, lab.socket], environment: AssessmentdLab.environment)
        }
        let strict = try launched()
        let policy = MachinePolicy(consoles: .allow, devices: .allow, processes: .end)
        guard case let .failed(reason)? = Self.ask(strict, AssessmentdLab.begin(session: "s-launcher", port: store.port, policy: policy)).0 else {
            Issue.record("an end mode began under a launcher of the student's")
            return
        }
        #expect(reason.hasPrefix(ModeWire.refusedHere) && reason.contains("python3") && reason.contains("nothing was left changed"), "\(reason)")
        #expect(lab.snapshot() == before)
        let lenient = try launched()
        let reporting = MachinePolicy(consoles: .allow, devices: .allow, processes: .report)
        #expect(Self.began(Self.ask(lenient, AssessmentdLab.begin(session: "s-launcher", port: store.port, policy: reporting)).0) != nil)
        var seen = false
        while !seen, let text = lenient.readLine(timeout: 4) {
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.detail.hasPrefix("a program between the login and Carrel") {
                seen = incident.detail.contains("python3")
            }
        }
        #expect(seen, "the launcher was not reported: \(lab.logText)")
        _ = Self.ask(lenient, AssessmentdLab.line(.end))
        #expect(lab.snapshot() == before)
    }
}

extension AssessmentdRootTests {
    /// A Carrel traced at its start (a helper of the student's seizes the launcher, which then
    /// execs it, and lets go at the exec) is started in secure mode but not given its group,
    /// and stays open to the student's processes: refused, as the kernel's saved group shows.
    @Test func aCarrelTracedAtItsStartIsRefused() throws {
        let lab = try AssessmentdLab()
        let source = lab.folder + "/traced.c", program = lab.folder + "/traced"
        try """
            #define _GNU_SOURCE
            #include <sys/ptrace.h>
            #include <sys/wait.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                (void)argc;
                int ready[2];
                if (pipe(ready) != 0) return 1;
                pid_t launcher = getpid();
                if (fork() == 0) {
                    if (ptrace(PTRACE_SEIZE, launcher, 0, PTRACE_O_TRACEEXEC) != 0) _exit(1);
                    if (write(ready[1], "x", 1) != 1) _exit(1);
                    int status;
                    waitpid(launcher, &status, __WALL);
                    ptrace(PTRACE_DETACH, launcher, 0, 0);
                    sleep(30);
                    _exit(0);
                }
                char x;
                if (read(ready[0], &x, 1) != 1) return 1;
                execv(argv[1], argv + 1);
                return 1;
            }

            """.write(toFile: source, atomically: true, encoding: .utf8)
        try AssessmentdLab.must("/usr/bin/gcc", ["-O1", "-o", program, source])
        chmod(program, 0o755)
        try lab.start()
        let student = lab.students[0]
        let traced = try ChildProcess("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", program,
                                                           lab.trusted, lab.socket], environment: AssessmentdLab.environment)
        guard case let .refused(reason)? = Self.ask(traced, AssessmentdLab.line(.status)).0 else {
            Issue.record("a Carrel traced at its start was served: \(lab.logText)")
            return
        }
        #expect(reason.contains("not given Carrel's group at its start"), "\(reason)")
        guard case .status? = Self.ask(try lab.client(), AssessmentdLab.line(.status)).0 else {
            Issue.record("the Carrel started plainly was not served: \(lab.logText)")
            return
        }
    }
}
