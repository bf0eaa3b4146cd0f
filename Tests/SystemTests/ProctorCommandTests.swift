#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Lockdown
import SessionTestSupport
import Testing
@testable import SessionKit

@Suite("carrel status and carrel unlock", .serialized)
struct ProctorCommandTests {
    func statusJSON(_ box: Sandbox) throws -> [String: Any] {
        let r = try box.carrel(["status", "--json"])
        #expect(r.status == 0)
        let data = Data(r.out.joined(separator: "\n").utf8)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func statusOnAFreshStateDirectoryCreatesNothing() throws {
        let box = try Sandbox()
        let r = try box.carrel(["status"])
        #expect(r.status == 0)
        #expect(r.out.prefix(2) == ["Lock: free", "Interrupted sessions: none"])
        #expect(!FileManager.default.fileExists(atPath: box.stateDir))
    }

    @Test func statusDescribesAnActiveAndThenAnInterruptedSession() throws {
        let box = try Sandbox()
        let file = try box.assessment(items: 4)
        let (child, session) = try #require(try box.begin(file, candidate: "Ada Lovelace"))
        child.send("answer q0 \(Response.text("a0").driverJSON)")
        #expect(child.expect("ack q0") != nil)

        let active = try statusJSON(box)
        let lock = try #require(active["lock"] as? [String: Any])
        #expect(lock["held"] as? Bool == true)
        let holder = try #require(lock["holder"] as? [String: Any])
        #expect(holder["session"] as? String == session)
        #expect(holder["pid"] as? Int == Int(child.pid))
        #expect(holder["candidate"] as? String == "Ada Lovelace")
        let progress = try #require((lock["session"] as? [String: Any])?["progress"] as? [String: Any])
        #expect(progress["answered"] as? Int == 1)
        #expect(progress["items"] as? Int == 4)
        #expect((active["interrupted"] as? [Any])?.isEmpty == true)

        child.signal(SIGKILL)
        child.waitStatus()
        let after = try statusJSON(box)
        #expect((after["lock"] as? [String: Any])?["held"] as? Bool == false)
        let waiting = try #require(after["interrupted"] as? [[String: Any]])
        #expect(waiting.count == 1)
        #expect(waiting.first?["session"] as? String == session)
        #expect(waiting.first?["status"] as? String == "interrupted")
        #expect(waiting.first?["candidate"] as? String == "Ada Lovelace")

        let text = try box.carrel(["status"]).out
        #expect(text.contains("Lock: free"))
        // The whole command, options first and the id after `--`, as it is to be run.
        #expect(text.contains { $0.contains("continue: carrel resume --state-dir=\(box.stateDir) -- \(session)") }, "\(text)")
        #expect(text.contains { $0.contains("end:      carrel unlock --state-dir=\(box.stateDir) -- \(session)") }, "\(text)")
        #expect(waiting.first?["resume_command"] as? String == "carrel resume --state-dir=\(box.stateDir) -- \(session)")
    }

    @Test func unlockRefusesWhileTheHolderIsAliveAndWorksAfterItDied() throws {
        let box = try Sandbox()
        let hash = try PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10)
        let file = try box.assessment(extra: "proctor: { passphrase: \"\(hash)\" }")
        let tmux = try #require(TmuxServer(sandbox: box))
        let (child, session) = try #require(try box.begin(file))
        child.send("answer q2 \(Response.text("a2").driverJSON)")
        #expect(child.expect("ack q2") != nil)

        let refused = try box.carrel(["unlock"], input: "proctor phrase")
        #expect(refused.status == 75)
        #expect(child.isAlive)

        child.signal(SIGKILL)
        child.waitStatus()
        tmux.setBuffer("after-crash", "notes")

        let wrong = try box.carrel(["unlock", String(session.prefix(8))], input: "nope\nnope\nnope")
        #expect(wrong.status == 77)
        #expect(try box.journal().events(session: session).filter { $0.kind == "passphrase_failed" }.count == 3)
        #expect(try box.journal().session(session)?.status == .active, "unchanged")

        let ok = try box.carrel(["unlock"], input: "proctor phrase")
        #expect(ok.status == 0, "\(ok.out)")
        #expect(ok.out.first?.hasPrefix("Session \(session) (Ada) ended by the proctor; 1 of 6 answered. Result: ") == true)
        #expect(tmux.buffers.isEmpty, "pasteboards cleared on unlock")
        let record = try #require(try box.journal().session(session))
        #expect(record.status == .ended)
        #expect(record.endReason == .endedByProctor)
        let result = try JSONDecoder().decode(ResultDocument.self, from: Data(contentsOf: URL(fileURLWithPath: "\(box.location.resultsDirectory)/\(session).json")))
        #expect(result.status == .endedByProctor)
        #expect(result.interruptions == 1)
        #expect(result.items.first { $0.id == "q2" }?.outcome == .correct)

        // The seat is free for the next candidate.
        let next = try #require(try box.begin(file, candidate: "Grace"))
        next.0.send("submit")
        #expect(next.0.expect("finished submitted") != nil)
    }

    /// A session of a sealed assessment: the journal keeps the package, `status` counts its
    /// questions from the public header, and `unlock` opens it with the passphrase it asks.
    @Test func aSealedSessionStaysSealedInTheJournalAndUnlocksWithThePassphrase() throws {
        let box = try Sandbox()
        let hash = try PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10)
        let yaml = try box.assessment(items: 4, extra: "proctor: { passphrase: \"\(hash)\" }")
        let assessment = try #require(AssessmentReader.read(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: yaml))), file: yaml).assessment)
        let package = "\(box.root)/fixture.carrel"
        try Data(try SealedAssessment.seal(assessment, passphrase: "proctor phrase",
                                           cost: .init(logRounds: 10, blockSize: 8, parallelism: 1))).write(to: URL(fileURLWithPath: package))

        let (child, session) = try #require(try box.begin(package, ["--passphrase", "proctor phrase"]))
        child.send("answer q1 \(Response.text("a1").driverJSON)")
        #expect(child.expect("ack q1") != nil)
        child.signal(SIGKILL)
        child.waitStatus()

        let record = try #require(try box.journal().sessions(status: nil).first)
        #expect(record.fingerprint.hasPrefix("sealed:"), "known at rest by its keyed fingerprint only")
        #expect(record.fingerprint != Fingerprint.of(assessment))
        let stored = try box.journal().storedAssessment(fingerprint: record.fingerprint)
        #expect(stored.format == .sealed)
        #expect(stored.bytes.range(of: Data("accept".utf8)) == nil)
        let waiting = try #require(try statusJSON(box)["interrupted"] as? [[String: Any]])
        #expect((waiting.first?["progress"] as? [String: Any])?["items"] as? Int == 4)

        let wrong = try box.carrel(["unlock"], input: "nope\nnope\nnope")
        #expect(wrong.status == 77)
        #expect(try box.journal().session(session)?.status == .active, "unchanged")
        let ok = try box.carrel(["unlock"], input: "proctor phrase")
        #expect(ok.status == 0, "\(ok.out)")
        #expect(ok.out.first?.contains("1 of 4 answered") == true)
        let result = try #require(try box.journal().result(session: session))
        #expect(result.contains("\"outcome\" : \"correct\""))
        for secret in ["\"a0\"", "\"a2\"", "\"a3\"", "accept"] { #expect(!result.contains(secret), "\(secret)") }
    }

    @Test func unlockWithNothingToDoSaysSo() throws {
        let box = try Sandbox()
        let r = try box.carrel(["unlock"])
        #expect(r.status == 0)
        #expect(r.out == ["Nothing to unlock: no session has run with this state directory."])
    }
}
