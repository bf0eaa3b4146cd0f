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

struct TakeCommand: AsyncParsableCommand {
    static let configuration: CommandConfiguration = {
        var configuration = CommandConfiguration(
            commandName: "take",
            abstract: "Launch a locked assessment session in this terminal.",
            discussion: """
                Shows the start screen (what the test is and what is restricted), asks the proctor \
                passphrase when the assessment has one, confirms the lock, then runs the test until \
                it is submitted, the time runs out, or the proctor ends it. A sealed package \
                (`carrel seal`) is opened in memory by the passphrase typed on the start screen \
                (three tries, exit 77; a damaged package exits 65). \
                Refuses to start (exit 75) while another session holds the lock or an interrupted \
                session waits for the proctor, and (exit 69) when the policy refuses the environment.

                Keys (F1 shows them in the test; `carrel keys` prints them):

                """ + KeyTable.plainText
        )
        // Named as a command of `carrel`: parsed alone (a test's launch, Carrel.main), it is
        // then not asked for a completion script, a request whose check is a fifth of the
        // launch. A request for one, help and every error go through the whole tree, which
        // reads none of this.
        configuration._superCommandName = "carrel"
        return configuration
    }()

    @Argument(help: "The assessment file (.yaml, or sealed .carrel).") var file: String
    @Option(help: "The candidate's name, shown on screen and in the result.") var candidate: String?
    @Option(name: .customLong("extra-time"), help: ArgumentHelp(
        "Extra time: a multiplier from 1 to 10 (1.5), added time (+15m), or unlimited.", valueName: "time"))
    var extraTime: ExtraTime?
    @OptionGroup var display: DisplayOptions
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions

    func validate() throws {
        if let candidate, let problem = TerminalSafety.candidateNameProblem(candidate) {
            throw ValidationError(problem)
        }
    }

    func run() async throws {
        try await reportingFailures {
            // The file and the terminal are checked first, the store's URL after them.
            let launch = try self.launch()
            let publisher = try lab.publisher()
            publisher?.keepResults(in: SecureStateStorage(location: state.location))
            var join: RoomJoin?
            if let publisher, lab.roomName != nil {
                SeatMachineLogin.begin()
                join = try await RoomJoin.join(self, launch: launch, url: publisher.url)
            }
            let room = join
            let exit = try await Publishing.session(publisher) {
                try await TerminalThread.run { try self.session(launch, publisher: publisher, room: room) }
            }
            try exit.conclude()
        }
    }

    /// The assessment as the start screen shows it: read and checked, with a terminal to show it.
    struct Launch: Sendable {
        let loaded: AssessmentFile.Loaded
        /// A sealed package's header: the public facts shown until the passphrase opens it.
        let header: SealedAssessment.Header?
        let assessment: Assessment
    }

    func launch() throws -> Launch {
        let loaded = try AssessmentFile.load(file)
        let header = SealedAssessment.isSealed(loaded.bytes) ? try SealedFile.header(loaded, path: file) : nil
        let assessment = try header.map(\.metadata.preview) ?? AssessmentFile.validated(file, loaded: loaded)
        // A language Carrel does not speak is said before anything else is asked of the terminal.
        _ = try LanguagePick.choose(option: display.language, assessment: assessment.language)
        try Launcher.requireTerminal()
        return Launch(loaded: loaded, header: header, assessment: assessment)
    }

    /// The session on this thread, publishing through `publisher` (whose loop the caller runs):
    /// the start screen, the checks, the test, the receipt. Also the workshop test of the demo.
    func session(_ launch: Launch, publisher: SeatPublisher?, room: RoomJoin? = nil) throws -> TakeApp.Exit {
        let seat = try SeatLaunch(self, launch, publisher: publisher, room: room)
        let app = TakeApp(model: seat.model(launch.assessment), terminal: Canvas(theme: seat.theme))
        // The proctor's start and commands are taken as they arrive, not looked for.
        let bell = app.bell
        publisher?.onNews { bell.ring() }
        return app.run(seat)
    }
}

/// An enrolled machine's seat logs in to the store as the machine (`SeatLogin`): its helper
/// derives the password from the machine key. Said on standard error when the helper started
/// this seat and gives no login (an older helper), before anything else is shown.
enum SeatMachineLogin {
    static func begin() {
        guard MachineSigning.helperAnswers else { return }
        switch MachineSigning.storeLogin() {
        case let .success(login):
            SeatLogin.useMachine(role: login.role, password: login.password) { Console.error($0) }
        case let .failure(failure):
            Console.error("this machine's own store login is not available (\(failure.why)); this seat uses the shared seat role")
        }
    }
}
