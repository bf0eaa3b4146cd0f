import Testing
@testable import AssessmentKit

/// The quick paths of reading a large test give the answers of the careful ones they replace.
@Suite("Reading quickly gives the same answers")
struct ReadingFastPathTests {
    func withItem(_ item: String) -> String {
        "carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n" + item
    }

    func messages(_ yaml: String) -> [String] {
        AssessmentReader.read(text: yaml, file: "t.yaml").diagnostics.map(\.description)
    }

    /// The standard library's validation decides whether a file is UTF-8; the byte-by-byte
    /// check only says where it is not. The two must agree on every input, or a refused file
    /// would be reported without its place.
    @Test func utf8IsAcceptedExactlyWhenNoByteIsInvalid() {
        var generator = SystemRandomNumberGenerator()
        // Bytes that make the edges of UTF-8: ASCII, continuations, overlong and surrogate
        // leads, the last valid lead and the first invalid ones.
        let edges: [UInt8] = [0x41, 0x0A, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
                              0x9F, 0xA0, 0x8F, 0x90]
        var cases: [[UInt8]] = [
            Array("plain text".utf8), Array("é日本🙂".utf8), [0xED, 0xA0, 0x80], [0xE0, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF0, 0x9F, 0x99], [0xC2], [0x61, 0xC3, 0xA9, 0x62],
        ]
        for _ in 0..<1500 {
            let count = Int.random(in: 1...6, using: &generator)
            cases.append((0..<count).map { _ in edges.randomElement(using: &generator) ?? 0x41 })
        }
        // Valid text of any plane, then half of it with one byte changed to an edge.
        for _ in 0..<1500 {
            let scalars = (0..<Int.random(in: 1...4, using: &generator)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0x20...0x10FFFF, using: &generator))
            }
            var bytes = Array(String(String.UnicodeScalarView(scalars)).utf8)
            // (All four may have been surrogates, which are no scalars: nothing to change then.)
            if !bytes.isEmpty, Bool.random(using: &generator), let edge = edges.randomElement(using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = edge
            }
            cases.append(bytes)
        }
        var refused = 0
        for bytes in cases {
            let file = Array("title: x".utf8) + bytes
            let outcome = SourceText.decode(file, file: "t.yaml")
            let bad = SourceText.firstInvalidUTF8(file[...])
            switch outcome {
            case let .success(decoded):
                #expect(bad == nil, "\(bytes)")
                #expect(Array(decoded.utf8) == file, "\(bytes)")
            case let .failure(diagnostic):
                refused += 1
                #expect(bad != nil, "\(bytes)")
                #expect(diagnostic.message.hasPrefix("byte 0x"), "\(diagnostic.message)")
            }
        }
        // Both verdicts occur, so neither branch passes by never running.
        #expect(refused > 100 && refused < cases.count - 100, "\(refused) of \(cases.count)")
    }

    /// Lists are checked for repeats entry by entry when short and through a table when long;
    /// both report the repeat with the line of the first.
    @Test func aRepeatedChoiceIsFoundInShortAndLongLists() {
        for count in [2, 15, 16, 17, 40] {
            let choices = (0..<count).map { "c\($0)" } + ["c1"]
            let yaml = withItem("      - id: q\n        type: choice\n        prompt: P\n        choices:\n"
                                + choices.map { "          - \($0)\n" }.joined() + "        answer: c0\n")
            let found = messages(yaml)
            #expect(found == ["t.yaml:\(10 + count):13: error: duplicate choice \"c1\" (first at line 11)"], "\(count): \(found)")
        }
        for count in [3, 20] {
            let entries = (0..<count).map { "e\($0)" } + ["e2"]
            let yaml = withItem("      - id: q\n        type: order\n        prompt: P\n        items: [\(entries.joined(separator: ", "))]\n")
            #expect(messages(yaml).contains { $0.contains("duplicate entry \"e2\"") }, "\(count)")
        }
    }

    /// Text in normal form skips the look-alike check; text that is not still gets it, in a
    /// list where every other entry is plain.
    @Test func lookAlikesAreRefusedAmongPlainEntries() {
        let yaml = withItem("      - id: q\n        type: choice\n        prompt: P\n        choices: [Ottawa, Paris, \"Ｏｔｔａｗａ\"]\n        answer: Paris\n")
        #expect(messages(yaml).contains { $0.contains("looks identical to \"Ottawa\"") }, "\(messages(yaml))")
        let spaced = withItem("      - id: q\n        type: order\n        prompt: P\n        items: [New York, \"New  York\", Rome]\n")
        #expect(messages(spaced).contains { $0.contains("duplicate entry") || $0.contains("looks identical") }, "\(messages(spaced))")
    }

    /// The pre-scan passes runs of words in a tight loop; an indicator right after a blank, or
    /// after a word, is still seen where it matters and ignored where it does not.
    @Test func thePrescanSeesIndicatorsBetweenWords() {
        let aliasKey = withItem("      - id: q\n        type: text\n        prompt: &p words here\n        accept: [a]\n      - id: r\n        type: text\n        prompt: P\n        accept: {some words *p: 1}\n")
        #expect(messages(aliasKey).contains { $0.contains("alias (`*name`) used as a mapping key") }, "\(messages(aliasKey))")
        let inComment = withItem("      - id: q\n        type: text\n        prompt: words and more # a comment *p: [x\n        accept: [a]\n")
        #expect(messages(inComment) == [], "\(messages(inComment))")
        let midWord = withItem("      - id: q\n        type: text\n        prompt: words#not-a-comment and*star\n        accept: [a]\n")
        #expect(messages(midWord) == [], "\(messages(midWord))")
        let explicitKey = withItem("      - id: q\n        type: text\n        prompt: P\n        accept: {words here, ? x: y}\n")
        #expect(messages(explicitKey).contains { $0.contains("explicit `? ` mapping keys") }, "\(messages(explicitKey))")
        // After a closing quote the line is read as outside quotes again.
        let afterQuote = withItem("      - id: q\n        type: text\n        prompt: P\n        accept: ['a' ? x: y]\n")
        #expect(messages(afterQuote).contains { $0.contains("explicit `? ` mapping keys") }, "\(messages(afterQuote))")
        let quoted = withItem("      - id: q\n        type: text\n        prompt: \"words 'and' \\\" more *p: 1\"\n        accept: [a]\n")
        #expect(messages(quoted) == [], "\(messages(quoted))")
    }
}
