import Testing
@testable import AssessmentKit

/// What plain YAML scalars mean to Carrel. YAML 1.1 would read `yes`, `0x10`, `.inf` or `~` as
/// booleans, numbers and null; Carrel reads every scalar as the text written and interprets it
/// itself, so these pin that meaning wherever the validator reads one.
@Suite("Reading YAML")
struct YAMLReadingTests {
    func read(_ yaml: String) -> AssessmentReader.Outcome {
        AssessmentReader.read(text: yaml, file: "t.yaml")
    }

    func withItem(_ item: String, after: String = "") -> String {
        "carrel: 1\nid: t\ntitle: T\n" + after + "sections:\n  - items:\n" + item
    }

    func messages(_ yaml: String) -> [String] {
        read(yaml).diagnostics.map(\.description)
    }

    @Test func plainScalarsInChoicesStayAsWritten() throws {
        let outcome = read(withItem(
            "      - {id: q, type: choice, prompt: P, choices: [1.0, 0x10, ~, null, .inf, yes, No, 2001-01-01, <<, =], answer: 0x10}\n"))
        #expect(outcome.diagnostics.isEmpty)
        let item = try #require(outcome.assessment?.items.first)
        #expect(item.kind == .choice(choices: ["1.0", "0x10", "~", "null", ".inf", "yes", "No", "2001-01-01", "<<", "="],
                                     answer: "0x10"))
    }

    @Test func plainScalarsAsPromptsAndAnswersAreText() throws {
        let outcome = read(withItem("""
                  - {id: a, type: text, prompt: 1.0, accept: [.inf, yes, 0x10, "~"]}
                  - {id: b, type: order, prompt: .nan, items: [null, ~, true, 010]}
                  - {id: c, type: match, prompt: yes, pairs: {~: null, 1.0: 0x10, Yes: No}}

            """))
        #expect(outcome.diagnostics.isEmpty)
        let items = try #require(outcome.assessment?.items)
        #expect(items.map(\.prompt) == ["1.0", ".nan", "yes"])
        #expect(items[0].kind == .text(accept: [".inf", "yes", "0x10", "~"], caseSensitive: false))
        #expect(items[1].kind == .order(items: ["null", "~", "true", "010"]))
        #expect(items[2].kind == .match(pairs: [MatchPair(left: "~", right: "null"), MatchPair(left: "1.0", right: "0x10"),
                                                MatchPair(left: "Yes", right: "No")], distractors: []))
    }

    @Test func numbersAreDecimalAsWritten() throws {
        let outcome = read(withItem("""
                  - {id: a, type: numeric, prompt: P, answer: 3.14, tolerance: 0.005, points: 2}
                  - {id: b, type: numeric, prompt: P, answer: -2e3, points: 1.0}
                  - {id: c, type: numeric, prompt: P, range: [+0.5, 010]}
                  - {id: d, type: essay, prompt: P, min_words: 010, max_words: 20}

            """))
        #expect(outcome.diagnostics.isEmpty)
        let items = try #require(outcome.assessment?.items)
        #expect(items[0].kind == .numeric(.value(3.14, tolerance: 0.005)))
        #expect(items[0].points == 2)
        #expect(items[1].kind == .numeric(.value(-2000, tolerance: 0)))
        #expect(items[1].points == 1)
        #expect(items[2].kind == .numeric(.range(0.5, 10)))
        #expect(items[3].kind == .essay(minWords: 10, maxWords: 20))
    }

    @Test func yamlNumberSpellingsAreNotNumbers() {
        #expect(messages(withItem("      - {id: q, type: numeric, prompt: P, answer: 0x10}\n"))
                == ["t.yaml:6:51: error: answer must be a number, not \"0x10\""])
        #expect(messages(withItem("      - {id: q, type: numeric, prompt: P, answer: .inf}\n"))
                == ["t.yaml:6:51: error: answer must be a number, not \".inf\""])
        #expect(messages(withItem("      - {id: q, type: numeric, prompt: P, answer: 1_000}\n"))
                == ["t.yaml:6:51: error: answer must be a number, not \"1_000\""])
        #expect(messages(withItem("      - {id: q, type: true_false, prompt: P, answer: true, points: 0o7}\n"))
                == ["t.yaml:6:68: error: points must be a number, not \"0o7\""])
        #expect(messages(withItem("      - {id: q, type: essay, prompt: P, max_words: 1.0}\n"))
                == ["t.yaml:6:52: error: max_words must be a whole number of at least 1, not \"1.0\""])
        #expect(messages("carrel: 1.0\nid: t\ntitle: T\nsections:\n  - items:\n      - {id: q, type: essay, prompt: P}\n")
                == ["t.yaml:1:9: error: carrel (the format version) must be a whole number of at least 1, not \"1.0\""])
    }

    @Test func onlyTrueAndFalseAreBooleans() throws {
        let outcome = read(withItem("      - {id: a, type: true_false, prompt: P, answer: True}\n      - {id: b, type: true_false, prompt: P, answer: FALSE}\n"))
        #expect(outcome.diagnostics.isEmpty)
        #expect(try #require(outcome.assessment).items.map(\.kind) == [.trueFalse(answer: true), .trueFalse(answer: false)])
        for word in ["yes", "No", "on", "OFF", "y", "1", "\"true\"", "'false'"] {
            let shown = word.filter { $0 != "\"" && $0 != "'" }
            #expect(messages(withItem("      - {id: q, type: true_false, prompt: P, answer: \(word)}\n"))
                    == ["t.yaml:6:54: error: answer must be true or false, not \"\(shown)\""])
        }
        #expect(messages(withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n", after: "shuffle: {items: yes}\n"))
                == ["t.yaml:4:18: error: shuffle.items must be true or false, not \"yes\""])
    }

    @Test func nullSpellingsMeanLeftOut() throws {
        // `~`, `null` and an empty value leave an optional key at its default…
        let outcome = read(withItem("      - {id: q, type: true_false, prompt: P, answer: true, points: ~, feedback: null}\n",
                                    after: "shuffle: {items: ~, choices: Null}\nresults: {show_score: }\ntime_limit: NULL\n"))
        #expect(outcome.diagnostics.isEmpty)
        let assessment = try #require(outcome.assessment)
        #expect(assessment.items[0].points == 1)
        #expect(assessment.timeLimit == nil)
        // …and make a required one empty; quoted, they are text.
        #expect(messages(withItem("      - {id: q, type: true_false, prompt: ~, answer: true}\n"))
                == ["t.yaml:6:43: error: `prompt` in item \"q\" is empty"])
        #expect(messages(withItem("      - {id: q, type: choice, prompt: P, choices: [a, b], answer: null}\n"))
                == ["t.yaml:6:67: error: `answer` in item \"q\" is empty"])
        #expect(messages(withItem("      - {id: q, type: choice, prompt: P, choices: [\"~\", b], answer: \"~\"}\n")) == [])
        #expect(messages(withItem("      - {id: q, type: true_false, prompt: 'null', answer: true}\n")) == [])
    }

    @Test func keysSpelledLikeNumbersOrBooleansAreWords() {
        #expect(messages(withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n", after: "1: x\ntrue: y\n")) == [
            "t.yaml:4:1: error: unknown key `1` in the assessment",
            "t.yaml:5:1: error: unknown key `true` in the assessment",
        ])
        // `1` and "1" are the same key to a teacher.
        #expect(messages(withItem("      - {id: q, type: match, prompt: P, pairs: {1: a, \"1\": b, 2: c}}\n"))
                == ["t.yaml:6:55: error: duplicate key `1` (first at line 6); keep one"])
    }
}
