import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

@Suite("GIFT, as Moodle reads it")
struct GIFTTests {
    func read(_ text: String) -> ImportedBank { GIFTReader.read(text, file: "t.gift") }

    func only(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Item {
        let bank = read(text)
        #expect(bank.errors.isEmpty, "\(bank.diagnostics)", sourceLocation: sourceLocation)
        #expect(bank.items.count == 1, sourceLocation: sourceLocation)
        return try #require(bank.items.first, sourceLocation: sourceLocation)
    }

    @Test func everyConstructFileGivesMoodlesCountsAndTypes() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "every-construct.gift")
        #expect(bank.errors.isEmpty, "\(bank.diagnostics)")
        #expect(bank.items.count == 21)
        #expect(bank.typeCounts == [.choice: 5, .multiple: 2, .trueFalse: 5, .text: 3, .numeric: 3, .match: 1, .essay: 2])
        #expect(bank.sections.map(\.title) == ["Geography / Capitals", "Geography / True or false", "Words"])
        #expect(bank.sections.map(\.questions.count) == [3, 4, 14])
        // The description introduces its category's questions.
        #expect(bank.sections[0].instructions == "Answer the questions about capitals.")
        _ = try expectValidAssessment([bank])
    }

    @Test func multipleChoiceWithOneRightAnswerIsAChoiceWithCreditsAndFeedback() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        let q = try bank.question("Canada capital")
        #expect(q.prompt == "What is the capital of Canada?")
        #expect(q.kind == .choice(choices: ["Ottawa", "Toronto", "Montreal"], answer: "Ottawa"))
        #expect(q.marking == .choices([
            ChoiceMark(text: "Ottawa", feedback: "Right: since 1857."),
            ChoiceMark(text: "Toronto", feedback: "The largest city, not the capital."),
            ChoiceMark(text: "Montreal", credit: 25, feedback: "Close: once a capital."),
        ]))
    }

    @Test func weightsWithoutAnEqualsSignMakeAMultipleScoredByCredit() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        let planets = try bank.question("Planets")
        #expect(planets.kind == .multiple(choices: ["Mars", "Venus", "the Moon", "the Sun"], answers: ["Mars", "Venus"], scoring: .partial))
        #expect(planets.marking == .choices([
            ChoiceMark(text: "Mars", credit: 50), ChoiceMark(text: "Venus", credit: 50),
            ChoiceMark(text: "the Moon", credit: -100, feedback: "The Moon orbits the Earth."), ChoiceMark(text: "the Sun", credit: -100),
        ]))
        #expect(planets.feedback == "Mars and Venus are planets; the Moon is a satellite and the Sun a star.")
        #expect(Scoring.score(planets, .multiple(["Mars", "Venus"])).outcome == .correct)
        #expect(Scoring.score(planets, .multiple(["Mars", "Venus", "the Moon"])).points == 0)
        let thirds = try bank.question("Thirds")
        #expect(Scoring.score(thirds, .multiple(["red", "green", "blue"])).outcome == .correct)
    }

    @Test func trueFalseInEveryCaseWithFeedbacksInMoodlesOrder() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        #expect(try bank.question("TF true").kind == .trueFalse(answer: true))
        #expect(try bank.question("TF false").kind == .trueFalse(answer: false))
        // {TRUE#wrong#right}: the first feedback is for a wrong answer (false), the second for a right one.
        let t = try bank.question("TF TRUE with feedback")
        #expect(t.kind == .trueFalse(answer: true))
        #expect(t.marking == .trueFalse(ifTrue: "Yes.", ifFalse: "No, he is entombed, not buried."))
        let f = try bank.question("TF FALSE with feedback")
        #expect(f.kind == .trueFalse(answer: false))
        #expect(f.marking == .trueFalse(ifTrue: "It is a satellite.", ifFalse: "Right, it orbits the Earth."))
    }

    @Test func aCatchAllWildcardIsLeftOutQuietlyOnlyWhenItEarnsAndSaysNothing() throws {
        let quiet = read("Capital of France? {=Paris =%0%*}")
        #expect(quiet.items.map(\.kind) == [.text(accept: ["Paris"], caseSensitive: false)])
        #expect(quiet.diagnostics.isEmpty, "\(quiet.diagnostics)")
        let said = read("Capital of France? {=Paris =%0%*#No, try again.}")
        #expect(said.diagnostics.map(\.message) == ["left out 1 answer with Moodle's * wildcard, which Carrel does not match"])
        let credited = read("Capital of France? {=Paris =%50%Par*}")
        #expect(credited.diagnostics.map(\.message) == ["left out 1 answer with Moodle's * wildcard, which Carrel does not match"])
        #expect(read("Escaped star? {=a\\*b}").items.map(\.kind) == [.text(accept: ["a*b"], caseSensitive: false)])
    }

    @Test func shortAnswersWithSeveralAnswersAndPartialCredit() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        let q = try bank.question("Short")
        #expect(q.kind == .text(accept: ["Grant", "Ulysses S. Grant"], caseSensitive: false))
        #expect(q.marking == .texts([
            TextAnswer(text: "Grant"), TextAnswer(text: "Ulysses S. Grant"),
            TextAnswer(text: "Ulysses Grant", credit: 50, feedback: "Almost: his middle initial is missing."),
        ]))
        #expect(Scoring.score(q, .text("ulysses grant")).points == 0.5)
        #expect(try bank.question("Short one answer").kind == .text(accept: ["blue"], caseSensitive: false))
    }

    @Test func missingWordLeavesAGapInTheSentence() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        let word = try bank.question("Missing word")
        #expect(word.prompt == "Two plus two equals _____ in every base above four.")
        #expect(word.kind == .text(accept: ["four", "4"], caseSensitive: false))
        let choice = try bank.question("Missing choice")
        #expect(choice.prompt == "Grant is _____ in Grant's tomb.")
        #expect(choice.kind == .choice(choices: ["buried", "entombed", "living"], answer: "entombed"))
    }

    @Test func numericalWithToleranceRangeAndSeveralAnswers() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        #expect(try bank.question("Numeric tolerance").kind == .numeric(.value(3.14, tolerance: 0.005)))
        #expect(try bank.question("Numeric range").kind == .numeric(.range(1, 5)))
        let several = try bank.question("Numeric several")
        #expect(several.kind == .numeric(.value(1822, tolerance: 0)))
        #expect(several.marking == .numbers([
            NumberAnswer(answer: .value(1822, tolerance: 0)),
            NumberAnswer(answer: .value(1822, tolerance: 2), credit: 50, feedback: "Within two years."),
        ]))
        #expect(Scoring.score(several, .numeric("1821")).points == 0.5)
    }

    @Test func aDecimalCommaIsReadButACommaThatMayGroupThousandsIsAsked() throws {
        let text = """
            ::Pi::Pi to two places? {#3,14:0,01}

            ::Pi4::Pi to four places? {#3,1416:0,005}

            ::Km::How many metres in a kilometre? {#1,000}

            ::Town::Population of the town? {#1,500:100}
            """
        let bank = GIFTReader.read(text, file: "c.gift")
        #expect(try bank.question("Pi").kind == .numeric(.value(3.14, tolerance: 0.01)))
        #expect(try bank.question("Pi4").kind == .numeric(.value(3.1416, tolerance: 0.005)), "0,005 can only be a decimal")
        #expect(!NumericText.isAmbiguousGrouping("0,500") && !NumericText.isAmbiguousGrouping("1234,567") && NumericText.isAmbiguousGrouping("-12,500"))
        #expect(bank.diagnostics.map(\.description) == [
            "c.gift:5: error: “1,000” could be a whole number with a thousands separator or a decimal; write it without the comma, or with a point for a decimal",
            "c.gift:7: error: “1,500” could be a whole number with a thousands separator or a decimal; write it without the comma, or with a point for a decimal",
        ])
    }

    @Test func questionsWithoutABlankLineBetweenThemAreRefusedRatherThanShowAnAnswer() throws {
        let text = """
            ::Question 1::Quelle est la couleur du ciel ? {
            =Bleu#Bonne réponse
            ~Vert
            }
            ::Question 2::La Terre est-elle ronde ? {
            TRUE#Bonne réponse
            }
            """
        let bank = GIFTReader.read(text, file: "j.gift")
        #expect(bank.items.isEmpty, "read as one question, its second block's answer (TRUE) would be on the screen")
        #expect(bank.diagnostics.map(\.description) == [
            "j.gift:1: error: the text after the answers holds another `{…}`, which would show its answers to the student (GIFT reads one answer block a question); if these are two questions, put a blank line between them; if it is one sentence with several blanks, write it as a Cloze question",
        ])
        let blanks = GIFTReader.read("::U6::[html]{=Shall=shall} I {=tell} you a secret?\n", file: "k.gift")
        #expect(blanks.items.isEmpty && blanks.errors.count == 1, "the second blank's answer (tell) is not shown")
    }

    @Test func everyDescriptionIsCountedThoughTheyShareTheInstructions() {
        let bank = GIFTReader.read("Read the text.\n\nThen answer.\n\n::Q::Ready? {T}\n\nA closing note.\n", file: "d.gift")
        #expect(bank.questions.count == 1)
        #expect(bank.descriptions == 2, "two descriptions before the question; the last one has none after it and is left out")
        #expect(bank.sections.first?.instructions == "Read the text.\n\nThen answer.")
    }

    @Test func matchingWithAnExtraAnswer() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        #expect(try bank.question("Match").kind == .match(pairs: [
            MatchPair(left: "Canada", right: "Ottawa"), MatchPair(left: "Italy", right: "Rome"), MatchPair(left: "Japan", right: "Tokyo"),
        ], distractors: ["Sydney"]))
    }

    @Test func essaysAndGeneralFeedback() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        #expect(try bank.question("Essay").kind == .essay(minWords: nil, maxWords: nil))
        let e = try bank.question("Essay with general feedback")
        #expect(e.kind == .essay(minWords: nil, maxWords: nil))
        #expect(e.feedback == "Think of water, transport and farming.")
    }

    @Test func everyEscapeAndOtherBackslashes() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        let q = try bank.question("Escapes")
        #expect(q.prompt == "Which is written with a colon: 1:2? Braces { } and ~ = # stay text, and \\ is a backslash.\nA second line.")
        #expect(q.kind == .choice(choices: ["1:2", "1/2"], answer: "1:2"))
        #expect(q.marking == .choices([ChoiceMark(text: "1:2", feedback: "Yes: the ratio."), ChoiceMark(text: "1/2")]))
        #expect(try only(#"A path C:\temp\{x\} stays.{T}"#).prompt == #"A path C:\temp{x} stays."#)
    }

    @Test func textFormats() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        #expect(try bank.question("Formats").prompt == "**Bold** is written with stars.")
        #expect(try bank.question("Plain format").prompt == "<b> is shown as written.")
        let html = try only("[html]<p>One &amp; two<br>three</p><script>alert(1)</script><p>four <img src=\"a.png\" alt=\"a map\"></p>{T}")
        #expect(html.prompt == "One & two\nthree\n\nfour [image: a map]")
        let code = try only("::Q001::[html]<p>What would running the test method print?</p>\n<pre>\n    public void test() \\{\n        method1();\n    \\}\n</pre>\n{}")
        // <pre> keeps its line breaks; Moodle trims every line of a GIFT file, so not the indentation.
        #expect(code.prompt == "What would running the test method print?\n\npublic void test() {\nmethod1();\n}")
        // Moodle's own format keeps line breaks and reads tags.
        #expect(try only("Line one\n<b>line</b> two{T}").prompt == "Line one\nline two")
    }

    @Test func aQuestionWithoutATitleIsNumbered() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/every-construct.gift"), file: "f.gift")
        let last = try #require(bank.questions.last)
        #expect(last.name == nil)
        #expect(last.item.prompt == "A question without a title.")
        #expect(last.line == 74)
    }

    @Test(arguments: ["gift/crlf-bom.gift", "gift/cr-only.gift"])
    func lineEndsAndByteOrderMarks(file: String) throws {
        let bank = GIFTReader.read(try Fixtures.text(file), file: file)
        #expect(bank.errors.isEmpty)
        #expect(bank.types == [.choice, .trueFalse])
        #expect(bank.items.map(\.prompt).allSatisfy { !$0.contains("\r") && !$0.contains("\u{FEFF}") })
        _ = try expectValidAssessment([bank])
    }

    @Test func windowsUnicodeFilesAreReadAsUTF16InEitherByteOrder() throws {
        let gift = "$CATEGORY: $course$/top/Тест\n\n::Q1::Небо синее?{T}\n\n::Q2::Столица Франции?{=Париж ~Лион}\n"
        let aiken = "Небо синее?\nA) да\nB) нет\nANSWER: A\n"
        for little in [true, false] {
            func utf16(_ text: String) -> [UInt8] {
                (little ? [0xFF, 0xFE] : [0xFE, 0xFF]) + text.utf16.flatMap { little ? [UInt8($0 & 0xFF), UInt8($0 >> 8)] : [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            }
            let bank = try Importer.readText(utf16(gift), file: "u.gift", format: .gift)
            #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
            #expect(bank.items.map(\.prompt) == ["Небо синее?", "Столица Франции?"])
            #expect(ImportFormat.guess(name: "bank.txt", bytes: utf16(aiken)) == .aiken)
            let quiz = try Importer.readText(utf16(aiken), file: "a.txt", format: .aiken)
            #expect(quiz.items.count == 1 && quiz.errors.isEmpty, "\(quiz.diagnostics)")
        }
        // The first MiB of a longer file may end inside a character: the guess reads up to it.
        let long = [0xFF, 0xFE] + Array(repeating: [UInt8(0x41), 0], count: 10).joined() + [0x3D, 0xD8]
        #expect(Importer.utf16Text(long[...], prefix: true) == String(repeating: "A", count: 10))
        #expect(Importer.utf16Text(long[...]) == nil)
        // A lone surrogate or an odd byte count is not UTF-16: refused, never guessed at.
        #expect(throws: ImportRefusal.self) { try Importer.readText([0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00], file: "bad.gift", format: .gift) }
        #expect(throws: ImportRefusal.self) { try Importer.readText([0xFF, 0xFE, 0x41, 0x00, 0x42], file: "odd.gift", format: .gift) }
    }

    @Test func malformedQuestionsAreReportedWithTheirLineAndTheRestImported() throws {
        let bank = GIFTReader.read(try Fixtures.text("gift/malformed.gift"), file: "malformed.gift")
        #expect(bank.questions.map(\.name) == ["Good one", "Good two"])
        #expect(bank.diagnostics.map(\.description) == [
            "malformed.gift:5: error: a `{` has no closing `}`; write \\{ for a brace in the text",
            "malformed.gift:7: error: a matching question needs at least two pairs",
            "malformed.gift:9: error: a multiple-choice question needs at least two answers",
            "malformed.gift:11: error: “three” is not a number",
            "malformed.gift:13: warning: skipped: its answers use Moodle's * wildcard, which Carrel does not match",
            "malformed.gift:15: error: matching pairs are written `=left -> right`; “c d” has no `->`",
        ])
    }

    @Test func categoriesBecomeSectionsAndRepeatedDescriptionsStartNewOnes() throws {
        let bank = read("""
            Before any category.{T}

            $CATEGORY: $system$/top/Unit 1//2

            Read this first.

            Q1{T}

            Read this too.

            Q2{F}

            $CATEGORY: Unit 2
            // no blank line after the category line: Moodle reads the rest as its name, Carrel
            // reads each line as what it is (an empty category is left out), with a warning
            $CATEGORY: not swallowed
            Q3{T}
            """)
        #expect(bank.sections.map(\.title) == [nil, "Unit 1/2", "Unit 1/2", "not swallowed"])
        #expect(bank.sections.map(\.instructions) == [nil, "Read this first.", "Read this too.", nil])
        #expect(bank.items.count == 4)
        let why = "imported as what it is, though Moodle would take this line as part of the category's name above it; put a blank line after the `$CATEGORY:` line so that Moodle reads it the same way"
        #expect(bank.diagnostics.map(\.description) == ["t.gift:16: warning: \(why)", "t.gift:17: warning: \(why)"])
    }

    @Test func weightsAreReadLikeMoodlesPattern() throws {
        func weight(_ s: String) throws -> Double? { try GIFTQuestion.weight(GIFTText(escaping: s))?.0 }
        #expect(try weight("%50%x") == 50)
        #expect(try weight("%100%x") == 100)
        #expect(try weight("%-33.33333%x") == -33.33333)
        #expect(try weight("%5.%x") == 5)
        #expect(try weight("%123.5%x") == nil)
        #expect(try weight("%.5%x") == nil)
        #expect(try weight("50%x") == nil)
        // A weight that does not fit the pattern is text, as in Moodle.
        let q = try only("Q{=a ~%x%b}")
        #expect(q.kind == .choice(choices: ["a", "%x%b"], answer: "a"))
    }

    @Test func hostileTextCannotReachTheTerminal() throws {
        let q = try only("::T::[html]Red \u{1B}[31mtext\u{202E}desrever&#27;[2J &#x202e; done.{=a\u{7} ~b\u{9B}1m}")
        for text in [q.prompt] + (q.kind.choiceTexts) {
            #expect(!text.unicodeScalars.contains { TerminalSafety.isControl($0) || TerminalSafety.isBidiControl($0) }, "\(text.debugDescription)")
        }
        _ = try expectValidAssessment([read("::T::[html]Red \u{1B}[31mtext\u{202E}desrever.{=a\u{7} ~b}")])
    }

    @Test func idsAreValidUniqueAndLinearInTheNumberOfQuestions() throws {
        var maker = IdentifierMaker()
        #expect(maker.make(from: "Überblick: Q 1", fallback: "q1") == "uberblick-q-1")
        #expect(maker.make(from: "Überblick: Q 1", fallback: "q2") == "uberblick-q-1-2")
        #expect(maker.make(from: "¿?", fallback: "q3") == "q3")
        #expect(maker.make(from: String(repeating: "long", count: 40), fallback: "q4").count == 48)
        let text = (0..<5000).map { "::Same::Q\($0)?{T}" }.joined(separator: "\n\n")
        let assembly = Importer.assemble([read(text)], options: .init(id: "same", title: "Same"))
        let ids = try #require(assembly.assessment).items.map(\.id)
        #expect(Set(ids).count == 5000)
        #expect(ids.last == "same-5000")
    }

    @Test func moodlesIdNumberCommentNamesTheQuestion() throws {
        let bank = read("// [id:Geo-17] [tag:capitals]\n::Canada::Capital?{=Ottawa ~Rome}\n\n// [id:a\\]b]\nQ?{T}")
        #expect(bank.questions.map(\.name) == ["Geo-17", "a]b"])
        let assembly = Importer.assemble([bank], options: .init(id: "x", title: "X"))
        #expect(assembly.assessment?.items.map(\.id) == ["geo-17", "a-b"])
    }

    @Test func aThousandQuestionsImportQuickly() throws {
        var text = "$CATEGORY: Big\n\n"
        for i in 0..<1000 {
            text += "::Q\(i)::Question \(i): pick the right one.{=right \(i) ~wrong \(i) ~%50%half \(i)#Close.}\n\n"
        }
        let clock = ContinuousClock()
        let start = clock.now
        let bank = read(text)
        let assembly = Importer.assemble([bank], options: .init(id: "big", title: "Big"))
        let elapsed = clock.now - start
        #expect(bank.items.count == 1000)
        #expect(assembly.assessment?.items.count == 1000)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
    }
}

extension Item.Kind {
    var choiceTexts: [String] {
        switch self {
        case let .choice(choices, _), let .multiple(choices, _, _): return choices
        default: return []
        }
    }
}
