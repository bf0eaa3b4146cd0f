import AssessmentKit
import Foundation
import SessionKit
import SharedStore
import Synchronization

/// One connection to a `MemoryStore`.
public final class MemoryLink: StoreLink {
    let store: MemoryStore
    public let id: Int
    private let state = Mutex(State())

    struct State {
        var open = true
        var notices: AsyncStream<Void>.Continuation?
    }

    init(store: MemoryStore, id: Int) {
        self.store = store
        self.id = id
    }

    var isOpen: Bool { state.withLock { $0.open } }

    /// The store closed this connection (cut off, restarted).
    func end() {
        let notices = state.withLock { s -> AsyncStream<Void>.Continuation? in
            s.open = false
            defer { s.notices = nil }
            return s.notices
        }
        notices?.finish()
    }

    func notify() { _ = state.withLock { $0.notices }?.yield() }

    func enter(_ name: String) async throws { try await store.enter(name, link: self) }

    public func hello(session: String, body: String) async throws {
        try await enter("hello")
        store.data.withLock { $0.hellos[session] = body }
    }

    public func lock(session: String) async throws -> Bool {
        try await enter("lock")
        return store.data.withLock { d in
            if let holder = d.locks[session], holder != id { return false }
            d.locks[session] = id
            return true
        }
    }

    public func unlock(session: String) async throws {
        try await enter("unlock")
        store.data.withLock { d in
            if d.locks[session] == id { d.locks[session] = nil }
        }
    }

    public func commands(room: String, seat: String, after: Int64) async throws -> [SignedCommand] {
        try await enter("commands")
        return store.data.withLock { d in
            d.commands.filter { $0.room == room && $0.seat == seat && !$0.isStart && $0.signed.id > after }.map(\.signed)
        }
    }

    public func starts(room: String, seat: String, after: Int64) async throws -> [SignedCommand] {
        try await enter("starts")
        return store.data.withLock { d in
            d.commands.filter { $0.room == room && $0.seat == seat && $0.isStart && $0.signed.id > after }.map(\.signed).reversed()
        }
    }

    public func refused(session: String, detail: String) async throws {
        try await enter("refused")
        store.data.withLock { $0.refusals.append((session, detail)) }
    }

    public func marks(sessions: [String], after: Int64) async throws -> [StoreMark] {
        try await enter("marks")
        let wanted = Set(sessions)
        return store.data.withLock { d in d.marks.filter { wanted.contains($0.session) && $0.id > after } }
    }

    public func serverProcess() async throws -> Int64 {
        try await enter("pid")
        return Int64(id)
    }

    public func live(session: String, mac: String, elapsed: Double?) async throws {
        try await enter("live")
        store.data.withLock { $0.live[session] = (id, mac, elapsed) }
    }

    public func pulse(session: String, elapsed: Double) async throws {
        try await enter("pulse")
        store.data.withLock { $0.pulses[session] = elapsed }
    }

    /// All or nothing, as PostgreSQL's transaction: a refused insert keeps none of the batch.
    public func insert(_ records: [SentRecord]) async throws -> Int64 {
        try await enter("insert")
        if store.refusesInsert() {
            end()
            store.closed(self)
            throw StoreGone(description: "the server said: the store refused the records")
        }
        return store.data.withLock { d in
            var kept: Int64 = 0
            for r in records {
                d.sends.append(r)
                if let there = d.records[r.session]?[r.seq] {
                    if there.digest == r.digest && there.mac == r.mac { kept += 1 }
                } else {
                    d.records[r.session, default: [:]][r.seq] = r
                    kept += 1
                }
            }
            return kept
        }
    }

    public func rehearse(session: String, records: [SentRecord]) async throws {
        try await enter("rehearse")
        store.data.withLock { $0.rehearsals += 1 }
    }

    public func listen(started: @escaping @Sendable () -> Void, heard: @escaping @Sendable () -> Void) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let open = state.withLock { s -> Bool in
            guard s.open else { return false }
            s.notices = continuation
            return true
        }
        guard open else { return }
        started()
        for await _ in stream { heard() }
    }

    public func close() async {
        end()
        store.closed(self)
    }
}
