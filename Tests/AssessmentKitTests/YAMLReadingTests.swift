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

/// Reading stays linear in the file: values written out are never refused, values repeated by
/// aliases are counted as they are met and bounded by the file's size.
@Suite("Reading YAML: size and aliases")
struct YAMLSizeTests {
    func read(_ yaml: String) -> AssessmentReader.Outcome {
        AssessmentReader.read(text: yaml, file: "t.yaml")
    }

    @Test func theAliasAllowanceGrowsWithTheFile() {
        #expect(YAMLTree.aliasAllowance(forBytes: 0) == YAMLTree.aliasAllowanceFloor)
        #expect(YAMLTree.aliasAllowance(forBytes: 1_000) == YAMLTree.aliasAllowanceFloor + 1_000)
        #expect(YAMLTree.aliasAllowance(forBytes: SourceText.maximumBytes) == YAMLTree.aliasAllowanceFloor + SourceText.maximumBytes)
    }

    // A guard against a hang only: on a busy two-core machine the test may wait its turn for
    // a thread behind end-to-end tests for over a minute before it runs (well under a second).
    @Test(.timeLimit(.minutes(10)))
    func valuesWrittenOutAreNeverRefused() throws {
        // 300 000 values, more than the 250 000 that were once the limit for any file.
        let yaml = "carrel: 1\nx: [" + String(repeating: "a, ", count: 299_998) + "a]\n"
        let parsed = try YAMLTree.parse(yaml, aliasAllowance: 0).get()
        guard case let .mapping(pairs)? = parsed.root?.value, case let .sequence(values) = pairs[1].value.value else {
            Issue.record("not read as a mapping with a list")
            return
        }
        #expect(values.count == 299_999)
    }

    // A guard against a hang only: on a busy two-core machine the test may wait its turn for
    // a thread behind end-to-end tests for over a minute before it runs (well under a second).
    @Test(.timeLimit(.minutes(10)))
    func moreItemsThanTheOldLimitAreValid() throws {
        // 17 values an item: 16 000 items are 272 000 values, past the 250 000 once refused.
        var yaml = "carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n"
        for n in 0..<16_000 {
            yaml += "      - {id: q\(n), type: choice, prompt: P, choices: [a, b, c], answer: b, points: 2}\n"
        }
        let outcome = read(yaml)
        #expect(outcome.diagnostics.isEmpty)
        #expect(try #require(outcome.assessment).items.count == 16_000)
    }

    /// `&c [a, b, c]` is four values (the list and its entries), so each `*c` repeats four.
    static func fiveRepeats() -> String {
        "carrel: 1\nc: &c [a, b, c]\n" + (1...5).map { "r\($0): *c\n" }.joined()
    }

    @Test func aliasesCountEveryValueTheyRepeat() throws {
        let parsed = try YAMLTree.parse(Self.fiveRepeats(), aliasAllowance: 20).get()
        guard case let .mapping(pairs)? = parsed.root?.value, case let .sequence(values) = pairs[6].value.value else {
            Issue.record("not read as a mapping with a list")
            return
        }
        #expect(values.count == 3)
        guard case let .failure(.diagnostic(line, column, message)) = YAMLTree.parse(Self.fiveRepeats(), aliasAllowance: 19) else {
            Issue.record("19 repeated values allowed, 20 repeated, yet not refused")
            return
        }
        #expect((line, column) == (7, 5), "refused at the alias that passes the allowance")
        #expect(message == "through aliases (`*name`) the document expands to more than 19 values beyond those written in it (aliases repeating aliases?); refused")
    }

