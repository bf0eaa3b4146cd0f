import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

/// One invisible character a bank may carry for typography, and how a warning names it.
struct TypographyCase: Sendable, CustomTestStringConvertible {
    let mark: String
    let singular: String
    let plural: String

    init(_ mark: String, _ singular: String, plural: String? = nil) {
        self.mark = mark
        self.singular = singular
        self.plural = plural ?? singular + "s"
    }

    var testDescription: String { mark.unicodeScalars.map { TerminalSafety.codePoint($0) }.joined(separator: " ") }

    func removed(_ n: Int) -> String { "removed \(n) \(n == 1 ? singular : plural) used for typography" }

    /// Every class the validator refuses between Latin letters, each with the name the warning gives it.
    static let all: [TypographyCase] = [
        .init("\u{AD}", "soft hyphen"),
        .init("\u{34F}", "combining grapheme joiner"),
        .init("\u{115F}", "Hangul filler"), .init("\u{1160}", "Hangul filler"),
        .init("\u{3164}", "Hangul filler"), .init("\u{FFA0}", "Hangul filler"),
        .init("\u{180E}", "Mongolian vowel separator"),
        .init("\u{E0001}", "tag character"), .init("\u{E0041}", "tag character"), .init("\u{E007F}", "tag character"),
        .init("\u{200D}", "zero-width joiner"),
        .init("\u{200C}", "zero-width non-joiner"),
        .init("\u{FE00}", "variation selector"), .init("\u{FE0F}", "variation selector"),
        .init("\u{E0100}", "variation selector"), .init("\u{E01EF}", "variation selector"),
    ]
}

@Suite("Invisible characters used for typography are removed, with a warning")
struct TypographyMarksTests {
    /// A QTI choice item with the given prompt, choices (identifiers A, B …, A correct) and a proctor rubric.
    static func qtiItem(prompt: String, choices: [String], rubric: String? = nil) -> [UInt8] {
        let simple = choices.enumerated().map { i, text in
            "<simpleChoice identifier=\"\(Character(Unicode.Scalar(UInt8(65 + i))))\">\(text)</simpleChoice>"
        }.joined()
        let note = rubric.map { "<rubricBlock view=\"scorer\"><p>\($0)</p></rubricBlock>" } ?? ""
        return Array("""
            <assessmentItem identifier="typo"><responseDeclaration identifier="R" cardinality="single" baseType="identifier">
            <correctResponse><value>A</value></correctResponse></responseDeclaration>
            <itemBody>\(note)<choiceInteraction responseIdentifier="R" maxChoices="1"><prompt>\(prompt)</prompt>\(simple)
            </choiceInteraction></itemBody></assessmentItem>
            """.utf8)
    }

    /// `&#x…;` for every scalar of `text`, as a QTI file may write it.
    static func reference(_ text: String) -> String {
        text.unicodeScalars.map { "&#x\(String($0.value, radix: 16));" }.joined()
    }

    @Test(arguments: TypographyCase.all)
    func everyClassIsRefusedByTheValidatorBeforeImport(_ c: TypographyCase) {
        // What the importer removes is what would otherwise drop the question.
        #expect(TerminalSafety.firstUnsafe(in: "Co\(c.mark)operate")?.hazard == .invisible)
    }

