#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Lockdown
import Testing
@testable import SessionKit

@Suite("Durability and signals", .serialized)
struct DurabilityAndSignalTests {
    /// How many kill -9 rounds; `CARREL_DURABILITY_ROUNDS` raises it (scripts/durability).
    static var rounds: Int {
        Int(ProcessInfo.processInfo.environment["CARREL_DURABILITY_ROUNDS"] ?? "") ?? 50
    }

    @Test(.timeLimit(.minutes(8)))
    func everyAcknowledgedAnswerSurvivesSIGKILLAtARandomPoint() throws {
        let box = try Sandbox()
        let file = try box.assessment(items: 12)
        var rng = SystemRandomNumberGenerator()
        var acknowledged: [String: Response] = [:]
        // Values sent after an item's last ack: committed or not, the kill decides.
        var inFlight: [String: [Response]] = [:]
        var sessionID: String? = nil
        var totalAcks = 0
        for round in 0..<Self.rounds {
            let child: ChildProcess
            if let id = sessionID {
                child = try box.driver(["resume", id])
            } else {
                child = try box.driver(["begin", file, "--candidate", "Ada"])
            }
            let began = try #require(child.expect("began "), "round \(round) did not begin: \(child.lines)")
            if sessionID == nil { sessionID = String(began.split(separator: " ")[1]) }

            // Everything acknowledged so far must be back.
            child.send("dump")
            let dump = try #require(child.expect("dump "))
            let json = try #require(dump.components(separatedBy: "answers=").last)
            let restored = try JSONDecoder().decode([String: Response].self, from: Data(json.utf8))
            for (item, response) in acknowledged {
                let ok = restored[item] == response || inFlight[item, default: []].contains { $0 == restored[item] }
                #expect(ok, "round \(round): \(item) lost (acknowledged \(response), found \(String(describing: restored[item])))")
            }

            // Stream answers to distinct items without waiting, then kill at a random instant.
            var sent: [String: Response] = [:]
            var items = (0..<12).map { "q\($0)" }
            items.shuffle(using: &rng)
            for (k, item) in items.prefix(8).enumerated() {
                let response = Response.text("r\(round)-\(k)")
                sent[item] = response
                child.send("answer \(item) \(response.driverJSON)")
            }
            usleep(UInt32.random(in: 0..<30_000, using: &rng))
            child.signal(SIGKILL)
            // Every ack that reached us before the kill is a promise the journal must keep.
            var acked: [String] = []
            while let line = child.readLine(timeout: 5) {
                if line.hasPrefix("ack ") { acked.append(String(line.dropFirst(4))) }
            }
            #expect(child.waitStatus() == 128 + SIGKILL)
            totalAcks += acked.count
            let stored = try box.journal().answers(session: try #require(sessionID))
            for item in acked {
                #expect(stored[item] == sent[item], "round \(round): acknowledged \(item) not in the journal")
                acknowledged[item] = sent[item]
                inFlight[item] = []
            }
            for (item, response) in sent where !acked.contains(item) {
                inFlight[item, default: []].append(response)
            }
        }
        #expect(totalAcks > 0, "the rounds acknowledged nothing: the kills came too early to test anything")
        print("durability: \(Self.rounds) kills, \(totalAcks) acknowledged answers checked")
        // And the session can still be finished with everything in the result.
        let child = try box.driver(["resume", try #require(sessionID)])
        #expect(child.expect("began ") != nil)
        child.send("submit")
        let finished = try #require(child.expect("finished submitted"))
        let path = String(finished.split(separator: " ")[2])
        let result = try JSONDecoder().decode(ResultDocument.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(result.interruptions == Self.rounds)
        for (item, response) in acknowledged {
            let found = result.items.first { $0.id == item }?.response
            let ok = found == JSONValue(response) || inFlight[item, default: []].contains { JSONValue($0) == found }
            #expect(ok, "\(item) is not in the result")
        }
    }

    @Test(arguments: [SIGHUP, SIGTERM])
    func hangUpAndTerminateLeaveAnInterruptedSessionBehind(signal: Int32) throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let tmux = try #require(TmuxServer(sandbox: box))
        let (child, session) = try #require(try box.begin(file))
        child.send("answer q1 \(Response.text("kept").driverJSON)")
        #expect(child.expect("ack q1") != nil)
        child.send("flag q2")
        #expect(child.expect("ok flag") != nil)
        tmux.setBuffer("during", "copied mid-test")
        child.signal(signal)
        let name = signal == SIGHUP ? "SIGHUP" : "SIGTERM"
        #expect(child.expect("interrupted \(name)") != nil)
        #expect(child.waitStatus() == 75)
        #expect(box.location.lockState == .free, "lock released")
        #expect(tmux.buffers.isEmpty, "pasteboards cleared")
        let journal = try box.journal()
        let record = try #require(try journal.session(session))
        #expect(record.status == .interrupted)
        #expect(try journal.answers(session: session) == ["q1": .text("kept")])
        #expect(try journal.flags(session: session) == ["q2"])
        let kinds = try journal.events(session: session).map(\.kind)
        #expect(kinds.contains("interrupted"))
        #expect(kinds.last == "pasteboard_cleared")
    }

    @Test func interruptAndQuitSignalsDoNotLeaveTheTest() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let (child, session) = try #require(try box.begin(file))
        for sig in [SIGINT, SIGTSTP, SIGQUIT] {
            child.signal(sig)
        }
        child.send("answer q0 \(Response.text("still here").driverJSON)")
        #expect(child.expect("ack q0") != nil)
        #expect(child.isAlive)
        let kinds = try box.journal().events(session: session).filter { $0.kind == "exit_attempt" }.map(\.detail)
        #expect(Set(kinds) == ["SIGINT", "SIGTSTP", "SIGQUIT"])
    }

    @Test func losingTheInputIsAHangUpNotABusyLoop() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let (child, session) = try #require(try box.begin(file))
        child.closeInput()
        #expect(child.expect("interrupted input closed") != nil)
        #expect(child.waitStatus() == 75)
        #expect(try box.journal().session(session)?.status == .interrupted)
    }

    @Test func resumeRestoresOrderAnswersFlagsPositionAndTime() throws {
        let box = try Sandbox()
        let file = try box.assessment(items: 6, extra: "shuffle: { items: true, choices: true }")
        let (child, session) = try #require(try box.begin(file))
        let order = try #require(child.lines.last?.split(separator: " ").last.map(String.init))
        child.send("answer \(order.split(separator: ",")[0]) \(Response.text("first").driverJSON)")
        #expect(child.expect("ack ") != nil)
        child.send("flag q3")
        child.send("jump 4")
        #expect(child.expect("ok jump") != nil)
        sleep(6)  // time used is saved at least every 5 seconds
        child.send("state")
        #expect(child.expect("state ") != nil)
        child.signal(SIGKILL)
        child.waitStatus()

        let resumed = try box.driver(["resume"])
        let began = try #require(resumed.expect("began "))
        #expect(began == "began \(session) \(order)", "identical order")
        resumed.send("dump")
        let dump = try #require(resumed.expect("dump "))
        #expect(dump.hasPrefix("dump flags=q3 position=4 answers="))
        #expect(dump.contains("\"first\""))
        resumed.send("state")
        let state = try #require(resumed.expect("state "))
        let elapsed = Int(state.components(separatedBy: "elapsed=").last ?? "") ?? 0
        #expect(elapsed >= 5, "time used carried over: \(state)")
        let record = try #require(try box.journal().session(session))
        #expect(record.interruptions == 1)
        #expect(try box.journal().events(session: session).contains { $0.kind == "resumed" })
    }

    @Test func aFiveSecondLimitSubmitsAsTimedOut() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let short = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "time_limit: 10m", with: "time_limit: 3s")
        try short.write(toFile: file, atomically: true, encoding: .utf8)
        let (child, _) = try #require(try box.begin(file))
        child.send("answer q0 \(Response.text("a0").driverJSON)")
        let finished = try #require(child.expect("finished ", timeout: 20))
        #expect(finished.hasPrefix("finished timed_out "))
        let path = String(finished.split(separator: " ")[2])
        let result = try JSONDecoder().decode(ResultDocument.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(result.status == .timedOut)
        #expect(result.score.points == 1)
        #expect(result.items.first { $0.id == "q0" }?.outcome == .correct)
    }
}
