import AssessmentKit
import Foundation
import SessionTestSupport
import Synchronization
import Testing
@testable import SessionKit

/// Assessment mode as a begin step of every session: asked unless `machine: off`, required
/// with `machine: lock`, ended with the session, left running by an interruption (as AAC keeps
/// a Mac restricted after its app crashed), taken over by resume and ended by unlock with the
/// proctor's passphrase; what the service saw is journalled.
@Suite("The assessment-mode step")
struct AssessmentModeStepTests {
    /// A service in memory: what it was asked, and what it answers.
    final class FakeService: AssessmentModeLink, Sendable {
        struct Seen: Sendable {
            var requests: [String] = []
            var incidents: [Incident] = []
        }
        let seen = Mutex(Seen())
        let answer: ModeOutcome

        init(answer: ModeOutcome) { self.answer = answer }

        func begin(_ request: ModeBegin) -> ModeOutcome {
            seen.withLock { $0.requests.append("begin \(request.policy.networkRule.rawValue) \(request.store.map(\.description)) \(request.maxDuration) hash:\(request.passphraseHash != nil)") }
            return answer
        }
        func resume(session: String, passphrase: String) -> ModeOutcome {
            seen.withLock { $0.requests.append("resume \(passphrase)") }
            return answer
        }
        func unlock(session: String, passphrase: String) -> ModeOutcome {
            seen.withLock { $0.requests.append("unlock \(passphrase)") }
            return .ended
        }
        func end() -> String? {
            seen.withLock { $0.requests.append("end") }
            return nil
        }
        func leave() { seen.withLock { $0.requests.append("leave") } }
        func incidents() -> [Incident] {
            seen.withLock { s in
                defer { s.incidents.removeAll() }
                return s.incidents
            }
        }
        var requests: [String] { seen.withLock { $0.requests } }
    }

    static let steps = [StepReport(kind: .network, applied: true, detail: "ada (uid 1001) reaches db:5432 only"),
                        StepReport(kind: .consoles, applied: false, detail: "no virtual console on this machine")]

    static func yaml(machine: String?, passphrase: String? = nil) -> String {
        RuntimeTests.yaml(passphrase: passphrase, suspend: "allow").replacingOccurrences(
            of: "policy: { multiplexer: allow, suspend: allow }",
            with: "policy: { multiplexer: allow, suspend: allow\(machine.map { ", machine: \($0)" } ?? "") }")
    }

    static func begin(_ world: MemoryWorld, _ service: FakeService, machine: String?, passphrase: String? = nil) throws -> SessionRuntime {
        let (assessment, source) = try MemoryWorld.assessment(yaml(machine: machine, passphrase: passphrase))
        var context = world.context
        context.assessmentMode = service
        context.storeEndpoints = [Endpoint(host: "db", port: 5432)]
        return try SessionRuntime.begin(assessment: assessment, source: source, candidate: "Ada", extraTime: .none, context: context)
    }

    static func events(_ runtime: SessionRuntime, _ kind: EventKind) throws -> [String] {
        try runtime.journal.events(session: runtime.record.id).filter { $0.kind == kind.rawValue }.map(\.detail)
    }

    @Test func aSessionAsksForTheModeWithItsStoreAndEndsItWhenItEnds() throws {
        let world = try MemoryWorld()
        let service = FakeService(answer: .began(Self.steps))
        let runtime = try Self.begin(world, service, machine: nil, passphrase: RuntimeTests.hash)
        #expect(service.requests == ["begin store-only [\"db:5432\"] 28800 hash:true"])
        let began = try Self.events(runtime, .assessmentMode)
        #expect(began == ["began: network: ada (uid 1001) reaches db:5432 only; consoles: not applied (no virtual console on this machine)"])
        _ = runtime.send(.submitRequested)
        #expect(runtime.send(.submitConfirmed).outcome != nil)
        #expect(service.requests.last == "end")
        #expect(try Self.events(runtime, .assessmentMode).last == "ended")
    }

