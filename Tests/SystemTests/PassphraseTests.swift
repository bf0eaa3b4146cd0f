#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionTestSupport
@testable import Lockdown
import Testing

/// A wall clock the test moves by hand.
final class TestClock: @unchecked Sendable {
    var now = 1_000_000.0
}

@Suite("Proctor passphrases: bytes, length, attempts across processes, no echo")
struct PassphraseTests {
    // MARK: what counts as a passphrase

    @Test func invalidUTF8IsRefusedNotRepaired() {
        #expect(throws: PassphraseHash.InputProblem.notUTF8) { try PassphraseHash.passphrase(bytes: [0x61, 0xFF, 0x62]) }
        #expect(throws: PassphraseHash.InputProblem.notUTF8) { try PassphraseHash.passphrase(bytes: [0xC3]) }
        #expect(throws: PassphraseHash.InputProblem.notUTF8) { try PassphraseHash.passphrase(bytes: [0xED, 0xA0, 0x80]) }
        #expect((try? PassphraseHash.passphrase(bytes: Array("élan vital".utf8))) == "élan vital")
    }

    @Test func oneLengthLimitWithNoTruncation() throws {
        let limit = PassphraseHash.maximumBytes
        #expect(limit == 1024)
        #expect(throws: PassphraseHash.InputProblem.tooLong) { try PassphraseHash.passphrase(bytes: Array(repeating: 0x61, count: limit + 1)) }
        let longest = String(repeating: "a", count: limit)
        let hash = try PassphraseHash.make(passphrase: longest, logRounds: 10)
        #expect(hash.verify(longest))
        #expect(!hash.verify(longest + "b"), "a longer passphrase never matches by its prefix")
        #expect(throws: (any Error).self) { try PassphraseHash.make(passphrase: longest + "b", logRounds: 10) }
    }

    // MARK: attempts remembered across processes

    @Test func theWaitDoublesAndIsCapped() {
        #expect(PassphraseAttempts.delay(afterFailures: 0) == 0)
        #expect((1...5).map { PassphraseAttempts.delay(afterFailures: $0) } == [1, 2, 4, 8, 16])
        #expect(PassphraseAttempts.delay(afterFailures: 40) == PassphraseAttempts.maximumDelay)
    }

    @Test func attemptsPersistAndAFreshInstanceMustWait() throws {
        let box = try Sandbox()
        try box.location.prepare()
        let clock = TestClock()
        let make = { PassphraseAttempts(stateDirectory: box.stateDir, now: { clock.now }) }
        #expect(try make().claim() == .go)
        try make().record(accepted: false, action: "unlock 1")
        #expect(try make().claim() == .wait(1), "a restarted process does not start afresh")
        clock.now += 1
        #expect(try make().claim() == .go)
        try make().record(accepted: false, action: "unlock 2")
        #expect(try make().claim() == .wait(2))
        clock.now += 2
        #expect(try make().claim() == .go)
        #expect(try make().claim() == .wait(4), "a claimed turn already counts as failed for the next process")
        try make().record(accepted: true, action: "unlock 3")
        #expect(try make().claim() == .go)
        let record = try #require(make().read())
        #expect(record.recent.map(\.accepted) == [false, false, true])
        var info = stat()
        #expect(lstat(make().path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func aPlantedSymlinkOrDamagedFileIsNoCleanSlate() throws {
        let box = try Sandbox()
        try box.location.prepare()
        let attempts = PassphraseAttempts(stateDirectory: box.stateDir)
        try FileManager.default.createSymbolicLink(atPath: attempts.path, withDestinationPath: box.root + "/elsewhere")
        #expect(throws: FileSystemError.self) { try attempts.claim() }
        try FileManager.default.removeItem(atPath: attempts.path)
        try "garbage".write(toFile: attempts.path, atomically: false, encoding: .utf8)
        if case .wait = try attempts.claim() {} else { Issue.record("a damaged record must impose a wait") }
    }

