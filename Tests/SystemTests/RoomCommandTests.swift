#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit

/// The proctor's commands reaching seats (the real runtime through the driver) on a real
/// PostgreSQL: queued while a seat cannot read them, then applied in order, each once.
@Suite("Proctor commands on a real PostgreSQL", .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
struct RoomCommandTests {
    /// The numbers of the commands a seat applied, from its `command N` lines, until `count`
    /// arrived or the time ran out.
    static func applied(_ child: ChildProcess, count: Int, timeout: Double = 30) -> [Int] {
        var out: [Int] = []
        let deadline = Date().addingTimeInterval(timeout)
        while out.count < count, Date() < deadline {
            guard let line = child.readLine(timeout: max(0.1, deadline.timeIntervalSinceNow)) else { break }
            // `command N left=SECONDS`
            if line.hasPrefix("command "), let n = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { out.append(n) }
        }
        return out
    }

    static func issued(_ out: [String]) -> [Int] {
        out.compactMap { line -> [Int]? in
            guard let range = line.range(of: "(command ") else { return nil }
            return line[range.upperBound...].prefix { $0 != ")" }.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }.flatMap { $0 }
    }

    /// The proctor's commands (no state directory of their own).
    struct Proctor {
        func carrel(_ arguments: [String]) throws -> (status: Int32, out: [String]) {
            let (arguments, input) = TestProctor.signing(arguments)
            let run = ChildSpawn.run(ChildProcess.carrel, arguments, input: input, environment: ProcessInfo.processInfo.environment, timeout: 60)
            return (run.status, run.output.split(separator: "\n").map(String.init))
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func commandsQueuedWhileTheStoreRestartsAndWhileASeatIsFrozenApplyInOrderOnce() throws {
        let pg = try PrivatePostgres()
        defer { pg.destroy() }
        let password = try String(contentsOfFile: pg.folder + "/password", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        // The password in the URL: the sandbox's commands have no password file.
        let url = try pg.database().replacingOccurrences(of: "postgresql://carrel@", with: "postgresql://carrel:\(password)@")
        let proctor = Proctor()
        let seatBox = try Sandbox()
        let file = try seatBox.assessment(items: 4, extra: TestProctor.yaml)
        let open = try proctor.carrel(["room", "open", "q1", file, "--shared", url])
        #expect(open.status == 0, "\(open.out)")
        let child = try seatBox.driver(["begin", file, "--shared", url, "--room", "q1", "--seat", "Q1", "--follow"],
                                       environment: ["PGPASSFILE": pg.passwordFile])
        let began = try #require(child.expect("began "))
        let session = String(began.split(separator: " ")[1])
        #expect(SharedStoreTests.eventually(20) {
            ((try? proctor.carrel(["proctor", "--json", "--room", "q1", "--shared", url]))?.out.joined().contains(session)) ?? false
        })

        // The store restarts: the seat's connection is gone; commands issued as it comes back.
        pg.stop()
        sleep(1)
        try pg.start()
        var ids: [Int] = []
        for words in [["message", "one"], ["time", "+1m"], ["message", "two"]] {
            let out = try proctor.carrel(["proctor", words[0], "--room", "q1", words[1], "--wait", "0", "--shared", url])
            ids += Self.issued(out.out)
        }
        #expect(ids.count == 3)
        #expect(Self.applied(child, count: 3) == ids)

        // The seat frozen (SIGSTOP): the commands wait in the store, and apply once it goes on.
        child.signal(SIGSTOP)
        var more: [Int] = []
        for words in [["pause", ""], ["resume", ""], ["message", "three"]] {
            let out = try proctor.carrel(["proctor", words[0], "--room", "q1"] + (words[1].isEmpty ? [] : [words[1]])
                                         + ["--wait", "0", "--shared", url])
            more += Self.issued(out.out)
        }
        child.signal(SIGCONT)
        #expect(more.count == 3)
        #expect(Self.applied(child, count: 3) == more)
        // Nothing applied twice: the journal has each command once, in order.
        let events = try seatBox.journal().events(session: session).filter { $0.kind == "proctor_command" }
        let numbers = events.compactMap { ProctorCommand(journalDetail: $0.detail)?.id }.map(Int.init)
        #expect(numbers == ids + more)
        child.send("submit")
        #expect(child.expect("finished ", timeout: 20) != nil)
    }
}
