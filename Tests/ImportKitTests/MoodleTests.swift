import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

@Suite("Moodle XML, as Moodle's qformat_xml reads it")
struct MoodleTests {
    func read(_ path: String) throws -> ImportedBank {
        try MoodleReader.read(bytes: try Fixtures.bytes(path), file: path)
    }

    func read(xml: String) throws -> ImportedBank {
        try MoodleReader.read(bytes: Array(xml.utf8), file: "t.xml")
    }

    /// One question written inside a `<quiz>`.
    func only(_ question: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (Item, ImportedBank) {
        let bank = try read(xml: "<quiz>\(question)</quiz>")
        #expect(bank.errors.isEmpty && bank.skips.isEmpty, "\(bank.diagnostics)", sourceLocation: sourceLocation)
        return (try #require(bank.items.first, sourceLocation: sourceLocation), bank)
    }

    /// The line of the first line holding `text` in a fixture.
    func line(of text: String, in path: String) throws -> Int {
        let lines = try Fixtures.text(path).split(separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0.contains(text) }) + 1
    }

    // MARK: - Moodle's own fixtures

    /// Each Moodle fixture: how many questions Moodle's export holds (categories are not
    /// questions), and how many Carrel writes, skips, reports as errors and keeps as descriptions.
    static let upstream: [(file: String, moodle: Int, written: Int, skipped: Int, errors: Int, descriptions: Int)] = [
        ("moodle/nested_categories_with_questions.xml", 5, 5, 0, 0, 0),
        ("moodle/old_format_file.xml", 2, 2, 0, 0, 0),
        ("moodle/html_chars_in_idnumbers.xml", 1, 1, 0, 0, 0),
        ("moodle/error_invalid_grades.xml", 1, 1, 0, 0, 0),
        ("moodle/sample_questions_with_old_image_tag.xml", 2, 2, 0, 0, 0),
        ("moodle/broken_cloze_questions.xml", 5, 0, 0, 5, 0),
        ("moodle/qtype_multichoice.xml", 1, 1, 0, 0, 0),
        ("moodle/qtype_truefalse.xml", 1, 1, 0, 0, 0),
        ("moodle/qtype_shortanswer.xml", 1, 1, 0, 0, 0),
        ("moodle/qtype_match.xml", 1, 1, 0, 0, 0),
        ("moodle/qtype_essay.xml", 1, 1, 0, 0, 0),
        ("moodle/qtype_gapselect.xml", 1, 1, 0, 0, 0),
        ("moodle/qtype_ddwtos.xml", 1, 1, 0, 0, 0),
        ("moodle/qtype_ordering.xml", 1, 1, 0, 0, 0),
    ]

    @Test func everyMoodleFixtureIsListedAndEveryQuestionIsAccountedFor() throws {
        let files = Fixtures.files(in: "moodle", extensions: [".xml"]).filter { !$0.hasPrefix("moodle/carrel/") }
        #expect(files.count >= 14)
        #expect(Set(files) == Set(Self.upstream.map(\.file)))
        var checked = 0
        for expected in Self.upstream {
            let bank = try read(expected.file)
            let text = try Fixtures.text(expected.file)
            let inFile = text.components(separatedBy: "<question type=").count - 1 - text.components(separatedBy: "<question type=\"category\"").count + 1
            #expect(inFile == expected.moodle, "\(expected.file)")
            #expect(bank.items.count == expected.written, "\(expected.file): \(bank.diagnostics)")
            #expect(bank.skips.count == expected.skipped, "\(expected.file): \(bank.diagnostics)")
            #expect(bank.errors.count == expected.errors, "\(expected.file): \(bank.diagnostics)")
            #expect(bank.descriptions == expected.descriptions, "\(expected.file)")
            #expect(expected.written + expected.skipped + expected.errors + expected.descriptions == expected.moodle)
            if !bank.items.isEmpty { _ = try expectValidAssessment([bank]) }
            checked += 1
        }
        #expect(checked == Self.upstream.count)
    }

    @Test func nestedCategoriesBecomeSectionsTitledByTheirLastNameWithTheirInfo() throws {
        let bank = try read("moodle/nested_categories_with_questions.xml")
        #expect(bank.sections.map(\.title) == ["Iota", "Kappa", "Lambda", "Mu"])
        #expect(bank.sections.map(\.instructions) == [
            "This is Iota category for test", "This is Kappa category for test",
            "This is Lambda category for test", "This is Mu category for test",
        ])
        #expect(bank.sections.map { $0.questions.map(\.name) } == [
            ["Iota Question"], ["Kappa Essay Question", "Kappa Question"], ["Lambda Question"], ["Mu Question"],
        ])
        #expect(bank.types == [.trueFalse, .essay, .trueFalse, .trueFalse, .trueFalse])
        #expect(try bank.question("Iota Question").kind == .trueFalse(answer: true))
        #expect(try bank.question("Iota Question").prompt == "Testing Iota Question")
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
        let a = try expectValidAssessment([bank])
        #expect(a.items.map(\.id) == ["iota-question", "kappa-essay-question", "kappa-question", "lambda-question", "mu-question"])
    }

    @Test func oldExportsWithoutInfoStillGiveSections() throws {
        let bank = try read("moodle/old_format_file.xml")
        #expect(bank.sections.map(\.title) == ["Pi", "Rho"])
        #expect(bank.sections.map(\.instructions) == [nil, nil])
        #expect(bank.items.map(\.kind) == [.trueFalse(answer: true), .trueFalse(answer: true)])
    }

    @Test func entitiesInCategoriesAndIdnumbersAreRead() throws {
        let bank = try read("moodle/html_chars_in_idnumbers.xml")
        #expect(bank.sections.map(\.title) == ["Alpha"])
        #expect(try bank.question("Alpha Question").kind == .trueFalse(answer: true))
    }

    @Test func gradesMoodleWouldRoundAreKeptAsWritten() throws {
        let bank = try read("moodle/error_invalid_grades.xml")
        let q = try #require(bank.items.first)
        #expect(bank.questions.first?.name == "Question with invalid grades : x > 1 & x < 2")
        #expect(q.prompt == "Select all prime numbers :")
        #expect(q.kind == .multiple(choices: ["1", "2", "3", "4", "5"], answers: ["2", "3", "5"], scoring: .partial))
        #expect(q.marking == .choices([
            ChoiceMark(text: "1", credit: -50), ChoiceMark(text: "2", credit: 33), ChoiceMark(text: "3", credit: 33.33333),
            ChoiceMark(text: "4", credit: -50), ChoiceMark(text: "5", credit: 33.33333),
        ]))
        // 99.67 %: within half a percent of the whole, so not pointed out; the 33 % is kept as
        // written (Moodle refuses the file, or rounds 33 to 33.33333 when told to).
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
        let all = Scoring.score(q, .multiple(["2", "3", "5"]))
        #expect(all.points > 0.996 && all.points < 0.997)
        #expect(abs(Scoring.score(q, .multiple(["1", "2", "3", "5"])).points - (all.points - 0.5)) < 1e-9)
    }

    @Test func moodle19ImagesAreAddedToTheTextAndNamed() throws {
        let file = "moodle/sample_questions_with_old_image_tag.xml"
        let bank = try read(file)
        let q = try bank.question("mcq with image")
        #expect(q.prompt == "This is a multichoice question with an image in the old \"image\" field that was used in Moodle 1.9 [image: moodle.png]")
        #expect(q.kind == .choice(choices: ["wrong answer", "another wrong answer", "right answer"], answer: "right answer"))
        let mcq = try line(of: "<question type=\"multichoice\">", in: file)
        #expect(bank.diagnostics.map(\.description).contains(
            "\(file):\(mcq): warning: “mcq with image”: needs files a terminal cannot show: moodle.png; an image stands in the text as [image: its description]"))
        // The multiple choice shuffles; the cloze question's MULTICHOICE gaps do not.
        #expect(bank.choiceOrder == ChoiceOrder(shuffled: 1, inOrder: 1))
    }

    @Test func typeFixturesGiveMoodlesKeys() throws {
        let multi = try read("moodle/qtype_multichoice.xml")
        #expect(try multi.question("Multi-choice-001").kind == .multiple(
            choices: ["Tokyo", "Spain", "London", "Barcelona", "Paris"], answers: ["London", "Paris"], scoring: .partial))
        #expect(try multi.question("Multi-choice-001").feedback == "Berlin, Paris and London")
        #expect(multi.sections.map(\.title) == ["Default for C1"])

        let tf = try read("moodle/qtype_truefalse.xml")
        #expect(try tf.question("true-false-001").marking == .trueFalse(ifTrue: "This is the right answer.", ifFalse: "This is the wrong answer."))

        let short = try read("moodle/qtype_shortanswer.xml")
        let s = try short.question("shortanswer-001")
        #expect(s.kind == .text(accept: ["frog"], caseSensitive: false))
        #expect(s.marking == .texts([
            TextAnswer(text: "frog", feedback: "Frog is a very good answer."),
            TextAnswer(text: "toad", credit: 80, feedback: "Toad is an OK good answer."),
        ]))
        #expect(short.diagnostics.map(\.message) == [
            "“shortanswer-001”: left out 1 answer with Moodle's * wildcard, which Carrel does not match",
        ])

        let match = try read("moodle/qtype_match.xml")
        #expect(try match.question("matching-001").kind == .match(pairs: [
            MatchPair(left: "frog", right: "amphibian"), MatchPair(left: "cat", right: "mammal"),
            MatchPair(left: "newt", right: "amphibian"),
        ], distractors: ["insect"]))

        let essay = try read("moodle/qtype_essay.xml")
        #expect(try essay.question("essay-001").kind == .essay(minWords: nil, maxWords: nil))

        let ordering = try read("moodle/qtype_ordering.xml")
        #expect(try ordering.question("dd-ordering 1").kind == .order(items: ["Modular", "Object", "Oriented", "Dynamic", "Learning", "Environment"]))
        #expect(ordering.diagnostics.map(\.message) == [
            "“dd-ordering 1”: Moodle grades it by ABSOLUTE_POSITION; Carrel gives credit for each pair of neighbours in the right order",
        ])
    }

    @Test(arguments: ["moodle/qtype_gapselect.xml", "moodle/qtype_ddwtos.xml"])
    func selectMissingWordsIsAGapsItemOfPicks(file: String) throws {
        let bank = try read(file)
        let q = try #require(bank.items.first)
        #expect(q.prompt == "The {1} {2} on the {3}.")
        let words = ["cat", "sat", "mat", "dog", "table"]
        let expected = ["cat", "sat", "mat"].map { right in
            Gap(kind: .choice(options: words.map { ChoiceMark(text: $0, credit: $0 == right ? 100 : nil) }, multiple: false))
        }
        #expect(q.kind == .gaps(expected))
        #expect(q.feedback == "The cat sat on the mat.")
        #expect(bank.choiceOrder == ChoiceOrder(shuffled: 0, inOrder: 1))
        #expect(Scoring.score(q, .gaps([["cat"], ["sat"], ["mat"]])).outcome == .correct)
    }

    // MARK: - Every type, as Carrel reads it

    static let everyType = "moodle/carrel/every-type.xml"

    @Test func everyTypeFileGivesItsSectionsTypesAndSkips() throws {
        let bank = try read(Self.everyType)
        #expect(bank.errors.isEmpty, "\(bank.errors)")
        #expect(bank.sections.map(\.title) == ["Week 1: Capitals", "Numbers / facts"])
        #expect(bank.sections.first?.instructions == "Answer every question.\n\nThe map shows Europe.\nUse it for the next questions.")
        #expect(bank.descriptions == 1)
        #expect(bank.sections.map(\.questions.count) == [4, 7])
        #expect(bank.typeCounts == [.choice: 1, .multiple: 1, .trueFalse: 1, .text: 1, .numeric: 2, .match: 1, .essay: 1, .gaps: 3])
        let skipped = try [
            ("calculated", "“Distance travelled”: a calculated question (calculated) draws its numbers for each student and computes the answer, which Carrel does not do"),
            ("calculatedsimple", "“Area”: a calculated question (calculatedsimple) draws its numbers for each student and computes the answer, which Carrel does not do"),
            ("calculatedmulti", "“Speed”: a calculated question (calculatedmulti) draws its numbers for each student and computes the answer, which Carrel does not do"),
            ("ddimageortext", "“Label the map”: drag and drop onto an image needs a picture to drop onto, which a terminal cannot show"),
            ("ddmarker", "“Mark the capitals”: drag markers needs a picture to place markers on, which a terminal cannot show"),
            ("randomsamatch", "“Random capitals”: random short-answer matching takes its pairs from other questions of its category when a quiz starts, which Carrel does not do"),
            ("random", "“Random (Week 1: Capitals)”: a random question stands for one drawn from a category when a quiz starts, which Carrel does not do"),
            ("stack", "“Differentiate”: the question type stack (a Moodle plugin) has no Carrel equivalent"),
        ].map { type, reason in
            "\(Self.everyType):\(try line(of: "<question type=\"\(type)\">", in: Self.everyType)): warning: skipped: \(reason)"
        }
        let upload = try line(of: "<text>Upload a map</text>", in: Self.everyType) - 2
        #expect(bank.skips.map(\.description) == skipped + [
            "\(Self.everyType):\(upload): warning: skipped: “Upload a map”: the essay is answered with attached files only, which a locked test cannot take",
        ])
        _ = try expectValidAssessment([bank])
    }

    @Test func multichoiceKeepsFractionsFeedbackAndNamesItsImage() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Capital of France")
        #expect(q.prompt == "What is the capital of France?\n\n[image: A map of France]")
        #expect(q.kind == .choice(choices: ["Paris", "Versailles", "Lyon", "Marseille"], answer: "Paris"))
        #expect(q.marking == .choices([
            ChoiceMark(text: "Paris", feedback: "Right."),
            ChoiceMark(text: "Versailles", credit: 33.33333, feedback: "It was, under Louis XIV."),
            ChoiceMark(text: "Lyon", credit: -50), ChoiceMark(text: "Marseille"),
        ]))
        #expect(q.points == 2)
        #expect(q.feedback == "Paris has been the capital since 987.")
        let at = try line(of: "<text>Capital of France</text>", in: Self.everyType) - 2
        #expect(bank.diagnostics.map(\.description).contains(
            "\(Self.everyType):\(at): warning: “Capital of France”: needs files a terminal cannot show: france map.png; an image stands in the text as [image: its description]"))
        #expect(Scoring.score(q, .choice("Lyon")).points == 0)
        #expect(Scoring.score(q, .choice("Versailles")).points > 0.66 && Scoring.score(q, .choice("Versailles")).points < 0.67)
    }

    @Test func multipleAnswersAddTheirFractions() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Capitals on rivers")
        #expect(q.prompt == "Which capitals stand on the Danube? (a < b is not a tag)")
        #expect(q.kind == .multiple(choices: ["Vienna", "Budapest", "Belgrade", "Prague"], answers: ["Vienna", "Budapest", "Belgrade"], scoring: .partial))
        #expect(Scoring.score(q, .multiple(["Vienna", "Budapest", "Belgrade"])).outcome == .correct)
        #expect(Scoring.score(q, .multiple(["Vienna", "Prague"])).points == 0)
    }

    @Test func trueFalseFollowsTheFractionOfTheAnswerNamedTrue() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Bern is the largest Swiss city")
        #expect(q.prompt == "Bern is the **largest** city of Switzerland.")
        #expect(q.kind == .trueFalse(answer: false))
        #expect(q.marking == .trueFalse(ifTrue: "No: Zürich is larger.", ifFalse: "Right: Zürich is larger."))
    }

    @Test func shortAnswerHonoursUsecaseAndLeavesWildcardsOut() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Capital of Germany")
        #expect(q.kind == .text(accept: ["Berlin"], caseSensitive: true))
        #expect(q.marking == .texts([TextAnswer(text: "Berlin", feedback: "Yes."), TextAnswer(text: "Bonn", credit: 50, feedback: "Until 1990.")]))
        #expect(bank.diagnostics.map(\.message).contains("“Capital of Germany”: left out 1 answer with Moodle's * wildcard, which Carrel does not match"))
        #expect(Scoring.score(q, .text("berlin")).points == 0)
    }

    @Test func numericalKeepsTolerancesAndNamesItsBaseUnit() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Height of Mont Blanc")
        #expect(q.prompt == "How high is Mont Blanc?\n\nRound to the metre.\n\n[unit: m]")
        #expect(q.kind == .numeric(.value(4806, tolerance: 10)))
        #expect(q.marking == .numbers([
            NumberAnswer(answer: .value(4806, tolerance: 10)),
            NumberAnswer(answer: .value(4800, tolerance: 100), credit: 50, feedback: "Close."),
        ]))
        #expect(q.points == 3)
        let messages = bank.diagnostics.map(\.message)
        #expect(messages.contains("“Height of Mont Blanc”: units are not typed in Carrel: the answer is the number in m, which the prompt names at its end; answers in km are not accepted; Moodle's penalty for a missing or wrong unit does not apply"))
        #expect(messages.contains("“Height of Mont Blanc”: left out the answer * (any other number) with its credit and feedback; Carrel marks only the numbers listed"))
        #expect(Scoring.score(q, .numeric("4810")).outcome == .correct)
        #expect(Scoring.score(q, .numeric("4880")).points == 1.5)
    }

    @Test func hiddenQuestionsAreImportedWithAWarningAndUnusedUnitsAreIgnored() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Countries in the EU")
        #expect(q.prompt == "How many countries are in the European Union?")
        #expect(q.kind == .numeric(.value(27, tolerance: 0)))
        #expect(bank.diagnostics.map(\.message).filter { $0.hasPrefix("“Countries in the EU”") } == [
            "“Countries in the EU”: the question is hidden in Moodle's bank (retired, or kept only for old quizzes); it was imported like the others, so leave it out of a test if it is retired",
        ])
    }

    @Test func matchingTurnsAnEmptySubquestionIntoADistractor() throws {
        let q = try read(Self.everyType).question("Countries and capitals")
        #expect(q.kind == .match(pairs: [
            MatchPair(left: "Spain", right: "Madrid"), MatchPair(left: "Portugal", right: "Lisbon"), MatchPair(left: "Italy", right: "Rome"),
        ], distractors: ["Porto"]))
    }

    @Test func essayKeepsItsWordLimitsAndGraderInformation() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Why capitals move")
        #expect(q.kind == .essay(minWords: 50, maxWords: 300))
        #expect(q.proctorNote == "Expect: the interior, 1960, Brasília.")
        #expect(q.points == 10)
        #expect(bank.diagnostics.map(\.message).contains("“Why capitals move”: the essay also takes up to 1 attached file, which a locked test cannot take; only the typed answer is kept"))
    }

    @Test func gapsPickAmongTheirGroupAndLiteralBracesStayText() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Rivers and seas")
        #expect(q.prompt == "The {1} flows into the {2}, the { 2} {3} into the {4}.")
        let rivers = ["Rhine", "Danube", "Volga"], seas = ["North Sea", "Black Sea"]
        func pick(_ options: [String], _ right: String) -> Gap {
            Gap(kind: .choice(options: options.map { ChoiceMark(text: $0, credit: $0 == right ? 100 : nil) }, multiple: false))
        }
        #expect(q.kind == .gaps([pick(rivers, "Rhine"), pick(seas, "North Sea"), pick(rivers, "Danube"), pick(seas, "Black Sea")]))
        #expect(bank.diagnostics.map(\.message).contains("“Rivers and seas”: the text writes a number in braces, which a gaps item reads as a gap; a space now follows each such `{`"))
        #expect(Scoring.score(q, .gaps([["Rhine"], ["North Sea"], ["Danube"], ["Volga"]])).points == 1.5)

        let alps = try bank.question("Alpine countries")
        #expect(alps.prompt == "{1} and {2} are in the Alps; {3} is not.")
        let countries = ["Austria", "Switzerland", "Denmark"]
        #expect(alps.kind == .gaps(countries.map { pick(countries, $0) }))
    }

    @Test func choicesShuffleOnlyWhenNoQuestionKeepsItsOrder() throws {
        let bank = try read(Self.everyType)
        #expect(bank.choiceOrder == ChoiceOrder(shuffled: 4, inOrder: 1))
        #expect(bank.diagnostics.map(\.description).contains(
            "\(Self.everyType): warning: 4 questions shuffle their choices in Moodle and 1 keeps them in order; an assessment shuffles every question's choices or none, so they stay in order (write `shuffle: {choices: true}` to shuffle them all)"))
        #expect(Importer.assemble([bank], options: .init(id: "a", title: "A")).assessment?.shuffle.choices == false)
        let all = try read("moodle/qtype_multichoice.xml")
        #expect(Importer.assemble([all], options: .init(id: "a", title: "A")).assessment?.shuffle.choices == true)
        // Consistent files that disagree with each other say so once, for the assembly.
        let kept = try read("moodle/qtype_gapselect.xml")
        let assembly = Importer.assemble([all, kept], options: .init(id: "a", title: "A"))
        #expect(assembly.assessment?.shuffle.choices == false)
        #expect(assembly.diagnostics.map(\.message) == [ChoiceOrder(shuffled: 1, inOrder: 1).mixedWarning])
    }

    @Test func clozeQuestionsAreGapsItemsWorthTheirGapsWeights() throws {
        let bank = try read(Self.everyType)
        let q = try bank.question("Facts in a sentence")
        #expect(q.prompt == "Mont Blanc is {1} m high and stands in {2}.\n\nIts name means {3}.")
        #expect(q.points == 4)
        #expect(q.feedback == "Mont Blanc: 4 806 m.")
        let countries = ["France", "Italy", "Spain"]
        #expect(q.kind == .gaps([
            Gap(kind: .number(answers: [NumberAnswer(answer: .value(4806, tolerance: 10))]), points: 2),
            Gap(kind: .choice(options: countries.map { ChoiceMark(text: $0, credit: $0 == "France" ? 100 : nil) }, multiple: false)),
            Gap(kind: .text(answers: [TextAnswer(text: "white mountain")], caseSensitive: false)),
        ]))
        let text = try line(of: "{2:NUMERICAL:=4806:10}", in: Self.everyType)
        let wildcard = bank.diagnostics.filter { $0.message.hasPrefix("“Facts in a sentence”:") }
        #expect(wildcard.map(\.line) == [text + 1])
        #expect(wildcard.first?.severity == .warning)
        #expect(Scoring.score(q, .gaps([["4810"], ["France"], ["White Mountain"]])).outcome == .correct)
        #expect(Scoring.score(q, .gaps([["4810"], ["Italy"], ["white"]])).points == 2)

        let old = try read("moodle/sample_questions_with_old_image_tag.xml").question("cloze question with image")
        #expect(old.prompt.hasPrefix("This is a multianswer question with an image in the old \"image\" field that was used in moodle 1.9.\nMatch the following cities with the correct state:\n* San Francisco: {1}\n* Tucson: {2}"))
        #expect(old.prompt.hasSuffix("The capital of France is {5}.\n[image: moodle.png]"))
        #expect(old.points == 5)
        guard case let .gaps(gaps) = old.kind else { Issue.record("not a gaps item: \(old.kind)"); return }
        #expect(gaps.map(\.kind.options) == [
            ["California", "Arizona"], ["California", "Arizona"], ["California", "Arizona"], ["California", "Arizona"], [],
        ])
        #expect(Scoring.score(old, .gaps([["California"], ["Arizona"], ["California"], ["Arizona"], ["Paris"]])).outcome == .correct)
    }

    @Test func clozeQuestionsMoodleRefusesAreErrorsAtTheirLineWithTheirName() throws {
        let file = "moodle/broken_cloze_questions.xml"
        let bank = try read(file)
        #expect(bank.items.isEmpty)
        let names = ["Multianswer question without subquestions", "Multichoice subquestion without choices",
                     "Multichoice subquestion with only one choice", "Multichoice subquestion with no completely correct answer",
                     "Numerical subquestion with buggy answer"]
        #expect(bank.errors.count == names.count)
        var checked = 0
        for (error, name) in zip(bank.errors, names) {
            let textLine = try line(of: "<text>\(name)</text>", in: file) + 3
            #expect(error.line == textLine, "\(error)")
            #expect(error.message.hasPrefix("“\(name)”: "), "\(error)")
            #expect(error.message.hasSuffix(" (the question is not imported)"), "\(error)")
            checked += 1
        }
        #expect(checked == 5)
        #expect(bank.errors.first?.message == "“Multianswer question without subquestions”: the text holds no embedded answer such as {1:SHORTANSWER:=word} (the question is not imported)")
    }
}
