import Foundation
import Testing
@testable import AssessmentKit

/// One fixture per class of error that the format reference (Assessments/README.md) lists, each asserting the place and the message.
@Suite("Validation")
struct ValidationTests {
    func read(_ yaml: String) -> AssessmentReader.Outcome {
        AssessmentReader.read(text: yaml, file: "t.yaml")
    }

    /// Expects an error at line:column whose message contains `text`.
    func expectError(_ yaml: String, _ line: Int, _ column: Int, _ text: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let outcome = read(yaml)
        #expect(outcome.assessment == nil, "an invalid file produced an assessment", sourceLocation: sourceLocation)
        let hit = outcome.diagnostics.contains {
            $0.severity == .error && $0.line == line && $0.column == column && $0.message.contains(text)
        }
        #expect(hit, "no error \(line):\(column) containing “\(text)” in:\n\(outcome.diagnostics.map(\.description).joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }

    /// A valid file whose single item is `item` (indented as a list entry under items:).
    func withItem(_ item: String) -> String {
        "carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n" + item
    }

    @Test func theMinimalFileIsValid() throws {
        let outcome = read(withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n"))
        #expect(outcome.diagnostics.isEmpty)
        let assessment = try #require(outcome.assessment)
        #expect(assessment.items.map(\.id) == ["q"])
        #expect(assessment.policy == RestrictionPolicy())
        #expect(assessment.items[0].points == 1)
    }

    @Test func yamlSyntaxError() {
        expectError("carrel: 1\ntitle: [unclosed\nid: x\n", 3, 3, "YAML syntax")
    }

    @Test func duplicateYAMLKey() {
        expectError("carrel: 1\ntitle: A\ntitle: B\n", 3, 1, "duplicate key `title` (first at line 2); keep one")
    }

    @Test func duplicateKeysAreReportedWhereTheyAreAndHideNothing() {
        let yaml = withItem("""
                  - id: r
                    type: true_false
                    prompt: P
                    answer: maybe
                    "answer": true
                    answer: false
                  - {id: s, type: choice, prompt: P, prompt: Q, choices: [a, b], answer: c}

            """) + "title: Again\n"
        let diagnostics = read(yaml).diagnostics.map(\.description)
        #expect(diagnostics == [
            "t.yaml:9:17: error: answer must be true or false, not \"maybe\"",
            "t.yaml:10:9: error: duplicate key `answer` (first at line 9); keep one",
            "t.yaml:11:9: error: duplicate key `answer` (first at line 9); keep one",
            "t.yaml:12:42: error: duplicate key `prompt` (first at line 12); keep one",
            "t.yaml:12:78: error: answer \"c\" is not among the choices",
            "t.yaml:13:1: error: duplicate key `title` (first at line 3); keep one",
        ])
    }

    @Test func tabsInIndentationAreNamed() {
        expectError("carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n\t  - {id: q, type: true_false, prompt: P, answer: true}\n",
                    6, 1, "tabs are not allowed for indentation; use spaces")
        expectError("carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n    \t- {id: q, type: true_false, prompt: P, answer: true}\n",
                    6, 5, "tabs are not allowed for indentation; use spaces")
    }

    @Test func aMissingColonIsReportedOnItsOwnLine() {
        expectError("carrel: 1\nid: t\ntitle: T\nsections:\n  - title: One\n    items\n      - {id: q, type: true_false, prompt: P, answer: true}\n",
                    6, 5, "missing `:` after `items`; write `items:`")
        expectError(withItem("      - id: q\n        type: true_false\n        prompt P\n        answer: true\n"),
                    8, 9, "missing `:` after `prompt`; write `prompt: P`")
    }

