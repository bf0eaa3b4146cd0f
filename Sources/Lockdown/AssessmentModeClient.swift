import CLinux
import Foundation
import SessionKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The session's side of `carrel-assessmentd`: one connection to its Unix socket
/// (`CARREL_ASSESSMENTD_SOCKET`, else /run/carrel/assessmentd.sock), JSON lines each way. The
/// connection that began the mode owns it; closing it without `end` leaves the machine
/// restricted (the service marks the session interrupted). After `began`, a thread reads
/// the service's news (incidents, an end by the time limit) for `incidents()`.
public final class AssessmentModeClient: AssessmentModeLink, @unchecked Sendable {
    public let socketPath: String
    /// Seconds to wait for an answer (the service checks a passphrase with scrypt).
    let answerTimeout: Double
    private let state = Mutex(State())

    struct State {
        var fd: Int32 = -1
        var incidents: [Incident] = []
        var replies: [ModeReply] = []
        var closed = false
        /// The reading thread runs (after `began`).
        var reading = false
        /// Bytes read and not yet a whole line: kept between the reads of `awaitReplies` and
        /// of the reading thread, so that no line is cut in two and lost.
        var pending = Data()
    }

    /// Whose the service must be (root's; tests that serve the socket themselves name their own uid).
    let requiredOwner: UInt32

    public init(socketPath: String = ModeWire.socketPath(ProcessInfo.processInfo.environment), answerTimeout: Double = 20,
                requiredOwner: UInt32 = 0) {
        self.socketPath = socketPath
        self.answerTimeout = answerTimeout
        self.requiredOwner = requiredOwner
    }

    deinit {
        let fd = state.withLock { $0.fd }
        if fd >= 0 { close(fd) }
    }

    public func begin(_ request: ModeBegin) -> ModeOutcome { ask(.begin(request)) }

    public func resume(session: String, passphrase: String) -> ModeOutcome { ask(.resume(session: session, passphrase: passphrase)) }

    public func unlock(session: String, passphrase: String) -> ModeOutcome {
        let outcome = ask(.unlock(session: session, passphrase: passphrase))
        leave()
        return outcome
    }

    public func end() -> String? {
        guard send(.end) else { return "the assessment-mode service cannot be reached" }
        let outcome = awaitOutcome()
        leave()
        switch outcome {
        case .ended: return nil
        case let .failed(why), let .unavailable(why): return why
        case .began: return "the service did not end the mode"
        }
    }

    public func leave() {
        state.withLock { s in
            if s.fd >= 0 { close(s.fd) }
            s.fd = -1
            s.closed = true
        }
    }

    public func incidents() -> [Incident] {
        state.withLock { s in
            defer { s.incidents.removeAll() }
            return s.incidents
        }
    }

    /// What `capabilities` says (for `carrel seat check`), or why the service cannot be asked.
    public func capabilities() -> Result<[Capability], ModeClientError> {
        switch connect() {
        case let .failure(error): return .failure(error)
        case .success: break
        }
        defer { leave() }
        guard send(.capabilities) else { return .failure(.unreachable("the service closed the connection")) }
        for reply in awaitReplies() {
            if case let .capabilities(list) = reply { return .success(list) }
            if case let .refused(why) = reply { return .failure(.refused(why)) }
        }
        return .failure(.unreachable("the service did not answer within \(Int(answerTimeout)) s"))
    }

    public enum ModeClientError: Error, Sendable, CustomStringConvertible {
        case unavailable(String)
        case unreachable(String)
        case refused(String)

        public var description: String {
            switch self {
            case let .unavailable(why), let .unreachable(why), let .refused(why): return why
            }
        }
    }

    // MARK: the connection

    func ask(_ request: ModeRequest) -> ModeOutcome {
        switch connect() {
        case let .failure(error): return .unavailable(error.description)
        case .success: break
        }
        guard send(request) else { return .unavailable("the assessment-mode service closed the connection") }
        let outcome = awaitOutcome()
        if case .began = outcome { startReading() } else { leave() }
        return outcome
    }

    func connect() -> Result<Void, ModeClientError> {
        if state.withLock({ $0.fd >= 0 }) { return .success(()) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.unreachable("no socket: \(String(cString: strerror(errno)))")) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            return .failure(.unavailable("the service's socket path is too long: \(socketPath)"))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.enumerated() { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let why = String(cString: strerror(errno))
            close(fd)
            return .failure(.unavailable("no assessment-mode service on this machine (\(socketPath): \(why))"))
        }
        // The service is root's: a socket some other account serves (one a student named in
        // CARREL_ASSESSMENTD_SOCKET, answering every step "applied") is no service.
        var owner: UInt32 = 0
        guard carrel_peer_uid(fd, &owner) == 0, owner == requiredOwner else {
            close(fd)
            return .failure(.unavailable("no assessment-mode service on this machine (\(socketPath) is served by uid \(owner), not root's service)"))
        }
        state.withLock {
            $0.fd = fd
            $0.closed = false
            $0.replies.removeAll()
            $0.pending = Data()
        }
        return .success(())
    }