    @Test func theGateLimitsTriesAndRecordsEachOne() throws {
        let box = try Sandbox()
        try box.location.prepare()
        let clock = TestClock()
        let hash = try PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10)
        let gate = ProctorGate(hash: hash, attempts: PassphraseAttempts(stateDirectory: box.stateDir, now: { clock.now }),
                               tries: 2, action: "launch strict")
        if case .rejected(triesLeft: 1, _) = gate.check("nope") {} else { Issue.record("first wrong try") }
        #expect(gate.check("proctor phrase") == .mustWait(1), "the wait holds even for the right passphrase")
        clock.now += 1
        if case .rejected(triesLeft: 0, _) = gate.check("still wrong") {} else { Issue.record("second wrong try") }
        #expect(gate.check("proctor phrase") == .rejected(triesLeft: 0, wait: 0), "no tries left")
        let other = ProctorGate(hash: hash, attempts: PassphraseAttempts(stateDirectory: box.stateDir, now: { clock.now + 10 }),
                                action: "launch strict")
        #expect(other.check("proctor phrase") == .accepted)
    }

    // MARK: the real binary

    func interruptedSession(_ box: Sandbox) throws -> String {
        let hash = try PassphraseHash.make(passphrase: "proctor phrase", logRounds: 10)
        let file = try box.assessment(extra: "proctor: { passphrase: \"\(hash)\" }")
        let (child, session) = try #require(try box.begin(file))
        child.signal(SIGKILL)
        child.waitStatus()
        return session
    }

    @Test func passphraseRefusesInvalidUTF8AndOverlongLines() throws {
        let box = try Sandbox()
        let invalid = box.run("/bin/sh", ["-c", "printf 'secret\\377phrase\\nsecret\\377phrase\\n' | '\(ChildProcess.carrel)' passphrase"])
        #expect(invalid.status == 64)
        #expect(invalid.err.contains("not valid UTF-8"), "\(invalid.err)")
        let long = String(repeating: "x", count: 1025)
        let overlong = ChildSpawn.run(ChildProcess.carrel, ["passphrase"], input: "\(long)\n\(long)\n", environment: box.environment)
        #expect(overlong.status == 64)
        #expect(overlong.output.contains("longer than 1024 bytes"), "\(overlong.output)")
        let fits = ChildSpawn.run(ChildProcess.carrel, ["passphrase"], input: "\(long.dropLast())\n\(long.dropLast())\n",
                                     environment: box.environment)
        #expect(fits.status == 0)
        #expect(fits.output.hasPrefix("scrypt$"), "\(fits.output)")
        #expect(fits.output.contains("\nkey: ed25519:"), "\(fits.output)")
    }

    @Test func aWrongPassphraseFromAPipeExits77AndRestartingDoesNotResetTheWait() throws {
        let box = try Sandbox()
        let session = try interruptedSession(box)
        let wrong = try box.carrel(["unlock", String(session.prefix(8))], input: "nope")
        #expect(wrong.status == 77)
        #expect(try box.journal().events(session: session).filter { $0.kind == "passphrase_failed" }.count == 1)
        let started = Date()
        let right = try box.carrel(["unlock", String(session.prefix(8))], input: "proctor phrase")
        #expect(right.status == 0, "\(right.out)")
        #expect(Date().timeIntervalSince(started) >= 0.9, "the second process waited for the first one's failure")
        let status = try box.carrel(["status", "--json"])
        #expect(status.out.joined().contains("\"passphrase_attempts\""))
    }

    @Test func typingDuringTheWaitIsNeitherEchoedNorKept() throws {
        let box = try Sandbox()
        guard let script = ChildSpawn.which("script", environment: box.environment) else {
            Issue.record("script(1) is not installed; it gives carrel unlock a real terminal here")
            return
        }
        let session = try interruptedSession(box)
        let command = "'\(ChildProcess.carrel)' unlock \(session.prefix(8)) --state-dir '\(box.stateDir)'"
        let terminal = try ChildProcess(script, ["-qfec", command, "/dev/null"], environment: box.environment)
        // Lines typed before the prompt are thrown away (typed-ahead input is flushed), so
        // type until the wrong passphrase is answered.
        var answered = false
        for _ in 0..<120 where !answered {
            terminal.send("nope")
            answered = terminal.expect("That passphrase is not right", timeout: 0.5) != nil
        }
        #expect(answered)
        terminal.send("TYPED-DURING-THE-WAIT")
        usleep(2_500_000)
        terminal.send("proctor phrase")
        let rest = terminal.readToEnd(timeout: 30)
        #expect(terminal.waitStatus() == 0, "\(rest)")
        let seen = terminal.lines.joined(separator: "\n")
        #expect(!seen.contains("TYPED-DURING-THE-WAIT"), "\(seen)")
        #expect(!seen.contains("proctor phrase"), "no echo of the passphrase")
    }
}
