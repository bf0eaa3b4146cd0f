#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import AssessmentMode
import Foundation
import SessionTestSupport
import Testing

extension AssessmentdRootTests {
    /// After a killed Carrel, a new one of the same account takes the mode over with the
    /// proctor's passphrase (another account's cannot), and is told of what happens from then on.
    @Test func aNewCarrelResumesTheModeAndAStrayProcessIsEnded() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let hash = try PassphraseHash.make(passphrase: "quiet room", logRounds: 12).description
        let first = try lab.client()
        let policy = MachinePolicy(processes: .end)
        let steps = try #require(Self.began(Self.ask(first, AssessmentdLab.begin(session: "s-resume", port: store.port, hash: hash, policy: policy)).0))
        first.signal(SIGKILL)
        first.waitStatus()
        let other = try lab.client(lab.students[1])
        let (refused, _) = Self.ask(other, AssessmentdLab.line(.resume(session: "s-resume", passphrase: "quiet room")))
        #expect(refused == .refused(reason: "session s-resume's mode is for uid \(lab.uid(lab.students[0])), not \(lab.uid(lab.students[1]))"))
        let second = try lab.client()
        let (resumed, _) = Self.ask(second, AssessmentdLab.line(.resume(session: "s-resume", passphrase: "quiet room")))
        #expect(resumed == .began(session: "s-resume", steps: steps))
        let student = lab.students[0]
        let stray = ChildSpawn.runOutsideRunner("/usr/bin/setpriv", ["--reuid=\(student)", "--regid=\(student)", "--init-groups", "/bin/sh",
                                                                     "-c", "/bin/sleep 32 </dev/null >/dev/null 2>&1 &"],
                                                 environment: AssessmentdLab.environment)
        // The shell that starts the stray is of the stray's line: the mode may end it too
        // before it exits on its own (137, killed), which names the same command line.
        #expect(stray.status == 0 || stray.status == 128 + SIGKILL, "\(stray.status)")
        var ended: Incident?
        while ended == nil, let text = second.readLine(timeout: 6) {
            if case let .incident(incident)? = AssessmentdLab.reply(text), incident.detail.contains("sleep 32") { ended = incident }
        }
        #expect(ended?.action == "ended", "\(String(describing: ended))")
        let pid = ended.flatMap { $0.detail.split(separator: " ").dropFirst().first.flatMap { pid_t($0) } } ?? 0
        #expect(Eventually.poll(3) { !AssessmentdLab.processes(of: lab.uid(student)).contains(pid) })
        #expect(Self.ask(second, AssessmentdLab.line(.end)).0 == .ended(session: "s-resume", reason: .ended))
        #expect(lab.snapshot() == before)
    }

    @Test func theModeEndsItselfAtItsTimeLimit() throws {
        let (lab, store, before) = try AssessmentdLab.serving()
        let carrel = try lab.client()
        #expect(Self.began(Self.ask(carrel, AssessmentdLab.begin(session: "s-limit", port: store.port, maxDuration: 2)).0) != nil)
        #expect(lab.snapshot() != before)
        let ended = AssessmentdLab.reply(carrel.expect("{\"ended\"", timeout: 10))
        #expect(ended == .ended(session: "s-limit", reason: .timeLimit))
        #expect(lab.snapshot() == before)
    }
}