    func send(_ request: ModeRequest) -> Bool {
        guard let line = try? ModeWire.line(request) else { return false }
        let fd = state.withLock { $0.fd }
        guard fd >= 0 else { return false }
        return line.withUnsafeBytes { raw -> Bool in
            var sent = 0
            while sent < raw.count {
                let n = Glibc.send(fd, raw.baseAddress.map { $0 + sent }, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                sent += n
            }
            return true
        }
    }

    /// The first answer that decides a request (incidents on the way are kept).
    func awaitOutcome() -> ModeOutcome {
        let replies = awaitReplies()
        for (index, reply) in replies.enumerated() {
            let outcome: ModeOutcome
            switch reply {
            case let .began(_, steps): outcome = .began(steps)
            case .ended: outcome = .ended
            case let .failed(why): outcome = .failed(why)
            case let .refused(why): outcome = .failed(why)
            case let .incident(incident):
                keep([incident])
                continue
            default: continue
            }
            // What came with the answer is news for later, as if the reading thread had read it.
            for later in replies[(index + 1)...] { news(later) }
            return outcome
        }
        return .unavailable("the assessment-mode service did not answer within \(Int(answerTimeout)) s")
    }

    /// A reply that answers nothing asked: an incident, or the mode ended by the service on its
    /// own (its time limit, an unlock elsewhere, its restart), which the session tells the proctor.
    func news(_ reply: ModeReply) {
        if case let .incident(incident) = reply {
            keep([incident])
            return
        }
        state.withLock { $0.replies.append(reply) }
        if case let .ended(_, reason) = reply, reason != .ended {
            keep([Incident(kind: .session, detail: "assessment mode ended by the service (\(reason.rawValue)): this machine is no longer locked",
                           at: Date().timeIntervalSince1970, action: "reported")])
        }
    }

    /// Replies as they come, until one that is not an incident, the timeout, or the end of
    /// the connection (then what came so far): read here until the reading thread runs, then
    /// from what it queued.
    func awaitReplies() -> [ModeReply] {
        let deadline = Date().addingTimeInterval(answerTimeout)
        var gathered: [ModeReply] = []
        func answered() -> Bool { gathered.contains { if case .incident = $0 { false } else { true } } }
        while Date() < deadline {
            gathered += state.withLock { s -> [ModeReply] in
                defer { s.replies.removeAll() }
                return s.replies
            }
            if answered() { return gathered }
            let (fd, reading) = state.withLock { ($0.fd, $0.reading) }
            if reading {
                usleep(10_000)
                continue
            }
            guard fd >= 0, let lines = readLines(fd, timeout: deadline.timeIntervalSinceNow) else { return gathered }
            gathered += lines.compactMap { try? ModeWire.decode(ModeReply.self, line: $0) }
            if answered() { return gathered }
        }
        return gathered
    }

    func keep(_ incidents: [Incident]) {
        guard !incidents.isEmpty else { return }
        state.withLock { $0.incidents += incidents }
    }

    /// Complete lines read within `timeout`; nil when the connection ended.
    func readLines(_ fd: Int32, timeout: Double) -> [Data]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, min(timeout, 1)) * 1000))
        if ready < 0 && errno != EINTR { return nil }
        guard ready > 0 else { return [] }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 && errno == EINTR { return [] }
        guard n > 0 else { return nil }
        return state.withLock { s -> [Data]? in
            s.pending.append(contentsOf: chunk[0..<n])
            var lines: [Data] = []
            while let end = s.pending.firstIndex(of: 0x0A) {
                lines.append(Data(s.pending[s.pending.startIndex..<end]))
                s.pending = Data(s.pending[s.pending.index(after: end)...])
            }
            // A line longer than the protocol allows is no answer: the connection is dropped.
            return s.pending.count > ModeWire.maximumLine ? nil : lines
        }
    }

    /// After `began`: news from the service (incidents, an end by the time limit) kept for
    /// `incidents()`; the answer to `end` queued for `awaitReplies`.
    func startReading() {
        let thread = Thread { [self] in
            while true {
                let fd = state.withLock { $0.closed ? -1 : $0.fd }
                guard fd >= 0, let lines = readLines(fd, timeout: 1) else {
                    state.withLock { $0.reading = false }
                    return
                }
                for reply in lines.compactMap({ try? ModeWire.decode(ModeReply.self, line: $0) }) { news(reply) }
            }
        }
        state.withLock { $0.reading = true }
        thread.start()
    }
}
