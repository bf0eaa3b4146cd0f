import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

@Suite("Cloze (Moodle's embedded answers)")
struct ClozeTests {
    func file(_ name: String) throws -> ImportedBank {
        ClozeReader.read(try Fixtures.text("cloze/\(name)"), file: name)
    }

    func gaps(_ item: Item, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Gap] {
        guard case let .gaps(gaps) = item.kind else {
            Issue.record("\(item.id) is a \(item.type.rawValue), not gaps", sourceLocation: sourceLocation)
            return []
        }
        return gaps
    }

    /// A single pick: the options in order, the right one earning 100.
    func pick(_ options: [String], right: String) -> GapKind {
        .choice(options: options.map { ChoiceMark(text: $0, credit: $0 == right ? 100 : nil) }, multiple: false)
    }

    func texts(_ answers: [String], caseSensitive: Bool = false) -> GapKind {
        .text(answers: answers.map { TextAnswer(text: $0) }, caseSensitive: caseSensitive)
    }

    // MARK: - Moodle's documented example

    @Test func moodlesExampleGivesEveryGapWithItsCreditsFeedbackAndWeight() throws {
        let bank = try file("moodle-example.txt")
        #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
        #expect(bank.items.count == 1)
        let item = try #require(bank.items.first)
        #expect(item.prompt == """
            This question holds some text with an answer embedded right here: the capital of Spain is {1}
            and just after that comes a short answer: "thank you" in Spanish is {2}
            and last a number with a margin: water boils at about {3} degrees Celsius at the top of Everest.

            Web addresses such as www.moodle.org and smileys :-) need nothing special:
            a) Is this example useful? {4}
            b) What mark would you give it? {5}

            Good luck!
            """)
        let gaps = try gaps(item)
        #expect(gaps.count == 5)
        #expect(gaps[0] == Gap(kind: .choice(options: [
            ChoiceMark(text: "Barcelona", feedback: "No, that is the capital of Catalonia"),
            ChoiceMark(text: "Seville", feedback: "No, that is the capital of Andalusia"),
            ChoiceMark(text: "Madrid", credit: 100, feedback: "Yes, since 1561"),
            ChoiceMark(text: "Toledo", credit: 50, feedback: "The capital until 1561: half the credit"),
        ], multiple: false)))
        #expect(gaps[1] == Gap(kind: .text(answers: [
            TextAnswer(text: "Merci", credit: 0, feedback: "That is French"),
            TextAnswer(text: "Gracias", credit: 100, feedback: "Right"),
            TextAnswer(text: "Grazie", credit: 50, feedback: "That is Italian: half the credit"),
        ], caseSensitive: false)))
        #expect(gaps[2] == Gap(kind: .number(answers: [
            NumberAnswer(answer: .value(70, tolerance: 1), credit: 100, feedback: "Right: about 70 degrees"),
            NumberAnswer(answer: .value(70, tolerance: 5), credit: 50, feedback: "Close: within five degrees"),
        ]), points: 2))
        #expect(gaps[3] == Gap(kind: .choice(options: [
            ChoiceMark(text: "Yes", credit: 100, feedback: "Good"), ChoiceMark(text: "No", feedback: "Sorry to hear it"),
        ], multiple: false)))
        #expect(gaps[4] == Gap(kind: .number(answers: [NumberAnswer(answer: .value(3, tolerance: 2))]), points: 3))
        // Moodle's question is worth the sum of its gaps' weights: 1 + 1 + 2 + 1 + 3.
        #expect(item.points == 8)
        #expect(bank.questions.first?.name == "This question holds some text with an answer…")
        _ = try expectValidAssessment([bank])
    }

    @Test func theExampleScoresAsMoodleWould() throws {
        let item = try #require(try file("moodle-example.txt").items.first)
        let all = Scoring.score(item, .gaps([["Madrid"], ["gracias"], ["70.4"], ["Yes"], ["4.5"]]))
        #expect(all.points == 8)
        // Toledo (50% of 1), Grazie (50% of 1), 74 within 5 (50% of 2), nothing, 1 within 2 (3).
        let half = Scoring.score(item, .gaps([["Toledo"], ["Grazie"], ["74"], [], ["1"]]))
        #expect(half.points == 0.5 + 0.5 + 1 + 0 + 3)
    }

    // MARK: - Every type name

    @Test func everySinglePickTypeAndShortNameIsAPickWithOneRightOption() throws {
        let bank = try file("every-type.txt")
        let item = try #require(bank.items.first)
        let expected: [(options: [String], right: String)] = [
            (["bin", "bist", "ist"], "bin"), (["bin", "bist", "ist"], "bist"), (["bin", "bist", "ist"], "ist"),
            (["sind", "seid"], "sind"), (["sind", "seid"], "seid"), (["sind", "seid"], "sind"),
            (["habe", "hast", "hat"], "habe"), (["habe", "hast", "hat"], "hast"), (["habe", "hast", "hat"], "hat"),
            (["haben", "habt"], "haben"), (["haben", "habt"], "habt"), (["haben", "habt"], "haben"),
        ]
        let gaps = try gaps(item)
        #expect(gaps.count == expected.count)
        for (gap, want) in zip(gaps, expected) {
            #expect(gap == Gap(kind: pick(want.options, right: want.right)))
        }
        #expect(item.prompt.hasPrefix("Wählen Sie die richtige Form von \"sein\" und \"haben\". (Choose the right form.)\n1. Ich {1} Lehrerin.\n2. Du {2} Student."))
        #expect(item.points == 12)
        // The _S types (7 to 12) are shuffled in Moodle: said once, at the question's line.
        #expect(bank.diagnostics.contains { $0.line == 1 && $0.message.contains("Moodle shuffles the options of gaps 7, 8, 9, 10, 11, 12") })
    }

    @Test func severalPicksAddUpTheirCreditsAsMoodleScalesThem() throws {
        let bank = try file("every-type.txt")
        #expect(bank.items.count == 3)
        let item = bank.items[1]
        let gaps = try gaps(item)
        let third = 100.0 / 3
        let expected: [[ChoiceMark]] = [
            // Only `=`: each right pick earns its share, each wrong one takes a share away.
            [.init(text: "laufen", credit: 50), .init(text: "schwimmen", credit: 50),
             .init(text: "Haus", credit: -50), .init(text: "Tisch", credit: -50)],
            [.init(text: "die Katze", credit: 50), .init(text: "die Maus", credit: 50), .init(text: "der Hund", credit: -50)],
            // Credits as written; a wrong pick keeps its own penalty.
            [.init(text: "rot", credit: 50), .init(text: "blau", credit: 50),
             .init(text: "schnell", credit: -100, feedback: "Ein Adjektiv, aber keine Farbe")],
            // 100 + 100 scaled to 50 + 50; 0% earns nothing.
            [.init(text: "Berlin", credit: 50), .init(text: "Wien", credit: 50), .init(text: "Paris")],
            [.init(text: "eins", credit: third), .init(text: "zwei", credit: third), .init(text: "drei", credit: third),
             .init(text: "Apfel", credit: -third)],
            [.init(text: "Montag", credit: 100), .init(text: "Januar", credit: -100)],
            [.init(text: "ja", credit: 50), .init(text: "nein", credit: 50),
             .init(text: "vielleicht", credit: -50, feedback: "Keine klare Antwort")],
            [.init(text: "Frühling", credit: 75), .init(text: "Herbst", credit: 25), .init(text: "Montag", credit: -50)],
        ]
        #expect(gaps.count == expected.count)
        for (gap, marks) in zip(gaps, expected) {
            #expect(gap == Gap(kind: .choice(options: marks, multiple: true)))
        }
        // 100% + 100% is said, as Moodle scales it silently.
        #expect(bank.diagnostics.contains { $0.line == 19 && $0.message.contains("add up to 200%") })
        #expect(bank.diagnostics.contains { $0.line == 15 && $0.message.contains("gaps 5, 6, 7, 8") })
        #expect(Scoring.score(item, .gaps([["laufen", "schwimmen"], [], [], [], [], [], [], []])).points == 1)
        #expect(Scoring.score(item, .gaps([["laufen", "Haus"], [], [], [], [], [], [], []])).points == 0)
    }

    @Test func typedTextKeepsItsCaseRuleAndNumbersTheirCommaAndMargin() throws {
        let bank = try file("every-type.txt")
        let item = bank.items[2]
        let gaps = try gaps(item)
        #expect(gaps.count == 8)
        #expect(gaps[0] == Gap(kind: .text(answers: [
            TextAnswer(text: "Haus", feedback: "Richtig"), TextAnswer(text: "Hause", credit: 50, feedback: "Fast: ohne e"),
        ], caseSensitive: false)))
        #expect(gaps[1] == Gap(kind: texts(["Hund"])))
        #expect(gaps[2] == Gap(kind: texts(["Katze", "Katz"])))
        #expect(gaps[3] == Gap(kind: texts(["Montag"], caseSensitive: true)))
        #expect(gaps[4] == Gap(kind: .text(answers: [
            TextAnswer(text: "Schule", feedback: "Richtig"), TextAnswer(text: "schule", credit: 0, feedback: "Nomen schreibt man groß"),
        ], caseSensitive: true)))
        #expect(gaps[5] == Gap(kind: texts(["München", "Muenchen"], caseSensitive: true)))
        #expect(gaps[6] == Gap(kind: .number(answers: [NumberAnswer(answer: .value(7, tolerance: 0))])))
        #expect(gaps[7] == Gap(kind: .number(answers: [
            NumberAnswer(answer: .value(1.25, tolerance: 0.01), feedback: "Richtig"),
            NumberAnswer(answer: .value(1.3, tolerance: 0.05), credit: 50, feedback: "Gerundet"),
        ]), points: 2))
        #expect(item.points == 9)
        #expect(Scoring.score(item, .gaps([["haus"], ["hund"], ["katz"], ["montag"], ["Schule"], ["München"], ["7"], ["1,25"]])).points == 8)
        #expect(bank.errors.isEmpty, "\(bank.errors)")
        _ = try expectValidAssessment([bank])
    }

    // MARK: - Escapes, HTML and wildcards

    @Test func escapesEntitiesAndHTMLAreReadAsMoodleReadsThem() throws {
        let bank = try file("english-symbols.txt")
        #expect(bank.errors.isEmpty, "\(bank.errors)")
        let item = try #require(bank.items.first)
        #expect(item.prompt == """
            Punctuation and symbols in English.

            1. English quotation marks look like {1}.
            2. Type the symbol read "hash": {2}.
            3. The symbol ~ is called a {3} and \\ a {4}.
            4. Type a closing brace: {5} and a tilde: {6}.
            5. "Either or both" is written {7}; the symbol between "C:" and "Users" in a Windows path is {8}.
            6. Spell the colour word either way: {9}.
            7. Entities stay text: {10}.
            """)
        let gaps = try gaps(item)
        #expect(gaps.count == 10)
        #expect(gaps[0].kind == .choice(options: [
            ChoiceMark(text: "\"this\"", credit: 100), ChoiceMark(text: "«this»", feedback: "Those are French guillemets"),
            ChoiceMark(text: "„this“", feedback: "Those are German quotation marks"),
        ], multiple: false))
        #expect(gaps[1].kind == .text(answers: [
            TextAnswer(text: "#", feedback: "Yes"), TextAnswer(text: "No.", credit: 50, feedback: "That is the abbreviation of \"number\""),
        ], caseSensitive: false))
        #expect(gaps[2].kind == .text(answers: [TextAnswer(text: "tilde"), TextAnswer(text: "swung dash", credit: 50)], caseSensitive: false))
        #expect(gaps[3].kind == .text(answers: [TextAnswer(text: "backslash", feedback: "Yes"), TextAnswer(text: "back slash")], caseSensitive: false))
        #expect(gaps[4].kind == texts(["}"]))
        #expect(gaps[5].kind == texts(["~"]))
        #expect(gaps[6].kind == texts(["and/or"]))
        #expect(gaps[7].kind == .text(answers: [TextAnswer(text: "\\", feedback: "one backslash")], caseSensitive: false))
        // colo*r matches any text in Moodle: left out, and said.
        #expect(gaps[8].kind == texts(["colour", "color"]))
        #expect(bank.diagnostics.map(\.description) == [
            "english-symbols.txt:7: warning: gap 9 ({1:SA:…}): left out the answer “colo*r” (100%): Moodle's * matches any text there, Carrel does not",
        ])
        // `&#38;` is a character, not the start of feedback.
        #expect(gaps[9].kind == pick(["Tom & Jerry", "Tom & Jerry's cousin", "Laurel and Hardy"], right: "Tom & Jerry"))
        _ = try expectValidAssessment([bank])
    }

    @Test func plainTextKeepsAngleBracketsAndAmpersands() throws {
        let read = ClozeText.read("If x < 3 & y > 2, then x + y {1:MC:=may be 4~is always 5#No: 1 + 4 < 5}.")
        #expect(read.problems.isEmpty)
        #expect(read.prompt == "If x < 3 & y > 2, then x + y {1}.")
        #expect(read.gaps == [Gap(kind: .choice(options: [
            ChoiceMark(text: "may be 4", credit: 100), ChoiceMark(text: "is always 5", feedback: "No: 1 + 4 < 5"),
        ], multiple: false))])
    }

    @Test func aLoneWildcardIsLeftOutWithItsFeedbackSaid() {
        let read = ClozeText.read("Say hello: {1:SA:=hello~=hi~*#Try a greeting}")
        #expect(read.gaps == [Gap(kind: texts(["hello", "hi"]))])
        #expect(read.problems.map(\.message) == [
            "gap 1 ({1:SA:…}): left out the answer * (any other text, 0%); Carrel gives other answers nothing and no feedback",
        ])
        #expect(read.problems.map(\.isError) == [false])
    }

    @Test func onlyWildcardsLeaveNothingToMarkAndTheQuestionIsRefused() {
        let read = ClozeText.read("Any word: {1:SA:=*}")
        #expect(read.hasErrors)
        #expect(read.problems.map(\.message).last == "gap 1 ({1:SA:…}): there is no answer left to accept")
    }

    @Test func anEscapedStarIsAStar() {
        let read = ClozeText.read("Multiply: 2 {1:SA:=\\*} 3 = 6")
        #expect(read.problems.isEmpty)
        #expect(read.gaps == [Gap(kind: texts(["*"]))])
    }

    @Test func textThatLooksLikeAMarkerStaysText() {
        let read = ClozeText.read("Set {1} is {1:SA:=empty}.")
        #expect(read.prompt == "Set { 1} is {1}.")
        #expect(read.problems.map(\.message) == ["the text “{1}” would read as a gap; it is written “{ 1}”"])
    }

    @Test func containsKnowsOnlyMoodlesTypes() {
        #expect(ClozeText.contains("a {1:MC:=a~b} b"))
        #expect(ClozeText.contains("a {:SHORTANSWER_C:=A} b"))
        #expect(ClozeText.contains("{12:MRHS:=a~b}"))
        #expect(!ClozeText.contains("a {1:mc:=a~b} b"))
        #expect(!ClozeText.contains("a {1:MCQ:=a~b} b"))
        #expect(!ClozeText.contains("GIFT {=a ~b} and {#3:1}"))
        #expect(!ClozeText.contains("{1} and {:} and {1:}"))
    }

    // MARK: - Errors

    @Test func everyGapMoodleWouldRefuseIsReportedWithItsLineAndTheQuestionNamed() throws {
        let bank = try file("malformed.txt")
        #expect(bank.diagnostics.map(\.description) == [
            "malformed.txt:3: error: gap 1 ({1:MC:…}): a pick needs at least two options; it has 1 (the question “One option only: Paris is in ….” is not imported)",
            "malformed.txt:5: error: gap 1 ({1:MC:…}): no option earns full credit; mark the right one with = or %100% (the question “No right answer: the sky is ….” is not imported)",
            "malformed.txt:7: error: gap 1 ({1:NM:…}): “seven” is not a number; a NUMERICAL answer is written =3.14 or =3.14:0.01 (the question “Not a number: a week has … days.” is not imported)",
            "malformed.txt:9: error: gap 1 ({1:MULTIPLECHOICE:…}): “MULTIPLECHOICE” is not an embedded-answer type; use MULTICHOICE, MULTIRESPONSE, SHORTANSWER or NUMERICAL (or their short names) (the question “Unknown type: she … here.” is not imported)",
            "malformed.txt:11: error: gap 1 ({1:sa:…}): Moodle reads types in capitals only; write SA (the question “Type in small letters: the … is here.” is not imported)",
            "malformed.txt:13: error: gap 1 ({1:MC:…}): 2 options earn full credit, and a pick in Carrel has one right option; use MULTIRESPONSE for several (the question “Two right options: they … late.” is not imported)",
            "malformed.txt:16: error: gap 1 ({1:SA:…}) has no closing `}`; write \\} for a brace inside an answer (the question “The gap on the next line is never closed:” is not imported)",
            "malformed.txt:19: error: gap 1 ({1:SA:…}): the credit %half% is not a number; write %50% or %-25% (the question “A credit that is no number: I … home.” is not imported)",
            "malformed.txt:21: error: gap 1 ({1:NM:…}): “1,000” could be a whole number with a thousands separator or a decimal; write it without the comma, or with a point for a decimal (the question “A thousand or one: …” is not imported)",
            "malformed.txt:23: error: gap 1 ({0:SA:…}): the weight 0 is not a whole number from 1 to 1000 (the question “Weight zero: …” is not imported)",
            "malformed.txt:25: error: the text holds no embedded answer such as {1:SHORTANSWER:=word} (the question “This one holds no embedded answer at all.” is not imported)",
            "malformed.txt:27: error: gap 1 ({1:REGEXP:…}): REGEXP comes from Moodle's regular-expression plugin, which Carrel cannot mark; use SHORTANSWER with every accepted answer (the question “A plugin's type: …” is not imported)",
            "malformed.txt:29: warning: Moodle shuffles the options of gap 1; Carrel shows them as written unless the assessment sets `shuffle: {choices: true}`",
        ])
        #expect(bank.items.count == 2)
        #expect(bank.items.map(\.prompt) == ["A good question comes first: der {1}.", "The last one is good again: das {1} gut."])
        #expect(bank.items.last?.points == 2)
        _ = try expectValidAssessment([bank])
    }

    @Test func aGapLeftOpenBeforeTheNextOneIsReportedAtItsOwnLine() {
        let read = ClozeText.read("First {1:SA:=one\nthen {1:SA:=two} and {1:MC:=a~b}.")
        #expect(read.hasErrors)
        #expect(read.problems.map(\.line) == [0])
        #expect(read.problems.first?.message == "gap 1 ({1:SA:…}) has no closing `}`; write \\} for a brace inside an answer")
    }

    @Test func aBadMarginAndAnEmptyAnswerAreNamed() {
        let margin = ClozeText.read("x\ny = {1:NM:=2:0.1~%50%2:wide}")
        #expect(margin.problems.map(\.line) == [1])
        #expect(margin.problems.map(\.message) == ["gap 1 ({1:NM:…}): the margin in “2:wide” is not a number; write =3.14:0.01"])
        let empty = ClozeText.read("{1:MC:=yes~~no~}")
        #expect(!empty.hasErrors)
        #expect(empty.problems.map(\.message) == ["gap 1 ({1:MC:…}): left out 2 empty answers"])
    }

    @Test func aCreditBeyondAHundredAndANegativeTypedAnswerAreRefused() {
        #expect(ClozeText.read("{1:MC:%150%a~b}").problems.map(\.message) == ["gap 1 ({1:MC:…}): the credit %150% is beyond ±100%"])
        #expect(ClozeText.read("{1:SA:=a~%-50%b}").problems.map(\.message) == [
            "gap 1 ({1:SA:…}): a answer with a negative credit cannot be kept; a typed gap earns 0% to 100%",
        ])
    }

    @Test func numbersFollowMoodlesPattern() {
        #expect(ClozeNumber.isNumber("3.14"))
        #expect(ClozeNumber.isNumber("3,14"))
        #expect(ClozeNumber.isNumber("-.5"))
        #expect(ClozeNumber.isNumber("1e-3"))
        #expect(ClozeNumber.isNumber("12."))
        #expect(!ClozeNumber.isNumber("+3"))
        #expect(!ClozeNumber.isNumber("1,000.5"))
        #expect(!ClozeNumber.isNumber("1.2.3"))
        #expect(!ClozeNumber.isNumber("."))
        #expect(!ClozeNumber.isNumber("1e"))
        #expect(!ClozeNumber.isNumber("0x10"))
        #expect(ClozeNumber.isCredit("33,3"))
        #expect(!ClozeNumber.isCredit("3e2"))
    }

    // MARK: - Guessing the format

    @Test func aPlainTextWithEmbeddedAnswersIsGuessedAsCloze() throws {
        for name in ["moodle-example.txt", "every-type.txt", "malformed.txt"] {
            let bytes = try Fixtures.bytes("cloze/\(name)")
            #expect(ImportFormat.guess(name: name, bytes: bytes) == .cloze, "\(name)")
        }
        #expect(ImportFormat.guess(name: "q.cloze", bytes: Array("anything".utf8)) == .cloze)
        // GIFT with pasted Cloze stays GIFT.
        #expect(ImportFormat.guess(name: "c.gift", bytes: try Fixtures.bytes("gift/cloze.gift")) == .gift)
        #expect(ImportFormat.guess(name: "c.txt", bytes: try Fixtures.bytes("gift/cloze.gift")) == .gift)
        #expect(ImportFormat.guess(name: "a.txt", bytes: try Fixtures.bytes("aiken/capitals.txt")) == .aiken)
        #expect(ImportFormat.guess(name: "plain.txt", bytes: Array("No answers here.".utf8)) == nil)
    }

    @Test func readTextReadsCloze() throws {
        let bank = try Importer.readText(Fixtures.bytes("cloze/moodle-example.txt"), file: "m.txt", format: .cloze)
        #expect(bank.items.count == 1)
        #expect(bank.types == [.gaps])
        let empty = try Importer.readText(Array(" \n\n".utf8), file: "e.txt", format: .cloze)
        #expect(empty.items.isEmpty)
        #expect(empty.diagnostics.map(\.description) == [
            "e.txt: error: the file holds no text; a Cloze question is a text with embedded answers such as {1:SHORTANSWER:=word}",
        ])
    }
}

@Suite("Cloze in HTML")
struct ClozeHTMLTests {
    @Test func aGapInsideAnHTMLCommentIsAnError() {
        let read = ClozeText.read("<p>Seen {1:SA:=yes}</p>\n<!-- hidden {1:SA:=no} -->", markup: .html(keepLineBreaks: true))
        #expect(read.hasErrors)
        #expect(read.problems.map(\.message) == [
            "not every embedded answer stands in the text as it is shown (one inside an HTML comment, tag or script is lost); move it into the text",
        ])
    }

    @Test func optionsAreHTMLAndTypedAnswersAreLiteral() {
        let read = ClozeText.read("<p>{1:MC:=<b>bold</b>~plain} and {1:SA:=a &lt; b}</p>", markup: .html(keepLineBreaks: false))
        #expect(read.problems.isEmpty)
        #expect(read.prompt == "{1} and {2}")
        #expect(read.gaps == [
            Gap(kind: .choice(options: [ChoiceMark(text: "bold", credit: 100), ChoiceMark(text: "plain")], multiple: false)),
            Gap(kind: .text(answers: [TextAnswer(text: "a < b")], caseSensitive: false)),
        ])
    }

    @Test func aBraceMadeFromAnEntityStaysText() {
        let read = ClozeText.read("<p>&#123;1} is {1:SA:=a set}</p>", markup: .html(keepLineBreaks: false))
        #expect(read.prompt == "{ 1} is {1}")
        #expect(read.problems.map(\.message) == ["the text “{1}” would read as a gap; it is written “{ 1}”"])
        #expect(!read.hasErrors)
    }

    @Test func weightsAddingUpBeyondAThousandPointsAreRefused() {
        let read = ClozeText.read("{600:SA:=a} and {500:SA:=b}")
        #expect(read.problems.map(\.message) == ["the gaps' weights add up to 1100; a question is worth at most 1000 points"])
        #expect(read.hasErrors)
    }
}
