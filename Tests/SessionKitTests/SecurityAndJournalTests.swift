#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
import Lockdown
import Testing
@testable import SessionKit

@Suite("Files, modes, symlinks and the journal", .serialized)
struct SecurityAndJournalTests {
    @Test func stateFilesArePrivate() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let (child, session) = try #require(try box.begin(file))
        child.send("answer q0 \(Response.text("a0").driverJSON)")
        child.send("submit")
        let finished = try #require(child.expect("finished submitted"))
        let resultPath = String(finished.split(separator: " ")[2])
        #expect(resultPath == "\(box.location.resultsDirectory)/\(session).json")
        #expect(mode(box.stateDir) == 0o700)
        #expect(mode(box.location.resultsDirectory) == 0o700)
        #expect(mode(box.location.journalPath) == 0o600)
        #expect(mode(box.location.lockPath) == 0o600)
        #expect(mode(resultPath) == 0o600)
        #expect(mode(box.location.journalPath + "-wal") == 0o600)
    }

    @Test func aLooseStateDirectoryIsTightened() throws {
        let box = try Sandbox()
        try FileManager.default.createDirectory(atPath: box.stateDir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        try box.location.prepare()
        #expect(mode(box.stateDir) == 0o700)
    }

    @Test func aSymlinkAtTheLockPathIsRefusedNotFollowed() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        try box.location.prepare()
        let target = box.root + "/elsewhere"
        try "precious".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: box.location.lockPath, withDestinationPath: target)
        let result = try box.carrelDriverStderr(["begin", file])
        #expect(result.status == 73)
        #expect(result.stderr.contains("is a symbolic link; refusing to follow it"))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
    }

    @Test func aSymlinkAtTheResultPathIsRefusedAndTheResultStaysInTheJournal() throws {
        let box = try Sandbox()
        let file = try box.assessment()
        let (child, session) = try #require(try box.begin(file))
        let target = box.root + "/stolen.json"
        try FileManager.default.createSymbolicLink(atPath: "\(box.location.resultsDirectory)/\(session).json", withDestinationPath: target)
        child.send("submit")
        let finished = try #require(child.expect("finished submitted"))
        #expect(finished.contains("is a symbolic link; refusing to write through it"))
        #expect(child.waitStatus() == 73)
        #expect(!FileManager.default.fileExists(atPath: target))
        let stored = try #require(try box.journal().result(session: session))
        #expect(stored.contains("\"session\" : \"\(session)\""))
    }

    @Test func aSymlinkedStateDirectoryIsRefused() throws {
        let box = try Sandbox()
        let real = box.root + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: box.stateDir, withDestinationPath: real)
        #expect(throws: FileSystemError.self) { try box.location.prepare() }
    }

    @Test func theJournalUsesWALAndFullSynchronousWrites() throws {
        let box = try Sandbox()
        try box.location.prepare()
        let journal = try Journal(location: box.location)
        let pragmas = try journal.pragmas()
        #expect(pragmas.journalMode == "wal")
        #expect(pragmas.synchronous == 2, "2 is FULL")
    }

    @Test func theLogIsLargeWhereTheDiskHasRoomAndSmallWhereItHasLittle() throws {
        #expect(Journal.LogShape.forDisk(freeBytes: nil) == .tight, "unknown room: tight")
        #expect(Journal.LogShape.forDisk(freeBytes: Journal.LogShape.roomNeeded - 1) == .tight)
        #expect(Journal.LogShape.forDisk(freeBytes: Journal.LogShape.roomNeeded) == .roomy)
        #expect(Journal.LogShape.roomy.foldEvery > Journal.LogShape.tight.foldEvery)
        // A journal opened on this machine's temporary folder, which has room, and the shape
        // it keeps after its migrations (which fold every few pages while they run).
        let box = try Sandbox()
        try box.location.prepare()
        let journal = try Journal(location: box.location)
        let (fold, limit) = try journal.writer.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint"), try Int.fetchOne(db, sql: "PRAGMA journal_size_limit"))
        }
        var info = statvfs()
        try #require(statvfs(box.root, &info) == 0)
        let expected = Journal.LogShape.forDisk(freeBytes: UInt64(info.f_bavail) * UInt64(info.f_frsize))
        #expect(fold == expected.foldEvery)
        #expect(limit == expected.sizeLimit)
    }

    @Test func anAnswersTimeIsStoredAsGRDBStoresADate() {
        // The journal writes an answer's time itself; it must be the very text GRDB writes
        // for the same Date, to the millisecond, for every kind of moment.
        var generator = SplitMix64(seed: 11)
        var dates: [Date] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 0.9999),
                             Date(timeIntervalSince1970: 1_795_000_000.9995), Date(timeIntervalSinceReferenceDate: -0.0005),
                             Date(timeIntervalSince1970: 951_782_400.001), Date(timeIntervalSince1970: -86_400.5)]
        for _ in 0..<20_000 {
            let seconds = Double(generator.next() % 4_000_000_000) + Double(generator.next() % 1_000_000) / 1_000_000
            dates.append(Date(timeIntervalSince1970: seconds))
        }
        dates.append(Date())
        var mismatches: [String] = []
        for date in dates where JournalTime.text(date) != String.fromDatabaseValue(date.databaseValue) {
            mismatches.append("\(date.timeIntervalSince1970): \(JournalTime.text(date)) vs \(String.fromDatabaseValue(date.databaseValue) ?? "-")")
        }
        #expect(mismatches.count == 0, "\(mismatches.count) of \(dates.count): \(mismatches.prefix(5))")
    }

    @Test func theJournalKeepsTheLatestAnswerAndItsHistory() throws {
        let box = try Sandbox()
        try box.location.prepare()
        let journal = try Journal(location: box.location)
        let record = SessionRecord(
            id: "s1", assessmentID: "a", assessmentTitle: "A", fingerprint: "sha256:x", assessmentPath: "a.yaml",
            candidate: "Åsa Ng", status: .active, seed: UInt64.max, extraTime: .multiplier(1.5),
            options: SessionOptions(theme: "contrast", screenReader: true), startedAt: Date(timeIntervalSince1970: 1_800_000_000),
            pid: 42, host: "lab-3", tty: "/dev/pts/1")
        try journal.createSession(record, source: StoredAssessment(bytes: Data("carrel: 1".utf8), path: "a.yaml"))
        let t0 = Date(timeIntervalSince1970: 1_800_000_010)
        try journal.commit(session: "s1", [.answer(item: "q", response: .text("one"))], at: t0)
        try journal.commit(session: "s1", [.answer(item: "q", response: .text("two"))], at: t0.addingTimeInterval(1))
        try journal.commit(session: "s1", [.answer(item: "m", response: .match(["Canada": "Ottawa"]))], at: t0.addingTimeInterval(2))
        #expect(try journal.answers(session: "s1") == ["q": .text("two"), "m": .match(["Canada": "Ottawa"])])
        #expect(try journal.session("s1") == record, "every field round-trips, the full 64-bit seed and launch options included")
        let reopened = try Journal(location: box.location)
        let history = try reopened.history(session: "s1")
        #expect(history.map(\.item) == ["q", "q", "m"], "every saved version is kept, in order")
        #expect(history.map(\.response) == [.text("one"), .text("two"), .match(["Canada": "Ottawa"])])
        #expect(history.map(\.at) == [t0, t0.addingTimeInterval(1), t0.addingTimeInterval(2)])

        // A move alone commits without waiting for the disk, and the connection waits again
        // for everything after it, after a failed move too.
        try journal.commit(session: "s1", [.progress(position: 3, elapsed: 12.5)], at: t0.addingTimeInterval(3))
        #expect(try journal.pragmas().synchronous == 2, "back to FULL after a move")
        #expect(try reopened.session("s1")?.position == 3)
        #expect(throws: (any Error).self) {
            try journal.commit(session: "nobody", [.progress(position: 1, elapsed: 1)], at: t0)
        }
        #expect(try journal.pragmas().synchronous == 2, "back to FULL after a failed move")
    }

    /// Once an assessment is sealed, the journal keeps only the sealed copy: a sealed launch
    /// replaces a plain copy of the same fingerprint, and a plain launch never replaces a sealed one.
    @Test func aSealedCopyReplacesAPlainOneOfTheSameFingerprintAndNeverTheReverse() throws {
        let journal = try Journal(writer: try DatabaseQueue())
        func record(_ id: String) -> SessionRecord {
            SessionRecord(
                id: id, assessmentID: "a", assessmentTitle: "A", fingerprint: "sha256:x", assessmentPath: "a.yaml",
                candidate: nil, status: .ended, seed: 1, extraTime: .none, options: SessionOptions(),
                startedAt: Date(timeIntervalSince1970: 1_800_000_000), pid: 42, host: "lab-3", tty: nil)
        }
        let plain = StoredAssessment(bytes: Data("carrel: 1 # accept: [syzygy]".utf8), path: "a.yaml")
        let sealed = StoredAssessment(bytes: Data("carrel-sealed\n…".utf8), path: "a.carrel", format: .sealed)
        try journal.createSession(record("s1"), source: plain)
        #expect(try journal.storedAssessment(fingerprint: "sha256:x") == plain)
        try journal.createSession(record("s2"), source: sealed)
        #expect(try journal.storedAssessment(fingerprint: "sha256:x") == sealed)
        try journal.createSession(record("s3"), source: plain)
        #expect(try journal.storedAssessment(fingerprint: "sha256:x") == sealed)
        #expect(try journal.sessions(status: nil).map(\.id) == ["s1", "s2", "s3"])
    }

    @Test func wrongPassphrasesAreRejectedWithGrowingDelays() throws {
        let box = try Sandbox()
        let hash = try PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10)
        let file = try box.assessment(extra: "proctor: { passphrase: \"\(hash)\" }")
        let (child, session) = try #require(try box.begin(file))
        child.send("exit Ctrl-C")
        #expect(child.expect("ok exit") != nil)
        child.send("passphrase wrong one")
        #expect(child.expect("notice That passphrase is not right") != nil)
        child.send("passphrase proctor phrase")
        // Inside the back-off window even the right passphrase waits.
        #expect(child.expect("notice Wait ") != nil)
        child.send("passphrase also wrong")
        _ = child.expect("ok passphrase")
        sleep(2)
        child.send("passphrase proctor phrase")
        let finished = try #require(child.expect("finished "))
        #expect(finished.hasPrefix("finished ended_by_proctor"))
        let failures = try box.journal().events(session: session).filter { $0.kind == "passphrase_failed" }
        #expect(failures.count == 1)
    }
}
