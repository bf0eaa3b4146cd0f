import Foundation
import Testing

/// Choosing the language of the screens from the command line and the assessment.
@Suite("carrel and languages")
struct LanguageCLITests {
    static let french = """
        carrel: 1
        id: dictee
        title: Dictée
        language: fr
        sections:
          - items:
              - {id: q, type: true_false, prompt: "Paris est en France.", answer: true}
        """

    @Test func anUnknownLanguageOptionIsAUsageErrorNamingTheLanguagesThereAre() throws {
        let file = try CarrelProcess.temporaryFile(Self.french)
        for command in [["take", file.path, "--language", "klingon"], ["demo", "--language", "xx"]] {
            let result = try CarrelProcess.run(command)
            if command[0] == "demo" {
                // The demo asks for a terminal first; with one, it would refuse the language.
                #expect(result.status != 0)
                continue
            }
            #expect(result.status == 64, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("--language: \"klingon\" is not a language Carrel speaks; the languages are en (English), fr (Français), de (Deutsch), es (Español), ja (日本語)"),
                    "\(result.stderr)")
        }
    }

    @Test func theAssessmentsLanguageKeyIsCheckedAndShownByInspect() throws {
        let file = try CarrelProcess.temporaryFile(Self.french)
        let valid = try CarrelProcess.run(["validate", file.path])
        #expect(valid.status == 0, "\(valid.stderr)")
        let inspect = try CarrelProcess.run(["inspect", file.path])
        #expect(inspect.stdout.contains("  language:    fr (Français), from the assessment's language key"), "\(inspect.stdout)")
        let json = try CarrelProcess.run(["inspect", "--json", file.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["language"] as? String == "fr")

        let klingon = try CarrelProcess.temporaryFile(Self.french.replacingOccurrences(of: "language: fr", with: "language: tlh"))
        let refused = try CarrelProcess.run(["validate", klingon.path])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("\(klingon.path):4:11: error: language: \"tlh\" is not a language Carrel speaks; the languages are en (English)"),
                "\(refused.stderr)")
    }

    @Test func withoutALanguageKeyInspectSaysTheEnvironmentChooses() throws {
        let result = try CarrelProcess.run(["inspect", "Assessments/geography.yaml"])
        #expect(result.stdout.contains("  language:    not set: each seat's LC_ALL / LC_MESSAGES / LANG, else English"), "\(result.stdout)")
    }
}
