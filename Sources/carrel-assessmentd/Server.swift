#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import CAssessmentd
import Foundation
import ModeService

/// One client: a checked peer (or the refusal it is told before it is closed), what it has
/// sent and what waits to be written to it.
final class Connection {
    let id: Int
    let fd: Int32
    let peer: Peer?
    var input: [UInt8] = []
    var output: [UInt8] = []
    /// Closed once its output is written.
    var closing = false
    /// After a wrong passphrase nothing more is read from it, and the refusal is held, until then.
    var quietUntil: Double = 0
    var held: [ModeReply] = []
    var wrongPassphrases = 0
    /// Why a caller is refused: told when its request arrives (closing at once could reset the
    /// connection before the caller reads why), or at `closeBy` if none comes.
    var refusal: String?
    var closeBy = Double.infinity

    init(id: Int, fd: Int32, peer: Peer?) {
        self.id = id
        self.fd = fd
        self.peer = peer
    }

    func send(_ reply: ModeReply) {
        guard let line = try? ModeWire.line(reply) else { return }
        output += line
        // A client that reads nothing is not held in memory without end.
        if output.count > 4 << 20 { closing = true }
    }
}

/// The service's loop: one thread, poll(2) over the socket, the connections and the stop
/// signals, and a look at the machine every quarter of a second while a mode runs.
final class Server {
    let listener: Int32
    let signals: Int32
    let trusted: TrustedCarrel
    let executor: SystemExecutor
    let engine: ModeEngine
    let watcher: Watcher
    var connections: [Int: Connection] = [:]
    var nextID = 1
    var nextLook = 0.0
    /// The lab's store as the service was told it (`--store`): when set, the only place
    /// `network: store-only` lets a seat reach, whatever store a session names.
    var stores: [Endpoint] = []
    static let interval = 0.25
    static let maximumConnections = 64

    init(listener: Int32, signals: Int32, trusted: TrustedCarrel, executor: SystemExecutor, engine: ModeEngine) {
        self.listener = listener
        self.signals = signals
        self.trusted = trusted
        self.executor = executor
        self.engine = engine
        watcher = Watcher { pid in trusted.refusal(pid) == nil }
    }

    /// Serves until SIGTERM, SIGINT or SIGHUP; then the machine is put back.
    func run() {
        while true {
            let ordered = connections.values.sorted { $0.id < $1.id }
            let now = Clock.now()
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            for connection in ordered {
                var events: Int32 = connection.output.isEmpty ? 0 : POLLOUT
                if !connection.closing && connection.quietUntil <= now { events |= POLLIN }
                fds.append(pollfd(fd: connection.fd, events: Int16(events), revents: 0))
            }
            let events = watcher.events
            if events >= 0 { fds.append(pollfd(fd: events, events: Int16(POLLIN), revents: 0)) }
            let wake = ([nextLook] + ordered.filter { !$0.held.isEmpty }.map(\.quietUntil) + ordered.map(\.closeBy)).min() ?? now + 1
            let timeout = Int32(max(0, min(1, wake - now)) * 1000)
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR { log("poll failed: \(Files.error())") }
            if fds[1].revents != 0, cad_read_signal(signals) != 0 { break }
            if fds[0].revents & Int16(POLLIN) != 0 { accept() }
            for (connection, polled) in zip(ordered, fds.dropFirst(2)) { serve(connection, polled.revents) }
            if events >= 0, let last = fds.last, last.fd == events, last.revents != 0 { processEvents(Clock.now()) }
            for connection in connections.values where connection.refusal != nil && !connection.closing && connection.closeBy <= Clock.now() {
                refuse(connection)
            }
            releaseHeld(Clock.now())
            if Clock.now() >= nextLook {
                look(Clock.now())
                nextLook = Clock.now() + Self.interval
            }
        }
        deliver(engine.shutdown())
        for connection in connections.values { flush(connection) }
    }

