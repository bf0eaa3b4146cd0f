import AssessmentKit
import Foundation
import GRDB
import SessionTestSupport
import Testing
@testable import SessionKit
@testable import SharedStore

/// One parser for a stored result, and a gate before it that refuses what two parsers could
/// read differently; passwords in store URLs, whatever they hold.
@Suite("Reading stored results and store URLs defensively")
struct ResultReadingTests {
    /// A result document as Carrel writes it.
    static func document(session: String = "s-1") throws -> String {
        let doc = ResultDocument(
            session: session, candidate: "Ada", status: .submitted,
            assessment: .init(id: "quiz", title: "Quiz", fingerprint: "sha256:00"),
            startedAt: "2026-11-25T10:00:00Z", endedAt: "2026-11-25T10:30:00Z", timeUsedSeconds: 1800, interruptions: 0,
            score: ScoreSummary(points: 1, max: 2, pending: 0),
            items: [.init(id: "q0", type: "text", response: .string("a0"), points: 1, max: 1, flagged: false, outcome: .correct),
                    .init(id: "q1", type: "text", response: .null, points: 0, max: 1, flagged: false, outcome: .unanswered)],
            events: [.init(at: "2026-11-25T10:01:00Z", kind: "paste_blocked", detail: "42 characters")])
        // Pretty JSON as the encoder writes it, with "key": value (no space before the colon).
        return String(decoding: try doc.json(), as: UTF8.self).replacingOccurrences(of: "\" : ", with: "\": ")
    }

    /// `text` with `"key": value` put first in its top-level object.
    static func adding(_ member: String, to text: String) -> String {
        var out = text
        if let brace = out.firstIndex(of: "{") { out.insert(contentsOf: member + ",", at: out.index(after: brace)) }
        return out
    }

    @Test func aResultAsCarrelWritesItReadsBackTheSame() throws {
        let text = try Self.document()
        let read = try ResultDocument.read(text)
        #expect(read.timeUsedSeconds == 1800 && read.items.count == 2 && read.session == "s-1")
    }

