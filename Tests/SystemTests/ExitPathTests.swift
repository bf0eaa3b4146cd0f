#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import Testing
@testable import SessionKit

/// Every way a real session process can leave, with text still being typed; one session
/// per journal whatever the caller's environment; a really full disk.
@Suite("Exit paths, lock location and a full disk (real processes)", .serialized)
struct ExitPathTests {
    static let signals: [(Int32, String)] = [
        (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"),
        (SIGPIPE, "SIGPIPE"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"), (SIGVTALRM, "SIGVTALRM"), (SIGPROF, "SIGPROF"),
        (SIGPWR, "SIGPWR"), (SIGPOLL, "SIGPOLL"), (SIGSTKFLT, "SIGSTKFLT"), (37, "SIGRTMIN+3"),
    ]

    @Test func everyCatchableTerminatingSignalSavesTypedTextClearsPasteboardsAndLeavesAResumableSession() throws {
        let box = try Sandbox()
        let file = try box.assessment(items: 3)
        let tmux = try #require(TmuxServer(sandbox: box), "tmux is needed for this test")
        #expect(Self.signals.count >= 14)
        var sessions: [String] = []
        for (number, name) in Self.signals {
            tmux.setBuffer("copied", "notes for \(name)")
            let child: ChildProcess
            if let last = sessions.last {
                child = try box.driver(["resume", last])
            } else {
                child = try box.driver(["begin", file])
            }
            let began = try #require(child.expect("began "), "\(name): \(child.lines)")
            let session = String(began.split(separator: " ")[1])
            if sessions.isEmpty { sessions.append(session) }
            #expect(tmux.buffers.isEmpty, "\(name): cleared on entry")
            tmux.setBuffer("during", "copied during the test")
            let text = "typed before \(name)"
            child.send("edit q1 \(Response.text(text).driverJSON)")
            #expect(child.expect("ok edit") != nil)
            child.signal(number)
            _ = child.readToEnd(timeout: 20)
            let status = child.waitStatus()
            #expect(status == 75, "\(name) ends like SIGTERM: exit 75, got \(status); \(child.lines.suffix(3))")
            #expect(child.lines.contains { $0.hasPrefix("interrupted \(name)") }, "\(name): \(child.lines.suffix(3))")
            let journal = try box.journal()
            #expect(try journal.answers(session: session)["q1"] == .text(text), "\(name): typed text saved")
            #expect(try journal.session(session)?.status == .interrupted, "\(name)")
            let events = try journal.events(session: session)
            #expect(events.contains { $0.kind == "interrupted" && $0.detail == name })
            #expect(events.last { $0.kind == "pasteboard_cleared" }?.detail.hasPrefix("on exit") == true, "\(name): cleared on exit")
            #expect(tmux.buffers.isEmpty, "\(name): the buffer copied during the test is gone")
            #expect(box.location.lockState == .free)
        }
    }

    /// The lock lives beside the journal: however a shell names the state, a live session
    /// is seen, and never resumed, unlocked or doubled.
    @Test func statusResumeAndUnlockAgreeFromAnyEnvironment() throws {
        let box = try Sandbox()
        let file = try box.assessment(items: 2)
        let stateHome = box.root + "/xdg-state"
        var sessionEnvironment = box.environment
        sessionEnvironment["XDG_STATE_HOME"] = stateHome
        sessionEnvironment["XDG_RUNTIME_DIR"] = box.root + "/runtime-a"
        try FileManager.default.createDirectory(atPath: box.root + "/runtime-a", withIntermediateDirectories: true)
        let child = try ChildProcess(ChildProcess.driver, ["begin", file], environment: sessionEnvironment)
        let began = try #require(child.expect("began "), "\(child.lines)")
        let session = String(began.split(separator: " ")[1])
        let dir = stateHome + "/carrel"

        var variants: [(String, [String], [String: String])] = []
        var noRuntime = box.environment
        noRuntime["XDG_STATE_HOME"] = stateHome
        variants.append(("XDG_STATE_HOME without XDG_RUNTIME_DIR", [], noRuntime))
        var otherRuntime = noRuntime
        otherRuntime["XDG_RUNTIME_DIR"] = box.root + "/runtime-b"
        variants.append(("another XDG_RUNTIME_DIR", [], otherRuntime))
        variants.append(("--state-dir", ["--state-dir", dir], box.environment))
        variants.append(("--state-dir with a trailing slash and a dot", ["--state-dir", dir + "/./"], box.environment))
        var viaVariable = box.environment
        viaVariable["CARREL_STATE_DIR"] = dir
        viaVariable["XDG_RUNTIME_DIR"] = box.root + "/runtime-a"
        variants.append(("CARREL_STATE_DIR with the session's XDG_RUNTIME_DIR", [], viaVariable))

        for (name, extra, environment) in variants {
            let status = try ChildProcess(ChildProcess.carrel, ["status"] + extra, environment: environment)
            let out = status.readToEnd()
            #expect(status.waitStatus() == 0)
            #expect(out.first?.hasPrefix("Lock: held") == true, "\(name): \(out)")
            #expect(!out.contains { $0.contains("Interrupted sessions waiting") }, "\(name): a live session is not interrupted")
            for command in ["resume", "unlock"] {
                let p = try ChildProcess(ChildProcess.carrel, [command] + extra, environment: environment)
                p.closeInput()
                let lines = p.readToEnd()
                #expect(p.waitStatus() == 75, "\(name): \(command) refused while the session runs: \(lines)")
            }
            let take = try ChildProcess(ChildProcess.driver, ["begin", file] + extra, environment: environment)
            #expect(take.waitStatus() == 75, "\(name): a second session is refused")
        }
        // The session is untouched and still answers.
        child.send("answer q0 \(Response.text("still mine").driverJSON)")
        #expect(child.expect("ack q0") != nil)
        let journal = try Journal(location: StateLocation(stateDirectory: dir))
        #expect(try journal.session(session)?.status == .active)
        child.send("submit")
        #expect(child.expect("finished submitted") != nil)
    }

    /// A real full disk: a tmpfs holds the state directory. At 300 KiB the journal keeps its
    /// log small from the start; at 80 MiB it starts with a large log and has to give the
    /// room back when the disk fills.
    @Test(.timeLimit(.minutes(3)), arguments: ["300k", "80m"])
    func onAFullDiskNothingUnsavedIsShownSavedAndSubmitExits73ThenResumes(size: String) throws {
        let box = try Sandbox()
        let mountPoint = box.root + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = ChildSpawn.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", mountPoint],
                                      environment: box.environment, timeout: 10)
        try #require(mount.status == 0, "a small tmpfs cannot be mounted here (needs root): \(mount.output)")
        defer { _ = ChildSpawn.run("/bin/umount", ["-l", mountPoint], environment: box.environment, timeout: 10) }
        let stateDir = mountPoint + "/state"
        let file = try box.assessment(items: 8, extra: "")
        let child = try ChildProcess(ChildProcess.driver, ["begin", file, "--state-dir", stateDir], environment: box.environment)
        let began = try #require(child.expect("began "), "\(child.lines)")
        let session = String(began.split(separator: " ")[1])
        child.send("answer q0 \(Response.text("before the disk filled").driverJSON)")
        #expect(child.expect("ack q0") != nil)
        #expect(child.expect("ok answer") != nil)

        // Fill the disk to the last byte.
        let filler = mountPoint + "/filler"
        Self.fill(filler)

        // Keep answering until the journal cannot take more (the log reuses its own space
        // for a while). Every acknowledged answer must be in the journal; none other is.
        var acked: [String: Response] = [:]
        var round = 0
        func answerAll() -> Bool {
            round += 1
            return Self.answerAll(child, round: round, acked: &acked)
        }
        var full = false
        while !full && round < 40 { full = answerAll() }
        #expect(full, "the disk filled up: \(child.lines.suffix(12))")
        let journal = try Journal(location: StateLocation(stateDirectory: stateDir))
        let saved = try journal.answers(session: session)
        for (item, response) in acked where child.lines.last(where: { $0.hasSuffix(" \(item)") }) == "ack \(item)" {
            #expect(saved[item] == response, "\(item) was acknowledged, so the journal has it")
        }
        child.send("state")
        let state = try #require(child.expect("state "))
        #expect(!state.contains("unsaved= "), "the unsaved answers are listed: \(state)")

        // Space returns: every answer typed while full is saved by the retries.
        unlink(filler)
        child.send("state")
        Self.waitForNothingUnsaved(child)
        let final = try journal.answers(session: session)
        #expect(final.count == 8, "every question answered is saved once space returned: \(final.keys.sorted())")

        // Full again: submit cannot be recorded, exits 73, the session stays resumable.
        Self.fill(filler)
        full = false
        var tries = 0
        while !full && tries < 40 {
            tries += 1
            full = answerAll()
        }
        child.send("submit")
        _ = child.readToEnd(timeout: 30)
        #expect(child.waitStatus() == 73, "\(child.lines.suffix(5))")
        #expect(child.lines.contains { $0.hasPrefix("save-failed") && $0.contains("unsaved=q") }, "\(child.lines.suffix(5))")
        unlink(filler)
        let resumed = try ChildProcess(ChildProcess.driver, ["resume", session, "--state-dir", stateDir], environment: box.environment)
        #expect(resumed.expect("began ") != nil, "\(resumed.lines) \(resumed.readToEnd(timeout: 5)) status \(resumed.waitStatus())")
        resumed.send("submit")
        #expect(resumed.expect("finished submitted") != nil, "\(resumed.lines)")
        #expect(try journal.answers(session: session).count == 8, "what was saved is all there")
    }

    /// Writes `path` until its disk is full to the last byte.
    static func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let chunk = [UInt8](repeating: 7, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)
    }

    /// Answers q1…q7 with the texts of `round`, noting every answer acknowledged; true when
    /// one was reported unsaved.
    static func answerAll(_ child: ChildProcess, round: Int, acked: inout [String: Response]) -> Bool {
        var sawUnsaved = false
        for i in 1...7 {
            let response = Response.text(String(repeating: "round \(round) answer \(i) ", count: 60))
            child.send("answer q\(i) \(response.driverJSON)")
            while let line = child.readLine(timeout: 20) {
                if line == "ack q\(i)" { acked["q\(i)"] = response }
                if line == "unsaved q\(i)" { sawUnsaved = true }
                if line == "ok answer" { break }
            }
        }
        return sawUnsaved
    }

    /// Asks for the state once a second, for 30 seconds at most, until no answer is unsaved.
    static func waitForNothingUnsaved(_ child: ChildProcess) {
        var waited = 0
        while waited < 30 {
            sleep(1)
            waited += 1
            child.send("state")
            if let line = child.expect("state "), line.contains("unsaved= ") { break }
        }
    }
}
