import Foundation
import Testing

/// A translator's loop with the real binary: a catalog no Swift file names is checked, offered
/// for the run and every screen is written in it; a broken or right-to-left one is refused.
@Suite("carrel demo --catalog and --screens")
struct LanguageReviewCLITests {
    static let esperanto = #"""
    msgid ""
    msgstr ""
    "Language: eo\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Plural-Forms: nplurals=2; plural=(n != 1);\n"
    "X-Carrel-Name: Esperanto\n"
    "X-Carrel-Plural-Rules: one: n = 1\n"

    msgctxt "footer"
    msgid "next"
    msgstr "sekva"

    msgid "{0, plural, one {# minute} other {# minutes}}"
    msgstr "{0, plural, one {# minuto} other {# minutoj}}"

    msgid "Question {0} of {1}"
    msgstr "Demando {0} el {1}"
    """#

    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("carrel-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func aNewLanguageIsOneCatalogAndEveryScreenIsWrittenInIt() throws {
        let dir = try Self.folder()
        let po = dir.appendingPathComponent("eo.po"), out = dir.appendingPathComponent("eo.txt")
        try Self.esperanto.write(to: po, atomically: true, encoding: .utf8)
        let result = try CarrelProcess.run(["demo", "--catalog", po.path, "--screens", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("eo (Esperanto)"), "\(result.stderr)")
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.contains("Tab sekva"), "the footer in Esperanto")
        #expect(text.contains("Demando 1 el "), "the question line in Esperanto")
        #expect(text.components(separatedBy: "\n=== ").count > 60, "every screen is written")
        #expect(text.contains("=== console-thirty (80×24) ===") && text.contains("=== submit-confirm (80×24) ==="))
        let mode = try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Without the catalog the language is not Carrel's.
        let unknown = try CarrelProcess.run(["demo", "--language", "eo", "--screens", "-"])
        #expect(unknown.status == 64 && unknown.stderr.contains("\"eo\" is not a language Carrel speaks"), "\(unknown.stderr)")
    }

    @Test func everyLanguageCompiledInWritesItsScreensAt80By24() throws {
        for code in ["fr", "pt-BR", "pl", "zh-Hans", "ko"] {
            let result = try CarrelProcess.run(["demo", "--language", code, "--screens", "-"])
            #expect(result.status == 0, "\(code): \(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count > 60 * 24, "\(code): every screen")
            #expect(!result.stdout.contains("\u{1B}"), "no escape sequence in the text")
        }
    }

    @Test func aCatalogThatLosesAValueOrIsRightToLeftOrIsNotACatalogIsRefusedWithWhy() throws {
        let dir = try Self.folder()
        let cases: [(String, String, Int32)] = [
            (Self.esperanto.replacingOccurrences(of: "Demando {0} el {1}", with: "Demando {0}"), "values [\"0\", \"1\"] became [\"0\"]", 65),
            (Self.esperanto.replacingOccurrences(of: "Language: eo", with: "Language: he"), "right to left", 65),
            (Self.esperanto.replacingOccurrences(of: "one {# minuto} ", with: ""), "lacks one", 65),
            ("this is not a catalog\n", "line 1", 65),
        ]
        for (index, (text, reason, status)) in cases.enumerated() {
            let po = dir.appendingPathComponent("bad\(index).po")
            try text.write(to: po, atomically: true, encoding: .utf8)
            let result = try CarrelProcess.run(["demo", "--catalog", po.path, "--screens", "-"])
            #expect(result.status == status && result.stderr.contains(reason), "\(reason): \(result.status) \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let missing = try CarrelProcess.run(["demo", "--catalog", dir.appendingPathComponent("none.po").path, "--screens", "-"])
        #expect(missing.status == 66, "\(missing.stderr)")
        let size = try CarrelProcess.run(["demo", "--language", "fr", "--screens", "-", "--size", "80"])
        #expect(size.status == 64 && size.stderr.contains("columns×rows"), "\(size.stderr)")
    }
}
