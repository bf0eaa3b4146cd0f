import ArgumentParser
import TerminalUI

/// The keys of the test screen, from the one key table that also drives the keys themselves.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the keys of the test screen, as F1 shows them during a test.",
        discussion: "The README's key list and the man page are written from the same table."
    )

    @Flag(help: "Print the list as a Markdown table (the README's).") var markdown = false

    func run() {
        print(markdown ? KeyTable.markdown : KeyTable.plainText)
    }
}
