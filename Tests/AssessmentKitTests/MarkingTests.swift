import Foundation
import Testing
@testable import AssessmentKit

/// Per-choice credits and feedback, several accepted answers, proctor notes: read, validated,
/// scored and fingerprinted.
@Suite("Credits, feedback and proctor notes")
struct MarkingTests: ItemsReading {
    static let planets = """
              - id: planets
                type: multiple
                prompt: Which are planets?
                points: 2
                choices:
                  - {text: Mars, credit: 50%}
                  - {text: Venus, credit: 50%}
                  - {text: the Moon, credit: -50%, feedback: A moon orbits a planet.}
                  - the Sun

        """

    @Test func multipleScoredByChoiceCreditsTheMoodleWay() throws {
        let q = try only(Self.planets)
        #expect(q.kind == .multiple(choices: ["Mars", "Venus", "the Moon", "the Sun"], answers: ["Mars", "Venus"], scoring: .partial))
        #expect(q.marking == .choices([
            ChoiceMark(text: "Mars", credit: 50), ChoiceMark(text: "Venus", credit: 50),
            ChoiceMark(text: "the Moon", credit: -50, feedback: "A moon orbits a planet."), ChoiceMark(text: "the Sun"),
        ]))
        #expect(Scoring.score(q, .multiple(["Mars", "Venus"])) == ItemScore(points: 2, max: 2, outcome: .correct))
        #expect(Scoring.score(q, .multiple(["Mars"])) == ItemScore(points: 1, max: 2, outcome: .partial))
        // A penalty takes away what the right pick gave; the total never goes below zero.
        #expect(Scoring.score(q, .multiple(["Mars", "the Moon"])).points == 0)
        #expect(Scoring.score(q, .multiple(["the Moon", "the Sun"])) == ItemScore(points: 0, max: 2, outcome: .incorrect))
        // Picking everything: 50 + 50 − 50 + 0.
        #expect(Scoring.score(q, .multiple(["Mars", "Venus", "the Moon", "the Sun"])).points == 1)
    }

    @Test func thirdsAddUpToTheWhole() throws {
        let q = try only("""
                  - id: q
                    type: multiple
                    prompt: P
                    choices: [{text: a, credit: 33.33333%}, {text: b, credit: 33.33333%}, {text: c, credit: 33.33333%}, {text: d, credit: -100%}]

            """)
        #expect(Scoring.score(q, .multiple(["a", "b", "c"])).outcome == .correct)
        #expect(Scoring.score(q, .multiple(["a", "b", "c", "d"])).outcome == .incorrect)
    }

    @Test func creditsAboveTheWholeAreCappedAndWarned() throws {
        let yaml = "      - {id: q, type: multiple, prompt: P, choices: [{text: a, credit: 80%}, {text: b, credit: 80%}]}\n"
        expectProblem(yaml, 6, 72, "add up to 160%", severity: .warning)
        let q = try only(yaml)
        #expect(Scoring.score(q, .multiple(["a", "b"])) == ItemScore(points: 1, max: 1, outcome: .correct))
    }

    @Test func choiceWithPartialCreditAndFeedback() throws {
        let q = try only("""
                  - id: capital
                    type: choice
                    prompt: What is the capital of Canada?
                    choices:
                      - {text: Ottawa, feedback: Since 1857.}
                      - {text: Toronto, credit: 25%, feedback: The largest city.}
                      - {text: Montreal, credit: 0%}
                    answer: Ottawa

            """)
        #expect(q.marking == .choices([
            ChoiceMark(text: "Ottawa", feedback: "Since 1857."), ChoiceMark(text: "Toronto", credit: 25, feedback: "The largest city."),
            ChoiceMark(text: "Montreal"),
        ]))
        #expect(Scoring.score(q, .choice("Ottawa")).outcome == .correct)
        #expect(Scoring.score(q, .choice("Toronto")) == ItemScore(points: 0.25, max: 1, outcome: .partial))
        #expect(Scoring.score(q, .choice("Montreal")).outcome == .incorrect)
    }

    @Test func severalAcceptedAnswersWithPartialCredit() throws {
        let q = try only("""
                  - id: city
                    type: text
                    prompt: The capital of Canada?
                    accept:
                      - Ottawa
                      - {text: Ottowa, credit: 50%, feedback: Check the spelling.}
                      - {text: Toronto, credit: 0%, feedback: That is the largest city.}

            """)
        #expect(q.kind == .text(accept: ["Ottawa"], caseSensitive: false))
        #expect(Scoring.score(q, .text(" ottawa ")).outcome == .correct)
        #expect(Scoring.score(q, .text("OTTOWA")) == ItemScore(points: 0.5, max: 1, outcome: .partial))
        #expect(Scoring.score(q, .text("Toronto")).outcome == .incorrect)
        #expect(Scoring.score(q, .text("Paris")).outcome == .incorrect)
    }

    @Test func severalNumericAnswersWithPartialCredit() throws {
        let q = try only("""
                  - id: pi
                    type: numeric
                    prompt: Pi?
                    answers:
                      - {answer: 3.1416, tolerance: 0.0001}
                      - {answer: 3.14, tolerance: 0.005, credit: 50%, feedback: Two decimals only.}
                      - {range: [3, 3.3], credit: 25%}

            """)
        #expect(q.kind == .numeric(.value(3.1416, tolerance: 0.0001)))
        #expect(Scoring.score(q, .numeric("3,1416")).outcome == .correct)
        #expect(Scoring.score(q, .numeric("3.14")).points == 0.5)
        #expect(Scoring.score(q, .numeric("3.2")).points == 0.25)
        #expect(Scoring.score(q, .numeric("4")).outcome == .incorrect)
    }

    @Test func trueFalseFeedbackForEachAnswer() throws {
        let q = try only("      - {id: q, type: true_false, prompt: P, answer: false, feedback_true: No., feedback_false: Yes.}\n")
        #expect(q.marking == .trueFalse(ifTrue: "No.", ifFalse: "Yes."))
        #expect(Scoring.score(q, .trueFalse(false)).outcome == .correct)
    }

    @Test func writingOutWhatTheKeySaysChangesNothing() throws {
        let plain = try only("      - {id: q, type: choice, prompt: P, choices: [a, b], answer: a}\n")
        let spelled = try only("      - {id: q, type: choice, prompt: P, choices: [{text: a, credit: 100%}, {text: b, credit: 0%}], answer: a}\n")
        #expect(plain == spelled)
        let one = try only("      - {id: q, type: numeric, prompt: P, answers: [{answer: 2, tolerance: 0.5}]}\n")
        #expect(one == (try only("      - {id: q, type: numeric, prompt: P, answer: 2, tolerance: 0.5}\n")))
        let text = try only("      - {id: q, type: text, prompt: P, accept: [{text: a}, b]}\n")
        #expect(text == (try only("      - {id: q, type: text, prompt: P, accept: [a, b]}\n")))
    }

    @Test func creditProblemsAreReportedInPlainWords() {
        expectProblem("      - {id: q, type: multiple, prompt: P, choices: [{text: a, credit: 0.5}, b]}\n", 6, 72,
                      "credit must be a percentage such as 50% or -25%, not \"0.5\"")
        expectProblem("      - {id: q, type: multiple, prompt: P, choices: [{text: a, credit: 150%}, b]}\n", 6, 72,
                      "credit must be between -100% and 100%")
        expectProblem("      - {id: q, type: multiple, prompt: P, choices: [{text: a, credit: 100%}, b], answer: [a]}\n", 6, 83,
                      "the choices carry credits, which already say which are right; remove `answer`")
        expectProblem("      - {id: q, type: multiple, prompt: P, choices: [{text: a, credit: 100%}, b], scoring: partial}\n", 6, 83,
                      "`scoring` does not apply when choices carry credits")
        expectProblem("      - {id: q, type: multiple, prompt: P, choices: [{text: a, credit: -10%}, b]}\n", 6, 72,
                      "no choice has a positive credit")
        expectProblem("      - {id: q, type: choice, prompt: P, choices: [{text: a, credit: 50%}, b], answer: a}\n", 6, 70,
                      "the answer earns all the points")
        expectProblem("      - {id: q, type: choice, prompt: P, choices: [{text: a, feedbak: x}, b], answer: a}\n", 6, 62,
                      "unknown key `feedbak` in a choice written as a mapping; did you mean `feedback`?")
        expectProblem("      - {id: q, type: text, prompt: P, accept: [{text: a, credit: 0%}]}\n", 6, 48,
                      "no accepted answer earns a positive credit")
        expectProblem("      - {id: q, type: text, prompt: P, accept: [{text: a, credit: 50%}]}\n", 6, 48,
                      "no accepted answer earns 100%", severity: .warning)
        expectProblem("      - {id: q, type: numeric, prompt: P, answer: 2, answers: [{answer: 2}]}\n", 6, 43,
                      "has `answers`, so `answer` belongs inside one of its entries")
        expectProblem("      - {id: q, type: numeric, prompt: P, answers: [{answer: 2, credit: 50%, range: [1, 2]}]}\n", 6, 85,
                      "has both `answer` and `range`")
    }

    @Test func proctorNotesAreReadForItemsAndSections() throws {
        let outcome = AssessmentReader.read(text: """
            carrel: 1
            id: t
            title: T
            sections:
              - proctor_note: Read each word twice.
                items:
                  - {id: q, type: text, prompt: Word 1, accept: [syzygy], proctor_note: “syzygy” — an eclipse happens at syzygy.}
            """, file: "t.yaml")
        let a = try #require(outcome.assessment)
        #expect(a.sections[0].proctorNote == "Read each word twice.")
        #expect(a.items[0].proctorNote == "“syzygy” — an eclipse happens at syzygy.")
        #expect(!a.items[0].prompt.contains("syzygy"))
    }

    @Test func theSpellingSampleNoLongerShowsTheWordsToTheStudent() throws {
        let bytes = try [UInt8](Data(contentsOf: SampleAssessmentsTests.folder.appendingPathComponent("spelling.yaml")))
        let a = try #require(AssessmentReader.read(bytes: bytes, file: "spelling.yaml").assessment)
        #expect(a.items.count == 8)
        for item in a.items {
            guard case let .text(accept, _) = item.kind else { Issue.record("\(item.id) is not a text item"); continue }
            let note = try #require(item.proctorNote, "\(item.id) has no proctor note")
            #expect(note.contains(accept[0]))
            let seen = [item.prompt, a.sections[0].instructions ?? "", a.description ?? ""].joined(separator: " ").lowercased()
            #expect(!accept.contains { seen.contains($0.lowercased()) }, "\(item.id): the student would read the word")
        }
    }

    /// Files that do not use the new keys keep the fingerprint they had before the keys existed
    /// (workshop.yaml's is the one it has had since its gap-fill item was added).
    @Test(arguments: [
        ("geography.yaml", "sha256:98b37ee47c1148e4842c1d7cf1c2fd7892f8de4431f01e9d2ac850f2d7b9459f"),
        ("workshop.yaml", "sha256:79aff50283a82a43b442adc9478d4884c62687a10fb2d194d5a7bc6fcac5bcea"),
    ])
    func fingerprintsOfExistingFilesAreUnchanged(file: String, fingerprint: String) throws {
        let bytes = try [UInt8](Data(contentsOf: SampleAssessmentsTests.folder.appendingPathComponent(file)))
        let a = try #require(AssessmentReader.read(bytes: bytes, file: file).assessment)
        #expect(Fingerprint.of(a) == fingerprint)
    }

    @Test func theFingerprintKeepsCreditsFeedbackAndNotes() throws {
        func fingerprint(_ yaml: String) throws -> String { Fingerprint.of(try #require(read(yaml).assessment)) }
        let base = try fingerprint(Self.planets)
        #expect(try fingerprint(Self.planets.replacingOccurrences(of: "credit: -50%", with: "credit: -25%")) != base)
        #expect(try fingerprint(Self.planets.replacingOccurrences(of: "A moon orbits", with: "A moon circles")) != base)
        #expect(try fingerprint(Self.planets + "        proctor_note: Say nothing.\n") != base)
    }
}
