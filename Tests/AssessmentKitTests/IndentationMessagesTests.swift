import Foundation
import Testing
@testable import AssessmentKit

/// A line indented differently from the keys (or list entries) around it is reported at that
/// line, with both columns and what to line it up with, wherever it is in the file.
@Suite("Indentation in plain words")
struct IndentationMessagesTests {
    /// The only diagnostics of reading `lines` as `t.yaml`.
    func problems(_ lines: [String]) -> [String] {
        AssessmentReader.read(text: lines.joined(separator: "\n") + "\n", file: "t.yaml").diagnostics.map(\.description)
    }

    static let head = ["carrel: 1", "id: t", "title: T", "sections:", "  - title: S", "    items:"]

    /// The six lines of `head`, then an item from line 7.
    func item(_ lines: String...) -> [String] { Self.head + lines }

    static func message(_ line: Int, _ column: Int, _ what: String, _ name: String, at nameLine: Int, _ nameColumn: Int) -> String {
        "t.yaml:\(line):\(column): error: this line starts at column \(column) but the \(what) around it (\(name) at line \(nameLine)) start at column \(nameColumn); line it up with them"
    }

    @Test func aKeyOfAnItemOneColumnLeftOrRightOfTheKeysAboveIt() {
        // Left of them, this was the parser's own "YAML syntax: did not find expected '-' indicator
        // (while parsing a block collection at line 7)"; right of them, a guess that a `:` was missing.
        #expect(problems(item("      - id: q1", "        type: choice", "       prompt: Pick B", "        choices: [A, B]", "        answer: A"))
                == [Self.message(9, 8, "keys", "`type`", at: 8, 9)])
        #expect(problems(item("      - id: q1", "        type: choice", "         prompt: Pick B", "        choices: [A, B]", "        answer: A"))
                == [Self.message(9, 10, "keys", "`type`", at: 8, 9)])
        // The item's second key, against the key that follows its `-`.
        #expect(problems(item("      - id: q1", "       type: true_false", "        prompt: P")) == [Self.message(8, 8, "keys", "`id`", at: 7, 9)])
        #expect(problems(item("      - id: q1", "         type: true_false", "        prompt: P")) == [Self.message(8, 10, "keys", "`id`", at: 7, 9)])
        // Wider after the `-`: the keys still line up with the first one.
        #expect(problems(item("      -   id: q1", "          type: true_false", "         prompt: P")) == [Self.message(9, 10, "keys", "`type`", at: 8, 11)])
    }

    @Test func theFirstMisalignedLineIsNamedWhenSeveralAre() {
        #expect(problems(item("      - id: q1", "        type: choice", "            prompt: Pick B", "           choices: [A, B]", "        answer: A"))
                == [Self.message(9, 13, "keys", "`type`", at: 8, 9)])
    }

    @Test func listEntriesOutOfStepWithTheEntriesAroundThem() {
        let first = ["      - id: q1", "        type: true_false", "        prompt: P", "        answer: true"]
        #expect(problems(item(first[0], first[1], first[2], first[3], "       - id: q2")) == [Self.message(11, 8, "list entries", "`-`", at: 7, 7)])
        #expect(problems(item(first[0], first[1], first[2], first[3], "     - id: q2")) == [Self.message(11, 6, "list entries", "`-`", at: 7, 7)])
        #expect(problems(item(first[0], first[1], first[2], first[3], "        - id: q2")) == [Self.message(11, 9, "list entries", "`-`", at: 7, 7)])
        #expect(problems(item("      - {id: q1, type: true_false, prompt: P, answer: true}", "     - {id: q2, type: true_false, prompt: P, answer: true}"))
                == [Self.message(8, 6, "list entries", "`-`", at: 7, 7)])
        #expect(problems(item("      - id: q1", "        type: choice", "        choices:", "          - A", "         - B", "        answer: A"))
                == [Self.message(11, 10, "list entries", "`-`", at: 10, 11)])
    }

    @Test func keysOfSectionsAndNestedMappings() {
        // The first was "YAML syntax: did not find expected '-' indicator (while parsing a block
        // collection at line 5)", the third "YAML syntax: did not find expected key (while parsing
        // a block mapping at line 1)".
        #expect(problems(["carrel: 1", "id: t", "title: T", "sections:", "  - title: S", "   items:", "      - {id: q, type: essay, prompt: P}"])
                == [Self.message(6, 4, "keys", "`title`", at: 5, 5)])
        #expect(problems(["carrel: 1", "id: t", "title: T", "sections:", "  - title: S", "     items:", "      - {id: q, type: essay, prompt: P}"])
                == [Self.message(6, 6, "keys", "`title`", at: 5, 5)])
        #expect(problems(["carrel: 1", "id: t", "title: T", "proctor:", "  passphrase: x", " key: y", "sections: []"])
                == [Self.message(6, 2, "keys", "`passphrase`", at: 5, 3)])
        #expect(problems(["carrel: 1", "id: t", "title: T", "proctor:", "  passphrase: x", "   key: y", "sections: []"])
                == [Self.message(6, 4, "keys", "`passphrase`", at: 5, 3)])
        #expect(problems(item("      - id: q1", "        type: match", "        pairs:", "          a: b", "         c: d"))
                == [Self.message(11, 10, "keys", "`a`", at: 10, 11)])
    }

    @Test func topLevelKeysAndTheFirstKeyOfTheFile() {
        // This was "t.yaml:2:1: error: YAML syntax: did not find expected <document start>".
        #expect(problems([" carrel: 1", "id: t", "title: T"])
                == ["t.yaml:1:2: error: this line starts at column 2 but the keys after it (`id` at line 2) start at column 1; line it up with them"])
        #expect(problems(["carrel: 1", " id: t", "title: T"]) == [Self.message(2, 2, "keys", "`carrel`", at: 1, 1)])
        #expect(problems(["carrel: 1", "id: t", "title: T", "  description: x"]) == [Self.message(4, 3, "keys", "`title`", at: 3, 1)])
    }

    @Test func listsWrittenAtTheirKeysColumn() {
        #expect(problems(["carrel: 1", "id: t", "title: T", "sections:", "- title: S", "  items:", "  - id: q", "    type: true_false", "   prompt: P"])
                == [Self.message(9, 4, "keys", "`type`", at: 8, 5)])
        #expect(problems(["carrel: 1", "id: t", "title: T", "sections:", "- title: S", "  items:", "  - {id: q, type: essay, prompt: P}",
                          "policy:", "  paste: keep", "   remote: allow"])
                == [Self.message(10, 4, "keys", "`paste`", at: 9, 3)])
    }

    @Test func blockScalarsQuotesFlowsAndCommentsAreSteppedOver() {
        #expect(problems(item("      - id: q1", "        type: true_false", "        prompt: |", "          line one", "            line two",
                              "        answer: true", "       feedback: x"))
                == [Self.message(13, 8, "keys", "`answer`", at: 12, 9)])
        #expect(problems(["carrel: 1", "id: t", "title: T", "description: >", "  folded text", " more: 1", "sections: []"])
                == [Self.message(6, 2, "keys", "`description`", at: 4, 1)])
        #expect(problems(item("      - id: q1", "        type: choice", "        prompt: \"multi", "   line: quoted\"", "        choices: [A,", " B]",
                              "        answer: A", "         feedback: x"))
                == [Self.message(14, 10, "keys", "`answer`", at: 13, 9)])
        #expect(problems(item("      - id: q1", "        type: true_false", "        # a comment", "      # another", "        prompt: P", "       answer: true"))
                == [Self.message(12, 8, "keys", "`prompt`", at: 11, 9)])
        // Text going on below a plain value stays text; a key indented like it does not.
        #expect(problems(item("      - id: q1", "        type: true_false", "        prompt: This is long", "          and continues", "         answer: true"))
                == [Self.message(11, 10, "keys", "`prompt`", at: 9, 9)])
    }

    @Test func otherSyntaxErrorsKeepTheirMessages() {
        let item = ["      - id: q1", "        type: true_false", "        prompt: P", "        answer: true"]
        #expect(problems(Self.head + item + ["bad: ["])
                == ["t.yaml:12:1: error: YAML syntax: did not find expected node content (while parsing a flow node at line 12)"])
        #expect(problems(Self.head + ["      - id: q", "        type: true_false", "        prompt: Note: it is", "        answer: true"])
                == [#"t.yaml:9:21: error: text that contains `: ` must be in quotes: write `prompt: "Note: it is"`"#])
        #expect(problems(["carrel: 1", "id: t", "title: T", "sections:", "  - title: One", "    items", "      - {id: q, type: essay, prompt: P}"])
                == ["t.yaml:6:5: error: missing `:` after `items`; write `items:`"])
    }

    @Test func aValidFileIsNotScanned() {
        // Odd but valid layouts: a list at its key's column, text going on below a value,
        // a block scalar indented further than needed, a flow over lines.
        let yaml = ["carrel: 1", "id: t", "title: T", "description:   &d", "     text that", "        goes on", "sections:",
                    "- title: S", "  items:", "  -   id: q", "      type: choice", "      prompt: |2", "             indented", "          less",
                    "      choices: [A,", "       B]", "      answer: A"]
        #expect(problems(yaml) == [])
    }
}
