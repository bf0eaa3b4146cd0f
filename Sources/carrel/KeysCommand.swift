import ArgumentParser
import TerminalUI

/// The keys of Carrel's screens, from the key maps the screens themselves react by.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List the keys of the test screen, as F1 shows them during a test (--all: of every screen).",
        discussion: """
            The README's key list and the man page are written from the same key maps. \
            The other screens' keys (`carrel keys --all`):

            """ + "\n" + KeyMaps.every.filter { $0.name != "question" }.map { "\($0.title):\n\($0.plainText)" }.joined(separator: "\n\n")
    )

    @Flag(help: "Print the list as a Markdown table (the README's).") var markdown = false
    @Flag(help: "List every screen's keys, each under its title.") var all = false
    @Option(help: ArgumentHelp("List one screen's keys.", valueName: "name"), completion: .list(KeyMaps.every.map(\.name)))
    var screen: String?

    func validate() throws {
        if all && screen != nil { throw ValidationError("--all and --screen cannot be used together") }
        if let screen, KeyMaps.listing(screen) == nil {
            throw ValidationError("no screen named '\(screen)'; screens: " + KeyMaps.every.map(\.name).joined(separator: ", "))
        }
    }

    func run() {
        let listings = all ? KeyMaps.every : [screen.flatMap(KeyMaps.listing) ?? TakeKeys.question().listing]
        let text = listings.map { listing in
            let body = markdown ? listing.markdown : listing.plainText
            return listings.count == 1 ? body : (markdown ? "### \(listing.title)\n\n" : "\(listing.title):\n") + body
        }
        print(text.joined(separator: "\n\n"))
    }
}
