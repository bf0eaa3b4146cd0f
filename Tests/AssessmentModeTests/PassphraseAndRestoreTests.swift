#if canImport(Glibc)
import Glibc
#endif
import AssessmentMode
import Foundation
import ModeService
import Testing
import _CryptoExtras

/// The proctor's passphrase (resume, unlock) and the record on disk (restore at start).
@Suite struct PassphraseAndRestoreTests {
    /// A hash as `carrel passphrase` prints it, at the cheapest cost allowed.
    static func hash(_ passphrase: String, ln: Int = 10, salt: [UInt8] = Array(repeating: 7, count: 16)) throws -> String {
        let key = try KDF.Scrypt.deriveKey(from: Array(passphrase.utf8), salt: salt, outputByteCount: 32, rounds: 1 << ln,
                                           blockSize: 8, parallelism: 1).withUnsafeBytes { Data($0) }
        return "scrypt$ln=\(ln),r=8,p=1$\(Data(salt).base64EncodedString())$\(key.base64EncodedString())"
    }

    @Test func thePassphraseIsCheckedAgainstTheHash() throws {
        let check = try PassphraseCheck(parsing: try Self.hash("correct horse"))
        #expect(check.verify("correct horse"))
        #expect(!check.verify("correct horse "))
        #expect(!check.verify(""))
        #expect(!check.verify(String(repeating: "x", count: 2000)))
        // NFC: the same word typed precomposed or decomposed.
        let nfc = try PassphraseCheck(parsing: try Self.hash("caf\u{e9}"))
        #expect(nfc.verify("cafe\u{301}"))
    }

    @Test(arguments: ["scrypt$ln=19,r=8,p=1", "scrypt$ln=15,r=17,p=1", "scrypt$ln=15,r=8,p=5", "scrypt$ln=18,r=16,p=1",
                      "scrypt$ln=15,r=8", "scrypt$ln=15,r=8,p=1,x=2", "bcrypt$ln=15,r=8,p=1"])
    func aHashBeyondTheBoundsIsRefused(parameters: String) throws {
        let good = try Self.hash("x").split(separator: "$", omittingEmptySubsequences: false)
        let text = parameters + "$" + good[2] + "$" + good[3]
        #expect(throws: ChangeError.self) { try PassphraseCheck(parsing: text) }
    }

    @Test func resumeNeedsThePassphraseAndTheSameAccount() throws {
        let bench = Bench()
        _ = bench.begin(bench.request(hash: try Self.hash("open sesame")))
        let newCarrel = Caller(connection: 5, uid: 1001, account: "carrel1")
        #expect(bench.engine.resume(session: "s1", passphrase: "open sesame", caller: newCarrel).first?.reply
            == .refused(reason: "session s1's mode is owned by a Carrel that still runs; end it there or unlock it"))
        bench.engine.left(1)
        #expect(bench.engine.resume(session: "s2", passphrase: "open sesame", caller: newCarrel).first?.reply
            == .refused(reason: "no assessment mode runs for session s2"))
        #expect(bench.engine.resume(session: "s1", passphrase: "guess", caller: newCarrel).first?.reply
            == .refused(reason: ModeEngine.wrongPassphrase))
        let stranger = Caller(connection: 6, uid: 1002, account: "carrel2")
        #expect(bench.engine.resume(session: "s1", passphrase: "open sesame", caller: stranger).first?.reply
            == .refused(reason: "session s1's mode is for uid 1001, not 1002"))
        let out = bench.engine.resume(session: "s1", passphrase: "open sesame", caller: newCarrel)
        guard case let .began(session, steps)? = out.first?.reply else {
            Issue.record("not resumed: \(out)")
            return
        }
        #expect(session == "s1" && steps == bench.engine.record?.steps && out.first?.connection == 5)
        #expect(bench.engine.owner == 5 && bench.store.record?.interrupted == false)
    }

    @Test func unlockEndsTheModeAndTellsTheOwner() throws {
        let bench = Bench()
        let initial = bench.machine.snapshot
        _ = bench.begin(bench.request(hash: try Self.hash("open sesame")))
        let proctor = Caller(connection: 9, uid: 1005, account: "proctor")
        #expect(bench.engine.unlock(session: "s1", passphrase: "nope", caller: proctor) == [Outgoing(9, .refused(reason: ModeEngine.wrongPassphrase))])
        #expect(bench.engine.record != nil)
        #expect(bench.engine.unlock(session: "s1", passphrase: "open sesame", caller: proctor)
            == [Outgoing(1, .ended(session: "s1", reason: .unlocked)), Outgoing(9, .ended(session: "s1", reason: .unlocked))])
        #expect(bench.machine.snapshot == initial && bench.store.bytes == nil)
    }

    @Test func withoutAHashNoPassphraseEndsTheMode() {
        let bench = Bench()
        _ = bench.begin(bench.request())
        let reply = bench.engine.unlock(session: "s1", passphrase: "", caller: bench.student).first?.reply
        #expect(reply == .refused(reason: "session s1 has no proctor passphrase: it ends with the session, at its time limit, or when root stops the service"))
    }

    /// A folder of its own in the temporary folder.
    static func folder() -> String {
        FileManager.default.temporaryDirectory.path + "/carrel-modestore-\(getpid())-\(UInt32.random(in: 0 ... .max))"
    }

    @Test func aRecordLeftOnDiskIsRevertedAtStart() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = FileModeStore(folder: folder)
        try store.prepare()
        let bench = Bench()
        bench.machine.files[ModePlan.nologin] = "left by the administrator\n"
        let initial = bench.machine.snapshot
        // A service that crashed mid-begin: the record on disk, the machine changed.
        let crashed = ModeEngine(executor: bench.machine, store: store, log: { _ in })
        _ = crashed.begin(bench.request(), caller: bench.student, resolved: bench.resolved, now: 5) { _ in AtBegin() }
        var st = stat()
        #expect(stat(store.path, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(stat(folder, &st) == 0 && st.st_mode & 0o777 == 0o700)
        #expect(bench.machine.snapshot != initial)
        let restarted = ModeEngine(executor: bench.machine, store: store, log: { _ in })
        let said = try #require(restarted.restore(sweep: []))
        #expect(said.contains("session s1 (uid 1001) was left in assessment mode; reverted 7 change(s)"), "\(said)")
        #expect(bench.machine.snapshot == initial)
        #expect(access(store.path, F_OK) != 0 && restarted.record == nil)
        #expect(restarted.restore(sweep: []) == nil)
    }

    @Test func aDamagedRecordIsSweptAway() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = FileModeStore(folder: folder)
        try store.prepare()
        try "{\"begin\": ".write(toFile: store.path, atomically: false, encoding: .utf8)
        let bench = Bench()
        bench.machine.tables["carrel_assessment"] = "table"
        let sweep = [AppliedChange(change: .nftables(table: "carrel_assessment", ruleset: ""), step: .network, before: .nothing)]
        let said = ModeEngine(executor: bench.machine, store: store, log: { _ in }).restore(sweep: sweep)
        #expect(said?.contains("unreadable") == true)
        #expect(bench.machine.tables.isEmpty && access(store.path, F_OK) != 0)
    }
}
