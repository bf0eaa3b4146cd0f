import AssessmentMode
import Foundation
import Lockdown
import SessionKit
import SessionTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The session's client of the assessment-mode service over a real Unix socket, against a
/// service that answers with lines written here: began with its steps, incidents as they come,
/// ended; a missing service is said in words; an answer that never comes is waited for no longer
/// than the client's limit.
@Suite("The assessment-mode client on a real socket")
struct AssessmentModeClientTests {
    /// A one-connection service: reads a request line, answers each with what `answer` gives.
    final class Service: @unchecked Sendable {
        let path: String
        let listener: Int32
        var requests: [String] = []
        let lock = NSLock()

        init(answer: @escaping @Sendable (String) -> [ModeReply]) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("mode-\(UUID().uuidString.prefix(8)).sock").path
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            listener = fd
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(fd, 4) == 0 else { throw CocoaError(.fileWriteUnknown) }
            Thread { [self] in
                let fd = accept(fd, nil, nil)
                guard fd >= 0 else { return }
                var buffer = [UInt8]()
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let n = recv(fd, &chunk, chunk.count, 0)
                    guard n > 0 else { break }
                    buffer += chunk[0..<n]
                    while let end = buffer.firstIndex(of: 0x0A) {
                        let line = String(decoding: buffer[..<end], as: UTF8.self)
                        buffer.removeSubrange(...end)
                        lock.withLock { requests.append(line) }
                        for reply in answer(line) {
                            if let data = try? ModeWire.line(reply) { _ = data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } }
                        }
                    }
                }
                close(fd)
            }.start()
        }

        deinit {
            close(listener)
            unlink(path)
        }

        var seen: [String] { lock.withLock { requests } }
    }

    static let steps = [StepReport(kind: .network, applied: true, detail: "ada (uid 1001) reaches 127.0.0.1:5432 only")]
    static let incident = Incident(kind: .process, detail: "process 42 of ada: sleep 30", at: 1, action: "reported")

    @Test func beganIncidentsAndEndTravelOverTheSocket() throws {
        let service = try Service { line in
            if line.contains("\"begin\"") { return [.incident(Self.incident), .began(session: "s1", steps: Self.steps), .incident(Self.incident)] }
            if line.contains("\"end\"") { return [.ended(session: "s1", reason: .ended)] }
            return [.refused(reason: "not this")]
        }
        let client = AssessmentModeClient(socketPath: service.path, answerTimeout: 10, requiredOwner: getuid())
        let outcome = client.begin(ModeBegin(session: "s1", policy: MachinePolicy(), store: [], maxDuration: 600, passphraseHash: nil))
        #expect(outcome == .began(Self.steps))
        var seen: [Incident] = []
        for _ in 0..<200 where seen.count < 2 {
            seen += client.incidents()
            usleep(10_000)
        }
        #expect(seen == [Self.incident, Self.incident], "an incident before the answer and one after it")
        #expect(client.end() == nil)
        #expect(service.seen.count == 2 && service.seen[1] == #"{"end":{}}"#, "\(service.seen)")
    }

    @Test func aModeTheServiceEndsOnItsOwnIsToldToTheSession() throws {
        let service = try Service { line in
            line.contains("\"begin\"") ? [.began(session: "s2", steps: []), .ended(session: "s2", reason: .restored)] : []
        }
        let client = AssessmentModeClient(socketPath: service.path, answerTimeout: 10, requiredOwner: getuid())
        #expect(client.begin(ModeBegin(session: "s2", policy: MachinePolicy(), store: [], maxDuration: 600, passphraseHash: nil)) == .began([]))
        var seen: [Incident] = []
        for _ in 0..<200 where seen.isEmpty {
            seen += client.incidents()
            usleep(10_000)
        }
        #expect(seen.first?.kind == .session && seen.first?.detail.contains("restored") == true, "\(seen)")
        client.leave()
    }

    @Test func noServiceIsSaidInWordsAndASilentOneIsWaitedForNoLonger() throws {
        let missing = AssessmentModeClient(socketPath: "/nonexistent/assessmentd.sock", answerTimeout: 1)
        guard case let .unavailable(why) = missing.begin(ModeBegin(session: "s", policy: MachinePolicy(), store: [], maxDuration: 60, passphraseHash: nil)) else {
            Issue.record("a missing service is unavailable")
            return
        }
        #expect(why.contains("no assessment-mode service on this machine") && why.contains("/nonexistent/assessmentd.sock"))
        let silent = try Service { _ in [] }
        let client = AssessmentModeClient(socketPath: silent.path, answerTimeout: 1, requiredOwner: getuid())
        let started = Date()
        guard case let .unavailable(late) = client.begin(ModeBegin(session: "s", policy: MachinePolicy(), store: [], maxDuration: 60, passphraseHash: nil)) else {
            Issue.record("a silent service is unavailable")
            return
        }
        #expect(late.contains("did not answer"))
        #expect(Date().timeIntervalSince(started) < 30)
    }

    /// A socket another account serves (a student's own "service", named in
    /// CARREL_ASSESSMENTD_SOCKET, that answers every step "applied") is no service: the
    /// session is told there is none, and `machine: lock` then does not begin.
    @Test(.enabled(if: getuid() == 0, "a server of another account needs root to start"))
    func aSocketServedByAnotherAccountIsNoService() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mode-fake-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o777)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/fake.sock"
        let began = #"{"began":{"session":"s","steps":[]}}"#
        let script = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); print('ready', flush=True); "
            + "c,_=s.accept(); c.recv(65536); c.sendall(sys.argv[2].encode()+b'\\n'); c.recv(1)"
        let fake = try ChildProcess("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", script,
                                                         path, began], environment: ["PATH": "/usr/bin:/bin"])
        #expect(fake.readLine(timeout: 10) == "ready")
        let client = AssessmentModeClient(socketPath: path, answerTimeout: 5)
        guard case let .unavailable(why) = client.begin(ModeBegin(session: "s", policy: MachinePolicy(), store: [], maxDuration: 60, passphraseHash: nil)) else {
            Issue.record("a student's own service was believed")
            return
        }
        #expect(why.contains("is served by uid \(getpwnam("nobody")?.pointee.pw_uid ?? 65534), not root's service"), "\(why)")
        fake.signal(SIGKILL)
    }
}
