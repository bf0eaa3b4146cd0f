// The lab's store in memory, for the publisher's rules: a test cuts it, slows it, restarts it
// and makes it refuse, in milliseconds and without PostgreSQL. It keeps what PostgreSQL keeps
// for a seat (records by session and number, commands and starts by room and seat, advisory
// locks and liveness per connection, refusals and marks) and nothing of its SQL: that is
// tested against a real PostgreSQL in SystemTests.
import AssessmentKit
import Foundation
import SessionKit
import SharedStore
import Synchronization

/// Thrown by a store that is cut off or restarting, or a link that was closed.
public struct StoreGone: Error, CustomStringConvertible {
    public var description: String
}

public final class MemoryStore: StoreLinkOpener, Sendable {
    public struct Command: Sendable, Equatable {
        public var room: String
        public var seat: String
        public var signed: SignedCommand
        public var isStart: Bool
    }

    public struct Contents: Sendable {
        /// Records by session, then number, as first written.
        public var records: [String: [Int64: SentRecord]] = [:]
        /// Every insert of a record, kept or not, in the order sent (a record sent twice shows twice).
        public var sends: [SentRecord] = []
        public var hellos: [String: String] = [:]
        public var commands: [Command] = []
        public var refusals: [(session: String, detail: String)] = []
        public var marks: [StoreMark] = []
        /// The connection holding each session's advisory lock.
        public var locks: [String: Int] = [:]
        /// Each session's liveness claim: the connection it names, and the time used.
        public var live: [String: (connection: Int, mac: String, elapsed: Double?)] = [:]
        public var pulses: [String: Double] = [:]
        public var rehearsals = 0
        /// Each session's token as the store holds it (PostgreSQL keeps its SHA-256), and the
        /// first one (which still reads the session's marks).
        public var tokens: [String: String] = [:]
        public var firstTokens: [String: String] = [:]
        /// Calls refused because the caller did not prove its session.
        public var unproven = 0
        /// Calls made, by name ("insert", "commands", "connect" …).
        public var calls: [String: Int] = [:]
        var nextCommand: Int64 = 0
        var nextConnection = 0
        var open: [Int: MemoryLink] = [:]
    }

    let data = Mutex(Contents())
    let faults = Mutex(Faults())

    struct Faults {
        var cut = false
        var delay = 0.0
        var refuseInserts = 0
    }

    public let answerDeadline: Double

    public init(answerDeadline: Double = 2) {
        self.answerDeadline = answerDeadline
    }

    /// What the store holds now.
    public var snapshot: Contents { data.withLock { $0 } }

    /// Records of `session` in number order.
    public func records(_ session: String) -> [SentRecord] {
        data.withLock { ($0.records[session] ?? [:]).sorted { $0.key < $1.key }.map(\.value) }
    }

    public func calls(_ name: String) -> Int { data.withLock { $0.calls[name] ?? 0 } }

    // MARK: faults

    /// Cuts the store off: connections fail, and every open one is closed.
    public func cut() {
        faults.withLock { $0.cut = true }
        dropConnections()
    }

    /// Lets connections in again.
    public func restore() { faults.withLock { $0.cut = false } }

    /// Every call takes this long before it is answered.
    public func slow(_ seconds: Double) { faults.withLock { $0.delay = seconds } }

    /// A restart: every connection closed, their locks and liveness gone, the data kept.
    public func restart() { dropConnections() }

    /// The next `count` inserts fail (the store refuses them), closing their connection.
    public func refuseInserts(_ count: Int) { faults.withLock { $0.refuseInserts = count } }

    /// Someone else wrote a record under this session and number first.
    public func forge(_ record: SentRecord) {
        data.withLock { $0.records[record.session, default: [:]][record.seq] = record }
    }

    /// The proctor issues a command to a seat (a start or any other), numbered in order, and
    /// every listening connection hears of it.
    @discardableResult
    public func issue(room: String, seat: String, envelope: String, start: Bool = false) -> Int64 {
        let (id, listening) = data.withLock { d -> (Int64, [MemoryLink]) in
            d.nextCommand += 1
            d.commands.append(Command(room: room, seat: seat, signed: SignedCommand(id: d.nextCommand, envelope: envelope, signature: "sig"),
                                      isStart: start))
            return (d.nextCommand, Array(d.open.values))
        }
        for link in listening { link.notify() }
        return id
    }

    public func addMark(_ mark: StoreMark) { data.withLock { $0.marks.append(mark) } }

    func dropConnections() {
        let links = data.withLock { d -> [MemoryLink] in
            let links = Array(d.open.values)
            d.open = [:]
            d.locks = [:]
            d.live = [:]
            return links
        }
        for link in links { link.end() }
    }

    // MARK: the opener

    public func open() async throws -> any StoreLink {
        try await enter("connect")
        return data.withLock { d in
            d.nextConnection += 1
            let link = MemoryLink(store: self, id: d.nextConnection)
            d.open[link.id] = link
            return link
        }
    }

    /// A call arrives: it waits out the delay, then fails if the store is cut off.
    func enter(_ name: String, link: MemoryLink? = nil) async throws {
        let (cut, delay) = faults.withLock { ($0.cut, $0.delay) }
        if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
        if cut || faults.withLock({ $0.cut }) { throw StoreGone(description: "the connection was refused") }
        if let link, !link.isOpen { throw StoreGone(description: "the connection was closed") }
        data.withLock { $0.calls[name, default: 0] += 1 }
    }

    /// As `carrel_proven`: the session's token, or the one it replaces (which moves the store
    /// to the new one). Counts a refusal.
    func proven(_ proof: SeatProof, in d: inout Contents) -> Bool {
        guard proof.token.count >= 32, let held = d.tokens[proof.session] else {
            d.unproven += 1
            return false
        }
        if held == proof.token { return true }
        if let previous = proof.previous, previous == held {
            d.tokens[proof.session] = proof.token
            return true
        }
        d.unproven += 1
        return false
    }

    func refusesInsert() -> Bool {
        faults.withLock { f in
            guard f.refuseInserts > 0 else { return false }
            f.refuseInserts -= 1
            return true
        }
    }

    func closed(_ link: MemoryLink) {
        data.withLock { d in
            d.open[link.id] = nil
            d.locks = d.locks.filter { $0.value != link.id }
        }
    }
}