    @Test func textWithAColonSuggestsQuotes() {
        expectError(withItem("      - id: q\n        type: true_false\n        prompt: Note: \"this\" is it\n        answer: true\n"),
                    8, 21, #"text that contains `: ` must be in quotes: write `prompt: "Note: \"this\" is it"`"#)
    }

    @Test func aDecimalCommaInsideBracesSuggestsQuotes() {
        expectError(withItem("      - {id: q, type: numeric, prompt: P, answer: 3,14, tolerance: 0.01}\n"), 6, 53,
                    #"`answer: 3,14` was read as two entries because a comma separates entries inside `{…}`; write `answer: 3.14` or quote it: `answer: "3,14"`"#)
    }

    @Test func missingFormatVersion() {
        expectError("id: t\ntitle: T\nsections: []\n", 1, 1, "carrel: 1")
    }

    @Test func unsupportedFormatVersion() {
        expectError(withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n").replacingOccurrences(of: "carrel: 1", with: "carrel: 2"),
                    1, 9, "format version 2 is not supported")
    }

    @Test func missingRequiredKeys() {
        expectError("carrel: 1\nid: t\nsections:\n  - items:\n      - {id: q, type: true_false, prompt: P, answer: true}\n",
                    1, 1, "missing the required key `title`")
        expectError(withItem("      - {id: q, type: true_false, answer: true}\n"), 6, 9, "missing the required key `prompt`")
        expectError(withItem("      - {id: q, type: choice, prompt: P, choices: [a, b]}\n"), 6, 9, "missing the required key `answer`")
    }

    @Test func unknownKeysAtEveryLevelWithSuggestions() {
        expectError("carrel: 1\nid: t\ntitel: T\n", 3, 1, "unknown key `titel` in the assessment; did you mean `title`?")
        let policy = withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n") + "policy: { pasteboard: keep }\n"
        expectError(policy, 7, 11, "unknown key `pasteboard` in policy; did you mean `pasteboards`?")
        expectError(withItem("      - {id: q, type: true_false, prompt: P, answer: true, pionts: 2}\n"), 6, 60, "did you mean `points`?")
        let section = "carrel: 1\nid: t\ntitle: T\nsections:\n  - titel: S\n    items:\n      - {id: q, type: true_false, prompt: P, answer: true}\n"
        expectError(section, 5, 5, "unknown key `titel` in section 1")
    }

    @Test func anUnknownKeyWithControlCharactersIsShownSafely() {
        let outcome = read("carrel: 1\nid: t\ntitle: T\n\"des\\tcr\\e[31mipt\": x\n")
        let message = outcome.diagnostics.first { $0.message.hasPrefix("unknown key") }?.message ?? ""
        #expect(message == "unknown key `des\\u{9}cr\\u{1B}[31mipt` in the assessment", "controls quoted visibly, never raw")
    }

    @Test func keyOfAnotherItemType() {
        expectError(withItem("      - {id: q, type: true_false, prompt: P, answer: true, tolerance: 1}\n"), 6, 60,
                    "`tolerance` does not apply to a `true_false` item (it belongs to `numeric`)")
    }

    @Test func wrongTypes() {
        expectError(withItem("      - {id: q, type: true_false, prompt: P, answer: true, points: many}\n"), 6, 68, "points must be a number")
        expectError(withItem("      - {id: q, type: choice, prompt: P, choices: Ottawa, answer: Ottawa}\n"), 6, 51, "choices must be a list")
        let shuffle = withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n") + "shuffle: { items: maybe }\n"
        expectError(shuffle, 7, 19, "shuffle.items must be true or false")
        expectError(withItem("      - {id: q, type: true_false, prompt: [P], answer: true}\n"), 6, 43, "prompt must be a single value, not a list")
    }

    @Test func unknownItemType() {
        expectError(withItem("      - {id: q, type: multi, prompt: P}\n"), 6, 23, "unknown item type \"multi\"")
    }

    @Test func identifiersThatBreakThePattern() {
        expectError(withItem("      - {id: Q_1, type: true_false, prompt: P, answer: true}\n"), 6, 14, "id \"Q_1\" must use only a-z")
        expectError("carrel: 1\nid: My Test\n", 2, 5, "id \"My Test\" must use only a-z")
    }

    @Test func duplicateItemIDs() {
        let yaml = withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n      - {id: q, type: true_false, prompt: P, answer: false}\n")
        expectError(yaml, 7, 14, "duplicate item id \"q\" (first used at line 6)")
    }

    @Test func answerNotAmongTheChoices() {
        expectError(withItem("      - {id: q, type: choice, prompt: P, choices: [Toronto, Ottawa], answer: Otawa}\n"), 6, 78,
                    "answer \"Otawa\" is not among the choices; did you mean `Ottawa`?")
        expectError(withItem("      - {id: q, type: multiple, prompt: P, choices: [a, b], answer: [a, c]}\n"), 6, 73,
                    "answer \"c\" is not among the choices")
    }

    @Test func emptyAndDuplicateChoices() {
        expectError(withItem("      - {id: q, type: choice, prompt: P, choices: [a, \"\"], answer: a}\n"), 6, 55, "choice is empty")
        expectError(withItem("      - {id: q, type: choice, prompt: P, choices: [a, b, a], answer: a}\n"), 6, 58, "duplicate choice \"a\"")
        expectError(withItem("      - {id: q, type: choice, prompt: P, choices: [a], answer: a}\n"), 6, 51, "at least two choices")
    }

    @Test func emptyMultipleAnswer() {
        expectError(withItem("      - {id: q, type: multiple, prompt: P, choices: [a, b], answer: []}\n"), 6, 69, "answer is empty")
    }

    @Test func matchWithFewerThanTwoPairs() {
        expectError(withItem("      - {id: q, type: match, prompt: P, pairs: {Canada: Ottawa}}\n"), 6, 48, "at least two pairs")
    }

    @Test func noSectionsOrASectionWithoutItems() {
        expectError("carrel: 1\nid: t\ntitle: T\nsections: []\n", 4, 11, "sections is empty")
        expectError("carrel: 1\nid: t\ntitle: T\nsections:\n  - title: S\n    items: []\n", 6, 12, "section 1 has no items")
    }

    @Test func badDurations() {
        let base = withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n")
        expectError(base + "time_limit: 10\n", 7, 13, "needs a unit")
        expectError(base + "time_limit: ten minutes\n", 7, 13, "is not a duration")
        expectError(base + "time_limit: 0m\n", 7, 13, "longer than zero")
        expectError(base + "policy: { max_duration: 30h }\n", 7, 25, "between 1m and 24h")
    }

    @Test func rangeWithLoAboveHi() {
        expectError(withItem("      - {id: q, type: numeric, prompt: P, range: [5, 1]}\n"), 6, 50, "range [5, 1] has lo greater than hi")
    }

    @Test func minWordsAboveMaxWords() {
        expectError(withItem("      - {id: q, type: essay, prompt: P, min_words: 50, max_words: 10}\n"), 6, 52, "min_words (50) is greater than max_words (10)")
    }

    @Test func policyValueOutsideItsSet() {
        let yaml = withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n") + "policy: { paste: alow }\n"
        expectError(yaml, 7, 18, "policy.paste must be one of block, allow, not \"alow\"; did you mean `allow`?")
    }

    @Test func plainTextPassphraseIsRefused() {
        let yaml = withItem("      - {id: q, type: true_false, prompt: P, answer: true}\n") + "proctor: { passphrase: hunter22 }\n"
        expectError(yaml, 7, 24, "not a passphrase hash; run `carrel passphrase`")
    }

    @Test func nonUTF8Bytes() {
        var bytes = Array("carrel: 1\ntitle: caf".utf8)
        bytes.append(0xE9)
        let outcome = AssessmentReader.read(bytes: bytes, file: "t.yaml")
        #expect(outcome.diagnostics.map(\.description) == ["t.yaml:2:11: error: byte 0xE9 is not valid UTF-8; save the file as UTF-8"])
        for mark: [UInt8] in [[0xFF, 0xFE], [0xFE, 0xFF]] {
            let utf16 = AssessmentReader.read(bytes: mark + Array("c\0a\0".utf8), file: "u.yaml")
            #expect(utf16.diagnostics.map(\.description) == ["u.yaml:1:1: error: the file is UTF-16 (Windows calls it \"Unicode\"); save it as UTF-8"])
        }
    }

    @Test func controlCharactersAndEscapeSequencesInText() {
        expectError(withItem("      - {id: q, type: true_false, prompt: \"Red \\e[31m text\", answer: true}\n"), 6, 43, "U+001B (escape)")
        expectError(withItem("      - {id: q, type: choice, prompt: P, choices: [\"a\\u0007\", b], answer: b}\n"), 6, 52, "U+0007")
        expectError(withItem("      - {id: q, type: true_false, prompt: \"abc\\u202Edef\", answer: true}\n"), 6, 43, "bidirectional override")
    }

    @Test func filesOverSixteenMebibytes() {
        let bytes = [UInt8](repeating: 0x20, count: SourceText.maximumBytes + 1)
        let outcome = AssessmentReader.read(bytes: bytes, file: "big.yaml")
        #expect(outcome.diagnostics.map(\.description) == ["big.yaml:1:1: error: file is 16.0 MiB; assessment files are limited to 16 MiB"])
    }

    /// Nine aliases per level over ten levels would expand to 9^10 values.
    static let aliasBomb: String = {
        var lines = ["carrel: 1", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...10 {
            let refs = Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ")
            lines.append("a\(level): &a\(level) [\(refs)]")
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    // A guard against a hang only: on a busy two-core machine the test may wait its turn for
    // a thread behind end-to-end tests for over a minute before it runs (well under a second).
    @Test(.timeLimit(.minutes(10)))
    func aliasBombIsRefusedWithBoundedWork() {
        let outcome = read(Self.aliasBomb)
        #expect(outcome.assessment == nil)
        #expect(outcome.diagnostics.contains { $0.message.contains("expands to more than") })
    }

    // A guard against a hang only: on a busy two-core machine the test may wait its turn for
    // a thread behind end-to-end tests for over a minute before it runs (well under a second).
    @Test(.timeLimit(.minutes(10)))
    func anAliasUsedAsAKeyIsRefusedBeforeParsing() {
        expectError(Self.aliasBomb + "*a10 : x\n", 13, 1, "alias (`*name`) used as a mapping key")
        expectError(Self.aliasBomb + "[*a10]: x\n", 13, 7, "alias (`*name`) inside a mapping key")
        expectError(Self.aliasBomb + "? *a10\n: x\n", 13, 1, "explicit `? ` mapping keys")
    }

    // A guard against a hang only: on a busy two-core machine the test may wait its turn for
    // a thread behind end-to-end tests for over a minute before it runs (well under a second).
    @Test(.timeLimit(.minutes(10)))
    func absurdNestingIsRefused() {
        let flow = "carrel: 1\nx: " + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "\n"
        expectError(flow, 2, 68, "nesting is deeper than 64 levels")
        let block = "carrel: 1\nx:\n" + String(repeating: "- ", count: 100_000) + "x\n"
        expectError(block, 3, 257, "nesting this deep")
    }

    @Test func aliasesThatStayTiny() throws {
        // Ordinary anchors are fine: reusing a list of choices is a legitimate use.
        let yaml = withItem("      - {id: q, type: choice, prompt: P, choices: &c [a, b], answer: a}\n      - {id: r, type: choice, prompt: P, choices: *c, answer: b}\n")
        let outcome = read(yaml)
        #expect(outcome.diagnostics.isEmpty)
        #expect(try #require(outcome.assessment).items.count == 2)
    }

    @Test func blockScalarsMayContainWhatLooksLikeYAML() throws {
        let yaml = "carrel: 1\nid: t\ntitle: T\ndescription: |\n  *note: read [all {of} this] first\n  ? maybe\nsections:\n  - items:\n      - {id: q, type: true_false, prompt: P, answer: true}\n"
        let outcome = read(yaml)
        #expect(outcome.diagnostics.isEmpty)
        #expect(try #require(outcome.assessment).description == "*note: read [all {of} this] first\n? maybe\n")
    }

    @Test func everyProblemIsReportedInOneRun() {
        let yaml = """
            carrel: 1
            id: Bad_ID
            titel: T
            time_limit: 10
            sections:
              - items:
                  - {id: q, type: choice, prompt: P, choices: [a, b], answer: c}
                  - {id: q, type: numeric, prompt: P, range: [2, 1]}
            """
        let errors = read(yaml).diagnostics.errors
        let places = errors.map { "\($0.line):\($0.column)" }
        #expect(places == ["1:1", "2:5", "3:1", "4:13", "7:67", "8:14", "8:50"])
    }

    @Test func zeroPointsIsAWarningNotAnError() throws {
        let outcome = read(withItem("      - {id: q, type: true_false, prompt: P, answer: true, points: 0}\n"))
        #expect(outcome.assessment != nil)
        #expect(outcome.diagnostics.map(\.description) == ["t.yaml:6:68: warning: this item is worth 0 points"])
    }

    @Test func yamlBooleanWordsStayTextInChoices() throws {
        // Plain `Yes`/`No`/`On` are text here, never booleans.
        let outcome = read(withItem("      - {id: q, type: choice, prompt: P, choices: [Yes, No, On], answer: No}\n"))
        let item = try #require(outcome.assessment?.items.first)
        #expect(item.kind == .choice(choices: ["Yes", "No", "On"], answer: "No"))
    }
}
