#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Testing
import ZIPFoundation

@Suite("carrel import")
struct ImportCommandTests {
    static let fixtures = CarrelProcess.packageRoot.appendingPathComponent("Tests/ImportKitTests/Fixtures")

    static func fixture(_ path: String) -> String { fixtures.appendingPathComponent(path).path }

    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("carrel-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    func read(_ url: URL) throws -> Assessment {
        let outcome = AssessmentReader.read(bytes: [UInt8](try Data(contentsOf: url)), file: url.path)
        #expect(outcome.diagnostics.errors.isEmpty, "\(outcome.diagnostics.map(\.description))")
        return try #require(outcome.assessment)
    }

    @Test func aGIFTBankBecomesAValidPrivateAssessment() throws {
        let out = try Self.scratch().appendingPathComponent("week-1.yaml")
        let result = try CarrelProcess.run([
            "import", Self.fixture("gift/every-construct.gift"), "--out", out.path, "--title", "Week 1", "--time-limit", "45m",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == "\(out.path): wrote 21 questions (choice 5, multiple 2, true_false 5, text 3, numeric 3, essay 2, match 1) and 1 description (as section instructions); 0 skipped, 0 errors\n")
        var info = stat()
        #expect(stat(out.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let a = try read(out)
        #expect(a.id == "week-1")
        #expect(a.title == "Week 1")
        #expect(a.timeLimit == 45 * 60)
        #expect(a.sections.map(\.title) == ["Geography / Capitals", "Geography / True or false", "Words"])
        let validate = try CarrelProcess.run(["validate", out.path])
        #expect(validate.status == 0, "\(validate.stderr)")
    }

    /// Every fixture bank imports on its own, and what is written passes `carrel validate`.
    @Test func everyFixtureBankImportsToAFileThatValidates() throws {
        let folder = try Self.scratch()
        var ran = 0
        let inputs = ["gift/every-construct.gift", "gift/crlf-bom.gift", "gift/cr-only.gift", "gift/malformed.gift",
                      "aiken/capitals.txt", "aiken/malformed.txt", "aiken/crlf.txt", "package21", "package30",
                      "package30/imsmanifest.xml", "test21", "test30", "qtiworks-webdev/template_test1.xml"]
            + ["qti21", "qti30"].flatMap { version in
                ["choice", "choice_multiple", "order", "match", "text_entry", "text_entry_numeric", "extended_text", "inline_choice"]
                    .map { "\(version)/\($0).xml" }
            }
        for (i, input) in inputs.enumerated() {
            let out = folder.appendingPathComponent("bank-\(i).yaml")
            let result = try CarrelProcess.run(["import", Self.fixture(input), "--out", out.path])
            #expect(result.status == 0, "\(input): \(result.stderr)")
            let validate = try CarrelProcess.run(["validate", out.path])
            #expect(validate.status == 0, "\(input): \(validate.stderr)")
            #expect(!validate.stderr.contains("error"), "\(input): \(validate.stderr)")
            ran += 1
        }
        #expect(ran == 29)
    }

    @Test func aQTITestPackageBecomesSectionsWithAPoolTimeLimitAndNavigation() throws {
        let out = try Self.scratch().appendingPathComponent("geography.yaml")
        let result = try CarrelProcess.run(["import", Self.fixture("test21"), "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out.path): wrote 6 questions (choice 6); 0 skipped, 0 errors\n")
        #expect(result.stderr == """
            \(Self.fixture("test21"))/tests/geography.xml:13: warning: only some sections shuffle their items; Carrel shuffles the items of every section, so section “Warm-up” is shuffled too
            \(Self.fixture("test21"))/imsmanifest.xml: warning: 1 item of the package is not in the test and left out

            """)
        let a = try read(out)
        #expect(a.title == "Geography quiz")
        #expect(a.timeLimit == 30 * 60)
        #expect(a.navigation == .linear)
        #expect(a.shuffle.items)
        #expect(a.sections.map(\.title) == ["Warm-up", "Rivers, mountains, deserts and lakes"])
        #expect(a.sections.map(\.draw) == [nil, 2])
        let yaml = try String(contentsOf: out, encoding: .utf8)
        #expect(yaml.contains("time_limit: 30m\n") && yaml.contains("navigation: linear\n") && yaml.contains("    draw: 2\n"), "\(yaml)")
        let validate = try CarrelProcess.run(["validate", out.path])
        #expect(validate.status == 0, "\(validate.stderr)")

        // The command line's title and time limit win over the test's.
        let own = try CarrelProcess.run(["import", Self.fixture("test21"), "--out", out.path, "--title", "Quiz", "--time-limit", "10m"])
        #expect(own.status == 0, "\(own.stderr)")
        let b = try read(out)
        #expect(b.title == "Quiz")
        #expect(b.timeLimit == 600)
    }

    @Test func aQTITestNamedDirectlyAndOneWithBadReferencesReportWithTheirLines() throws {
        let folder = try Self.scratch()
        let out = folder.appendingPathComponent("web.yaml")
        let test = Self.fixture("qtiworks-webdev/template_test1.xml")
        let result = try CarrelProcess.run(["import", test, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out.path): wrote 8 questions (choice 6, multiple 2); 1 skipped, 0 errors\n")
        #expect(result.stderr.contains("\(test):24: warning: outcomeProcessing is not kept: Carrel's score is the sum of the items' points\n"))
        #expect(try read(out).navigation == .linear)

        // A pool larger than its section, a reference out of the package: errors, and the rest is written.
        let bad = try CarrelProcess.run(["import", Self.fixture("test-errors/test.xml"), "--out", out.path])
        #expect(bad.status == 0, "\(bad.stderr)")
        let t = Self.fixture("test-errors/test.xml")
        #expect(bad.stderr == """
            \(t):6: error: the item reference “../../secret.xml” leads outside the package; it is not followed, so it is left out
            \(t):4: error: section “Pool” selects 3 items but holds only 2; every item of it is given

            """)
        #expect(bad.stdout == "\(out.path): wrote 1 question (choice 1); 0 skipped, 2 errors\n")
        #expect(try read(out).sections.map(\.draw) == [nil])
    }

    @Test func problemsAreReportedPerQuestionWithASummary() throws {
        let out = try Self.scratch().appendingPathComponent("mixed.yaml")
        let result = try CarrelProcess.run([
            "import", Self.fixture("gift/malformed.gift"), Self.fixture("qti21/slider.xml"), "--out", out.path,
        ])
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let gift = Self.fixture("gift/malformed.gift")
        #expect(lines.contains("\(gift):5: error: a `{` has no closing `}`; write \\{ for a brace in the text"))
        #expect(lines.contains("\(gift):13: warning: skipped: its answers use Moodle's * wildcard, which Carrel does not match"))
        #expect(lines.contains("\(Self.fixture("qti21/slider.xml")):12: warning: skipped: sliderInteraction (a slider) has no Carrel item type"))
        #expect(result.stdout == "\(out.path): wrote 2 questions (choice 1, true_false 1); 2 skipped, 5 errors\n")
        let a = try read(out)
        #expect(a.sections.map(\.title) == ["malformed"])
    }

    @Test func theFormatCanBeGivenAndIsChecked() throws {
        let folder = try Self.scratch()
        let bank = folder.appendingPathComponent("bank.txt")
        try Data("What?\nA) yes\nB) no\nANSWER: A\n".utf8).write(to: bank)
        let out = folder.appendingPathComponent("o.yaml").path
        #expect(try CarrelProcess.run(["import", bank.path, "--format", "aiken", "--out", out]).status == 0)
        #expect(try CarrelProcess.run(["import", bank.path, "--out", out]).status == 0)
        let wrong = try CarrelProcess.run(["import", bank.path, "--format", "moodle", "--out", out])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("gift"))
        let ambiguous = folder.appendingPathComponent("notes.txt")
        try Data("Just some notes.\n".utf8).write(to: ambiguous)
        let unknown = try CarrelProcess.run(["import", ambiguous.path, "--out", out])
        #expect(unknown.status == 65)
        #expect(unknown.stderr == "carrel: cannot tell the format of \(ambiguous.path); give --format gift, aiken or qti\n")
    }

    @Test func nothingConvertedExits65AndWritesNothing() throws {
        let out = try Self.scratch().appendingPathComponent("none.yaml")
        let result = try CarrelProcess.run(["import", Self.fixture("qti21/associate.xml"), "--out", out.path])
        #expect(result.status == 65)
        #expect(result.stderr.hasSuffix("carrel: no question could be converted; see the lines above (nothing was written)\n"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func anUnreadableFileExits66() throws {
        let out = try Self.scratch().appendingPathComponent("o.yaml")
        let result = try CarrelProcess.run(["import", Self.fixture("gift/every-construct.gift"), "no-such-bank.gift", "--out", out.path])
        #expect(result.status == 66)
        #expect(result.stderr == "carrel: cannot open no-such-bank.gift: No such file or directory; check the path and permissions\n")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test(arguments: ["hostile/xxe.xml", "hostile/billion-laughs.xml"])
    func documentTypesAreRefusedWith65(file: String) throws {
        let out = try Self.scratch().appendingPathComponent("o.yaml")
        let result = try CarrelProcess.run(["import", Self.fixture(file), "--out", out.path])
        #expect(result.status == 65)
        #expect(result.stderr == "carrel: \(Self.fixture(file)): refused: the XML declares a document type (<!DOCTYPE); QTI needs none, and document types can read other files or expand without end; nothing was written\n")
    }

    static func zip(_ entries: [(String, [UInt8])], to url: URL) throws {
        let archive = try Archive(url: url, accessMode: .create)
        for (path, bytes) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                Data(bytes[Int(position)..<Int(position) + size])
            }
        }
    }

    @Test func aZipBombAndAPathOutOfThePackageAreRefusedWith65() throws {
        let folder = try Self.scratch()
        let bomb = folder.appendingPathComponent("bomb.zip")
        try Self.zip([("imsmanifest.xml", Array("<manifest/>".utf8)), ("items/a.xml", [UInt8](repeating: 0x20, count: 64 * 1024 * 1024))], to: bomb)
        let clock = ContinuousClock()
        let start = clock.now
        let result = try CarrelProcess.run(["import", bomb.path, "--out", folder.appendingPathComponent("o.yaml").path])
        #expect(clock.now - start < .seconds(20))
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("carrel: \(bomb.path): refused: “items/a.xml” unpacks to"))
        #expect(result.stderr.hasSuffix("times its packed size; this looks like a zip bomb; nothing was written\n"))
        #expect(result.stderr.split(separator: "\n").count == 1)

        let escape = folder.appendingPathComponent("escape.zip")
        try Self.zip([("imsmanifest.xml", Array("<manifest/>".utf8)), ("../outside.xml", Array("<a/>".utf8))], to: escape)
        let refused = try CarrelProcess.run(["import", escape.path, "--out", folder.appendingPathComponent("o.yaml").path])
        #expect(refused.status == 65)
        #expect(refused.stderr == "carrel: \(escape.path): refused: the package holds the path “../outside.xml”, which leads outside it; nothing was written\n")
    }

    @Test func theOutputIsNeverWrittenThroughASymlinkNorOverAnInput() throws {
        let folder = try Self.scratch()
        let victim = folder.appendingPathComponent("victim.txt")
        try Data("keep me".utf8).write(to: victim)
        let link = folder.appendingPathComponent("link.yaml")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        let result = try CarrelProcess.run(["import", Self.fixture("aiken/capitals.txt"), "--out", link.path])
        #expect(result.status == 73)
        #expect(result.stderr.contains("is a symbolic link; refusing to write through it"))
        #expect(try String(contentsOf: victim, encoding: .utf8) == "keep me")

        let bank = folder.appendingPathComponent("bank.gift")
        try Data("Q?{T}\n".utf8).write(to: bank)
        let over = try CarrelProcess.run(["import", bank.path, "--out", bank.path])
        #expect(over.status == 64)
        #expect(try String(contentsOf: bank, encoding: .utf8) == "Q?{T}\n")
    }

    @Test func nothingFromAFileReachesTheTerminalRaw() throws {
        let folder = try Self.scratch()
        let bank = folder.appendingPathComponent("evil.gift")
        try Data("::\u{1B}]0;owned\u{07}::Q \u{1B}[2J\u{202E}?{=a\u{9B}31m ~b}\n\nBroken {=x\u{1B}[5m\n".utf8).write(to: bank)
        let zip = folder.appendingPathComponent("evil.zip")
        try Self.zip([("items/\u{1B}[31mred.xml", Array("<a>".utf8))], to: zip)
        let out = folder.appendingPathComponent("o.yaml")
        for input in [bank.path, zip.path] {
            let result = try CarrelProcess.run(["import", input, "--out", out.path])
            for stream in [result.stdout, result.stderr] {
                #expect(!stream.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" || $0 == "\u{07}" || $0 == "\u{202E}" },
                        "\(stream.debugDescription)")
            }
        }
        let a = try read(out)
        #expect(a.items.count == 1)
        #expect(try String(contentsOf: out, encoding: .utf8).unicodeScalars.allSatisfy { $0 == "\n" || !TerminalSafety.isControl($0) })
    }
}