    @Test func withoutTheServicePreferBeginsAndSaysWhyAndLockRefuses() throws {
        let world = try MemoryWorld()
        let missing = FakeService(answer: .unavailable("no assessment-mode service on this machine"))
        let runtime = try Self.begin(world, missing, machine: "prefer")
        #expect(try Self.events(runtime, .assessmentMode) == ["not begun: no assessment-mode service on this machine"])
        _ = runtime.send(.submitRequested)
        _ = runtime.send(.submitConfirmed)
        #expect(!missing.requests.contains("end"), "nothing to end")

        let locked = try MemoryWorld()
        do {
            _ = try Self.begin(locked, missing, machine: "lock")
            Issue.record("machine: lock does not begin without the service")
        } catch let error as SessionError {
            guard case let .refused(reasons) = error else { Issue.record("\(error)"); return }
            #expect(reasons == ["assessment mode (policy machine: lock): no assessment-mode service on this machine"])
        }
        let failed = FakeService(answer: .failed("assessment mode already runs for session 1234"))
        #expect(throws: SessionError.self) { try Self.begin(try MemoryWorld(), failed, machine: "lock") }
    }

    @Test func machineOffNeverAsks() throws {
        let service = FakeService(answer: .began(Self.steps))
        let runtime = try Self.begin(try MemoryWorld(), service, machine: "off")
        #expect(service.requests.isEmpty)
        #expect(try Self.events(runtime, .assessmentMode).isEmpty)
    }

    @Test func anInterruptionLeavesTheModeRunningAndResumeAndUnlockCarryThePassphrase() throws {
        let world = try MemoryWorld()
        let service = FakeService(answer: .began(Self.steps))
        let runtime = try Self.begin(world, service, machine: nil, passphrase: RuntimeTests.hash)
        let id = runtime.record.id
        #expect(runtime.send(.exitAttempt("Ctrl-C")).outcome != nil, "suspend: allow leaves the test interrupted")
        #expect(service.requests.last == "leave", "the machine stays restricted: \(service.requests)")
        var context = world.context
        context.assessmentMode = service
        context.modePassphrase = "proctor phrase"
        let resumed = try SessionRuntime.resume(sessionID: id, context: context)
        #expect(service.requests.last == "resume proctor phrase")
        #expect(resumed.send(.exitAttempt("Ctrl-C")).outcome != nil)
        _ = try SessionRuntime.unlock(sessionID: id, context: context)
        #expect(service.requests.contains("unlock proctor phrase"))
    }

    @Test func whatTheServiceSawIsJournalledAsItHappens() throws {
        let world = try MemoryWorld()
        let service = FakeService(answer: .began(Self.steps))
        let runtime = try Self.begin(world, service, machine: nil)
        service.seen.withLock {
            $0.incidents = [Incident(kind: .process, detail: "process 4242 of ada: python3 -m http.server", at: 0, action: "reported"),
                            Incident(kind: .login, detail: "ssh login of ada from 10.0.0.9", at: 0, action: "refused")]
        }
        _ = runtime.pump()
        #expect(try Self.events(runtime, .machineIncident) == [
            "process: process 4242 of ada: python3 -m http.server (reported)", "login: ssh login of ada from 10.0.0.9 (refused)",
        ])
        _ = runtime.pump()
        #expect(try Self.events(runtime, .machineIncident).count == 2, "each once")
    }
}

/// A machine already held in assessment mode by another session (one the student began
/// themselves before the exam, with rules of their own) never lets the exam run as if the
/// service were missing; a resume whose mode did not outlive the interruption asks afresh.
@Suite("The assessment-mode step against a held machine")
struct AssessmentModeHeldTests {
    @Test func aMachineHeldByAnotherSessionStopsEvenAPreferSession() throws {
        let held = AssessmentModeStepTests.FakeService(answer: .failed("assessment mode already runs for session mine (uid 1001, since 2026-11-28T08:00:00Z)"))
        do {
            _ = try AssessmentModeStepTests.begin(try MemoryWorld(), held, machine: "prefer")
            Issue.record("a held machine does not begin a prefer session")
        } catch let error as SessionError {
            guard case let .refused(reasons) = error else { Issue.record("\(error)"); return }
            #expect(reasons.first?.contains("held in assessment mode by another session") == true, "\(reasons)")
            #expect(reasons.first?.contains("session mine") == true)
        }
    }

