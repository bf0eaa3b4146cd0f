import Foundation
import Testing
@testable import Localization

/// The catalogs as translators keep them: gettext files in po/, compiled in by
/// scripts/catalogs, clean under msgfmt --check; a language is added by a catalog alone.
@Suite("Catalog files")
struct CatalogFileTests {
    static let po = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("po")

    static func files() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: po, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "po" }.sorted { $0.path < $1.path }
    }

    @Test func theCompiledInCatalogsAreThoseOfPoAsWritten() throws {
        let template = try POFile(parsing: String(contentsOf: Self.po.appendingPathComponent("carrel.pot"), encoding: .utf8))
        #expect(EmbeddedCatalogs.template == template.templates, "po/carrel.pot changed: run scripts/catalogs")
        let files = try Self.files()
        #expect(files.count == EmbeddedCatalogs.languages.count, "a catalog in po/ is not compiled in: run scripts/catalogs")
        #expect(files.count >= 12)
        for file in files {
            let read = try POFile(parsing: String(contentsOf: file, encoding: .utf8))
            let code = Language.canonicalCode(read["Language"] ?? "")
            guard let embedded = EmbeddedCatalogs.languages.first(where: { $0.code == code }) else {
                Issue.record("\(file.lastPathComponent) (\(code)) is not compiled in: run scripts/catalogs")
                continue
            }
            let compiled = try Catalog.table(embedded)
            #expect(compiled.messages == read.messages, "\(file.lastPathComponent) changed since scripts/catalogs ran")
            #expect(embedded.name == read["X-Carrel-Name"] && embedded.rules == (read["X-Carrel-Plural-Rules"] ?? ""))
        }
    }

    @Test func msgfmtChecksEveryCatalogClean() throws {
        let files = try Self.files()
        #expect(!files.isEmpty)
        for file in files + [Self.po.appendingPathComponent("carrel.pot")] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/msgfmt")
            process.arguments = ["--check", "-o", "/dev/null", file.path]
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(file.lastPathComponent): \(said)")
        }
    }

    static let esperanto = #"""
    # A language no Swift file names, added by its catalog alone.
    msgid ""
    msgstr ""
    "Language: eo\n"
    "Content-Type: text/plain; charset=UTF-8\n"
    "Plural-Forms: nplurals=2; plural=(n != 1);\n"
    "X-Carrel-Name: Esperanto\n"
    "X-Carrel-Plural-Rules: one: n = 1\n"

    msgid "Question flagged"
    msgstr "Demando markita"

    msgctxt "footer"
    msgid "back"
    msgstr "reen"

    msgid "Message from the proctor: {0}"
    msgstr "Mesaĝo de la gardanto: {0}"

    msgid "{0, plural, one {# minute} other {# minutes}}"
    msgstr "{0, plural, one {# minuto} other {# minutoj}}"

    #, fuzzy
    msgid "Clock shown"
    msgstr "Horloĝo montrita"
    """#

    @Test func aNewLanguageIsACatalogAndNoSwift() throws {
        // Read and checked here; offered to a run by `carrel review --catalog` (CLI tests).
        let loaded = try Catalog.check(Self.esperanto)
        #expect(loaded.language.rawValue == "eo")
        #expect(loaded.name == "Esperanto")
        let say = Localizer(loaded.language, catalog: loaded)
        #expect(say("Question flagged") == "Demando markita")
        #expect(say("Message from the proctor: {0}", .s("Bonvolu")) == "Mesaĝo de la gardanto: Bonvolu")
        #expect(say.footerLabel("back") == "reen")
        #expect(say.duration(120) == "2 minutoj")
        #expect(say.duration(60) == "1 minuto")
        #expect(say("Clock shown") == "Clock shown", "a fuzzy translation is not used, as gettext does")
        #expect(say("Paste is disabled during this assessment") == "Paste is disabled during this assessment",
                "an untranslated sentence shows in English")
    }

    @Test func aCatalogThatLosesAValueOrAPluralFormOrWritesAControlIsRefused() {
        let lost = Self.esperanto.replacingOccurrences(of: "gardanto: {0}", with: "gardanto")
            .replacingOccurrences(of: "Language: eo", with: "Language: eo-x1")
        #expect(throws: Catalog.Failure.self) { try Catalog.check(lost) }
        let plural = Self.esperanto.replacingOccurrences(of: "one {# minuto} other", with: "other")
            .replacingOccurrences(of: "Language: eo", with: "Language: eo-x2")
        do {
            _ = try Catalog.check(plural)
            Issue.record("a plural block without one is refused")
        } catch {
            #expect(error.description.contains("lacks one"), "\(error)")
        }
        let escape = Self.esperanto.replacingOccurrences(of: "Demando markita", with: "Demando\\tmarkita\u{1B}[2J")
            .replacingOccurrences(of: "Language: eo", with: "Language: eo-x3")
        #expect(throws: Catalog.Failure.self) { try Catalog.check(escape) }
        let arabic = Self.esperanto.replacingOccurrences(of: "Language: eo", with: "Language: ar")
        do {
            _ = try Catalog.check(arabic)
            Issue.record("a right-to-left language is refused")
        } catch {
            #expect(error.description.contains("right to left"), "\(error)")
        }
    }

    @Test func rightToLeftLanguagesAreRefusedByName() {
        for (tag, name) in [("ar", "Arabic"), ("he_IL.UTF-8", "Hebrew"), ("fa", "Persian"), ("ur-PK", "Urdu")] {
            #expect(Language(tag: tag) == nil)
            #expect(Language.unknown(tag).contains(name) && Language.unknown(tag).contains("right to left"), "\(Language.unknown(tag))")
        }
        #expect(Language.unknown("zh-TW").contains("traditional characters"))
    }

    @Test func cldrPluralRulesAsCatalogsWriteThem() throws {
        let polish = try PluralRules("one: n = 1; few: n % 10 = 2..4 and n % 100 != 12..14; many: n != 1 and n % 10 = 0..1 or n % 10 = 5..9 or n % 100 = 12..14")
        let said = [0, 1, 2, 4, 5, 12, 14, 21, 22, 25, 101, 112, 122].map { polish.category($0) }
        #expect(said == ["many", "one", "few", "few", "many", "many", "many", "many", "few", "many", "many", "many", "few"])
        #expect(polish.wholeNumberCategories == ["one", "few", "many", "other"])
        #expect(PluralRules.otherOnly.category(1) == "other")
        #expect(throws: PluralRules.Failure.self) { try PluralRules("several: n = 3") }
        #expect(throws: PluralRules.Failure.self) { try PluralRules("one: n == 1") }
    }

    @Test func aCatalogThatCannotBeReadSaysWhereAndWhy() {
        for (text, line) in [("msgid \"a\"\nmsgstr \"b\n", 2), ("msgid \"a\"\nmsgid_plural \"as\"\n", 2), ("msgstr \"b\"\n", 1)] {
            do {
                _ = try POFile(parsing: text)
                Issue.record("\(text) is refused")
            } catch {
                #expect(error.line == line, "\(error)")
            }
        }
    }
}

/// The template holds every sentence the code says: each literal handed to a localizer
/// (`say("…")`, `Phrase("…")`, `translated("…")`, `footerLabel("…")`) is one of its
/// messages. Sentences said through a string-literal phrase or a context built at run time
/// are found by the pseudo-language's golden frames instead.
@Suite("The template and the code")
struct TemplateExtractionTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every literal template in the code, with where it is (not a prefix that a word is
    /// added to at run time, and not `reader.say`, which writes a line of the command line's).
    static func literals() throws -> [(template: String, place: String)] {
        let pattern = try NSRegularExpression(pattern: #"(?<!reader\.)\b(say|Phrase|translated|footerLabel|self)\(\s*"((?:\\.|[^"\\])*)"\s*[,)]"#)
        var out: [(String, String)] = []
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift", !url.path.contains("/Localization/") else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let range = NSRange(text.startIndex..., in: text)
            for match in pattern.matches(in: text, range: range) {
                guard let call = Range(match.range(at: 1), in: text), let body = Range(match.range(at: 2), in: text) else { continue }
                var literal = String(text[body])
                if literal.contains("\\(") { continue }  // built at run time: not a template
                literal = literal.replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\n", with: "\n")
                    .replacingOccurrences(of: "\\u{00A0}", with: "\u{00A0}").replacingOccurrences(of: "\\\\", with: "\\")
                if text[call] == "footerLabel" { literal = "⟨footer⟩" + literal }
                let line = text[..<body.lowerBound].filter { $0 == "\n" }.count + 1
                out.append((literal, url.lastPathComponent + ":\(line)"))
            }
        }
        return out
    }

    @Test func everySentenceTheCodeHandsToALocalizerIsInTheTemplate() throws {
        let found = try Self.literals()
        #expect(found.count > 300, "the code's sentences are found (\(found.count))")
        let missing = found.filter { !Catalog.englishKeys.contains($0.template) }
        #expect(missing.isEmpty, "not in po/carrel.pot (run scripts/catalogs --extract): \(missing.prefix(10).map { "\($0.place) \($0.template)" })")
    }
}