    // A guard against a hang only: on a busy two-core machine the test may wait its turn for
    // a thread behind end-to-end tests for over a minute before it runs (well under a second).
    @Test(.timeLimit(.minutes(10)))
    func anAliasBombIsRefusedAtAnAliasWhateverItsDepth() {
        // Thirty levels of nine aliases would expand to 9^30 values, more than any integer holds.
        var lines = ["carrel: 1", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...30 {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ") + "]")
        }
        let yaml = lines.joined(separator: "\n") + "\n"
        let outcome = read(yaml)
        #expect(outcome.assessment == nil)
        let allowance = YAMLTree.aliasAllowance(forBytes: yaml.utf8.count)
        #expect(outcome.diagnostics.map(\.description) == [
            "t.yaml:7:20: error: through aliases (`*name`) the document expands to more than \(allowance) values beyond those written in it (aliases repeating aliases?); refused",
        ])
    }

    @Test func aSyntaxErrorIsReportedRatherThanARefusal() {
        let bomb = ValidationTests.aliasBomb + "z: [unclosed\n"
        let outcome = read(bomb)
        #expect(outcome.diagnostics.count == 1)
        #expect(outcome.diagnostics.first?.message.hasPrefix("YAML syntax") == true)
    }

    @Test func refusalsBeforeParsingCountColumnsInCharacters() {
        let anchor = "carrel: 1\na: &a x\n"
        #expect(read(anchor + "b: {ü漢😀: 1, *a : 2}\n").diagnostics.map(\.description)
                == ["t.yaml:3:13: error: an alias (`*name`) used as a mapping key is not allowed"])
        #expect(read(anchor + "b: {[é, *a]: 2}\n").diagnostics.map(\.description)
                == ["t.yaml:3:12: error: an alias (`*name`) inside a mapping key is not allowed"])
        #expect(read(anchor + "b: \"ü\\ü\"\n? *a\n").diagnostics.map(\.description)
                == ["t.yaml:4:1: error: explicit `? ` mapping keys are not part of the assessment format"])
    }

    // A guard against a hang only: on a busy two-core machine the test may wait its turn for
    // a thread behind end-to-end tests for over a minute before it runs (well under a second).
    @Test(.timeLimit(.minutes(10)))
    func aLongLineOfAliasesIsScannedOnce() {
        let yaml = "carrel: 1\na: &a x\nb: [" + String(repeating: "*a, ", count: 200_000) + "é]\n"
        #expect(read(yaml).diagnostics.contains { $0.description == "t.yaml:3:1: error: unknown key `b` in the assessment" })
    }

    @Test func duplicateKeysInARepeatedMappingAreReportedOnce() {
        let yaml = "carrel: 1\nx: &m {a: 1, a: 2}\ny: *m\nz: *m\n"
        let duplicates = read(yaml).diagnostics.filter { $0.message.hasPrefix("duplicate key") }.map(\.description)
        #expect(duplicates == ["t.yaml:2:14: error: duplicate key `a` (first at line 2); keep one"])
    }

    @Test func everyDuplicateKeyIsReportedHoweverMany() {
        let yaml = "carrel: 1\n" + (0..<300).map { "k\($0 % 3): \($0)\n" }.joined()
        let duplicates = read(yaml).diagnostics.filter { $0.message.hasPrefix("duplicate key") }
        #expect(duplicates.count == 297)
        #expect(duplicates.last?.description == "t.yaml:301:1: error: duplicate key `k2` (first at line 4); keep one")
    }

    @Test func keysThatAreNotWordsAreReportedAsSuch() {
        let yaml = "carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n      - {id: q, type: match, prompt: P, pairs: {[a]: 1, [a]: 2, b: c, d: e}}\n"
        #expect(read(yaml).diagnostics.map(\.description) == [
            "t.yaml:6:49: error: keys in pairs must be plain words",
            "t.yaml:6:57: error: keys in pairs must be plain words",
        ])
    }
}

/// `PlainText` answers for plain ASCII what the Unicode checks would; these hold it to them.
@Suite("Plain ASCII text skips the Unicode checks with the same answers")
struct PlainTextTests {
    static let printable = (0x20..<0x7F).map { String(UnicodeScalar(UInt8($0))) }