    func accept() {
        while true {
            let fd = cad_accept(listener)
            guard fd >= 0 else { return }
            guard connections.count < Self.maximumConnections else {
                close(fd)
                continue
            }
            let checked = Peer.check(fd, trusted: trusted)
            // A failed check leaves no peer: the connection is told why and closed below.
            let connection = Connection(id: nextID, fd: fd, peer: try? checked.get())
            nextID += 1
            connections[connection.id] = connection
            if case let .failure(why) = checked {
                log("refused a caller: \(why.reason)")
                connection.refusal = why.reason
                connection.closeBy = Clock.now() + 2
            }
        }
    }

    /// Reads and answers what `connection` sent, writes what waits for it, and closes it when
    /// it has gone or is done.
    func serve(_ connection: Connection, _ events: Int16) {
        // A hang-up is read too, even from a connection kept quiet: poll would report it again at once.
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(connection) }
        // A refused caller's request is answered with why, and nothing it sent is acted on.
        if connection.refusal != nil, !connection.closing, connection.input.contains(0x0A) { refuse(connection) }
        while !connection.closing, connection.quietUntil <= Clock.now(), let newline = connection.input.firstIndex(of: 0x0A) {
            let line = Array(connection.input[..<newline])
            connection.input.removeSubrange(...newline)
            answer(line, from: connection)
        }
        if !connection.closing && connection.input.count > ModeWire.maximumLine {
            connection.send(.refused(reason: "a request is longer than \(ModeWire.maximumLine) bytes"))
            connection.closing = true
        }
        if !connection.output.isEmpty { write(connection) }
        if connection.closing && connection.output.isEmpty && connection.held.isEmpty { drop(connection) }
    }

    func refuse(_ connection: Connection) {
        connection.input = []
        connection.send(.refused(reason: connection.refusal ?? "refused"))
        connection.closing = true
    }

    func read(_ connection: Connection) {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(connection.fd, $0.baseAddress, $0.count) }
        if n > 0 {
            connection.input += chunk[0..<n]
        } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
            connection.output = []
            connection.held = []
            connection.closing = true
        }
    }

    func write(_ connection: Connection) {
        let n = connection.output.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n > 0 {
            connection.output.removeFirst(n)
        } else if n < 0 && errno != EAGAIN && errno != EINTR {
            connection.output = []
            connection.closing = true
        }
    }

    /// Best effort before the service exits: what is left for a connection, written if its
    /// socket takes it now (a client that reads nothing never holds the exit up).
    func flush(_ connection: Connection) {
        _ = connection.output.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        close(connection.fd)
    }

    func drop(_ connection: Connection) {
        close(connection.fd)
        connections[connection.id] = nil
        let owned = engine.owner == connection.id
        engine.left(connection.id)
        if owned, engine.record != nil { watcher.releaseShells() }
    }

    func deliver(_ messages: [Outgoing]) {
        for message in messages { connections[message.connection]?.send(message.reply) }
    }

    func releaseHeld(_ now: Double) {
        for connection in connections.values where !connection.held.isEmpty && connection.quietUntil <= now {
            connection.held.forEach(connection.send)
            connection.held = []
            serve(connection, 0)
        }
    }

    /// The kernel's process events: read always (they would fill the socket), acted on while a
    /// Carrel owns the mode.
    func processEvents(_ now: Double) {
        let owner = engine.owner.flatMap { connections[$0]?.peer }
        let incidents = watcher.drain(engine.record, owner: owner?.mark, now: now)
        if !incidents.isEmpty { deliver(engine.note(incidents)) }
    }

    /// The time limit, and the watchers, while a mode runs.
    func look(_ now: Double) {
        deliver(engine.expire(now: now))
        guard let record = engine.record else {
            watcher.reset()
            return
        }
        let owner = engine.owner.flatMap { connections[$0]?.peer }
        let incidents = watcher.look(record, owner: owner?.mark, now: now)
        if !watcher.frozen.isEmpty {
            engine.stopped(watcher.frozen)
            watcher.frozen = []
        }
        if !incidents.isEmpty { deliver(engine.note(incidents)) }
    }
}

func log(_ text: String) {
    let line = "carrel-assessmentd: \(text)\n"
    _ = Descriptor.writeAll(2, Array(line.utf8))
}
