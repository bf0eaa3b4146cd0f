#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SessionKit

/// Proctor passphrase attempts, kept in the state directory (`passphrase-attempts.json`,
/// 0600, never through a symlink) so that the wait after wrong passphrases holds across
/// processes: restarting `carrel unlock` does not start afresh, and processes started side
/// by side queue behind one another. Every attempt is recorded the moment it is checked,
/// so an abandoned launch still leaves its trace.
public struct PassphraseAttempts: Sendable {
    public static let fileName = "passphrase-attempts.json"
    /// The longest wait, whatever the count.
    public static let maximumDelay = PassphraseBackoff.maximumDelay
    /// The largest count of wrong passphrases kept (the wait is the longest long before).
    static let maximumFailures = 1_000_000
    /// How many attempts the file remembers.
    public static let historyLength = 50

    public let path: String
    let now: @Sendable () -> Double

    /// `now` gives wall-clock seconds (tests pass their own).
    public init(stateDirectory: String, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.path = stateDirectory + "/" + Self.fileName
        self.now = now
    }

    /// What the file holds.
    public struct Record: Codable, Sendable, Equatable {
        /// Wrong passphrases since the last right one.
        public var failures = 0
        /// Wall-clock time (seconds since 1970) before which no passphrase is checked.
        public var nextAllowed = 0.0
        public var recent: [Entry] = []

        public init() {}

        /// As read from a file anyone with the account could edit: a clock set back (or an
        /// edited time) never turns into a wait longer than the longest one, and the count
        /// stays a count, never below zero nor near overflowing.
        mutating func bound(now: Double) {
            nextAllowed = min(nextAllowed, now + PassphraseAttempts.maximumDelay)
            failures = min(max(failures, 0), PassphraseAttempts.maximumFailures)
        }
    }

    /// One checked passphrase.
    public struct Entry: Codable, Sendable, Equatable {
        public var at: String
        public var action: String
        public var accepted: Bool
    }

    /// The wait after `failures` wrong passphrases in a row: the one rule (`PassphraseBackoff`).
    public static func delay(afterFailures failures: Int) -> Double {
        PassphraseBackoff.delay(afterFailures: failures)
    }

    /// Whether a passphrase may be checked now.
    public enum Turn: Sendable, Equatable {
        case go
        case wait(Double)
    }

    /// Claims the right to check one passphrase now, or says how long to wait. A claimed
    /// turn already pushes the next allowed time as if this attempt will fail (so a process
    /// killed during the check still counts, and parallel ones wait); `record` settles it.
    public func claim() throws(FileSystemError) -> Turn {
        try update { record, now in
            if record.nextAllowed > now { return .wait(record.nextAllowed - now) }
            record.nextAllowed = now + Self.delay(afterFailures: record.failures + 1)
            return .go
        }
    }

    /// Records the outcome of a claimed attempt: a right passphrase clears the count.
    public func record(accepted: Bool, action: String) throws(FileSystemError) {
        try update { record, now in
            if accepted {
                record.failures = 0
                record.nextAllowed = 0
            } else {
                record.failures += 1
                record.nextAllowed = now + Self.delay(afterFailures: record.failures)
            }
            record.recent.append(Entry(at: Self.iso(now), action: action, accepted: accepted))
            if record.recent.count > Self.historyLength { record.recent.removeFirst(record.recent.count - Self.historyLength) }
        }
    }

    /// The record as it stands, nil when no attempt was ever made (to say how long to wait).
    /// Only advisory: `claim()` decides, and treats a damaged file as a failure, so an
    /// unreadable record here cannot shorten any wait.
    public func read() -> Record? {
        // Advisory (see above): a special or damaged file reads as no record here.
        try? stored()
    }

    /// The record for `carrel status`: nil when no attempt was ever made; a special file
    /// (FIFO, socket, device, directory, symlink) or a damaged record is refused with its
    /// path and what to do.
    public func stored() throws(FileSystemError) -> Record? {
        guard let data = try SecureFiles.readStateFile(path, limit: 1 << 20) else { return nil }
        guard !data.isEmpty else { return nil }
        do {
            var record = try JSONDecoder().decode(Record.self, from: data)
            record.bound(now: now())
            return record
        } catch {
            throw FileSystemError(path: path, reason: "is damaged (not the record Carrel writes); the next passphrase check counts it as one wrong passphrase and rewrites it")
        }
    }

    static func iso(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: seconds).formatted(.iso8601)
    }

    /// Read, change and write the record under an exclusive lock on the file.
    func update<T>(_ change: (inout Record, Double) -> T) throws(FileSystemError) -> T {
        // The first passphrase may come before any session made the state directory.
        try SecureFiles.prepareDirectory((path as NSString).deletingLastPathComponent)
        let fd = try SecureFiles.openPrivate(path)
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileSystemError(path: path, reason: "cannot lock: \(SecureFiles.errnoText())") }
        }
        let bytes = SecureFiles.readAll(fd, limit: 1 << 20)
        let now = self.now()
        var record: Record
        if bytes.isEmpty {
            record = Record()
        } else if let stored = try? JSONDecoder().decode(Record.self, from: bytes) {
            record = stored
        } else {
            // A damaged file is not a clean slate: count one failure.
            record = Record()
            record.failures = 1
            record.nextAllowed = now + Self.delay(afterFailures: 1)
        }
        record.bound(now: now)
        let result = change(&record, now)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded: Data
        do {
            encoded = try encoder.encode(record)
        } catch {
            throw FileSystemError(path: path, reason: "cannot encode the attempts: \(error)")
        }
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0, SecureFiles.writeAll(fd, encoded), fsync(fd) == 0 else {
            throw FileSystemError(path: path, reason: "cannot write: \(SecureFiles.errnoText())")
        }
        return result
    }
}