    @Test func aKeyGivenTwiceInAnySpellingIsRefused() throws {
        let text = try Self.document()
        // Escaped so that each key reads differently to a parser that does not unescape keys.
        for member in [#""time_used\u005fseconds": "abc""#, #""time_used_seconds": 5"#, #""\u0073ession": "other""#,
                       #""time_used_second\u0073": 1e30"#] {
            #expect(throws: StrictJSON.Problem.self, "\(member)") { try ResultDocument.read(Self.adding(member, to: text)) }
        }
        // Nested objects too, and canonically equivalent keys (one key to JSONDecoder).
        #expect(throws: StrictJSON.Problem.self) { try StrictJSON.check(#"{"a":{"b":1,"b":2}}"#) }
        // In an object of many keys as in a short one.
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(throws: Never.self) { try StrictJSON.check("{\(many)}") }
        for repeated in ["k3", "k20", "k39", "k\\u0033"] {
            #expect(throws: StrictJSON.Problem.self, "\(repeated)") { try StrictJSON.check("{\(many),\"\(repeated)\":1}") }
        }
        #expect(throws: StrictJSON.Problem.self) { try StrictJSON.check("{\"caf\u{E9}\":1,\"cafe\\u0301\":2}") }
        do {
            try StrictJSON.check(#"{"x":1,"time_used\u005fseconds":1,"time_used_seconds":2}"#)
            Issue.record("a duplicate key was accepted")
        } catch {
            #expect(error.description.contains("time_used_seconds") && error.description.contains("twice"), "\(error)")
        }
    }

    @Test func textOnlyALenientParserWouldReadIsRefused() throws {
        for bad in ["{\"a\u{1}b\":1}", "{\"a\":\"x\u{1B}y\"}", #"{"a":"\ud800"}"#, #"{"a":"\udc00x"}"#, #"{"a":1} x"#, #"{"a":01}"#,
                    #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":+1}"#, #"{"a":NaN}"#, #"{"a":Infinity}"#, #"{"a":'x'}"#, #"{"a":1,}"#,
                    #"[1,]"#, #"{"a":"\x"}"#, #"{"a":tru}"#, "", "   ", #"{"a":1"#, #"{"a":"#, #"{"a" 1}"#, #"{a:1}"#,
                    String(repeating: "[", count: 40) + String(repeating: "]", count: 40)] {
            #expect(throws: StrictJSON.Problem.self, "\(bad.debugDescription)") { try StrictJSON.check(bad) }
        }
        for good in [#"{}"#, #"[]"#, #"{"a":[1,-0.5e+3,true,false,null,"\u00e9\ud83d\ude00\n"]}"#, " {\"a\" : \"é😀\" } \n", #""x""#, "0"] {
            #expect(throws: Never.self) { try StrictJSON.check(good) }
        }
    }

    @Test func aResultWithAnAbsurdNumberOrTimeIsRefusedWithItsReason() throws {
        let text = try Self.document()
        let cases = [
            ("\"time_used_seconds\": 1800", "\"time_used_seconds\": -5", "time used"),
            ("\"started_at\": \"2026-11-25T10:00:00Z\"", "\"started_at\": \"20000-01-01T00:00:00Z\"", "start time"),
            ("\"ended_at\": \"2026-11-25T10:30:00Z\"", "\"ended_at\": \"\\u001b]52;c;eA==\\u0007\"", "end time"),
            ("\"at\": \"2026-11-25T10:01:00Z\"", "\"at\": \"yesterday\"", "event"),
            ("\"max\": 2", "\"max\": 1e300", "score"),
            ("\"time_used_seconds\": 1800", "\"time_used_seconds\": 1e30", "not a result"),
        ]
        for (from, to, words) in cases {
            let bad = text.replacingOccurrences(of: from, with: to)
            #expect(bad != text, "\(from) is not in the document")
            do {
                _ = try ResultDocument.read(bad)
                Issue.record("\(to) was accepted")
            } catch {
                #expect(error.description.contains(words), "\(to): \(error.description)")
                #expect(!error.description.unicodeScalars.contains { $0.value == 0x1B })
            }
        }
    }

    @Test func aSkippedSessionIsNamedSafely() {
        let s = SkippedSession(session: "evil\u{1B}]52;c;eA==\u{07}" + String(repeating: "x", count: 100), reason: "r")
        #expect(!s.session.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(s.session.count < 70)
    }

    // MARK: passwords

    static let passwords = ["Hunter2/Secret", "/Hunter2Secret", "Hunter2@Secret", "Hunter2:Secret", "Hunter2%2FSecret",
                            "Hunter2?Secret", "Hunter2#Secret", "Hunter2&Secret", "Hunter2 Secret", "Hunter2[Secret",
                            "5432/Hunter2Secret", "Hunter2?host=Secret", "Hunter2/x@y:1/Secret", "Hunter2%Secret"]

    /// Every message about a URL holding `password`, typed as it is or %-escaped, in the
    /// userinfo or the query: none holds a part of it.
    @Test func noMessageAboutAStoreURLHoldsAnyPartOfItsPassword() {
        for password in Self.passwords {
            let escaped = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password
            for text in ["postgresql://carrel:\(password)@127.0.0.1:1/carrel", "postgresql://carrel:\(escaped)@127.0.0.1:1/carrel",
                         "postgresql://carrel@127.0.0.1:1/carrel?password=\(password)",
                         "postgresql://carrel@127.0.0.1:1/carrel?password=\(escaped)&sslmode=disable",
                         "postgresql://127.0.0.1:1/carrel?password=\(escaped)"] {
                do {
                    let url = try SharedURL.parse(text, environment: [:])
                    let shown = url.description + " " + url.redacting("the server said: password \(url.password ?? "") for \(url)")
                    #expect(!shown.contains("Hunter2") && !shown.contains("Secret"), "\(text) → \(shown)")
                } catch {
                    #expect(!error.description.contains("Hunter2") && !error.description.contains("Secret"), "\(text) → \(error)")
                }
            }
            // Escaped as a URL must be, it is read exactly.
            let url = try? SharedURL.parse("postgresql://carrel:\(escaped)@127.0.0.1:1/carrel", environment: [:])
            #expect(url?.password == password && url?.host == "127.0.0.1" && url?.database == "carrel", "\(password)")
        }
    }
}

/// A seat's own journal changed by hand: the damaged result is named and left out, the
/// others are exported, and `--strict` exits 65.
@Suite("carrel results on a journal changed by hand", .serialized)
struct DamagedJournalResultsTests {
    @Test func aResultWithAKeyGivenTwiceIsNamedAndLeftOutAndStrictExits65() throws {
        let box = try Sandbox()
        let file = try box.assessment(items: 2)
        var ids: [String] = []
        for name in ["Ada", "Eve"] {
            let (child, id) = try #require(try box.begin(file, candidate: name))
            child.send("answer q0 \(Response.text("a0").driverJSON)")
            child.send("submit")
            _ = child.expect("finished submitted")
            #expect(child.waitStatus() == 0)
            ids.append(id)
        }
        // Eve's result, as someone with write access to the state directory could leave it.
        let journal = try box.journal()
        try journal.writer.write { db in
            let json = try #require(try String.fetchOne(db, sql: "SELECT json FROM result WHERE session_id = ?", arguments: [ids[1]]))
            let twice = json.replacingOccurrences(of: "{", with: #"{"time_used\u005fseconds": "abc","#, options: [], range: json.range(of: "{"))
            try db.execute(sql: "UPDATE result SET json = ?, heading = NULL WHERE session_id = ?", arguments: [twice, ids[1]])
        }
        // Standard output and standard error together.
        func carrel(_ arguments: [String]) -> (status: Int32, text: String) {
            let out = ChildSpawn.run(ChildProcess.carrel, arguments + ["--state-dir", box.stateDir], environment: box.environment, timeout: 30)
            return (out.status, out.output)
        }
        for command in [["results", "export"], ["results", "export", "--format", "csv"]] {
            let out = carrel(command)
            let text = out.text
            #expect(out.status == 0, "\(command): \(text)")
            #expect(text.contains(ids[0]) && text.contains("skipped session \(ids[1]): its result cannot be read"), "\(command): \(text)")
            #expect(text.contains("appears twice") && text.contains("1 session skipped"), "\(command): \(text)")
            let strict = carrel(command + ["--strict"])
            #expect(strict.status == 65 && strict.text.contains(ids[0].prefix(8)) && strict.text.contains("--strict"), "\(command) --strict")
        }
        let show = carrel(["results", "show", ids[1]])
        #expect(show.status == 65 && show.text.contains("appears twice"), "\(show.text)")
    }
}
