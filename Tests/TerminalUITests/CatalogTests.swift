import Foundation
import Testing
@testable import Localization

/// The catalogs: every language says every sentence, with the same values, in its own plural
/// forms; the language is chosen in the documented order.
@Suite("Message catalogs")
struct CatalogTests {
    /// Every language but English, each read from its catalog.
    static let translated: [Language] = Language.offered.filter { $0 != .en }

    static func placeholders(_ template: String) -> Set<String> { CatalogCheck.placeholders(template) }

    @Test func thirteenLanguagesAreOfferedInTheirOwnNames() {
        #expect(Language.offered.count >= 5)
        #expect(Set(Language.offered).count == Language.offered.count)
        for language in Language.offered {
            #expect(!language.name.isEmpty && language.name != language.rawValue, "\(language) names itself")
        }
    }

    @Test func theTemplateListsEveryAreaOnce() {
        #expect(Catalog.templates.count > 500)
        #expect(Set(Catalog.templates).count == Catalog.templates.count)
        for sample in ["⟨footer⟩back", "Question flagged", "{0, plural, one {# minute} other {# minutes}}", "⟨decimal separator⟩."] {
            #expect(Catalog.englishKeys.contains(sample), "\(sample) is in the template")
        }
    }

    @Test(arguments: translated)
    func everyCatalogHasEveryKeyAndNoOther(language: Language) throws {
        let loaded = try #require(Catalog.loaded(language), "\(language)'s catalog reads")
        let missing = CatalogCheck.missing(loaded, templates: Catalog.templates)
        let extra = loaded.messages.keys.filter { !Catalog.englishKeys.contains($0) }
        #expect(missing.isEmpty, "\(language.rawValue) lacks \(missing.count): \(missing.prefix(10))")
        #expect(extra.isEmpty, "\(language.rawValue) has keys English does not: \(extra.prefix(10))")
    }

    @Test(arguments: translated)
    func everyTranslationKeepsItsValuesAndPluralCategoriesAndSaysSomething(language: Language) throws {
        let loaded = try #require(Catalog.loaded(language))
        let problems = CatalogCheck.problems(loaded, templates: Catalog.templates)
        #expect(problems.isEmpty, "\(language.rawValue): \(problems.prefix(10))")
        var checked = 0
        for key in Catalog.templates {
            guard let value = loaded.messages[key] else { continue }
            checked += 1
            let words = Catalog.strippingContext(key)
            if words.contains(where: \.isLetter) {
                #expect(!value.trimmingCharacters(in: .whitespaces).isEmpty, "\(language.rawValue): \(key) is empty")
            }
        }
        #expect(checked >= Catalog.templates.count - 3, "\(language.rawValue) says \(checked) of \(Catalog.templates.count)")
    }

    @Test func pluralCategoriesFollowCLDR() {
        #expect(Language.fr.pluralCategory(0) == "one")
        #expect(Language.fr.pluralCategory(1) == "one")
        #expect(Language.fr.pluralCategory(2) == "other")
        #expect(Language.fr.pluralCategory(1_000_000) == "many")
        #expect(Language.en.pluralCategory(0) == "other")
        #expect(Language.de.pluralCategory(1) == "one")
        #expect(Language.de.pluralCategory(0) == "other")
        #expect(Language.es.pluralCategory(1) == "one")
        #expect(Language.es.pluralCategory(2_000_000) == "many")
        #expect(Language.ja.pluralCategory(1) == "other")
    }

    @Test func timesInWordsInEveryLanguage() {
        #expect(Localizer(.en).duration(815) == "13 minutes 35 seconds")
        #expect(Localizer(.en).duration(3661) == "1 hour 1 minute 1 second")
        #expect(Localizer(.en)("⟨time in words⟩{0} left", .time(815)) == "13 minutes 35 seconds left")
        #expect(Localizer(.de).duration(815) == "13 Minuten 35 Sekunden")
        #expect(Localizer(.de).duration(61) == "1 Minute 1 Sekunde")
        #expect(Localizer(.fr).duration(61) == "1 minute 1 seconde")
        #expect(Localizer(.fr).duration(0) == "0 seconde", "French says 0 in the singular")
        #expect(Localizer(.es).duration(7200) == "2 horas")
        #expect(Localizer(.ja).duration(815) == "13分35秒")
        for language in Language.offered {
            let said = Localizer(language)("⟨time in words⟩{0} left", .time(815))
            #expect(said.contains("13") && said.contains("35"), "\(language.rawValue): \(said)")
        }
    }

