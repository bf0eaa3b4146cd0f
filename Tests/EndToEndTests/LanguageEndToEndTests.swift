#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SessionTestSupport
import Lockdown
import SessionKit
import Testing

/// A student who reads French, in a real terminal: every screen in French, the yes key of
/// French, a screen reader hearing the time in full on every Ctrl-T, nothing while idle, and
/// the language kept when the proctor resumes the session.
@Suite("Languages end to end (tmux)", .serialized)
struct LanguageEndToEndTests {
    static func practice(_ t: TmuxHarness) throws -> String {
        let text = """
            carrel: 1
            id: lecture
            title: Lecture
            time_limit: 20m
            policy: { multiplexer: allow }
            sections:
              - title: Texte
                items:
                  - id: crue
                    type: choice
                    prompt: Qu'est-ce qui a monté dans la nuit ?
                    choices: [La rivière, La ville]
                    answer: La rivière
                  - id: mot
                    type: text
                    prompt: Un mot pour une inondation.
                    accept: [déluge]

            """
        let path = t.root + "/lecture.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The bytes `window` wrote since `path` was last read to `offset`, as text.
    static func written(_ path: String, from offset: Int) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return String(decoding: data.dropFirst(offset), as: UTF8.self)
    }

    @Test(.timeLimit(.minutes(3)))
    func aFrenchScreenReaderSessionIsHeardInFrenchAndCtrlTIsSaidWholeEveryTime() throws {
        let t = try #require(TmuxHarness())
        let file = try Self.practice(t)
        t.start("fr", ["take", file, "--candidate", "Léa", "--screen-reader", "--language", "fr"])
        #expect(t.waitFor("fr", "Enter") != nil)
        #expect(t.screen("fr").contains("2 questions"), "the start screen is French:\n\(t.screen("fr"))")
        t.keys("fr", "Enter")
        #expect(t.waitFor("fr", "o/N") != nil, "French asks with o for oui:\n\(t.screen("fr"))")
        #expect(t.screen("fr").contains("Commencer"))
        t.type("fr", "o")
        #expect(t.waitFor("fr", "Appuyez sur une touche") != nil, "o is yes in French:\n\(t.screen("fr"))")
        t.keys("fr", "Space")
        #expect(t.waitFor("fr", "Question 1 sur 2") != nil)
        #expect(t.screen("fr").hasPrefix(" Question 1 sur 2, partie Texte"), "a whole repaint starts with where the student is")

        t.type("fr", "a")
        #expect(t.waitFor("fr", "sélectionné") != nil, "the chosen answer is said in words, in French:\n\(t.screen("fr"))")
        let line = try #require(t.cursorLine("fr"))
        #expect(line.contains("sélectionné"), "the cursor line says the state: \(line)")

        // Ctrl-T twice: the second, two seconds later, is written whole (the line is blanked
        // first), so a reader that speaks what changed says the whole sentence again.
        let output = t.recordOutput("fr")
        t.keys("fr", "C-t")
        #expect(t.waitFor("fr", "Il reste") != nil, "the time left in words:\n\(t.screen("fr"))")
        usleep(2_200_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: output)).count
        t.keys("fr", "C-t")
        usleep(800_000)
        let second = try Self.written(output, from: before)
        #expect(second.contains("Il reste") && second.contains("minutes") && second.contains("secondes"),
                "the second Ctrl-T writes the whole sentence: \(second.debugDescription)")

        // Idle: not one byte.
        let quiet = try Data(contentsOf: URL(fileURLWithPath: output)).count
        usleep(3_000_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).count == quiet, "idle in screen-reader mode writes nothing")

        t.keys("fr", "C-c")
        #expect(t.waitFor("fr", "Terminer cet entraînement") != nil, "\(t.screen("fr"))")
        t.type("fr", "o")
        #expect(t.waitFor("fr", "Ce terminal n") != nil, "the receipt is French:\n\(t.screen("fr"))")
        t.keys("fr", "Enter")
        #expect(t.exitStatus("fr") == 0)
    }

    /// The environment chooses Japanese; the machine may never have generated that locale
    /// (this one has only C.UTF-8): the screen is Japanese all the same, not mojibake.
    @Test(.timeLimit(.minutes(3)))
    func theEnvironmentsLanguageIsSpokenEvenWhenItsLocaleIsNotInstalled() throws {
        let t = try #require(TmuxHarness())
        let file = try Self.practice(t)
        t.start("ja", ["take", file, "--candidate", "花子"], environment: ["LANG": "ja_JP.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""])
        let start = try #require(t.waitFor("ja", "F1 ヘルプ"), "the start screen speaks Japanese:\n\(t.screen("ja"))")
        #expect(start.contains("全 2 問"), "\(start)")
        #expect(start.contains("受験者：花子"), "wide characters are drawn as characters:\n\(start)")
        t.keys("ja", "Escape")
        #expect(t.exitStatus("ja") == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aResumedSessionKeepsItsLanguage() throws {
        let t = try #require(TmuxHarness())
        let file = try t.fixture("geography.yaml")
        t.start("de", ["take", file, "--candidate", "Ada", "--language", "de"])
        #expect(t.waitFor("de", "Aufsicht") != nil, "the start screen asks the proctor in German:\n\(t.screen("de"))")
        t.type("de", "proctor phrase")
        t.keys("de", "Enter")
        #expect(t.waitFor("de", "j/N") != nil, "\(t.screen("de"))")
        t.type("de", "j")
        #expect(t.waitFor("de", "Dieses Terminal ist jetzt") != nil, "\(t.screen("de"))")
        t.keys("de", "Enter")
        #expect(t.waitFor("de", "Frage 1 von 8") != nil, "\(t.screen("de"))")
        #expect(t.killAndResume("de", in: "again"))
        #expect(t.waitFor("again", "Frage 1 von 8") != nil, "resume keeps German:\n\(t.screen("again"))")
        #expect(t.screen("again").contains("wiederhergestellt"), "the resumed status is German:\n\(t.screen("again"))")
        #expect(t.submitIn("again", yes: "j", asking: "abgeben", done: "nicht mehr gesperrt"))
    }
}

extension TmuxHarness {
    /// Submits in another language: Ctrl-S, the language's yes key, the receipt closed.
    /// Submits in the language of the session; with `leave: false` the receipt stays shown.
    func submitIn(_ window: String, yes: String, asking: String, done: String, leave: Bool = true) -> Bool {
        keys(window, "C-s")
        guard waitFor(window, asking) != nil else { return false }
        type(window, yes)
        guard waitFor(window, done) != nil else { return false }
        if !leave { return true }
        keys(window, "Enter")
        return exitStatus(window) == 0
    }
}
