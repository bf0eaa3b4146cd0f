#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Lockdown
import SharedStore

@main
struct Carrel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carrel",
        abstract: "A locked-down, timed assessment in the terminal.",
        discussion: """
            A proctor launches `carrel take FILE --candidate NAME` and hands over the keyboard; \
            the terminal stays locked to the test until it is submitted, the time runs out, or \
            the proctor ends it. After a crash, `carrel status` tells what happened, and \
            `carrel resume` or `carrel unlock` continue or end the session. `carrel results` \
            collects the results; `carrel demo` is the workshop playground.

            Teachers write assessments in YAML (see Assessments/README.md) or bring question banks \
            with `carrel import` (Moodle GIFT, Aiken and Cloze, QTI 2.1/3.0), and check them with \
            `carrel validate`; `carrel inspect` shows what a student will get and the policy that \
            applies; `carrel passphrase` makes the hash line for a proctor passphrase; \
            `carrel seal` encrypts an assessment under it for labs and shared computers.

            Exit codes: 0 ok, 64 usage, 65 invalid assessment, 66 cannot open input, \
            69 refused by policy or environment, 70 internal error, 73 cannot create state, \
            75 lock active or interrupted session waiting, 77 wrong passphrase.
            """,
        version: "0.1.0",
        subcommands: [
            TakeCommand.self, DemoCommand.self, ValidateCommand.self, InspectCommand.self, ImportCommand.self, PassphraseCommand.self, SealCommand.self,
            StatusCommand.self, ResumeCommand.self, UnlockCommand.self, ResultsCommand.self, ProctorConsoleCommand.self, RoomCommand.self,
            StoreCommand.self, KeysCommand.self, SeatCommand.self,
        ]
    )

    /// Notes the code mapped at start (before anything loads a library of its own), keeps
    /// tracers out, delivers the signals Carrel relies on whatever mask the parent left, and
    /// writes every message — argument errors and help included — through the sanitiser.
    /// A seat that waits in a room (`take … --room`) and `seat check` ask the machine to sign:
    /// on an enrolled machine they run as the child of its signing helper.
    static func signsAtStart(_ arguments: [String]) -> Bool {
        if arguments.starts(with: ["seat", "check"]) { return true }
        return arguments.first == "take" && arguments.contains { $0 == "--room" || $0.hasPrefix("--room=") }
    }

    static func main() async {
        LoadedCode.recordAtStart()
        ProcessHardening.makeNonDumpable()
        // Started by the machine's signing helper, this process ran with another effective
        // group so that it was non-dumpable from its exec: it takes its own group back now
        // (still non-dumpable: a change of ids keeps it so). Anywhere else the two are the same.
        let group = getgid()
        let launched = getegid() != group
        if launched, !ProcessHardening.takeBackGroup(group) || getegid() != group {
            FileOutput.standardError.write("carrel: cannot take back this user's group; nothing was started\n")
            Glibc.exit(ExitStatus.internalError.rawValue)
        }
        // It ends with its helper (the kernel cleared the helper's setting at the exec): set
        // now, then the helper's answer shows it had not ended before.
        if launched { ProcessHardening.dieWithParent() }
        MachineSigning.answerLaunch()
        if launched, MachineSigning.startedByHelper, !MachineSigning.helperAnswers {
            FileOutput.standardError.write("carrel: the machine's signing helper has ended; nothing was started\n")
            Glibc.exit(ExitStatus.internalError.rawValue)
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if Self.signsAtStart(arguments) { MachineSigning.relaunch(arguments, machineFolder: MachineFolder.path) }
        SignalGuard.unblockRelied()
        umask(0o077)
        do {
            // A test's launch parses `take` alone (what a candidate waits for is the first frame):
            // the whole tree of commands is read only when that does not parse, so every error
            // and help text is the one `carrel` gives.
            // (Run as what it is: asking whether it is async costs a search of the program's
            // conformances.)
            if arguments.first == "take", let take = try? TakeCommand.parse(Array(arguments.dropFirst())) {
                try await take.run()
                return
            }
            var command = try parseAsRoot(nil)
            // Commands that use the lab's store are async: their store work runs as child tasks.
            if var async = command as? any AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            if !text.isEmpty { (code == .success ? FileOutput.standardOutput : FileOutput.standardError).write(text + "\n") }
            Glibc.exit(code.rawValue)
        }
    }
}
