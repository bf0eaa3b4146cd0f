import Foundation
import Testing
@testable import AssessmentKit

@Suite("Terminal safety: one sanitiser, invisible characters, look-alikes, names, spreadsheets")
struct TerminalSafetyTests {
    // MARK: the sanitiser

    @Test func hostileSequencesAreQuotedVisibly() {
        #expect(TerminalSafety.visible("\u{1B}]52;c;ZXZpbA==\u{07}") == "\\u{1B}]52;c;ZXZpbA==\\u{7}")
        #expect(TerminalSafety.visible("title\u{1B}]0;pwned\u{1B}\\") == "title\\u{1B}]0;pwned\\u{1B}\\")
        #expect(TerminalSafety.visible("\u{9B}31m") == "\\u{9B}31m", "C1 CSI")
        #expect(TerminalSafety.visible("abc\u{202E}def") == "abc\\u{202E}def")
        #expect(TerminalSafety.visible("Otta\u{200B}wa") == "Otta\\u{200B}wa")
        #expect(TerminalSafety.visible("tag\u{E0041}") == "tag\\u{E0041}")
        #expect(TerminalSafety.visible("a\u{7F}") == "a\\u{7F}")
    }

    @Test func theShortWayForPlainASCIIQuotesWhatTheLongWayQuotes() {
        // A trailing "é" sends the same text the long way; the ASCII part must read the same.
        for keep in [true, false] {
            for byte in UInt8(0)...UInt8(0x7F) {
                let text = "a" + String(UnicodeScalar(byte)) + "b"
                let long = TerminalSafety.visible(text + "é", keepLineBreaks: keep)
                #expect(TerminalSafety.visible(text, keepLineBreaks: keep) + "é" == long, "byte \(byte), keep \(keep)")
            }
        }
        #expect(TerminalSafety.visible("tab\there\nnext", keepLineBreaks: false) == "tab\\u{9}here\\u{A}next")
        #expect(TerminalSafety.visible("cr\rlf\r\n") == "cr\\u{D}lf\r\n")
    }

