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

    public func hello(session: String, body: String, token: String) async throws -> Bool {
        try await enter("hello")
        return store.data.withLock { d in
            if d.tokens[session] != nil { return store.proven(SeatProof(session: session, token: token), in: &d) }
            guard token.count >= 32 else { return false }
            d.tokens[session] = token
            d.firstTokens[session] = token
            d.hellos[session] = body
            return true
        }
    }

    public func lock(_ proof: SeatProof) async throws -> Bool {
        let session = proof.session
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

    public func commands(room: String, seat: String, proof: SeatProof, after: Int64) async throws -> [SignedCommand] {
        try await enter("commands")
        return store.data.withLock { d in
            guard store.proven(proof, in: &d) else { return [] }
            return d.commands.filter { $0.room == room && $0.seat == seat && !$0.isStart && $0.signed.id > after }.map(\.signed)
        }
    }

    public func starts(room: String, seat: String, proof: SeatProof, after: Int64) async throws -> [SignedCommand] {
        try await enter("starts")
        return store.data.withLock { d in
            guard store.proven(proof, in: &d) else { return [] }
            return d.commands.filter { $0.room == room && $0.seat == seat && $0.isStart && $0.signed.id > after }.map(\.signed).reversed()
        }
    }

    public func refused(_ proof: SeatProof, detail: String) async throws {
        try await enter("refused")
        store.data.withLock { d in
            if store.proven(proof, in: &d) { d.refusals.append((proof.session, detail)) }
        }
    }

    public func marks(_ proofs: [SeatProof], after: Int64) async throws -> [StoreMark] {
        try await enter("marks")
        return store.data.withLock { d in
            let wanted = Set(proofs.filter { p in p.token.count >= 32 && (d.tokens[p.session] == p.token || d.firstTokens[p.session] == p.token) }
                .map(\.session))
            return d.marks.filter { wanted.contains($0.session) && $0.id > after }
        }
    }

    public func serverProcess() async throws -> Int64 {
        try await enter("pid")
        return Int64(id)
    }

    public func live(_ proof: SeatProof, mac: String, elapsed: Double?) async throws {
        try await enter("live")
        store.data.withLock { d in
            if store.proven(proof, in: &d) { d.live[proof.session] = (id, mac, elapsed) }
        }
    }

    public func pulse(_ proof: SeatProof, elapsed: Double) async throws {
        try await enter("pulse")
        store.data.withLock { d in
            if store.proven(proof, in: &d) { d.pulses[proof.session] = elapsed }
        }
    }

    /// All or nothing, as PostgreSQL's transaction: a refused insert keeps none of the batch.
    public func insert(_ records: [SentRecord]) async throws -> StoreKept {
        try await enter("insert")
        if store.refusesInsert() {
            end()
            store.closed(self)
            throw StoreGone(description: "the server said: the store refused the records")
        }
        return store.data.withLock { d in
            var kept: Int64 = 0
            var refused: String?
            var allowed: Set<String> = []
            for r in records where !allowed.contains(r.session) {
                // As carrel_publish: a session nobody announced is made by its own first record.
                if d.tokens[r.session] == nil, r.kind == "session", r.token.count >= 32 {
                    d.tokens[r.session] = r.token
                    d.firstTokens[r.session] = r.token
                }
                if store.proven(SeatProof(session: r.session, token: r.token, previous: r.previous), in: &d) {
                    allowed.insert(r.session)
                } else {
                    refused = "this seat has not proven it holds session \(r.session)"
                }
            }
            for r in records {
                d.sends.append(r)
                guard allowed.contains(r.session) else { continue }
                if let there = d.records[r.session]?[r.seq] {
                    if there.digest == r.digest && there.mac == r.mac { kept += 1 }
                } else {
                    d.records[r.session, default: [:]][r.seq] = r
                    kept += 1
                }
            }
            return StoreKept(kept: kept, refused: refused)
        }
    }

    public func rehearse(_ proof: SeatProof, records: [SentRecord]) async throws {
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