    /// The service refusing the machine as it found it (a program of the student's between the
    /// login and Carrel, under `processes: end`) stops a `prefer` session too, with its words.
    @Test func aMachineTheServiceRefusesStopsEvenAPreferSession() throws {
        let why = ModeWire.refusedHere + " a program of ada stands between the login and Carrel (process 42: python3 launch.py)"
        let refused = AssessmentModeStepTests.FakeService(answer: .failed(why + "; nothing was left changed"))
        do {
            _ = try AssessmentModeStepTests.begin(try MemoryWorld(), refused, machine: "prefer")
            Issue.record("a refused machine does not begin a prefer session")
        } catch let error as SessionError {
            guard case let .refused(reasons) = error else { Issue.record("\(error)"); return }
            #expect(reasons == [why + "; nothing was left changed"])
        }
    }

    /// A service that knows no mode for the session (restarted since) on resume, then begins one.
    final class Restarted: AssessmentModeLink, @unchecked Sendable {
        let lock = NSLock()
        var asked: [String] = []
        func begin(_ request: ModeBegin) -> ModeOutcome { lock.withLock { asked.append("begin") }; return .began([]) }
        func resume(session: String, passphrase: String) -> ModeOutcome {
            lock.withLock { asked.append("resume") }
            return .failed("no assessment mode runs for session \(session)")
        }
        func unlock(session: String, passphrase: String) -> ModeOutcome { .ended }
        func end() -> String? { lock.withLock { asked.append("end") }; return nil }
        func leave() { lock.withLock { asked.append("leave") } }
        func incidents() -> [Incident] { [] }
    }

    @Test func aResumeWhoseModeDidNotOutliveTheInterruptionBeginsItAgain() throws {
        let world = try MemoryWorld()
        let service = Restarted()
        let runtime = try AssessmentModeStepTests.begin(world, AssessmentModeStepTests.FakeService(answer: .began([])), machine: "lock")
        #expect(runtime.send(.exitAttempt("Ctrl-C")).outcome != nil)
        var context = world.context
        context.assessmentMode = service
        _ = try SessionRuntime.resume(sessionID: runtime.record.id, context: context)
        #expect(service.lock.withLock { service.asked } == ["resume", "begin"])
    }
}

/// An unlock the service refused ends the session but says the machine stays locked: never a
/// plain "the lock is free" over a machine still restricted.
@Suite("An unlock the service refuses")
struct AssessmentModeRefusedUnlockTests {
    final class Refusing: AssessmentModeLink, @unchecked Sendable {
        func begin(_ request: ModeBegin) -> ModeOutcome { .began([]) }
        func resume(session: String, passphrase: String) -> ModeOutcome { .began([]) }
        func unlock(session: String, passphrase: String) -> ModeOutcome { .failed("wrong passphrase") }
        func end() -> String? { nil }
        func leave() {}
        func incidents() -> [Incident] { [] }
    }

    @Test func theEndingSaysTheMachinesModeWasNotEnded() throws {
        let world = try MemoryWorld()
        let runtime = try AssessmentModeStepTests.begin(world, AssessmentModeStepTests.FakeService(answer: .began([])), machine: nil)
        #expect(runtime.send(.exitAttempt("Ctrl-C")).outcome != nil)
        var context = world.context
        context.assessmentMode = Refusing()
        let endings = try SessionRuntime.unlock(sessionID: runtime.record.id, context: context)
        #expect(endings.first?.machine == "wrong passphrase")
    }
}
