import Localization
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The workshop playground: begin and end a real session, try typing and pasting, watch the log.",
        discussion: """
            Uses the real session controller: the same lock, pasteboard clearing and probes as \
            `carrel take`, with a demo policy that allows tmux. While its session is active, \
            `carrel status` elsewhere shows it and `carrel take` there is refused. Demo sessions \
            are practice sessions: their results are kept like any other.
            """
    )

    @Option(help: "The assessment F5 opens (default: Assessments/workshop.yaml when present).") var workshop: String?
    @Option(help: "default, mono (also chosen by NO_COLOR) or contrast.") var theme: String?
    @Option(help: ArgumentHelp(LanguagePick.help, valueName: "code")) var language: String?
    @Option(help: ArgumentHelp("A translator's catalog to read the screens in: checked, then offered for this run; its language is chosen unless --language names another.", valueName: "file.po"))
    var catalog: String?
    @Option(help: ArgumentHelp("Write every screen of the workshop test, the demo, the console and every box to this file (- for standard output) and exit: no terminal, no session.", valueName: "file"))
    var screens: String?
    @Option(help: ArgumentHelp("The size of --screens, in columns and rows.", valueName: "columns×rows")) var size = "80x24"
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions


    func run() async throws {
        try await reportingFailures {
            let language = try chosenLanguage()
            if let screens {
                try writeScreens(to: screens, language: language)
                return
            }
            guard isatty(0) == 1, isatty(1) == 1 else {
                throw CarrelFailure(status: .refused, message: "`carrel demo` needs a terminal on standard input and output")
            }
            let publisher = try lab.publisher()
            _ = try await Publishing.session(publisher) {
                try await TerminalThread.run { try self.demo(publisher: publisher) }
            }
        }
    }

    /// The demo on this thread (and the workshop test it opens), publishing through
    /// `publisher` (whose loop the caller runs).
    func demo(publisher: SeatPublisher?) throws {
        guard let assessment = AssessmentReader.read(text: DemoApp.sessionYAML, file: "(demo)").assessment else {
            throw CarrelFailure(status: .internalError, message: "the built-in demo session does not validate")
        }
        let workshopPath = workshop ?? "Assessments/workshop.yaml"
        let available = FileManager.default.fileExists(atPath: workshopPath)
        let missing = available ? nil : (workshop == nil
            ? "no Assessments/workshop.yaml here; start the demo with --workshop FILE"
            : "\(workshopPath) not found")
        let chosen = Theme.named(theme, environment: ProcessEnvironment.current) ?? .standard
        let app = DemoApp(assessment: assessment, source: StoredAssessment(bytes: Data(DemoApp.sessionYAML.utf8), path: "(demo)"),
                          context: state.context(needsTerminal: true, publisher: publisher), theme: chosen,
                          terminal: Canvas(theme: chosen), workshopAvailable: available)
        app.model.workshopMissing = missing
        app.model.say = Localizer(try chosenLanguage())
        app.label = publisher.map { lab.label(publishingTo: $0) }
        if available { app.workshop = { runWorkshop(workshopPath, theme: chosen, publisher: publisher) } }
        app.run()
    }
}

extension DemoCommand {
    /// The workshop test (F5), run as `carrel take` would run it, with this demo's state
    /// directory and its publisher; the line says how it ended.
    func runWorkshop(_ path: String, theme: Theme, publisher: SeatPublisher?) -> String {
        // The workshop test's seat leaves the store's room with it, as `carrel take` does.
        defer { publisher?.leave() }
        do {
            var take = try TakeCommand.parse([path, "--candidate", "Workshop"] + (state.stateDir.map { ["--state-dir", $0] } ?? []))
            take.lab = lab
            take.display.theme = ThemeName(rawValue: theme.name)
            take.display.language = (try? chosenLanguage())?.rawValue ?? language
            try take.session(try take.launch(), publisher: publisher).conclude()
            return "Workshop test finished"
        } catch let failure as CarrelFailure {
            return "Workshop test ended: \(failure.message)"
        } catch {
            return "Workshop test ended: \(TakeCommand.message(for: error))"
        }
    }
}