    @Test func theShortWaysForPlainASCIIGiveWhatTheLongWaysGive() {
        // Every pair of ASCII bytes around a word, at both ends, through the look-alike key
        // and the trimming of spaces.
        var texts: [String] = ["", " ", "  a  b  ", "a", "\r\n", "x\r\n", "\u{600}1", " \u{301}x"]
        for first in UInt8(0)...UInt8(0x7F) {
            for last in [UInt8(0x09), 0x0A, 0x0D, 0x20, 0x21, 0x41, 0x7E, 0x7F] {
                texts.append(String(UnicodeScalar(first)) + "mid  dle" + String(UnicodeScalar(last)))
            }
        }
        for text in texts {
            #expect(TerminalSafety.lookAlikeKey(text) == TerminalSafety.lookAlikeKeyOfAnyText(text), "\(Array(text.utf8))")
            #expect(text.trimmingSpaces() == text.trimmingSpacesOfAnyText(), "\(Array(text.utf8))")
            for caseSensitive in [true, false] {
                #expect(AnswerText.normalise(text + "Ab", caseSensitive: caseSensitive)
                        == AnswerText.normaliseAnyText(text + "Ab", caseSensitive: caseSensitive), "\(Array(text.utf8))")
            }
        }
    }

    @Test func lineBreaksStayWhereAllowedAndALoneCarriageReturnDoesNot() {
        #expect(TerminalSafety.visible("a\nb\tc\r\nd") == "a\nb\tc\r\nd")
        #expect(TerminalSafety.visible("visible\rhidden") == "visible\\u{D}hidden")
        #expect(TerminalSafety.visible("a\nb", keepLineBreaks: false) == "a\\u{A}b")
    }

    @Test func invisibleCharactersThatAScriptNeedsStay() {
        let persian = "می\u{200C}خواهم"  // ZWNJ between Arabic-script letters
        let hindi = "क्\u{200D}ष"  // ZWJ in Devanagari
        let family = "👨\u{200D}👩\u{200D}👧"
        let heart = "❤\u{FE0F}\u{200D}🔥"
        let scotland = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        for text in [persian, hindi, family, heart, scotland, "✔\u{FE0F}", "葛\u{E0100}"] {
            #expect(TerminalSafety.firstUnsafe(in: text) == nil, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(TerminalSafety.visible(text) == text)
        }
        #expect(TerminalSafety.firstUnsafe(in: "a\u{200D}b")?.hazard == .invisible, "Latin needs no joiner")
        #expect(TerminalSafety.firstUnsafe(in: "\u{200C}")?.hazard == .invisible)
        #expect(TerminalSafety.firstUnsafe(in: "a\u{FE0F}")?.hazard == .invisible)
        #expect(TerminalSafety.firstUnsafe(in: "x\u{E0041}\u{E007F}")?.hazard == .invisible, "tags outside a flag")
    }

    @Test func removingUnneededInvisiblesLeavesTextThatPassesAndKeepsWhatAScriptNeeds() {
        // Every text of up to four of these, in every order: what comes back passes, keeps the
        // order of what it keeps, and loses only invisible characters.
        let alphabet: [String] = ["a", "\u{AD}", "\u{200D}", "\u{200C}", "👩", "💻", "\u{FE0F}", "🏴", "\u{E0067}", "\u{E007F}", "ب", "葛", "\u{E0100}"]
        var texts = [""]
        for _ in 0..<4 { texts = texts.flatMap { t in alphabet.map { t + $0 } } }
        for text in texts {
            let (kept, removed) = TerminalSafety.removingUnneededInvisibles(text)
            #expect(TerminalSafety.firstUnsafe(in: kept) == nil, "\(text.debugDescription) → \(kept.debugDescription)")
            #expect(removed.allSatisfy(TerminalSafety.isInvisible), "\(text.debugDescription)")
            #expect(kept.unicodeScalars.count + removed.count == text.unicodeScalars.count)
            if TerminalSafety.firstUnsafe(in: text) == nil { #expect(removed.isEmpty && kept == text, "\(text.debugDescription)") }
        }
        #expect(TerminalSafety.removingUnneededInvisibles("Co\u{AD}op\u{200D}erate 👩\u{200D}💻 ❤\u{FE0F}") ==
                ("Cooperate 👩\u{200D}💻 ❤\u{FE0F}", ["\u{AD}", "\u{200D}"]))
        #expect(TerminalSafety.removingUnneededInvisibles("plain") == ("plain", []))
    }

    @Test func everyKindOfInvisibleCharacterIsFound() {
        let invisible: [UInt32] = [0x200B, 0xFEFF, 0x2060, 0x2061, 0x2064, 0x00AD, 0x034F, 0x115F, 0x3164, 0xFFA0, 0x180E,
                                   0xFFF9, 0xFFFA, 0xFFFB, 0x2028, 0x2029, 0xE0001, 0xE0020, 0x1D173, 0x17B4]
        for value in invisible {
            let s = "a" + String(Character(Unicode.Scalar(value)!)) + "b"
            #expect(TerminalSafety.firstUnsafe(in: s) != nil, "U+\(String(value, radix: 16))")
        }
        for value: UInt32 in [0x200E, 0x200F, 0x061C, 0x202A, 0x2066] {
            #expect(TerminalSafety.firstUnsafe(in: "a" + String(Character(Unicode.Scalar(value)!)))?.hazard == .bidi)
        }
    }

    @Test func jsonKeepsItsMeaningAndLosesEveryHostileCharacter() throws {
        let encoded = String(decoding: try JSONEncoder().encode(["k": "a\u{202E}b\u{7F}c\u{85}d\u{200B}e\u{E0041}"]), as: UTF8.self)
        let safe = TerminalSafety.escapingJSON(encoded)
        #expect(safe == #"{"k":"a\u202eb\u007fc\u0085d\u200be\udb40\udc41"}"#)
        let back = try JSONDecoder().decode([String: String].self, from: Data(safe.utf8))
        #expect(back["k"] == "a\u{202E}b\u{7F}c\u{85}d\u{200B}e\u{E0041}")
    }

    // MARK: look-alikes

    @Test func textsThatLookTheSameAreFound() {
        #expect(TerminalSafety.lookAlikeKey("Ｏｔｔａｗａ") == "Ottawa")
        #expect(TerminalSafety.lookAlikeKey("Otta\u{200B}wa") == "Ottawa")
        #expect(TerminalSafety.lookAlikeKey("Ott\u{202E}awa") == "Ottawa")
        #expect(TerminalSafety.lookAlikeKey("ﬁsh") == "fish")
        #expect(TerminalSafety.lookAlikeKey("a\u{00A0} b") == "a b")
        #expect(TerminalSafety.firstLookAlike(["Toronto", "Ottawa", "Ｏｔｔａｗａ"])! == (1, 2))
        #expect(TerminalSafety.firstLookAlike(["Ottawa", "Ottawa"]) == nil, "exact duplicates are reported elsewhere")
        #expect(TerminalSafety.firstLookAlike(["ottawa", "Ottawa"]) == nil, "case is visible")
    }

    // MARK: names

    @Test func candidateNamesAreValidatedLikeContent() {
        for good in ["Ada Lovelace", "Zoë Ångström", "محمد\u{200C}رضا", "李小龍", "O'Brien-Smith"] {
            #expect(TerminalSafety.candidateNameProblem(good) == nil, "\(good)")
        }
        let bad: [(String, String)] = [
            ("Ada\u{1B}]52;c;ZXZpbA==\u{7}", "U+001B (escape)"), ("Ada\u{85}", "U+0085"), ("\u{202E}adA", "U+202E"),
            ("Ada\u{200B}", "U+200B"), ("", "empty"), ("   ", "empty"), (String(repeating: "a", count: 101), "longer than 100"),
            ("a" + String(repeating: "\u{301}", count: 500), "longer than 100"), ("Ada\nEve", "U+000A"),
        ]
        for (name, message) in bad {
            let problem = TerminalSafety.candidateNameProblem(name) ?? ""
            #expect(problem.contains(message), "\(problem)")
        }
    }

    // MARK: spreadsheets

    @Test func cellsThatASpreadsheetWouldRunAreNeutralised() {
        for formula in ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"] {
            #expect(TerminalSafety.spreadsheetCell(formula) == "'" + formula)
        }
        for plain in ["Ottawa", "a=1", "", " =1"] { #expect(TerminalSafety.spreadsheetCell(plain) == plain) }
    }
}

