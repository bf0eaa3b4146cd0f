#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Crypto
import Foundation
import SessionTestSupport
import Testing
@testable import SessionKit

extension RoomCommandTests {
    /// A machine folder (CARREL_MACHINE_DIR) enrolled with the real `carrel seat enroll`, then
    /// pointed at `program` as the seat's Carrel (here the session driver plays the seat).
    static func enrolled(_ name: String, url: String, program: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.path + "/carrel-enrol-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        #expect(mkdir(folder, 0o755) == 0 && chmod(folder, 0o755) == 0)
        var env = ProcessInfo.processInfo.environment
        env["CARREL_MACHINE_DIR"] = folder
        let run = ChildSpawn.run(ChildProcess.carrel, ["seat", "enroll", "--shared", url, "--lab", "lab1", "--machine", name],
                                 environment: env, timeout: 30)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Machine \(name) is enrolled in lab lab1"), "\(run.output)")
        let config = try String(contentsOfFile: folder + "/machine.conf", encoding: .utf8)
        let digest = try Self.sha256(program)
        let moved = config.split(separator: "\n").map { line -> String in
            if line.hasPrefix("carrel=") { return "carrel=" + program }
            if line.hasPrefix("digest=") { return "digest=" + digest }
            return String(line)
        }.joined(separator: "\n") + "\n"
        try moved.write(toFile: folder + "/machine.conf", atomically: false, encoding: .utf8)
        chmod(folder + "/machine.conf", 0o644)
        return folder
    }

    static func sha256(_ path: String) throws -> String {
        Fingerprint.hex(SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// A seat waiting in room e1, run by `program` with the machine folder `machine`.
    static func enrolledSeat(_ program: String, seat: String, file: String, url: String, pg: PrivatePostgres,
                             machine: String?, box: Sandbox) throws -> (ChildProcess, String) {
        var env = box.environment
        env["PGPASSFILE"] = pg.passwordFile
        if let machine { env["CARREL_MACHINE_DIR"] = machine }
        let child = try ChildProcess(program, ["begin", file, "--shared", url, "--room", "e1", "--seat", seat, "--follow", "--wait-start",
                                               "--state-dir", box.stateDir] + (machine == nil ? [] : ["--machine-seal"]),
                                     environment: env)
        let waiting = try #require(child.expect("waiting "))
        return (child, String(waiting.split(separator: " ")[1]))
    }

    /// Issue 37's room: a seat on an enrolled machine is started by `proctor start --yes` with
    /// no look at its seat key; a seat on an unenrolled machine and one running another build
    /// are held back, named, and started only once a proctor admits each with the seat key
    /// its screen shows.
    @Test(.timeLimit(.minutes(3)), .enabled(if: getuid() == 0, "enrolment is root's"))
    func onlyEnrolledMachinesStartWithoutALookAndTheOthersAreAdmittedOneByOne() throws {
        let (pg, url) = try Self.store()
        defer { pg.destroy() }
        let database = String(url.split(separator: "/").last ?? "")
        // The roles enrolment gives each machine a login under (schema 8).
        let initialised = ChildSpawn.run(ChildProcess.carrel, ["store", "init", "--shared", url],
                                         environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(initialised.status == 0, "\(initialised.output)")
        let proctor = Proctor()
        let files = try Sandbox()
        let sealed = try Self.sealedSecret(in: files)
        // Another build of the seat's program, with its helper beside it, on machine pc08.
        let copies = FileManager.default.temporaryDirectory.path + "/carrel-other-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: false)
        chmod(copies, 0o755)
        let other = copies + "/carrel-session-driver"
        try FileManager.default.copyItem(atPath: ChildProcess.driver, toPath: other)
        try FileManager.default.copyItem(atPath: ChildProcess.buildFolder.appendingPathComponent("carrel-keysign").path,
                                         toPath: copies + "/carrel-keysign")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: other))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("another build".utf8))
        try handle.close()
        let pc07 = try Self.enrolled("pc07", url: url, program: ChildProcess.driver)
        let pc08 = try Self.enrolled("pc08", url: url, program: other)
        defer { for f in [copies, pc07, pc08] { try? FileManager.default.removeItem(atPath: f) } }

        let open = try proctor.carrel(["room", "open", "e1", sealed, "--start", "proctor", "--lab", "lab1", "--shared", url])
        #expect(open.status == 0 && open.out.joined().contains("keys to enrolled machines of lab lab1"), "\(open.out)")
        // The room's Carrel is the seat program the test runs.
        _ = pg.psql("UPDATE carrel_rooms SET carrel_digest = 'sha256:\(try Self.sha256(ChildProcess.driver))' WHERE room = 'e1'",
                    database: database)

        let boxes = try (0..<3).map { _ in try Sandbox() }
        let (a1, _) = try Self.enrolledSeat(ChildProcess.driver, seat: "A1", file: sealed, url: url, pg: pg, machine: pc07, box: boxes[0])
        let (a2, s2) = try Self.enrolledSeat(ChildProcess.driver, seat: "A2", file: sealed, url: url, pg: pg, machine: nil, box: boxes[1])
        let (a3, s3) = try Self.enrolledSeat(other, seat: "A3", file: sealed, url: url, pg: pg, machine: pc08, box: boxes[2])
        defer { for c in [a1, a2, a3] { c.signal(SIGKILL) } }

        // Shown in words before any start.
        var shown = ""
        #expect(Eventually.poll(20) {
            shown = ChildSpawn.run(ChildProcess.carrel, ["proctor", "--json", "--room", "e1", "--shared", url],
                                   environment: ProcessInfo.processInfo.environment).output
            return shown.contains("unknown machine, held back") && shown.contains("other Carrel, held back")
        }, "\(shown)")

        let first = try proctor.carrel(["proctor", "start", "--room", "e1", "--yes", "--wait", "20", "--shared", url])
        let said = first.out.joined(separator: "\n")
        #expect(first.status == 69, "\(said)")
        #expect(said.contains("held back  A2: unknown machine") && said.contains("held back  A3: other Carrel"), "\(said)")
        #expect(a1.expect("keys session+package") != nil)

        func key(_ session: String) throws -> String {
            try #require(pg.psql("SELECT seat_key FROM carrel_sessions WHERE session = '\(session)'", database: database)
                .output.split(separator: "\n").first.map(String.init).flatMap(SeatBox.fingerprint))
        }
        // A key that is not the one on the seat's screen admits nothing.
        let wrong = try proctor.carrel(["proctor", "admit", "--room", "e1", "--seat", "A2", "--seat-key", "0000-0000-0000-0000", "--shared", url])
        #expect(wrong.status == 69, "\(wrong.out)")
        for (seat, session, child) in [("A2", s2, a2), ("A3", s3, a3)] {
            let admitted = try proctor.carrel(["proctor", "admit", "--room", "e1", "--seat", seat, "--seat-key", try key(session), "--shared", url])
            #expect(admitted.status == 0 && admitted.out.joined().contains("Seat \(seat) admitted"), "\(admitted.out)")
            let next = try proctor.carrel(["proctor", "start", "--room", "e1", "--seat", seat, "--yes", "--wait", "20", "--shared", url])
            #expect(next.status == 0, "\(next.out)")
            #expect(child.expect("keys session+package") != nil)
        }
    }
}