    @Test func templatesFillValuesAndChoosePluralForms() {
        let en = Localizer(.en)
        #expect(en("{0} and {1}", .s("a"), .s("b")) == "a and b")
        #expect(en("{0, plural, one {# minute left} other {# minutes left}}", .n(1)) == "1 minute left")
        #expect(en("{0, plural, one {# minute left} other {# minutes left}}", .n(5)) == "5 minutes left")
        #expect(en("{0, plural, =0 {none} one {# word of at least {1}} other {# words of at least {1}}}", .n(0), .n(9)) == "none")
        #expect(en("{0, plural, one {# word of at least {1}} other {# words of at least {1}}}", .n(3), .n(9)) == "3 words of at least 9")
        #expect(en("⟨footer⟩back") == "back", "a context is not said")
        #expect(en.list(["1", "2", "3"]) == "1, 2 and 3")
        #expect(Localizer(.ja).list(["1", "2", "3"]).contains("、"))
        // A value that looks like a template is said as it is, never read as one.
        #expect(en("Message from the proctor: {0}", .s("{1} {0, plural, one {x}}")) == "Message from the proctor: {1} {0, plural, one {x}}")
    }

    @Test func thePseudoLanguageLengthensByAThirdAndMarks() {
        let pseudo = Localizer(.pseudo)
        let english = "Question flagged"
        let said = pseudo(english)
        #expect(said.hasPrefix("⟦") && said.hasSuffix("⟧"))
        #expect(said.count >= english.count * 4 / 3)
        #expect(!said.contains("Question"))
        #expect(pseudo("The proctor added {0}: {1} left", .time(600), .time(60)).contains("10"))
        // A sentence missing from the catalogs shows unmarked, so a test can find it.
        #expect(pseudo("A sentence no catalog lists") == "A sentence no catalog lists")
    }

    @Test func languageTagsAsPeopleWriteThem() {
        #expect(Language(tag: "fr") == .fr)
        #expect(Language(tag: "FR") == .fr)
        #expect(Language(tag: "fr_CA.UTF-8") == .fr)
        #expect(Language(tag: "de-AT") == .de)
        #expect(Language(tag: "ja_JP.UTF-8") == .ja)
        #expect(Language(tag: "eo") == nil)
        #expect(Language(tag: "") == nil)
        #expect(Language(tag: "x-pseudo") == nil, "the test language is not offered to anyone")
        #expect(Language.fromEnvironment(["LANG": "x-pseudo"]) == .en)
        #expect(Language.fromEnvironment(["LANG": "C.UTF-8"]) == .en)
        #expect(Language.fromEnvironment(["LC_ALL": "es_ES.UTF-8", "LANG": "fr_FR.UTF-8"]) == .es)
        #expect(Language.fromEnvironment(["LC_ALL": "", "LC_MESSAGES": "de_DE", "LANG": "fr_FR.UTF-8"]) == .de)
        #expect(Language.fromEnvironment(["LANG": "eo.UTF-8"]) == .en, "a language Carrel does not speak in the environment is English")
        #expect(Language.fromEnvironment([:]) == .en)
    }

    @Test func theRosterComesFirstThenTheOptionThenTheAssessmentThenTheEnvironment() throws {
        let env = ["LANG": "de_DE.UTF-8"]
        #expect(try LanguageChoice.resolve(roster: "ja", option: "fr", assessment: "es", environment: env).get()
                == LanguageChoice(language: .ja, source: .roster))
        #expect(try LanguageChoice.resolve(roster: nil, option: "fr", assessment: "es", environment: env).get()
                == LanguageChoice(language: .fr, source: .option))
        #expect(try LanguageChoice.resolve(roster: nil, option: nil, assessment: "es", environment: env).get()
                == LanguageChoice(language: .es, source: .assessment))
        #expect(try LanguageChoice.resolve(roster: nil, option: nil, assessment: nil, environment: env).get()
                == LanguageChoice(language: .de, source: .environment))
        #expect(try LanguageChoice.resolve(roster: nil, option: nil, assessment: nil, environment: [:]).get()
                == LanguageChoice(language: .en, source: .fallback))
        guard case let .failure(failure) = LanguageChoice.resolve(roster: nil, option: "klingon", assessment: "fr", environment: env) else {
            Issue.record("an unknown language is an error")
            return
        }
        #expect(failure.description.contains("\"klingon\" is not a language Carrel speaks"))
        for language in Language.offered { #expect(failure.description.contains(language.rawValue + " (")) }
        #expect(!failure.description.contains("x-pseudo"))
        for tag in ["", "x-pseudo", "fr fr", "../fr"] {
            guard case .failure = LanguageChoice.resolve(roster: nil, option: tag, assessment: nil, environment: env) else {
                Issue.record("--language \(tag.debugDescription) is refused")
                continue
            }
        }
        #expect(try LanguageChoice.resolve(roster: "", option: nil, assessment: nil, environment: env).get().source == .environment,
                "an empty roster cell says nothing")
    }
}
