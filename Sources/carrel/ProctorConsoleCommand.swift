import Localization
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore
import Synchronization
import TerminalUI

/// `carrel proctor`: the console by default, and the actions on seats (`ProctorCommand` in SessionKit is
/// what such an action sends).
struct ProctorConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proctor",
        abstract: "Watch a room (the console, or --json) and act on its seats.",
        subcommands: [ProctorWatch.self, ProctorStart.self, ProctorMove.self, ProctorLost.self, ProctorAdmit.self, ProctorRelease.self, ProctorPause.self, ProctorResume.self, ProctorTime.self,
                      ProctorMessage.self, ProctorEnd.self, ProctorAcknowledge.self],
        defaultSubcommand: ProctorWatch.self
    )
}

struct ProctorWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A live console of every seat in a room (reads the lab's shared store).",
        discussion: """
            Shows each seat that publishes with --shared: candidate, status (not started, \
            active, interrupted, submitted, timed out, ended), answered of total, time left, \
            paste attempts, focus losses, exit attempts and when it was last heard from; \
            interrupted seats and seats with incidents first. It refreshes within a second of \
            any change (PostgreSQL LISTEN/NOTIFY) and once a second by itself. A seat whose \
            process is gone shows as interrupted at once (its connection's lock is released). \
            Enter opens the seat's integrity report. --json prints one snapshot for scripts:
            {"seats": [{"session", "candidate", "seat", "room", "assessment", "status", \
            "answered", "total", "time_left_seconds", "paste_attempts", "focus_losses", \
            "exit_attempts", "last_seen", "waiting", "paused", "hand", "commands_pending", \
            "carrel_version", "executable_digest", "fingerprint", "warnings", "scoring", \
            "score_points", "score_max", "score_pending", "machine_incidents", "last_incident", \
            "assessment_mode", …}]}.

            A finished session's score is said on its line (the focused seat's sentence) and in \
            its report: "score 7 of 10, 2 to mark". A sealed test's seats started from the console \
            had no answer key: their results are scored with --test FILE.carrel, which the \
            proctor's passphrase opens (with --json: --passphrase-stdin); without it they read \
            "not scored yet (give --test)". With the passphrase a score comes only from the \
            result the seat's own records verify.

            The actions (start, pause, resume, time, message, end, acknowledge) send a command \
            to the room's seats, or those named with --seat, and print which seats applied it.
            """
    )

    @OptionGroup var lab: SharedOptions
    @Flag(help: "Print one snapshot of the seats as JSON and exit.") var json = false
    @Flag(name: .customLong("screen-reader"), help: "Keep the cursor on the focused seat; times in whole minutes, so the screen changes only when something happens.")
    var screenReader = false
    @Option(help: "default, mono (also chosen by a non-empty NO_COLOR) or contrast.") var theme: ThemeName?
    @Option(help: ArgumentHelp(LanguagePick.help, valueName: "code")) var language: String?
    @Flag(name: .customLong("passphrase-stdin"), help: "With --json: read the proctor passphrase from standard input and check each seat's liveness with the room's key (\"verified\").")
    var passphraseStdin = false
    @OptionGroup var sealed: SealedTests

    func run() async throws {
        try await reportingFailures {
            let url = try lab.store.required(by: "proctor")
            let room = lab.roomName
            if !json && (isatty(0) != 1 || isatty(1) != 1) {
                throw CarrelFailure(status: .refused, message: "`carrel proctor` needs a terminal; use --json for one snapshot")
            }
            let reader = try await SharedOptions.reader(url)
            if json {
                try await snapshot(reader, url: url, room: room)
                return
            }
            // The passphrase signs the console's commands: asked once, and only when a room in
            // view can be commanded at all (its open plan has a proctor key).
            var passphrase: String?
            let keyed: Int
            do {
                keyed = try await reader.commandableRooms(room: room)
            } catch {
                await reader.close()
                throw CarrelFailure(status: .cannotOpenInput, message: "cannot read the shared store \(url): \(SeatPublisher.describe(error))")
            }
            // With --test the passphrase also opens the sealed tests, which score the seats that
            // had no answer key: it is needed then, whatever the rooms.
            let scoresTests = !sealed.tests.isEmpty
            var scoring: ResultScoring?
            if keyed > 0 || scoresTests {
                let secret = SecretReader()
                defer { secret.finish() }
                do {
                    passphrase = try secret.readIfAny(prompt: scoresTests
                        ? "Proctor passphrase (signs the console's commands and opens the --test files): "
                        : "Proctor passphrase (signs the console's commands; Enter alone: watch only): ")
                    if passphrase?.isEmpty == true { passphrase = nil }
                    if scoresTests {
                        guard let passphrase else {
                            throw CarrelFailure(status: .usage, message: "--test scores with the proctor's passphrase: type it, or leave out --test to only watch")
                        }
                        scoring = try sealed.scoring(passphrase: passphrase)
                    }
                } catch {
                    await reader.close()
                    throw error
                }
            }
            let chosen = Theme.named(theme?.rawValue, environment: ProcessEnvironment.current) ?? .standard
            let screenReader = self.screenReader
            let say = Localizer(try LanguagePick.choose(option: language).language)
            let feed = ConsoleFeed(url: url, room: room, signer: ProctorSigner(passphrase: passphrase), scoring: scoring,
                                   lostTests: sealed.tests)
            // The feed reads the store as a child task; the console's loop waits on the terminal
            // on a thread of its own. When the proctor quits, the feed is cancelled and closes
            // its connection before the command returns.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await feed.run(first: reader) }
                defer { group.cancelAll() }
                try await TerminalThread.run {
                    let app = ConsoleApp(source: feed, room: room, screenReader: screenReader)
                    app.model.say = say
                    app.run(on: Canvas(theme: chosen))
                }
            }
        }
    }

    /// `--json`: one snapshot of the seats, checked with the passphrase when it is given
    /// (`--passphrase-stdin`), scored with `--test`.
    func snapshot(_ reader: SharedReader, url: SharedURL, room: String?) async throws(CarrelFailure) {
        struct Snapshot: Encodable { var seats: [SeatView] }
        var seats: [SeatView]
        let signer: ProctorSigner?
        let scoring: ResultScoring?
        do throws(CarrelFailure) {
            if passphraseStdin {
                let passphrase = try SecretReader(prompting: false).read(prompt: "")
                signer = ProctorSigner(passphrase: passphrase)
                scoring = try sealed.scoring(passphrase: passphrase)
            } else {
                try sealed.needsPassphrase()
                signer = nil
                scoring = nil
            }
        } catch {
            await reader.close()
            throw error
        }
        do {
            seats = try await reader.seats(room: room)
            try await HeldSeats.flag(&seats, reader: reader)
            var plans: [String: RoomPlan] = [:]
            if let signer {
                for name in Set(seats.map(\.room)) { plans[name] = try await reader.room(name) }
                try await SeatChains().apply(&seats, reader: reader, keys: signer.roomKeys(plans),
                                             proctorStarts: Set(plans.filter { $0.value.startMode == .proctor }.keys))
                signer.check(&seats, plans: plans)
            }
            // Each finished seat's score, from the result its seat wrote (with the passphrase).
            let finished = seats.filter { SeatScore.finished($0.status) }
            if !finished.isEmpty {
                let results = try await reader.finishedResults(finished.map { ($0.session, $0.room) },
                                                               keys: signer.map { $0.roomKeys(plans) })
                let marks = try await reader.storeMarks(sessions: finished.map(\.session))
                ConsoleFeed.apply(results, marks: marks, scoring: scoring, to: &seats)
            }
        } catch {
            // Closed on every path: PostgresNIO stops the process when a connection is
            // dropped without being closed.
            await reader.close()
            throw CarrelFailure(status: .cannotOpenInput, message: "cannot read the shared store \(url): \(SeatPublisher.describe(error))")
        }
        await reader.close()
        FileOutput.standardOutput.write(try JSONText.pretty(Snapshot(seats: seats)))
    }
}
