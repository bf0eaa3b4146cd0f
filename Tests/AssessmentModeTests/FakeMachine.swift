import AssessmentMode
import Foundation
import ModeService

/// The order things happened in, shared by the fake machine and the fake store.
final class Events {
    var list: [String] = []
}

/// A machine in memory: nftables tables, files, kernel settings, the console lock, masked
/// units and stopped processes; a change can be made to fail.
final class FakeMachine: ChangeExecutor {
    var tables: [String: String] = [:]
    var files: [String: String] = [:]
    var settings: [String: String] = ["/proc/sys/kernel/sysrq": "176", ModePlan.tiocsti: "1"]
    var consoleLocked = false
    var masked: Set<String> = []
    var continued: [ProcessMark] = []
    /// Changes that fail when made (the reason), and changes whose revert fails.
    var failing: [Change: String] = [:]
    var failingRevert: Set<Change> = []
    let events: Events

    init(events: Events) {
        self.events = events
    }

    /// Everything a mode changes, to compare before and after.
    var snapshot: String { "\(tables.sorted { $0.key < $1.key }) \(files.sorted { $0.key < $1.key }) \(settings.sorted { $0.key < $1.key }) \(consoleLocked) \(masked.sorted())" }

    func before(_ change: Change) throws(ChangeError) -> Before {
        switch change {
        case .nftables, .lockConsoleSwitch: return .nothing
        case let .file(path, _): return files[path].map { .contents(Data($0.utf8)) } ?? .nothing
        case let .sysctl(path, _):
            guard let value = settings[path] else { throw ChangeError("\(path) does not exist on this machine") }
            return .value(value)
        case let .maskUnit(unit): return masked.contains(unit) ? .value("masked") : .nothing
        }
    }

    func perform(_ change: Change) throws(ChangeError) {
        events.list.append("perform \(Self.name(change))")
        if let why = failing[change] { throw ChangeError(why) }
        switch change {
        case let .nftables(table, ruleset): tables[table] = ruleset
        case let .file(path, contents): files[path] = contents
        case let .sysctl(path, value): settings[path] = value
        case .lockConsoleSwitch: consoleLocked = true
        case let .maskUnit(unit): masked.insert(unit)
        }
    }

    func revert(_ change: Change, before: Before) throws(ChangeError) {
        events.list.append("revert \(Self.name(change))")
        if failingRevert.contains(change) { throw ChangeError("cannot revert") }
        switch (change, before) {
        case let (.nftables(table, _), _): tables[table] = nil
        case let (.file(path, _), .contents(data)): files[path] = String(decoding: data, as: UTF8.self)
        case let (.file(path, _), _): files[path] = nil
        case let (.sysctl(path, _), .value(value)): settings[path] = value
        case (.sysctl, _): break
        case (.lockConsoleSwitch, _): consoleLocked = false
        case (.maskUnit, .value("masked")): break
        case let (.maskUnit(unit), _): masked.remove(unit)
        }
    }

    func resume(_ process: ProcessMark) {
        continued.append(process)
    }

    static func name(_ change: Change) -> String {
        switch change {
        case let .nftables(table, _): "nftables \(table)"
        case let .file(path, _): "file \(path)"
        case let .sysctl(path, _): "sysctl \(path)"
        case .lockConsoleSwitch: "console"
        case let .maskUnit(unit): "mask \(unit)"
        }
    }
}

/// The record kept in memory, through JSON as on disk.
final class MemoryStore: ModeStore {
    var bytes: Data?
    var failSaves = false
    let events: Events

    init(events: Events) {
        self.events = events
    }

    var record: ModeRecord? { bytes.flatMap { try? JSONDecoder().decode(ModeRecord.self, from: $0) } }

    func save(_ record: ModeRecord) throws(ChangeError) {
        events.list.append("save \(record.changes.count)")
        if failSaves { throw ChangeError("the disk is full") }
        do { bytes = try JSONEncoder().encode(record) } catch { throw ChangeError("\(error)") }
    }

    func load() throws(ChangeError) -> ModeRecord? {
        guard let bytes else { return nil }
        do { return try JSONDecoder().decode(ModeRecord.self, from: bytes) } catch { throw ChangeError("damaged") }
    }

    func remove() throws(ChangeError) {
        events.list.append("remove")
        bytes = nil
    }
}

/// An engine over a fresh fake machine and store.
struct Bench {
    let events = Events()
    let machine: FakeMachine
    let store: MemoryStore
    let engine: ModeEngine
    let student = Caller(connection: 1, uid: 1001, account: "carrel1")
    let resolved = ModePlan.Resolved(store: [("10.0.0.5", 5432)], nameServers: ["10.0.0.1"])

    init() {
        machine = FakeMachine(events: events)
        store = MemoryStore(events: events)
        engine = ModeEngine(executor: machine, store: store, log: { _ in })
    }

    func request(_ policy: MachinePolicy = MachinePolicy(), session: String = "s1", hash: String? = nil,
                 maxDuration: Int = 3600) -> ModeBegin {
        ModeBegin(session: session, policy: policy, store: [Endpoint(host: "10.0.0.5", port: 5432)], maxDuration: maxDuration,
                  passphraseHash: hash)
    }

    func begin(_ request: ModeBegin, as caller: Caller? = nil, now: Double = 1000, watched: AtBegin = AtBegin()) -> [Outgoing] {
        engine.begin(request, caller: caller ?? student, resolved: resolved, now: now) { _ in watched }
    }
}