@Suite("Validation of invisible characters and look-alike entries")
struct InvisibleAndLookAlikeValidationTests {
    func diagnostics(_ item: String) -> [String] {
        let yaml = "carrel: 1\nid: t\ntitle: T\nsections:\n  - items:\n" + item
        return AssessmentReader.read(text: yaml, file: "t.yaml").diagnostics.map(\.description)
    }

    @Test func anInvisibleVariantOfAChoiceIsRefused() {
        let found = diagnostics("      - {id: q, type: choice, prompt: P, choices: [Ottawa, \"Otta\\u200Bwa\"], answer: \"Otta\\u200Bwa\"}\n")
        #expect(found.contains { $0.contains("U+200B (zero width space)") && $0.contains("invisible characters") }, "\(found)")
    }

    @Test func invisibleCharactersAreRefusedInEveryTextField() {
        for text in ["\\uFEFF", "\\u2060", "\\U000E0041", "\\uFFF9", "\\u00AD", "\\u3164"] {
            let found = diagnostics("      - {id: q, type: true_false, prompt: \"Is\(text) it?\", answer: true}\n")
            #expect(found.contains { $0.contains("invisible characters") }, "\(text): \(found)")
        }
    }

    @Test func textThatNeedsJoinersIsValid() {
        let found = diagnostics("      - {id: q, type: text, prompt: \"می\u{200C}خواهم 👨\u{200D}👩\u{200D}👧\", accept: [\"क्\u{200D}ष\"]}\n")
        #expect(found.isEmpty, "\(found)")
    }

    @Test func choicesOrderEntriesAndDistractorsThatLookTheSameAreRefused() {
        let choices = diagnostics("      - {id: q, type: choice, prompt: P, choices: [Ottawa, \"Ｏｔｔａｗａ\"], answer: Ottawa}\n")
        #expect(choices.contains { $0.contains("looks identical to \"Ottawa\"") }, "\(choices)")
        let order = diagnostics("      - {id: q, type: order, prompt: P, items: [\"ﬁsh\", fish, cat]}\n")
        #expect(order.contains { $0.contains("looks identical") }, "\(order)")
        let match = diagnostics("      - {id: q, type: match, prompt: P, pairs: {Canada: Ottawa, Italy: Rome}, distractors: [\"Ｒｏｍｅ\"]}\n")
        #expect(match.contains { $0.contains("right-hand entry") && $0.contains("looks identical") }, "\(match)")
        let lefts = diagnostics("      - {id: q, type: match, prompt: P, pairs: {Canada: Ottawa, \"Ｃａｎａｄａ\": Rome}}\n")
        #expect(lefts.contains { $0.contains("left-hand entry") && $0.contains("looks identical") }, "\(lefts)")
        let shared = diagnostics("      - {id: q, type: match, prompt: P, pairs: {Canada: Ottawa, Kanada: Ottawa}}\n")
        #expect(shared.isEmpty, "the same right-hand text for two entries is fine: \(shared)")
    }
}
