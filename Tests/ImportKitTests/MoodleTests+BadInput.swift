import AssessmentKit
import Foundation
import Testing
@testable import ImportKit

extension MoodleTests {
    // MARK: - Bad input

    @Test func malformedQuestionsAreReportedWithTheirNameAndLine() throws {
        let file = "moodle/carrel/malformed.xml"
        let bank = try read(file)
        #expect(bank.items.map(\.prompt) == ["The Earth is round.", "The {1} sat on the {2}.", "Capital of Italy?"])
        func at(_ name: String) throws -> Int { try line(of: "<name><text>\(name)</text></name>", in: file) - 1 }
        let expected = [
            "\(file):\(try at("Bad fraction")): error: “Bad fraction”: the fraction “full” of an answer is not a number",
            "\(file):\(try at("Bad grade")): error: “Bad grade”: its defaultgrade “lots” is not a number",
            "\(file):\(try at("One choice")): error: “One choice”: a question with one answer to pick needs at least two different choices",
            "\(file):\(try at("Nothing right")): error: “Nothing right”: no choice earns a positive credit, so nobody could earn a point",
            "\(file):\(try at("No answers")): error: “No answers”: a true/false question needs its answers true and false",
            "\(file):\(try at("Not a number")): error: “Not a number”: “three” is not a number",
            "\(file):\(try at("Any number")): warning: skipped: “Any number”: its right answer is * (any number), which leaves nothing to mark",
            "\(file):\(try at("Only patterns")): warning: skipped: “Only patterns”: its answers use Moodle's * wildcard, which Carrel does not match",
            "\(file):\(try at("Gap beyond the choices")): error: “Gap beyond the choices”: the gap [[9]] names choice 9, but the question has 2 choices",
            "\(file):\(try at("No gaps")): error: “No gaps”: the question text has no gap; [[1]] marks a gap whose answer is the first choice",
            "\(file):\(try at("Lonely group")): warning: “Lonely group”: the gap [[1]] gives its answer away: its group 1 holds one choice",
            "\(file):\(try at("Lonely group")): warning: “Lonely group”: the gap [[2]] gives its answer away: its group 2 holds one choice",
            "\(file):\(try at("Gap in a comment")): error: “Gap in a comment”: a gap [[N]] stands where the text is not shown (in a comment, a script or markup), so no student would see it",
            "\(file):\(try at("One pair")): error: “One pair”: a matching question needs at least two pairs",
            "\(file):\(try at("No text")): error: “No text”: the question has no text",
            "\(file):\(try at("No type")): warning: skipped: “No type”: the question has no type",
            "\(file):\(try line(of: "A question without a name", in: file) - 1): error: a multichoice question without a name: a question with one answer to pick needs at least two different choices",
        ]
        #expect(bank.diagnostics.map(\.description) == expected)
    }

    /// Moodle takes a drag-and-drop gap whose group holds one choice: so does Carrel, with a
    /// warning, and the written test passes the validator (which warns too) and reads back equal.
    @Test func aGapWhoseGroupHoldsOneChoiceImportsWithAWarning() throws {
        let bank = try read(xml: """
            <?xml version="1.0" encoding="UTF-8"?>
            <quiz>
            <question type="ddwtos">
              <name><text>Lonely</text></name>
              <questiontext format="html"><text>The [[1]] sat on the [[2]].</text></questiontext>
              <dragbox><text>cat</text><group>1</group></dragbox>
              <dragbox><text>mat</text><group>2</group></dragbox>
            </question>
            </quiz>
            """)
        #expect(bank.diagnostics.map(\.description) == [
            "t.xml:3: warning: “Lonely”: the gap [[1]] gives its answer away: its group 1 holds one choice",
            "t.xml:3: warning: “Lonely”: the gap [[2]] gives its answer away: its group 2 holds one choice",
        ])
        let assembly = Importer.assemble([bank], options: .init(id: "imported", title: "Imported"))
        let yaml = try #require(assembly.yaml)
        let outcome = AssessmentReader.read(text: yaml, file: "imported.yaml")
        #expect(outcome.diagnostics.errors.isEmpty, "\(outcome.diagnostics.map(\.description))\n\(yaml)")
        #expect(outcome.diagnostics.map(\.description).contains { $0.contains("has one choice, so it gives its answer away") },
                "\(outcome.diagnostics.map(\.description))")
        let item = try #require(outcome.assessment?.sections.first?.items.first)
        #expect(item == assembly.assessment?.sections.first?.items.first)
        guard case let .gaps(gaps) = item.kind else {
            Issue.record("a gaps item: \(item.kind)")
            return
        }
        #expect(gaps.count == 2)
    }

    @Test func xmlThatIsNotWellFormedIsAnErrorAtItsLine() throws {
        let bank = try read(xml: "<quiz>\n<question type=\"essay\">\n<name><text>a</text></name>\n</quiz>\n")
        #expect(bank.items.isEmpty)
        let error = try #require(bank.errors.first)
        #expect(error.line == 4)
        #expect(error.message.hasPrefix("the XML cannot be read: "))
    }

    @Test func anotherRootIsNamed() throws {
        let bank = try read(xml: "<?xml version=\"1.0\"?>\n<questestinterop/>")
        #expect(bank.diagnostics.map(\.description) == [
            "t.xml:2: error: this is not a Moodle XML export: its root element is <questestinterop>, not <quiz>",
        ])
    }

    @Test(arguments: ["hostile/xxe.xml", "hostile/billion-laughs.xml"])
    func documentTypesAreRefusedBeforeParsing(file: String) throws {
        #expect(throws: ImportRefusal(file: file, reason: "the XML declares a document type (<!DOCTYPE); Moodle XML needs none, and document types can read other files or expand without end")) {
            _ = try MoodleReader.read(bytes: try Fixtures.bytes(file), file: file)
        }
    }

    @Test func filesOverTheLimitAreRefused() {
        let big = [UInt8](repeating: 0x20, count: MoodleReader.maximumBytes + 1)
        #expect(throws: ImportRefusal(file: "big.xml", reason: "the XML file is larger than 64 MiB")) {
            _ = try MoodleReader.read(bytes: big, file: "big.xml")
        }
    }

    @Test func controlsAndEscapesInTextsNeverReachTheTerminal() throws {
        // XML allows C1 controls (a one-byte CSI) and bidirectional overrides; Carrel drops them.
        let (q, bank) = try only("""
            <question type="multichoice"><name><text>Bell\u{9B}31m</text></name>
            <questiontext format="html"><text><![CDATA[Red\u{9B}31m?\u{202E}]]></text></questiontext>
            <answer fraction="100"><text>yes\u{9B}0m</text></answer><answer fraction="0"><text>no</text></answer></question>
            """)
        #expect(q.prompt == "Red31m?")
        #expect(q.kind == .choice(choices: ["yes0m", "no"], answer: "yes0m"))
        #expect(bank.questions.first?.name == "Bell31m")
        // C0 controls are not XML at all: the file is reported, not read.
        let escape = try read(xml: "<quiz><question type=\"essay\"><name><text>\u{1B}[2J</text></name></question></quiz>")
        #expect(escape.items.isEmpty)
        #expect(escape.errors.count == 1)
        #expect(escape.diagnostics.allSatisfy { d in !d.description.unicodeScalars.contains { TerminalSafety.isControl($0) } })
    }
}
