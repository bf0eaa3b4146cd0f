#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import Testing
@testable import SessionKit

@Suite("Lock, undo and pasteboards with real processes", .serialized)
struct LockAndUndoTests {
    @Test func aSecondBeginIsRefusedNamingTheHolder() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let (holder, session) = try #require(try box.begin(file, candidate: "Ada"))
        let second = try box.driver(["begin", file, "--candidate", "Grace"])
        #expect(second.waitStatus() == 75)
        let state = box.location.lockState
        guard case let .held(record?) = state else {
            Issue.record("lock not held: \(state)")
            return
        }
        #expect(record.session == session)
        #expect(record.pid == holder.pid)
        #expect(record.candidate == "Ada")
        #expect(record.assessment == "fixture")
        _ = holder
    }

    @Test func theRefusalLineNamesPidCandidateAndSince() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let (holder, _) = try #require(try box.begin(file, candidate: "Ada"))
        let result = try box.carrelDriverStderr(["begin", file])
        #expect(result.status == 75)
        #expect(result.stderr.contains("another session holds the lock (pid \(holder.pid), candidate Ada, assessment fixture, since 20"))
    }

    @Test func killingTheHolderFreesTheLockAndLeavesAnInterruptedSession() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let (holder, session) = try #require(try box.begin(file))
        holder.send("answer q0 \(Response.text("a0").driverJSON)")
        #expect(holder.expect("ack q0") != nil)
        holder.signal(SIGKILL)
        #expect(holder.waitStatus() == 128 + SIGKILL)
        #expect(box.location.lockState == .free)
        let waiting = try SessionRuntime.waiting(journal: try box.journal(), context: box.context())
        #expect(waiting.map(\.id) == [session])
        let again = try box.carrelDriverStderr(["begin", file])
        #expect(again.status == 75)
        #expect(again.stderr.contains("an interrupted session awaits the proctor: \(session)"))
        #expect(again.stderr.contains("carrel resume"))
    }

    /// Each round starts from an empty state directory, where the journal is created by
    /// whichever racer gets there first.
    @Test(.timeLimit(.minutes(4)), arguments: 1...3)
    func tenRacingBeginsMakeExactlyOneSession(round: Int) throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let racers = try (0..<10).map { i in try box.driver(["begin", file, "--candidate", "racer\(i)"]) }
        var winners: [ChildProcess] = []
        var losers = 0
        for racer in racers {
            if racer.expect("began ", timeout: 60) != nil { winners.append(racer) } else {
                #expect(racer.waitStatus() == 75)
                losers += 1
            }
        }
        #expect(winners.count == 1)
        #expect(losers == 9)
        let active = try box.journal().sessions(status: [.active])
        #expect(active.count == 1)
        for w in winners {
            w.send("submit")
            #expect(w.expect("finished submitted") != nil)
        }
    }

    /// Each step made to fail through its edge, with the exit code that failure gives.
    /// (Clearing pasteboards cannot fail: each backend's outcome is logged instead.)
    static let steps: [(String, Int32)] = [
        ("preflight", 69), ("acquire_lock", 73), ("guard_signals", 69), ("open_journal", 73), ("enter_ui", 69),
    ]

    @Test(arguments: steps)
    func aFailedStepUndoesEverythingBeforeIt(step: String, code: Int32) throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let tmux = try #require(TmuxServer(sandbox: box), "tmux is needed for this test")
        tmux.setBuffer("before", "copied notes")
        let child = try box.driver(["begin", file, "--fail-at", step])
        let status = child.waitStatus()
        #expect(status == code)
        #expect(box.location.lockState == .free, "no lock held")
        let journal = try box.journal()
        #expect(try journal.sessions(status: [.active, .interrupted]).isEmpty, "no journal session active")
        #expect(tmux.buffers.isEmpty, "pasteboards cleared")
        let failed = try journal.sessions(status: [.failedToBegin])
        #expect(failed.count == 1)
        let kinds = try journal.events(session: try #require(failed.first).id).map(\.kind)
        #expect(kinds.first == "begin_requested")
        #expect(kinds.last == "failed_to_begin")
        // The seat is usable again straight away.
        let next = try #require(try box.begin(file))
        next.0.send("submit")
        #expect(next.0.expect("finished submitted") != nil)
    }

    @Test func tmuxBuffersAreClearedOnEntryAndOnExit() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let tmux = try #require(TmuxServer(sandbox: box))
        tmux.setBuffer("notes", "the answers")
        tmux.setBuffer("more", "more answers")
        #expect(tmux.buffers == ["more", "notes"])
        let (child, session) = try #require(try box.begin(file))
        #expect(tmux.buffers.isEmpty, "buffers made before begin are gone")
        tmux.setBuffer("during", "copied mid-test")
        #expect(tmux.buffers == ["during"])
        child.send("submit")
        #expect(child.expect("finished submitted") != nil)
        #expect(child.waitStatus() == 0)
        #expect(tmux.buffers.isEmpty, "buffers made during the session are gone after it ends")
        let details = try box.journal().events(session: session).filter { $0.kind == "pasteboard_cleared" }.map(\.detail)
        #expect(details.contains("on entry — tmux: cleared 2 buffers"))
        #expect(details.contains("on exit — tmux: cleared 1 buffer"))
        #expect(details.contains("on entry — X11: not present"))
    }

    @Test func pasteboardsAreKeptWhenThePolicySaysKeep() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let keep = try String(contentsOfFile: file, encoding: .utf8)
            .replacingOccurrences(of: "policy: { multiplexer: allow }", with: "policy: { multiplexer: allow, pasteboards: keep }")
        try keep.write(toFile: file, atomically: true, encoding: .utf8)
        let tmux = try #require(TmuxServer(sandbox: box))
        tmux.setBuffer("notes", "allowed")
        let (child, _) = try #require(try box.begin(file))
        #expect(tmux.buffers == ["notes"])
        child.send("submit")
        #expect(child.expect("finished") != nil)
    }
}
