#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
@testable import Lockdown
@testable import SessionKit
import Testing

/// Local state no bad file can break, against real files, real SQLite and real `carrel`
/// processes: special files planted where Carrel keeps its state, journals edited by hand,
/// state directories that cannot be written, integrity events the journal cannot take.
@Suite("Local state: special files, damaged journals, read-only copies (real processes)", .serialized)
struct LocalStateTests {
    // MARK: special files

    enum Special: String, CaseIterable, CustomTestStringConvertible {
        case fifo, socket, directory
        var testDescription: String { rawValue }
        /// What the refusal calls it.
        var word: String {
            switch self {
            case .fifo: return "FIFO"
            case .socket: return "socket"
            case .directory: return "directory"
            }
        }

        func plant(at path: String) throws {
            switch self {
            case .fifo:
                try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path)")
            case .directory:
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            case .socket:
                try UnixSocketFile.make(at: path)
            }
        }
    }

    static let places = ["session.lock", "journal.sqlite-wal", "passphrase-attempts.json"]

    /// A journal with one ended session, so every command has something to read.
    static func stateWithAJournal(_ box: Sandbox) throws {
        let child = try box.driver(["begin", try box.assessment()])
        try #require(child.expect("began ") != nil)
        child.send("submit")
        try #require(child.expect("finished") != nil)
        child.waitStatus()
    }

    @Test(arguments: Special.allCases, places)
    func aSpecialFileWhereCarrelKeepsStateIsRefusedAtOnceWithItsPath(special: Special, place: String) throws {
        let box = try Sandbox()
        try Self.stateWithAJournal(box)
        let path = box.stateDir + "/" + place
        try? FileManager.default.removeItem(atPath: path)
        try special.plant(at: path)
        var commands = [["status"], ["status", "--json"], ["results", "list"], ["unlock"], ["resume"]]
        if place != "passphrase-attempts.json" { commands.append(["driver-begin"]) }
        for command in commands {
            let started = Date()
            let r: ChildSpawn.Output
            if command == ["driver-begin"] {
                r = ChildSpawn.run(ChildProcess.driver, ["begin", try box.assessment(), "--state-dir", box.stateDir],
                                   environment: box.environment, timeout: 15)
            } else {
                r = ChildSpawn.run(ChildProcess.carrel, command + ["--state-dir", box.stateDir], environment: box.environment, timeout: 15)
            }
            #expect(!r.timedOut, "\(command) hung on the \(special) at \(place)")
            #expect(Date().timeIntervalSince(started) < 5, "\(command) answered at once")
            #expect(r.status == 73, "\(command) with a \(special) at \(place): \(r.status) \(r.output)")
            #expect(r.output.contains(path) && r.output.contains(special.word), "\(command): \(r.output)")
            #expect(r.output.contains("remove it"), "says what to do: \(r.output)")
        }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG, "left as it was")
    }

    @Test func theLockInspectionNeverWaitsOnAFIFO() throws {
        let box = try Sandbox()
        try box.location.prepare()
        try #require(mkfifo(box.location.lockPath, 0o600) == 0)
        let started = Date()
        #expect(FileSessionLock(location: box.location).inspect() == .free, "a FIFO holds no lock")
        #expect(Date().timeIntervalSince(started) < 5, "did not wait on the FIFO")
        #expect(throws: FileSystemError.self) { try box.location.refuseSpecialFiles() }
        #expect(SecureFiles.readSmallFile(box.location.lockPath) == nil)
    }

    // MARK: journals edited by hand

    /// A session killed with SIGKILL (no passphrase, so `unlock` asks none).
    static func interruptedSession(_ box: Sandbox) throws -> String {
        let (child, session) = try #require(try box.begin(try box.assessment()))
        child.send("answer q0 \(Response.text("a0").driverJSON)")
        try #require(child.expect("ack q0") != nil)
        child.signal(SIGKILL)
        child.waitStatus()
        return session
    }

    /// A state directory whose interrupted session was then edited by `sql`.
    static func damagedState(_ sql: String) throws -> (Sandbox, String) {
        let box = try Sandbox()
        let session = try interruptedSession(box)
        try edit(box, sql)
        return (box, session)
    }

    static func edit(_ box: Sandbox, _ sql: String) throws {
        var config = Configuration()
        config.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: box.location.journalPath, configuration: config)
        try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
    }

    static let sessionCorruptions = [
        "UPDATE progress SET elapsed = 'abc'",
        "UPDATE progress SET elapsed = 1e999",
        "UPDATE progress SET elapsed = -5",
        "UPDATE progress SET position = 'x'",
        "UPDATE progress SET position = 9223372036854775807",
        "UPDATE session SET started_at = 'yesterday'",
        "UPDATE session SET started_at = 99999999999999",
        "UPDATE session SET started_at = '20000-01-01 00:00:00.000'",
        "UPDATE session SET ended_at = 'never'",
        "UPDATE session SET extra_time = '{not json'",
        "UPDATE session SET extra_time = '{\"multiplier\":{\"_0\":1e300}}'",
        "UPDATE session SET extra_time = '{\"add\":{\"seconds\":9223372036854775807}}'",
        "UPDATE session SET options = '[1,'",
        "UPDATE session SET pid = 'abc'",
        "UPDATE session SET interruptions = 1e300",
        "UPDATE session SET seed = 'seed'",
        "UPDATE session SET host = x'00ff'",
        "DELETE FROM assessment",
    ]

    @Test(arguments: sessionCorruptions)
    func aSessionEditedByHandIsReportedAsDamagedByStatusAndUnlock(sql: String) throws {
        let (box, session) = try Self.damagedState(sql)
        for command in [["status"], ["status", "--json"], ["unlock"], ["results", "list"], ["resume"]] {
            let r = box.run(ChildProcess.carrel, command + ["--state-dir", box.stateDir])
            #expect(r.status < 128, "\(command) after \(sql) crashed: \(r.status) \(r.err)")
            // status and unlock exit 65; results and resume say the same in their own words (73).
            let code: Int32 = command[0] == "status" || command[0] == "unlock" ? 65 : 73
            #expect(r.status == code, "\(command) after \(sql): \(r.status) \(r.err)")
            #expect(r.err.contains("damaged"), "\(command) after \(sql): \(r.err)")
            #expect(r.err.contains(session), "names the session: \(r.err)")
        }
        let status = box.run(ChildProcess.carrel, ["status", "--state-dir", box.stateDir])
        #expect(status.err.contains("Lock: free"), "the rest is still shown: \(status.err)")
    }

    @Test(arguments: ["UPDATE answer SET updated_at = 'nope'", "UPDATE answer SET response = '{oops'", "UPDATE answer SET updated_at = x'00'"])
    func anAnswerEditedByHandIsReportedAsDamagedByStatus(sql: String) throws {
        let (box, session) = try Self.damagedState(sql)
        let r = box.run(ChildProcess.carrel, ["status", "--state-dir", box.stateDir])
        #expect(r.status == 65, "\(sql): \(r.status) \(r.err)")
        #expect(r.err.contains("damaged") && r.err.contains(session), "\(sql): \(r.err)")
        let unlock = box.run(ChildProcess.carrel, ["unlock", "--state-dir", box.stateDir])
        #expect(unlock.status < 128 && unlock.status != 0, "\(sql): unlock \(unlock.status) \(unlock.err)")
    }

    @Test func aDamagedPassphraseRecordIsShownNotFatalAndAHugeCountCannotOverflow() throws {
        let box = try Sandbox()
        try box.location.prepare()
        let attempts = PassphraseAttempts(stateDirectory: box.stateDir)
        try Data("{\"failures\": 9223372036854775807, \"nextAllowed\": 0, \"recent\": []}".utf8).write(to: URL(fileURLWithPath: attempts.path))
        #expect(throws: Never.self) { _ = try attempts.claim() }
        let fixed = PassphraseAttempts(stateDirectory: box.stateDir, now: { 1_000_000 })
        try Data("{\"failures\": -3, \"nextAllowed\": 1e300, \"recent\": []}".utf8).write(to: URL(fileURLWithPath: attempts.path))
        let shown = try #require(try fixed.stored())
        #expect(shown.nextAllowed <= 1_000_000 + PassphraseAttempts.maximumDelay, "status never shows a wait claim() would not keep")
        #expect(shown.failures == 0)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: attempts.path))
        let r = box.run(ChildProcess.carrel, ["status", "--state-dir", box.stateDir])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.contains("is damaged"), "\(r.err)")
    }

    // MARK: read-only state directories

    /// `chmod -R a-w`, and as root a copy owned by nobody read by nobody (root ignores modes).
    static func readOnlyRunner(_ box: Sandbox) throws -> [String] {
        guard getuid() == 0 else {
            _ = ChildSpawn.run("/bin/chmod", ["-R", "a-w", box.stateDir], environment: box.environment)
            return []
        }
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv runs carrel as another user")
        _ = ChildSpawn.run("/bin/chown", ["-R", "65534:65534", box.stateDir], environment: box.environment)
        _ = ChildSpawn.run("/bin/chmod", ["-R", "a-w", box.stateDir], environment: box.environment)
        _ = ChildSpawn.run("/bin/chmod", ["o+x", box.root], environment: box.environment)
        return ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    }

    static func listing(_ path: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { name in
            var info = stat()
            _ = lstat(path + "/" + name, &info)
            return "\(name) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_mode)"
        }
    }

    enum Copy: String, CaseIterable, CustomTestStringConvertible {
        /// Every session ended and the journal closed: no -wal, no -shm.
        case closed
        /// Taken after a crash: the log and its index are still there.
        case afterACrash
        var testDescription: String { rawValue }
    }

    @Test(arguments: Copy.allCases)
    func aReadOnlyStateDirectoryIsReadWithoutWriting(copy: Copy) throws {
        let box = try Sandbox()
        try Self.stateWithAJournal(box)
        let crashed = copy == .afterACrash ? try Self.interruptedSession(box) : nil
        let runner = try Self.readOnlyRunner(box)
        defer { _ = ChildSpawn.run("/bin/chmod", ["-R", "u+w", box.stateDir], environment: box.environment) }
        let before = Self.listing(box.stateDir) + Self.listing(box.location.resultsDirectory)
        func carrel(_ arguments: [String], input: String? = nil) -> ChildSpawn.Output {
            let all = runner + [ChildProcess.carrel] + arguments + ["--state-dir", box.stateDir]
            return ChildSpawn.run(all[0], Array(all.dropFirst()), input: input, environment: box.environment, timeout: 30)
        }
        let list = carrel(["results", "list"])
        #expect(list.status == 0, "results list: \(list.output)")
        #expect(list.output.contains("submitted"), "\(list.output)")
        let status = carrel(["status"])
        #expect(status.status == 0, "status: \(status.output)")
        if let crashed { #expect(status.output.contains(crashed), "the interrupted session is listed: \(status.output)") }
        #expect(carrel(["status", "--json"]).status == 0)
        let unlock = carrel(["unlock"], input: "")
        if crashed != nil {
            #expect(unlock.status == 73, "unlock must write, and says so: \(unlock.output)")
            #expect(unlock.output.contains("cannot be written"), "\(unlock.output)")
        }
        let after = Self.listing(box.stateDir) + Self.listing(box.location.resultsDirectory)
        #expect(before == after, "nothing created or changed")
    }

    @Test func aReadOnlyJournalOfAnOlderSchemaIsRefusedWithWhatToDo() throws {
        let box = try Sandbox()
        try box.location.prepare()
        let queue = try DatabaseQueue(path: box.location.journalPath)
        try Journal.migrator.migrate(queue, upTo: "v5")
        try queue.close()
        let runner = try Self.readOnlyRunner(box)
        defer { _ = ChildSpawn.run("/bin/chmod", ["-R", "u+w", box.stateDir], environment: box.environment) }
        let before = Self.listing(box.stateDir)
        let all = runner + [ChildProcess.carrel, "status", "--state-dir", box.stateDir]
        let r = ChildSpawn.run(all[0], Array(all.dropFirst()), environment: box.environment, timeout: 30)
        #expect(r.status == 73, "\(r.output)")
        #expect(r.output.contains("older Carrel") && r.output.contains("somewhere writable"), "\(r.output)")
        #expect(Self.listing(box.stateDir) == before, "not migrated, nothing created")
    }

    // MARK: integrity events

    @Test func aWrongPassphraseTheJournalCannotRecordIsReportedNotDropped() throws {
        let box = try Sandbox()
        let hash = try PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10)
        let file = try box.assessment(extra: "proctor: { passphrase: \"\(hash)\" }")
        let (child, session) = try #require(try box.begin(file))
        child.signal(SIGKILL)
        child.waitStatus()
        try Self.edit(box, "CREATE TRIGGER refuse_events BEFORE INSERT ON event BEGIN SELECT RAISE(ABORT, 'the disk refused it'); END")
        let r = ChildSpawn.run(ChildProcess.carrel, ["unlock", String(session.prefix(8)), "--state-dir", box.stateDir],
                               input: "nope\n", environment: box.environment, timeout: 30)
        #expect(r.status == 77, "\(r.output)")
        #expect(r.output.contains("the journal could not record a wrong passphrase"), "reported: \(r.output)")
        #expect(r.output.contains("passphrase-attempts.json has every attempt"), "\(r.output)")
        #expect(!r.output.contains("nope"), "never the passphrase")
        let record = try #require(PassphraseAttempts(stateDirectory: box.stateDir).read())
        #expect(record.failures == 1 && record.recent.count == 1, "the attempts file has it")
    }

    // MARK: scrypt costs

    @Test(arguments: ["scrypt$ln=20,r=16,p=4", "scrypt$ln=19,r=8,p=1", "scrypt$ln=18,r=16,p=1", "scrypt$ln=9,r=8,p=1"])
    func validateRefusesAPassphraseHashCostlierThanASealedHeaderAllows(parameters: String) throws {
        let box = try Sandbox()
        let salt = Data(repeating: 1, count: 16).base64EncodedString(), key = Data(repeating: 2, count: 32).base64EncodedString()
        let file = try box.assessment(extra: "proctor: { passphrase: \"\(parameters)$\(salt)$\(key)\" }")
        let started = Date()
        let r = box.run(ChildProcess.carrel, ["validate", file])
        #expect(r.status == 65, "\(parameters): \(r.err)")
        #expect(r.err.contains("\(file):6:"), "located: \(r.err)")
        #expect(r.err.contains("proctor.passphrase") && r.err.contains("scrypt"), "\(r.err)")
        #expect(Date().timeIntervalSince(started) < 5)
    }
}