    /// The one question of `bank`, after checking its one warning, its prompt ("Prompt?") and
    /// choices ("Right", the answer, and "Wrong"), and that it validates.
    func expectImported(_ bank: ImportedBank, warning: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ImportedQuestion {
        #expect(bank.diagnostics.map(\.description) == [warning], sourceLocation: sourceLocation)
        let question = try #require(bank.questions.first, sourceLocation: sourceLocation)
        #expect(question.item.prompt == "Prompt?", sourceLocation: sourceLocation)
        #expect(question.item.kind == .choice(choices: ["Right", "Wrong"], answer: "Right"), sourceLocation: sourceLocation)
        _ = try expectValidAssessment([bank], sourceLocation: sourceLocation)
        return question
    }

    @Test(arguments: TypographyCase.all)
    func gift(_ c: TypographyCase) throws {
        let x = c.mark
        let bank = GIFTReader.read("::Na\(x)me::Pro\(x)mpt?{=Ri\(x)ght#Fe\(x)edback ~Wrong}\n", file: "t.gift")
        let question = try expectImported(bank, warning: "t.gift:1: warning: \(c.removed(4))")
        #expect(question.name == "Name")
        #expect(question.item.marking == .choices([ChoiceMark(text: "Right", feedback: "Feedback"), ChoiceMark(text: "Wrong")]))
    }

    @Test(arguments: TypographyCase.all)
    func aiken(_ c: TypographyCase) throws {
        let x = c.mark
        let bank = AikenReader.read("Pro\(x)mpt?\nA) Ri\(x)ght\nB) Wro\(x)ng\nANSWER: A\n", file: "a.txt")
        _ = try expectImported(bank, warning: "a.txt:1: warning: \(c.removed(3))")
    }

    @Test(arguments: TypographyCase.all)
    func qti(_ c: TypographyCase) throws {
        let x = c.mark
        // Written as the character itself and as a character reference.
        let xml = Self.qtiItem(prompt: "Pro\(x)mpt?", choices: ["Ri\(Self.reference(x))ght", "Wrong"], rubric: "No\(x)te")
        let bank = try QTIReader.read(bytes: xml, file: "q.xml", folder: nil, path: nil)
        #expect(try expectImported(bank, warning: "q.xml:1: warning: \(c.removed(3))").item.proctorNote == "Note")
    }

    @Test func theWarningCountsEachKindOncePerQuestion() throws {
        let gift = """
            $CATEGORY: $course$/top/Un\u{AD}it 1

            Co\u{AD}op\u{AD}erate wi\u{200D}th us?{T}

            Na\u{E0041}me a co\u{AD}lour:{=red =blu\u{AD}e#W\u{FE0F}ell done}

            Clean question?{F}

            """
        let bank = GIFTReader.read(gift, file: "t.gift")
        #expect(bank.diagnostics.map(\.description) == [
            "t.gift:1: warning: removed 1 soft hyphen used for typography",
            "t.gift:3: warning: removed 2 soft hyphens and 1 zero-width joiner used for typography",
            "t.gift:5: warning: removed 2 soft hyphens, 1 variation selector and 1 tag character used for typography",
        ])
        #expect(bank.sections.map(\.title) == ["Unit 1"])
        #expect(bank.items.map(\.prompt) == ["Cooperate with us?", "Name a colour:", "Clean question?"])
        #expect(bank.items[1].kind == .text(accept: ["red", "blue"], caseSensitive: false))
        _ = try expectValidAssessment([bank])
    }

    @Test func moodleXMLQuestionsAndCategoriesAreCleanedWithAWarningEach() throws {
        let xml = """
            <quiz>
            <question type="category"><category><text>$course$/top/Un\u{AD}it 1</text></category></question>
            <question type="shortanswer">
              <name><text>Co\u{AD}lour</text></name>
              <questiontext format="html"><text>Na&shy;me a co\u{200D}lour:</text></questiontext>
              <answer fraction="100"><text>re\u{AD}d</text></answer>
            </question>
            <question type="truefalse">
              <name><text>Clean</text></name>
              <questiontext format="html"><text>Clean question?</text></questiontext>
              <answer fraction="100"><text>true</text></answer>
              <answer fraction="0"><text>false</text></answer>
            </question>
            </quiz>
            """
        let bank = try MoodleReader.read(bytes: Array(xml.utf8), file: "t.xml")
        #expect(bank.diagnostics.map(\.description) == [
            "t.xml:2: warning: removed 1 soft hyphen used for typography",
            "t.xml:3: warning: “Colour”: removed 3 soft hyphens and 1 zero-width joiner used for typography",
        ])
        #expect(bank.sections.map(\.title) == ["Unit 1"])
        #expect(bank.items.map(\.prompt) == ["Name a colour:", "Clean question?"])
        #expect(bank.items.first?.kind == .text(accept: ["red"], caseSensitive: false))
        _ = try expectValidAssessment([bank])
    }

    @Test func embeddedAnswersInGIFTClozeFilesAndMoodleXMLAreCleanedWithAWarningEach() throws {
        let gift = GIFTReader.read("::Prep:: I went {1:MC:~wi\u{AD}th~=about} it with {1:SA:=fe\u{AD}w} friends.\n", file: "t.gift")
        #expect(gift.diagnostics.map(\.description) == ["t.gift:1: warning: removed 2 soft hyphens used for typography"])
        guard case let .gaps(gaps)? = gift.items.first?.kind else {
            Issue.record("not a gaps item: \(gift.items)")
            return
        }
        #expect(gaps.first?.kind.options == ["with", "about"])
        if case let .text(answers, _) = gaps.last?.kind { #expect(answers.map(\.text) == ["few"]) } else { Issue.record("gap 2 is not typed") }

        let cloze = try Importer.readText(Array("Co&shy;lour: {1:SA:=re\u{200D}d}\n//NEWCLOZEQUESTION\nClean: {1:SA:=yes}\n".utf8),
                                          file: "t.txt", format: .cloze)
        #expect(cloze.diagnostics.map(\.description) == ["t.txt:1: warning: removed 1 soft hyphen and 1 zero-width joiner used for typography"])
        #expect(cloze.items.map(\.prompt) == ["Colour: {1}", "Clean: {1}"])

        let xml = """
            <quiz><question type="cloze"><name><text>Ga\u{AD}ps</text></name>
            <questiontext format="html"><text>Pick {1:MC:=o\u{AD}ne~two}.</text></questiontext></question></quiz>
            """
        let moodle = try MoodleReader.read(bytes: Array(xml.utf8), file: "t.xml")
        #expect(moodle.diagnostics.map(\.description) == ["t.xml:1: warning: “Gaps”: removed 2 soft hyphens used for typography"])
        _ = try expectValidAssessment([gift, cloze, moodle])
    }

    @Test func softHyphensWrittenAsEntitiesAreRemovedToo() throws {
        let gift = GIFTReader.read("[html]<p>Hy&shy;phen&shy;ated?</p>{T}\n", file: "t.gift")
        #expect(gift.diagnostics.map(\.description) == ["t.gift:1: warning: removed 2 soft hyphens used for typography"])
        #expect(gift.items.first?.prompt == "Hyphenated?")
        let xml = Self.qtiItem(prompt: "Hy&shy;phen&shy;ated?", choices: ["Yes", "No&zwj;pe"])
        let qti = try QTIReader.read(bytes: xml, file: "q.xml", folder: nil, path: nil)
        #expect(qti.diagnostics.map(\.description) == ["q.xml:1: warning: removed 2 soft hyphens and 1 zero-width joiner used for typography"])
        #expect(qti.items.first?.kind == .choice(choices: ["Yes", "Nope"], answer: "Yes"))
        _ = try expectValidAssessment([gift, qti])
    }

    /// Invisible characters that do a job stay, and need no warning.
    static let kept = "Who codes? 👩‍💻 ❤️ 🏴󠁧󠁢󠁳󠁣󠁴󠁿 葛\u{E0100} ب\u{200D}ب क्\u{200C}ष 👍🏽"

    @Test func invisibleCharactersThatAScriptOrAnEmojiNeedsAreKept() throws {
        #expect(TerminalSafety.firstUnsafe(in: Self.kept) == nil)
        let gift = GIFTReader.read("::q::\(Self.kept){=\(Self.kept) ~plain}\n", file: "t.gift")
        let aiken = AikenReader.read("\(Self.kept)\nA) \(Self.kept)\nB) plain\nANSWER: A\n", file: "a.txt")
        let qti = try QTIReader.read(bytes: Self.qtiItem(prompt: Self.kept, choices: [Self.kept, "plain"]), file: "q.xml",
                                     folder: nil, path: nil)
        for bank in [gift, aiken, qti] {
            #expect(bank.diagnostics.isEmpty, "\(bank.diagnostics)")
            let item = try #require(bank.items.first)
            #expect(item.prompt == Self.kept)
            #expect(item.kind == .choice(choices: [Self.kept, "plain"], answer: Self.kept))
        }
        _ = try expectValidAssessment([gift, aiken, qti])
    }

    @Test func onlyTheStrayOnesGoWhereBothKindsMeet() throws {
        // The joiner between two people stays; the one between Latin letters goes.
        let bank = AikenReader.read("👩‍💻 or co\u{200D}der?\nA) 👩‍💻\nB) no\u{FE0F}ne\nANSWER: A\n", file: "a.txt")
        #expect(bank.diagnostics.map(\.description) == ["a.txt:1: warning: removed 1 zero-width joiner and 1 variation selector used for typography"])
        #expect(bank.items.first?.prompt == "👩‍💻 or coder?")
        #expect(bank.items.first?.kind == .choice(choices: ["👩‍💻", "none"], answer: "👩‍💻"))
        _ = try expectValidAssessment([bank])
    }

    @Test func aQuestionThatIsNotImportedGetsNoRemovalWarning() {
        let bank = GIFTReader.read("Co\u{AD}operate?{=only}\n\nBro\u{AD}ken{~one}\n", file: "t.gift")
        #expect(bank.diagnostics.map(\.description) == [
            "t.gift:1: warning: removed 1 soft hyphen used for typography",
            "t.gift:3: error: a multiple-choice question needs at least two answers",
        ])
    }
}