    @Test func printableASCIIHasNothingUnsafe() {
        for multiLine in [false, true] {
            let allowed: Set<Unicode.Scalar> = multiLine ? ["\n", "\t"] : []
            for byte in UInt8(0)...UInt8(0x7F) {
                let text = "a" + String(UnicodeScalar(byte)) + "b"
                if PlainText.isPrintableASCII(text, allowingLineBreaks: multiLine) {
                    #expect(TerminalSafety.firstUnsafe(in: text, allowing: allowed) == nil, "byte \(byte)")
                }
            }
        }
        #expect(!PlainText.isPrintableASCII("a\tb", allowingLineBreaks: false))
        #expect(!PlainText.isPrintableASCII("a\u{7F}", allowingLineBreaks: true))
        #expect(!PlainText.isPrintableASCII("é", allowingLineBreaks: true))
    }

    @Test func normalTextIsItsOwnKeyAndNormalForm() {
        var texts = Self.printable.flatMap { a in Self.printable.map { b in a + b } }
        texts += ["", "Ottawa", "New York", "a b c", "3.14", "x = y + 1", "It's \"quoted\""]
        for text in texts where PlainText.isNormal(text) {
            #expect(TerminalSafety.lookAlikeKey(text) == text, "\(text)")
            #expect(AnswerText.normalise(text, caseSensitive: true) == text, "\(text)")
        }
        for text in [" a", "a ", "a  b", "a\tb", "a\nb", "Ｏｔｔａｗａ", "é", "a\u{200B}b"] {
            #expect(!PlainText.isNormal(text), "\(text)")
        }
        #expect(PlainText.isNormal("New York"))
    }
}

/// The machine's keys of the policy: read, written back, refused when wrong, and absent from
/// the canonical form (and so the fingerprint) of a test that does not name them.
@Suite("Assessment mode in the policy")
struct MachinePolicyReadingTests {
    static let base = "carrel: 1\nid: m\ntitle: M\nsections:\n  - items:\n      - {id: q, type: true_false, prompt: P, answer: true}\n"

    @Test func theKeysAreReadWithTheirDefaultsAndWrittenBack() throws {
        let plain = try #require(AssessmentReader.read(text: Self.base, file: "m.yaml").assessment)
        #expect(plain.policy.machine == nil)
        #expect(plain.policy.machinePolicy.machineMode == .prefer && plain.policy.machinePolicy.networkRule == .storeOnly)
        let text = Self.base + "policy: { machine: lock, network: allow, processes: end, sessions: lock }\n"
        let read = AssessmentReader.read(text: text, file: "m.yaml")
        let assessment = try #require(read.assessment, "\(read.diagnostics)")
        let m = assessment.policy.machinePolicy
        #expect(m.machineMode == .lock && m.networkRule == .allow && m.processRule == .end && m.sessionRule == .lock)
        #expect(m.loginRule == .refuse && m.consoleRule == .lock && m.deviceRule == .block, "the rest keep their defaults")
        let written = AssessmentWriter.yaml(assessment)
        #expect(written.contains("machine: lock") && written.contains("network: allow") && !written.contains("logins:"))
        let again = try #require(AssessmentReader.read(text: written, file: "again.yaml").assessment)
        #expect(again.policy.machine == assessment.policy.machine)
        #expect(Fingerprint.of(plain) != Fingerprint.of(assessment))
    }

    @Test func aWrongValueIsAnErrorNamingTheValues() {
        let read = AssessmentReader.read(text: Self.base + "policy: { network: wide }\n", file: "m.yaml")
        #expect(read.assessment == nil)
        #expect(read.diagnostics.contains { $0.description.contains("policy.network must be one of store-only, allow, none, not \"wide\"") },
                "\(read.diagnostics)")
    }

    @Test func aTestWithoutTheKeysKeepsItsCanonicalForm() throws {
        let plain = try #require(AssessmentReader.read(text: Self.base, file: "m.yaml").assessment)
        let canonical = String(decoding: Fingerprint.canonicalForm(plain), as: UTF8.self)
        #expect(!canonical.contains("machine"), "\(canonical)")
    }
}
