// In-memory edges for running the real session runtime inside a test: an in-memory GRDB
// journal (which SQLite triggers can make fail, like a full disk), a lock, pasteboards and
// a clock the test controls. Real edges are tested for real elsewhere.
import AssessmentKit
import Foundation
import GRDB
import SessionKit

/// A clock the test moves by hand.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds = 1000.0
    public init() {}
    public var now: Double { lock.withLock { seconds } }
    public func advance(_ by: Double) { lock.withLock { seconds += by } }
    public var sessionClock: SessionClock {
        SessionClock(now: { [self] in Date(timeIntervalSince1970: 1_800_000_000 + now) }, monotonic: { [self] in now })
    }
}

/// The journal in memory; results kept in a dictionary.
public final class MemoryStorage: StateStorage, @unchecked Sendable {
    public let location = StateLocation(stateDirectory: "/memory")
    public let queue: DatabaseQueue
    private let lock = NSLock()
    private var written: [String: Data] = [:]
    public var failResultFiles = false

    public init() throws { queue = try DatabaseQueue() }

    public func openJournal(create: Bool) throws -> (any DatabaseWriter)? { queue }

    public func writeResult(_ data: Data, session: String) throws -> String {
        if failResultFiles { throw CocoaError(.fileWriteOutOfSpace) }
        lock.withLock { written[session] = data }
        return "/memory/results/\(session).json"
    }

    public var results: [String: Data] { lock.withLock { written } }

    /// Makes SQLite refuse every insert into (or update of) `table`, as a full disk would.
    public func fail(_ table: String) throws {
        try queue.write { db in
            for op in ["INSERT", "UPDATE"] {
                try db.execute(sql: "CREATE TEMP TRIGGER fail_\(op)_\(table) BEFORE \(op) ON \(table) BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
            }
        }
    }

    public func recover(_ table: String) throws {
        try queue.write { db in
            for op in ["INSERT", "UPDATE"] { try db.execute(sql: "DROP TRIGGER IF EXISTS fail_\(op)_\(table)") }
        }
    }
}

public final class MemoryLock: SessionLocking, @unchecked Sendable {
    private let lock = NSLock()
    private var holder: LockHolder?
    public init() {}

    final class Held: HeldSessionLock, @unchecked Sendable {
        let owner: MemoryLock
        init(_ owner: MemoryLock) { self.owner = owner }
        func release() { owner.lock.withLock { owner.holder = nil } }
    }

    public func acquire(_ holder: LockHolder) throws(LockError) -> any HeldSessionLock {
        let current: LockHolder? = lock.withLock {
            if let h = self.holder { return h }
            self.holder = holder
            return nil
        }
        if let current { throw .held(current) }
        return Held(self)
    }

    public func inspect() -> LockState { lock.withLock { holder.map { .held($0) } ?? .free } }
}

public final class RecordingPasteboards: PasteboardClearer, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    public init() {}
    public var clears: Int { lock.withLock { count } }
    public func clearAndDescribe() -> [String] {
        lock.withLock { count += 1 }
        return ["test pasteboard: cleared"]
    }
}

public struct OpenGate: EnvironmentGate {
    public var tracer: Int?
    public init(tracer: Int? = nil) { self.tracer = tracer }
    public func refusals(policy: RestrictionPolicy, needsTerminal: Bool) -> [String] { [] }
    public func attachedTracer() -> Int? { tracer }
}

/// Everything a runtime needs, in memory.
public struct MemoryWorld {
    public let storage: MemoryStorage
    public let lock = MemoryLock()
    public let pasteboards = RecordingPasteboards()
    public let clock = TestClock()
    public var gate = OpenGate()

    public init() throws { storage = try MemoryStorage() }

    public var context: SessionContext {
        SessionContext(
            storage: storage, lock: lock, pasteboards: pasteboards, gate: gate, signals: { nil }, needsTerminal: false,
            clock: clock.sessionClock,
            ids: SessionIDs(sessionID: { "session-\(UUID().uuidString.lowercased())" }, seed: { 42 }),
            pid: 4242, host: "test", tty: nil)
    }

    public func journal() throws -> Journal { try Journal(writer: storage.queue) }

    /// Reads YAML text into an assessment, failing loudly.
    public static func assessment(_ yaml: String) throws -> (Assessment, StoredAssessment) {
        let outcome = AssessmentReader.read(text: yaml, file: "test.yaml")
        guard let a = outcome.assessment else { throw TestFailure(outcome.diagnostics.map(\.description).joined(separator: "; ")) }
        return (a, StoredAssessment(bytes: Data(yaml.utf8), path: "test.yaml"))
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
