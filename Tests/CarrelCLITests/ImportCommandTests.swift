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
                      "gift/cloze.gift", "cloze/moodle-example.txt", "cloze/every-type.txt", "cloze/malformed.txt",
                      "aiken/capitals.txt", "aiken/malformed.txt", "aiken/crlf.txt", "package21", "package30",
                      "package30/imsmanifest.xml", "test21", "test30", "qtiworks-webdev/template_test1.xml"]
            + ["qti21", "qti30"].flatMap { version in
                ["choice", "choice_multiple", "order", "match", "text_entry", "text_entry_numeric", "extended_text", "inline_choice", "gaps"]
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
        #expect(ran == 35)
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
        #expect(result.stdout == "\(out.path): wrote 9 questions (choice 6, multiple 2, gaps 1); 0 skipped, 0 errors\n")
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

    /// Whatever a bank makes libxml2 meet (a second declaration naming another encoding, a
    /// text of 11 MB in one element), the teacher reads Carrel's own lines: libxml2 prints
    /// nothing of its own, and a long text is no fault.
    @Test func libxml2PrintsNothingOfItsOwn() throws {
        let folder = try Self.scratch()
        let out = folder.appendingPathComponent("o.yaml").path
        let encoded = folder.appendingPathComponent("encoded.xml")
        try Data(#"<?xml-model href="x"?><?xml version="1.0" encoding="ISO-2022-JP" ?><quiz>\#n<a>Café ö</a></quiz>"#.utf8).write(to: encoded)
        let r = try CarrelProcess.run(["import", encoded.path, "--out", out])
        #expect(r.status == 65)
        #expect(r.stderr == "\(encoded.path):1: error: the XML cannot be read: XML declaration allowed only at the start of the document\n"
            + "carrel: no question could be converted; see the lines above (nothing was written)\n")
        let long = folder.appendingPathComponent("long.xml")
        try Data(("<quiz><question type=\"essay\"><name><text>Long</text></name><questiontext><text>" + String(repeating: "a", count: 11_000_000)
                  + "</text></questiontext></question></quiz>").utf8).write(to: long)
        let imported = try CarrelProcess.run(["import", long.path, "--out", out])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(!imported.stderr.contains("error"), "\(imported.stderr)")
    }

    @Test func theFormatCanBeGivenAndIsChecked() throws {
        let folder = try Self.scratch()
        let bank = folder.appendingPathComponent("bank.txt")
        try Data("What?\nA) yes\nB) no\nANSWER: A\n".utf8).write(to: bank)
        let out = folder.appendingPathComponent("o.yaml").path
        #expect(try CarrelProcess.run(["import", bank.path, "--format", "aiken", "--out", out]).status == 0)
        #expect(try CarrelProcess.run(["import", bank.path, "--out", out]).status == 0)
        let wrong = try CarrelProcess.run(["import", bank.path, "--format", "word", "--out", out])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("moodle"))
        #expect(wrong.stderr.contains("gift"))
        // An Aiken bank read as Moodle XML is not XML: nothing is converted.
        let notXML = try CarrelProcess.run(["import", bank.path, "--format", "moodle", "--out", out])
        #expect(notXML.status == 65)
        #expect(notXML.stderr.hasPrefix("\(bank.path):1: error: the XML cannot be read: "))
        let ambiguous = folder.appendingPathComponent("notes.txt")
        try Data("Just some notes.\n".utf8).write(to: ambiguous)
        let unknown = try CarrelProcess.run(["import", ambiguous.path, "--out", out])
        #expect(unknown.status == 65)
        #expect(unknown.stderr == "carrel: cannot tell the format of \(ambiguous.path); give --format moodle, gift, aiken, cloze or qti\n")
    }

    @Test func aClozeFileGivesGapsItemsWithItsLinesAndTheSummary() throws {
        let out = try Self.scratch().appendingPathComponent("cloze.yaml")
        let input = Self.fixture("cloze/malformed.txt")
        let result = try CarrelProcess.run(["import", input, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out.path): wrote 2 questions (gaps 2); 0 skipped, 12 errors\n")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 13)
        #expect(lines.first == "\(input):3: error: gap 1 ({1:MC:…}): a pick needs at least two options; it has 1 (the question “One option only: Paris is in ….” is not imported)")
        #expect(lines.contains("\(input):16: error: gap 1 ({1:SA:…}) has no closing `}`; write \\} for a brace inside an answer (the question “The gap on the next line is never closed:” is not imported)"))
        let a = try read(out)
        #expect(a.items.map(\.type) == [.gaps, .gaps])
        #expect(a.items.map(\.id) == ["a-good-question-comes-first-der", "the-last-one-is-good-again-das-gut"])
        #expect(try CarrelProcess.run(["validate", out.path]).status == 0)
    }

    @Test func formatClozeReadsAFileThatStartsLikeHTML() throws {
        let folder = try Self.scratch()
        let out = folder.appendingPathComponent("symbols.yaml").path
        let input = Self.fixture("cloze/english-symbols.txt")
        // It starts with `<p>`, so it is not guessed as Cloze.
        #expect(try CarrelProcess.run(["import", input, "--out", out]).status == 65)
        let result = try CarrelProcess.run(["import", input, "--format", "cloze", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out): wrote 1 question (gaps 1); 0 skipped, 0 errors\n")
        #expect(result.stderr == "\(input):7: warning: gap 9 ({1:SA:…}): left out the answer “colo*r” (100%): Moodle's * matches any text there, Carrel does not\n")
        let a = try read(URL(fileURLWithPath: out))
        #expect(a.items.first?.points == 10)
    }

    @Test func aClozeFileWithOnlyBrokenQuestionsExits65() throws {
        let folder = try Self.scratch()
        let bank = folder.appendingPathComponent("broken.txt")
        try Data("Paris is in {1:MC:=France}.\n//NEWCLOZEQUESTION\nA week has {1:NM:=seven} days.\n".utf8).write(to: bank)
        let out = folder.appendingPathComponent("o.yaml")
        let result = try CarrelProcess.run(["import", bank.path, "--out", out.path])
        #expect(result.status == 65)
        #expect(result.stderr == """
            \(bank.path):1: error: gap 1 ({1:MC:…}): a pick needs at least two options; it has 1 (the question “Paris is in ….” is not imported)
            \(bank.path):3: error: gap 1 ({1:NM:…}): “seven” is not a number; a NUMERICAL answer is written =3.14 or =3.14:0.01 (the question “A week has … days.” is not imported)
            carrel: no question could be converted; see the lines above (nothing was written)

            """)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func nothingConvertedExits65AndWritesNothing() throws {
        let out = try Self.scratch().appendingPathComponent("none.yaml")
        let result = try CarrelProcess.run(["import", Self.fixture("qti21/associate.xml"), "--out", out.path])
        #expect(result.status == 65)
        #expect(result.stderr.hasSuffix("carrel: no question could be converted; see the lines above (nothing was written)\n"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func aManifestWhoseItemLeavesThePackageSaysSoAndNothingIsWritten() throws {
        let folder = try Self.scratch()
        let package = folder.appendingPathComponent("pack")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data(#"<manifest><resources><resource identifier="i" type="imsqti_item_xmlv2p1" href="../x.xml"/></resources></manifest>"#.utf8)
            .write(to: package.appendingPathComponent("imsmanifest.xml"))
        // The file is there, next to the package, and still not read.
        try Data(contentsOf: URL(fileURLWithPath: Self.fixture("qti21/choice.xml"))).write(to: folder.appendingPathComponent("x.xml"))
        let out = folder.appendingPathComponent("o.yaml")
        let result = try CarrelProcess.run(["import", package.path, "--out", out.path])
        #expect(result.status == 65)
        #expect(result.stderr == """
            \(package.path)/imsmanifest.xml: error: the manifest's reference href="../x.xml" leaves the package; only files inside the package are read, so that item was not imported
            carrel: no question could be converted; see the lines above (nothing was written)

            """)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// `carrel import` of a GIFT bank holding `text`: the bank, where it was written to and how it went.
    func importGIFT(_ text: String) throws -> (bank: URL, out: URL, result: CarrelProcess.Result) {
        let folder = try Self.scratch()
        let bank = folder.appendingPathComponent("bank.gift")
        try Data(text.utf8).write(to: bank)
        let out = folder.appendingPathComponent("o.yaml")
        return (bank, out, try CarrelProcess.run(["import", bank.path, "--out", out.path]))
    }

    @Test func aBankWithoutQuestionsSaysSoInsteadOfPointingAtNoLines() throws {
        let (_, out, result) = try importGIFT("// only a comment\n")
        #expect(result.status == 65)
        #expect(result.stderr == "carrel: no question could be converted; no question was found in the file (nothing was written)\n")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func invisibleTypographyIsRemovedWithAWarningAndTheQuestionImports() throws {
        let (bank, out, result) = try importGIFT("::q::Co\u{AD}op\u{AD}erate wi\u{200D}th us? 👩\u{200D}💻{=Ye\u{AD}s ~No}\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "\(bank.path):1: warning: removed 3 soft hyphens and 1 zero-width joiner used for typography\n")
        #expect(try read(out).items.map(\.prompt) == ["Cooperate with us? 👩\u{200D}💻"])
        #expect(try CarrelProcess.run(["validate", out.path]).status == 0)
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

    @Test func aMoodleXMLExportIsKnownByItsQuizRootAndEachQuestionLeftOutIsNamed() throws {
        let out = try Self.scratch().appendingPathComponent("geography.yaml")
        let bank = Self.fixture("moodle/carrel/every-type.xml")
        let result = try CarrelProcess.run(["import", bank, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out.path): wrote 11 questions (choice 1, multiple 1, true_false 1, text 1, numeric 2, essay 1, match 1, gaps 3) and 1 description (as section instructions); 9 skipped, 0 errors\n")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let text = try String(contentsOfFile: bank, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let calculated = try #require(text.firstIndex { $0.contains("<question type=\"calculated\">") }) + 1
        #expect(lines.contains("\(bank):\(calculated): warning: skipped: “Distance travelled”: a calculated question (calculated) draws its numbers for each student and computes the answer, which Carrel does not do"))
        #expect(lines.filter { $0.contains("warning: skipped:") }.count == 9)
        let a = try read(out)
        #expect(a.title == "every-type")
        #expect(a.sections.map(\.title) == ["Week 1: Capitals", "Numbers / facts"])
        #expect(a.items.first?.id == "capital-of-france")
        #expect(a.shuffle.choices == false)
        let validate = try CarrelProcess.run(["validate", out.path])
        #expect(validate.status == 0, "\(validate.stderr)")
    }

    /// Moodle's own fixtures import and validate; the one of broken cloze questions has nothing to write.
    @Test func everyMoodleFixtureImportsToAFileThatValidates() throws {
        let folder = try Self.scratch()
        let root = Self.fixtures.appendingPathComponent("moodle").path
        let files = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".xml") }.sorted()
        var ran = 0
        for file in files {
            let out = folder.appendingPathComponent("\(file).yaml")
            let result = try CarrelProcess.run(["import", "\(root)/\(file)", "--out", out.path])
            if file == "broken_cloze_questions.xml" {
                #expect(result.status == 65, "\(result.stderr)")
                continue
            }
            #expect(result.status == 0, "\(file): \(result.stderr)")
            let validate = try CarrelProcess.run(["validate", out.path])
            #expect(validate.status == 0, "\(file): \(validate.stderr)")
            ran += 1
        }
        #expect(ran == 13)
    }

    @Test func aMoodleFileThatIsNotAnExportOrDeclaresADocumentTypeIsRefused() throws {
        let out = try Self.scratch().appendingPathComponent("o.yaml")
        let item = Self.fixture("qti21/choice.xml")
        let notQuiz = try CarrelProcess.run(["import", item, "--format", "moodle", "--out", out.path])
        #expect(notQuiz.status == 65)
        #expect(notQuiz.stderr.hasPrefix("\(item):"))
        #expect(notQuiz.stderr.contains(": error: this is not a Moodle XML export: its root element is <assessmentItem>, not <quiz>\n"))
        let hostile = Self.fixture("hostile/xxe.xml")
        let refused = try CarrelProcess.run(["import", hostile, "--format", "moodle", "--out", out.path])
        #expect(refused.status == 65)
        #expect(refused.stderr == "carrel: \(hostile): refused: the XML declares a document type (<!DOCTYPE); Moodle XML needs none, and document types can read other files or expand without end; nothing was written\n")
        #expect(!FileManager.default.fileExists(atPath: out.path))
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
