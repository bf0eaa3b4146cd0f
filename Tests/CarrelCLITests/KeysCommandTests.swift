import Foundation
import Testing

@Suite("carrel keys")
struct KeysCommandTests {
    @Test func theDefaultIsTheQuestionScreenAndMarkdownIsTheReadmesTable() throws {
        let plain = try CarrelProcess.run(["keys"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.hasPrefix("Tab / Ctrl-N: next question"))
        #expect(plain.stdout.split(separator: "\n").count == 16)
        let markdown = try CarrelProcess.run(["keys", "--markdown"])
        let readme = try String(contentsOf: CarrelProcess.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("<!-- keys:begin -->\n" + markdown.stdout + "<!-- keys:end -->"))
    }

    @Test func allListsEveryScreenUnderItsTitle() throws {
        let result = try CarrelProcess.run(["keys", "--all"])
        #expect(result.status == 0, "\(result.stderr)")
        for title in ["The start screen:", "The question screen:", "The review screen:", "The list of keys (F1):",
                      "The workshop demo (carrel demo):", "The proctor's console (carrel proctor):"] {
            #expect(result.stdout.contains(title + "\n"), "\(title)")
        }
        #expect(result.stdout.contains("↑ ↓ or k j: select the seat above or below."))
        let console = try CarrelProcess.run(["keys", "--screen", "console", "--markdown"])
        #expect(console.stdout.hasPrefix("| key | what it does |\n|---|---|\n| ↑ ↓ or k j |"))
    }

    @Test func anUnknownScreenIsAUsageErrorNamingTheScreens() throws {
        let result = try CarrelProcess.run(["keys", "--screen", "lobby"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("no screen named 'lobby'; screens: start, begin, question"))
    }
}
