import Foundation
import Testing
@testable import AssessmentKit

/// `AssessmentWriter` output reads back, through the validator, to the very model written.
@Suite("Writing YAML")
struct WriterTests {
    func roundTrip(_ a: Assessment, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let yaml = AssessmentWriter.yaml(a, header: ["Imported by a test\u{1B}[31m", "second line"])
        let outcome = AssessmentReader.read(text: yaml, file: "w.yaml")
        #expect(outcome.diagnostics.errors.isEmpty, "\(outcome.diagnostics.map(\.description))\n\(yaml)", sourceLocation: sourceLocation)
        let back = try #require(outcome.assessment, sourceLocation: sourceLocation)
        #expect(back == a, "\(yaml)", sourceLocation: sourceLocation)
        #expect(Fingerprint.of(back) == Fingerprint.of(a), sourceLocation: sourceLocation)
    }

    @Test(arguments: SampleAssessmentsTests.files)
    func everySampleReadsBackEqual(file: URL) throws {
        let bytes = try [UInt8](Data(contentsOf: file))
        try roundTrip(try #require(AssessmentReader.read(bytes: bytes, file: file.lastPathComponent).assessment))
    }

    /// Values YAML would otherwise read as something else, or that a block would alter.
    static let awkward = [
        "null", "~", "yes", "No", "true", "0x1F", "1e3", "- dash", "# hash", "a: b", "a #b", "*alias", "&anchor",
        "!tag", "{flow}", "[list]", "'single'", "\"double\"", "back\\slash", "%percent", "@at", "`tick", "? q",
        "| bar", "> gt", " leading space", "trailing space ", "ümlaut — “quotes” 漢字 🙂", ":", ",", "---",
        "...", "=", "<<",
        // Line and paragraph separators and U+FEFF are refused in content (invisible characters
        // that no script needs); importers turn them into line breaks or drop them.
    ]

    static let multiLine = [
        "two\nlines", "  indented first\nline", "ends with newline\n", "\nstarts with newline", "a\n\n  b\n\tc",
        "spaces   \nat ends", "last line  ", "#not a comment\n- not a list",
    ]

    @Test func awkwardTextsSurviveEveryField() throws {
        var items: [Item] = []
        for (i, text) in Self.awkward.enumerated() {
            let other = "other \(i)"
            items.append(Item(id: "c\(i)", prompt: text, feedback: text, kind: .choice(choices: [text, other], answer: text),
                              proctorNote: text, marking: .choices([ChoiceMark(text: text, feedback: text), ChoiceMark(text: other, credit: 12.5)])))
            items.append(Item(id: "m\(i)", prompt: text, kind: .match(pairs: [MatchPair(left: text, right: text), MatchPair(left: other, right: other)], distractors: [text + "!"])))
            items.append(Item(id: "t\(i)", prompt: text, kind: .text(accept: [text], caseSensitive: true),
                              marking: .texts([TextAnswer(text: text), TextAnswer(text: other, credit: -33.33333, feedback: text)])))
        }
        for (i, text) in Self.multiLine.enumerated() {
            items.append(Item(id: "l\(i)", prompt: text, feedback: text, kind: .essay(minWords: 1, maxWords: 9), proctorNote: text))
        }
        let a = Assessment(id: "awkward", title: "null", description: "two\nlines", sections: [
            Section(title: "yes", instructions: "  indented\nfirst", items: items, proctorNote: "#note"),
        ])
        try roundTrip(a)
    }

    @Test func everyKindAndOptionReadsBack() throws {
        var policy = RestrictionPolicy()
        policy.paste = .allow
        policy.maxDuration = 3600
        let items = [
            Item(id: "mc", prompt: "P", points: 2.5, kind: .multiple(choices: ["a", "b", "c"], answers: ["a", "b"], scoring: .partial),
                 marking: .choices([ChoiceMark(text: "a", credit: 50), ChoiceMark(text: "b", credit: 50), ChoiceMark(text: "c", credit: -100, feedback: "No.")])),
            Item(id: "mk", prompt: "P", kind: .multiple(choices: ["a", "b"], answers: ["a"], scoring: .allOrNothing)),
            Item(id: "tf", prompt: "P", kind: .trueFalse(answer: false), marking: .trueFalse(ifTrue: "x", ifFalse: nil)),
            Item(id: "nv", prompt: "P", points: 0.1, kind: .numeric(.value(-2e-7, tolerance: 1e-9))),
            Item(id: "nr", prompt: "P", kind: .numeric(.range(-1.5, 1e20))),
            Item(id: "ns", prompt: "P", kind: .numeric(.value(3.14, tolerance: 0)),
                 marking: .numbers([NumberAnswer(answer: .value(3.14, tolerance: 0)), NumberAnswer(answer: .range(3, 4), credit: 0.1, feedback: "close")])),
            Item(id: "es", prompt: "P", kind: .essay(minWords: nil, maxWords: nil)),
            Item(id: "or", prompt: "P", kind: .order(items: ["1", "2", "3"])),
        ]
        let a = Assessment(id: "kinds", title: "Kinds", timeLimit: 5400, navigation: .linear,
                           shuffle: Shuffle(items: true, choices: false), results: ResultOptions(showScore: false),
                           proctor: ProctorSettings(passphrase: try PassphraseHash.make(passphrase: "p", logRounds: 10)),
                           policy: policy, sections: [Section(items: items), Section(title: "Two", items: [
                               Item(id: "x", prompt: "P", kind: .trueFalse(answer: true)),
                           ])])
        try roundTrip(a)
    }

    @Test func numbersAreWrittenSoTheyReadBackExactly() {
        for x in [0.1, 1.0 / 3.0, -33.33333, 1e-7, 1e20, 123456789.125, 2.0, -0.5] {
            #expect(NumericText.parse(AssessmentWriter.number(x)) == x, "\(x) → \(AssessmentWriter.number(x))")
        }
        #expect(AssessmentWriter.number(50) == "50")
    }
}
