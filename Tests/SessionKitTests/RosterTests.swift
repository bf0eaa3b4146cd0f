import AssessmentKit
import Foundation
import Localization
import SessionKit
import Testing

/// A proctor's room plan read from CSV: good rosters become entries, and a bad one gives
/// every problem at once, each on the line where its row starts.
@Suite("Roster")
struct RosterTests {
    static func read(_ text: String) -> (entries: [RosterEntry], problems: [RosterProblem]) {
        Roster.read(bytes: Array(text.utf8))
    }

    /// The problems as printed, `line N: error: MESSAGE`.
    static func problems(_ text: String) -> [String] {
        read(text).problems.map(\.description)
    }

    static let invisibleRule = "invisible characters that no script needs (zero width spaces, joiners, BOMs, tags…) are not allowed"
    static let controlRule = "control characters and escape sequences are not allowed"
    static let bidiRule = "bidirectional override characters and direction marks are not allowed"
    static let knownColumns = "the known columns are candidate, name, seat, extra_time, screen_reader, theme, language, code"

    // MARK: good rosters

    @Test func aGoodRosterWithEveryColumnQuotedCommasCRLFAndABOM() {
        let text = "\u{FEFF} Candidate ,NAME,seat,Extra_Time,screen_reader,theme,language\r\n"
            + "1042,\"Lee, Ann\",A1,1.5,yes,default,en\r\n"
            + "1043,E\u{1F44D}\u{1F3FD},A2,+15m,No,MONO,fr\r\n"
            + "\r\n"
            + " 1044 ,Zo\u{EB} \u{D1}\u{FA}\u{F1}ez,\"B,1\",unlimited,TRUE,contrast,es-MX\r\n"
            + "1045,\"Ann \"\"Nan\"\" Lee\",,x2,0,,\r\n"
            + "1046,\"\u{4E2D}\u{6587} \u{0627}\u{0644}\u{0639}\u{0631}\u{0628}\u{064A}\u{0629}\"\r\n"
            + ",,,,,,\r\n"
        let (entries, problems) = Self.read(text)
        #expect(problems == [])
        #expect(entries == [
            RosterEntry(candidate: "1042", name: "Lee, Ann", seat: "A1", extraTime: .multiplier(1.5), screenReader: true,
                        theme: "default", language: "en", line: 2),
            RosterEntry(candidate: "1043", name: "E\u{1F44D}\u{1F3FD}", seat: "A2", extraTime: .add(seconds: 900),
                        screenReader: false, theme: "mono", language: "fr", line: 3),
            RosterEntry(candidate: "1044", name: "Zoë Ñúñez", seat: "B,1", extraTime: .unlimited, screenReader: true,
                        theme: "contrast", language: "es", line: 5),
            RosterEntry(candidate: "1045", name: "Ann \"Nan\" Lee", extraTime: .multiplier(2), screenReader: false, line: 6),
            RosterEntry(candidate: "1046", name: "中文 العربية", line: 7),
        ])
    }

    @Test func onlyCandidateAndNameWithLFAndNoTrailingLineBreak() {
        let (entries, problems) = Self.read("name,candidate\n\nAnn,1\nBo,2")
        #expect(problems == [])
        #expect(entries == [RosterEntry(candidate: "1", name: "Ann", line: 3), RosterEntry(candidate: "2", name: "Bo", line: 4)])
    }

    @Test func aLoneCarriageReturnEndsALineToo() {
        #expect(Self.read("candidate,name\r1,Ann\r2,Bo\r").entries.map(\.line) == [2, 3])
    }

    @Test func aHeaderAloneIsAnEmptyRoom() {
        let (entries, problems) = Self.read("candidate,name\n")
        #expect(entries == [] && problems == [])
    }

    @Test(arguments: [
        "E\u{1F44D}\u{1F3FD}",                                         // skin tone modifier
        "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467} Family",          // ZWJ between emoji
        "\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB} Coder",                    // ZWJ after a skin tone
        "\u{2764}\u{FE0F} Heart",                                       // emoji presentation selector
        "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} Scot", // subdivision flag
        "Zo\u{EB} \u{D1}\u{FA}\u{F1}ez", "Zoe\u{0308}", "Stra\u{DF}e", "\u{4E2D}\u{6587}", "\u{0627}\u{0644}\u{0639}\u{0631}\u{0628}\u{064A}\u{0629}",
        "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}", // Persian ZWNJ
        "\u{E000} private use",
    ])
    func namesFromAnyScriptAndEmojiAreKept(name: String) {
        let (entries, problems) = Self.read("candidate,name\n1,\"\(name)\"\n")
        #expect(problems == [])
        #expect(entries.map(\.name) == [name])
    }

    @Test func acceptedSpellingsOfExtraTimeAndScreenReader() {
        let text = """
            candidate,name,extra_time,screen_reader
            1,A,1.5,yes
            2,B,x1.25,TRUE
            3,C,+1h30m,1
            4,D,UNLIMITED,No
            5,E,,false
            6,F,1,0
            7,G,,
            """
        let (entries, problems) = Self.read(text)
        #expect(problems == [])
        #expect(entries.map(\.extraTime) == [.multiplier(1.5), .multiplier(1.25), .add(seconds: 5400), .unlimited, nil, ExtraTime.none, nil])
        #expect(entries.map(\.screenReader) == [true, true, true, false, false, false, nil])
    }

    // MARK: the file as a whole

    @Test func bytesThatAreNotUTF8AreOneProblemOnTheFirstBadLine() {
        let latin1 = Array("candidate,name\n1,Ann\n2,Zo".utf8) + [0xEB] + Array("\n3,\u{FF}\n".utf8)
        #expect(Roster.read(bytes: latin1).problems == [RosterProblem(line: 3, message: "not UTF-8 text")])
        let surrogate = Array("candidate,name\n1,".utf8) + [0xED, 0xA0, 0x80] + Array("\n".utf8)
        #expect(Roster.read(bytes: surrogate).problems == [RosterProblem(line: 2, message: "not UTF-8 text")])
        let cutShort = Array("candidate,name\n\n\n1,Zo".utf8) + [0xC3]
        #expect(Roster.read(bytes: cutShort).problems == [RosterProblem(line: 4, message: "not UTF-8 text")])
        #expect(Roster.read(bytes: [0xFF, 0xFE, 0x63, 0x00]).problems == [RosterProblem(line: 1, message: "not UTF-8 text")])
        #expect(Roster.read(bytes: latin1).entries == [])
    }

    @Test(arguments: [[UInt8](), [0xEF, 0xBB, 0xBF], Array("\n\r\n  \n".utf8), Array(",,\n".utf8)])
    func anEmptyFileIsOneProblem(bytes: [UInt8]) {
        #expect(Roster.read(bytes: bytes).problems.map(\.description)
            == ["line 1: error: the roster is empty: it needs a header line with candidate and name"])
    }

    @Test func anUnterminatedQuoteIsAnErrorOnItsLine() {
        #expect(Self.problems("candidate,name\n1,Ann\n2,\"Bo\n3,Cy\n")
            == ["line 3: error: unterminated quote: a quoted field starts on this line and is never closed"])
        #expect(Self.read("candidate,name\n1,Ann\n2,\"Bo\n").entries == [])
    }

    @Test func textAfterAClosingQuoteIsAnError() {
        #expect(Self.problems("candidate,name\n1,\"Ann\" \n2,\"Bo\"b\n")
            == ["line 3: error: text after the closing quote of field 2 (a quote inside a quoted field is written as two quotes)"])
    }

    @Test func aRecordSpanningLinesIsReportedWhereItStartsAndLaterLinesKeepTheirNumbers() {
        let text = "candidate,name,theme\n1,\"Ann\nLee\",mono\n2,Bo,dark\r\n3,\"Cy\r\nDu\"\r\n4,,\n"
        #expect(Self.problems(text) == [
            "line 2: error: name contains U+000A (line break): \(Self.controlRule)",
            "line 4: error: theme \"dark\" is not one of default, mono, contrast",
            "line 5: error: name contains U+000D (carriage return): \(Self.controlRule)",
            "line 7: error: name is empty: every row needs a name",
        ])
    }

    @Test func moreThanTenThousandCandidatesIsOneProblem() {
        var text = "candidate,name\n"
        for i in 1...10_000 { text += "\(i),Name \(i)\n" }
        let full = Self.read(text)
        #expect(full.problems == [] && full.entries.count == 10_000)
        text += "10001,One too many\n10002,\n"
        #expect(Self.problems(text) == ["line 10002: error: the roster has more than 10000 candidates"])
    }

    // MARK: the header

    @Test func anUnknownColumnIsNamedWithTheKnownOnesAndTheNearestSuggested() {
        #expect(Self.problems("candidate,name,extra-time\n1,A,1.5\n")
            == ["line 1: error: unknown column \"extra-time\" (did you mean extra_time?); \(Self.knownColumns)"])
        #expect(Self.problems("candidate,name,Screen Reader,lang,thme\n")
            == ["line 1: error: unknown column \"screen reader\" (did you mean screen_reader?); \(Self.knownColumns)",
                "line 1: error: unknown column \"lang\" (did you mean language?); \(Self.knownColumns)",
                "line 1: error: unknown column \"thme\" (did you mean theme?); \(Self.knownColumns)"])
        #expect(Self.problems("candidate,name,colour\n")
            == ["line 1: error: unknown column \"colour\"; \(Self.knownColumns)"])
        #expect(Self.read("candidate,name,extra-time\n1,A,1.5\n").entries == [])
    }

    @Test func aHostileColumnNameIsQuotedVisibly() {
        let problems = Self.problems("candidate,name,\u{1B}]52;c;ZXZpbA==\u{07}\n")
        #expect(problems == ["line 1: error: unknown column \"\\u{1B}]52;c;zxzpba==\\u{7}\"; \(Self.knownColumns)"])
        #expect(!problems.joined().unicodeScalars.contains { TerminalSafety.isControl($0) })
    }

    @Test func aDuplicateOrUnnamedColumnIsAnError() {
        #expect(Self.problems("Candidate,name,CANDIDATE\n1,A,1\n") == ["line 1: error: duplicate column \"candidate\" (also column 1)"])
        #expect(Self.problems("candidate,,name\n") == ["line 1: error: column 2 of the header has no name"])
    }

    @Test func aMissingCandidateOrNameColumnIsAnError() {
        #expect(Self.problems("name,seat\nAnn,A1\n") == ["line 1: error: the header has no candidate column"])
        #expect(Self.problems("\n\ncandidate,seat\n1,A1\n") == ["line 3: error: the header has no name column"])
        #expect(Self.problems("1042,Ann\n") == [
            "line 1: error: unknown column \"1042\"; \(Self.knownColumns)",
            "line 1: error: unknown column \"ann\"; \(Self.knownColumns)",
            "line 1: error: the header has no candidate and no name column: the first line must name the columns, such as candidate,name,seat",
        ])
    }

    // MARK: rows

    @Test func aRowWithMoreFieldsThanTheHeaderIsAnError() {
        #expect(Self.problems("candidate,name\n1,Ann\n2,Bo,A1\n") == ["line 3: error: this row has 3 fields but the header has 2 columns"])
    }

    @Test func theCandidateIsRequiredShortAndUnique() {
        let x64 = String(repeating: "x", count: 64)
        #expect(Self.read("candidate,name\n\(x64),Ann\n").entries.map(\.candidate) == [x64])
        #expect(Self.problems("candidate,name\n  ,Ann\n1,Bo\n\(x64)x,Cy\n") == [
            "line 2: error: candidate is empty: every row needs a candidate id",
            "line 4: error: candidate is longer than 64 characters",
        ])
        #expect(Self.problems("candidate,name\n1042,A\nabc,B\n 1042 ,C\nABC,D\n1042,E\n") == [
            "line 4: error: duplicate candidate \"1042\" (first on line 2)",
            "line 5: error: duplicate candidate \"ABC\" (first on line 3)",
            "line 6: error: duplicate candidate \"1042\" (first on line 2)",
        ])
    }

    @Test func theNameIsRequiredAndShort() {
        let long = String(repeating: "\u{E9}", count: 200)
        #expect(Self.read("candidate,name\n1,\(long)\n").entries.map(\.name) == [long])
        #expect(Self.problems("candidate,name\n1,\n2, \n3,\(long)e\n4\n") == [
            "line 2: error: name is empty: every row needs a name",
            "line 3: error: name is empty: every row needs a name",
            "line 4: error: name is longer than 200 characters",
            "line 5: error: name is empty: every row needs a name",
        ])
        // Combining marks cannot make one character huge.
        let zalgo = "Z" + String(repeating: "\u{0301}", count: 900)
        #expect(Self.problems("candidate,name\n1,\(zalgo)\n") == ["line 2: error: name is longer than 200 characters"])
    }

    @Test func aSeatIsShortAndGivenOnce() {
        let seat32 = String(repeating: "S", count: 32)
        #expect(Self.problems("candidate,name,seat\n1,A,\(seat32)\n2,B,\(seat32)9\n3,C, a1\n4,D,A1 \n5,E,\n6,F,\n") == [
            "line 3: error: seat is longer than 32 characters",
            "line 5: error: seat \"A1\" is already given to candidate \"3\" on line 4",
        ])
    }

    @Test func anInvalidExtraTimeIsQuotedWithWhatIsAccepted() {
        let accepted = "is not understood: use a multiplier from 1 to 10 such as 1.5 or x1.5, added time such as +15m, or unlimited"
        #expect(Self.problems("candidate,name,extra_time\n1,A,2x\n2,B,0.5\n3,C,+15\n4,D,forever\n") == [
            "line 2: error: extra_time \"2x\" \(accepted)",
            "line 3: error: extra_time \"0.5\" \(accepted)",
            "line 4: error: extra_time \"+15\" \(accepted)",
            "line 5: error: extra_time \"forever\" \(accepted)",
        ])
    }

    @Test func anInvalidScreenReaderThemeOrLanguageIsAnError() {
        let text = "candidate,name,screen_reader,theme,language\n1,A,maybe,,\n2,B,,dark,\n3,C,,,e\n4,D,,,en_US\n5,E,,,\(String(repeating: "a", count: 36))\n6,F,,,\(String(repeating: "a", count: 35))\n"
        #expect(Self.problems(text) == [
            "line 2: error: screen_reader \"maybe\" is not yes or no (true, false, 1 and 0 are also accepted)",
            "line 3: error: theme \"dark\" is not one of default, mono, contrast",
            "line 4: error: language \"e\" is not a language tag such as en, fr or es-MX (letters, digits and hyphens, 2 to 35 characters)",
            "line 5: error: language \"en_US\" is not a language tag such as en, fr or es-MX (letters, digits and hyphens, 2 to 35 characters)",
            "line 6: error: language \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is not a language tag such as en, fr or es-MX (letters, digits and hyphens, 2 to 35 characters)",
            "line 7: error: language \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is not a language Carrel speaks; the languages are " + Language.offeredList,
        ])
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        var column: String
        var value: String
        var found: String
        var testDescription: String { "\(column): \(found)" }
    }

    @Test(arguments: [
        Hostile(column: "name", value: "Ann\u{1B}[2J", found: "U+001B (escape): \(RosterTests.controlRule)"),
        Hostile(column: "name", value: "A\u{7F}nn", found: "U+007F: \(RosterTests.controlRule)"),
        Hostile(column: "name", value: "A\u{85}nn", found: "U+0085: \(RosterTests.controlRule)"),
        Hostile(column: "candidate", value: "10\t42", found: "U+0009 (tab): \(RosterTests.controlRule)"),
        Hostile(column: "name", value: "A\u{200B}nn", found: "U+200B (zero width space): \(RosterTests.invisibleRule)"),
        Hostile(column: "name", value: "Ann\u{202E}eeL", found: "U+202E (right-to-left override): \(RosterTests.bidiRule)"),
        Hostile(column: "seat", value: "A\u{200E}1", found: "U+200E (left-to-right mark): \(RosterTests.bidiRule)"),
        Hostile(column: "seat", value: "A\u{2066}1", found: "U+2066: \(RosterTests.bidiRule)"),
        Hostile(column: "candidate", value: "10\u{FEFF}42", found: "U+FEFF (zero width no-break space): \(RosterTests.invisibleRule)"),
        Hostile(column: "name", value: "Zo\u{AD}e", found: "U+00AD (soft hyphen): \(RosterTests.invisibleRule)"),
        Hostile(column: "name", value: "A\u{2060}nn", found: "U+2060 (word joiner): \(RosterTests.invisibleRule)"),
        Hostile(column: "name", value: "A\u{2064}nn", found: "U+2064: \(RosterTests.invisibleRule)"),
        Hostile(column: "name", value: "A\u{200D}nn", found: "U+200D (zero width joiner): \(RosterTests.invisibleRule)"),
        Hostile(column: "name", value: "\u{1F44D}\u{200D}", found: "U+200D (zero width joiner): \(RosterTests.invisibleRule)"),
        Hostile(column: "name", value: "\u{0600}12", found: "U+0600 (a format character): invisible and format characters are not allowed"),
        Hostile(column: "theme", value: "mono\u{1B}", found: "U+001B (escape): \(RosterTests.controlRule)"),
    ])
    func aHostileCharacterIsNamedWithItsColumn(hostile: Hostile) {
        let values = ["candidate": "1", "name": "Ann", "seat": "A1", "theme": "mono"].merging([hostile.column: hostile.value]) { $1 }
        let text = "candidate,name,seat,theme\n0,Zed,Z9,\n" + ["candidate", "name", "seat", "theme"].map { "\"\(values[$0] ?? "")\"" }.joined(separator: ",") + "\n"
        #expect(Self.problems(text) == ["line 3: error: \(hostile.column) contains \(hostile.found)"])
    }

    @Test func everyProblemIsReportedInOneRun() {
        let text = """
            candidate,name,seat,theme,extra-time
            1,Ann,A1,mono
            ,Bo,A2,
            1,Cy,A1,dark
            3,,B1,default,,extra
            4,"D\u{202E}u",B2,,
            5,"Ed
            """
        #expect(Self.problems(text) == [
            "line 1: error: unknown column \"extra-time\" (did you mean extra_time?); \(Self.knownColumns)",
            "line 3: error: candidate is empty: every row needs a candidate id",
            "line 4: error: duplicate candidate \"1\" (first on line 2)",
            "line 4: error: seat \"A1\" is already given to candidate \"1\" on line 2",
            "line 4: error: theme \"dark\" is not one of default, mono, contrast",
            "line 5: error: this row has 6 fields but the header has 5 columns",
            "line 5: error: name is empty: every row needs a name",
            "line 6: error: name contains U+202E (right-to-left override): \(Self.bidiRule)",
            "line 7: error: unterminated quote: a quoted field starts on this line and is never closed",
        ])
        #expect(Self.read(text).entries == [])
    }

    // MARK: output

    @Test func aProblemIsDescribedWithItsFileAndLine() {
        let problem = RosterProblem(line: 4, message: "duplicate candidate \"1042\" (first on line 3)")
        #expect(problem.description == "line 4: error: duplicate candidate \"1042\" (first on line 3)")
        #expect(problem.described(file: "room-12.csv") == "room-12.csv:4: error: duplicate candidate \"1042\" (first on line 3)")
        #expect(problem.described(file: "a\u{1B}[2Jb.csv") == "a\\u{1B}[2Jb.csv:4: error: duplicate candidate \"1042\" (first on line 3)")
    }

    @Test func theEntriesGoToJSONAndBack() throws {
        let text = "candidate,name,seat,extra_time,screen_reader,theme,language\n"
            + "1042,\"Lee, Ann\",A1,1.5,yes,default,en\n"
            + "1043,\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467} E\u{1F44D}\u{1F3FD},,+15m,,,\n"
            + "1044,Zo\u{EB},B2,unlimited,no,contrast,ja\n"
            + "1045,Dee,,1,,,\n"
        let entries = Self.read(text).entries
        try #require(entries.count == 4)
        let json = Roster.json(entries)
        #expect(Roster.entries(fromJSON: json) == entries)
        #expect(!json.unicodeScalars.contains("\u{200D}"), "the joiner is written as an escape")
        #expect(json.contains("\"extra_time\"") && json.contains("\"screen_reader\""))
        #expect(Roster.json([]) == "[]")
        #expect(Roster.entries(fromJSON: "[]") == [])
        #expect(Roster.entries(fromJSON: "not json") == nil)
        #expect(Roster.entries(fromJSON: #"[{"candidate":"1","name":"A","line":2}]"#) == [RosterEntry(candidate: "1", name: "A", line: 2)])
        #expect(Roster.entries(fromJSON: #"[{"candidate":"1","candidate":"2","name":"A","line":2}]"#) == nil, "a key given twice")
        #expect(Roster.entries(fromJSON: #"[{"name":"A","line":2}]"#) == nil, "no candidate")
    }

    @Test func aCodeColumnGivesEveryCandidateACodeThatCanBeTyped() {
        let good = Self.read("candidate,name,code\n1001,Ada,7F3K-92QD\n1002,Bo, x4 pz 9 \n")
        #expect(good.problems.isEmpty)
        #expect(good.entries.map(\.code) == ["7F3K-92QD", "x4 pz 9"])
        #expect(CandidateCode.normalized("x4 pz-9") == "X4PZ9", "case, blanks and dashes do not matter when typed")
        #expect(Self.problems("candidate,name,code\n1001,Ada,\n1002,Bo,ab\n1003,Cy,\"a\u{1B}[2Jbcd\"\n") == [
            "line 2: error: code is empty: a roster with a code column gives every candidate a code",
            "line 3: error: code is shorter than 4 characters",
            "line 4: error: code contains U+001B (escape): control characters and escape sequences are not allowed",
        ])
        #expect(Self.read("candidate,name\n1001,Ada\n").entries.first?.code == nil, "a roster without codes")
    }

    @Test func aCodesHashIsSaltedPerRoomAndCandidateAndIgnoresHowItWasTyped() {
        let salt = CandidateCode.salt()
        let stored = CandidateCode.hash("7F3K-92QD", candidate: "A1001", salt: salt)
        #expect(CandidateCode.hash("7f3k 92qd", candidate: "a1001", salt: salt) == stored)
        #expect(CandidateCode.hash("7F3K-92QE", candidate: "A1001", salt: salt) != stored)
        #expect(CandidateCode.hash("7F3K-92QD", candidate: "A1002", salt: salt) != stored, "another candidate's code")
        #expect(CandidateCode.hash("7F3K-92QD", candidate: "A1001", salt: CandidateCode.salt()) != stored, "another opening of the room")
        #expect(!stored.contains("7F3K"))
    }
}
