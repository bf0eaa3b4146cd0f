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

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Continue an interrupted session where it stopped (proctor).",
        discussion: """
            After a crash, kill -9, SIGHUP or power loss, the session continues with the same \
            question order, every saved answer and flag, the same position, the time that was \
            left, and the theme and screen-reader mode it was launched with. Asks the proctor \
            passphrase when the assessment has one (it also opens a sealed assessment, which the \
            journal keeps sealed). Refused (exit 75) while the session's \
            process is still running, from whatever shell it is asked.
            """
    )

    @Argument(help: "The session id (or its first characters); needed only when several wait.")
    var session: String?
    @OptionGroup var display: DisplayOptions
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions

    func run() async throws {
        try await reportingFailures {
            let (record, journal) = try waitingSession()
            // A session that published goes on publishing to its store, never silently without it.
            let publisher = try lab.publisher(continuing: record, command: "resume")
            if let publisher { try await Self.refuseFenced(record, url: publisher.url) }
            publisher?.keepResults(in: SecureStateStorage(location: state.location))
            let exit = try await Publishing.session(publisher) {
                try await TerminalThread.run { try self.session(record, journal: journal, publisher: publisher) }
            }
            try exit.conclude()
        }
    }

    /// A session the proctor moved to another seat, or ended as lost, does not go on here: the
    /// store no longer takes anything from this seat for it, and says where it went.
    static func refuseFenced(_ record: SessionRecord, url: SharedURL) async throws(CarrelFailure) {
        guard let token = record.options.shared?.storeToken,
              let fate = await SeatRoom.fate(url, session: record.id, tokens: [token]) else { return }
        let short = record.id.prefix(8)
        switch fate {
        case let .moved(seat):
            throw CarrelFailure(status: .refused, message: "this session continues at seat \(seat): the proctor moved session \(short) there, and nothing this seat writes for it counts any more (`carrel unlock` clears it from this machine)")
        case .lost:
            throw CarrelFailure(status: .refused, message: "the proctor ended this session: its seat was lost (session \(short), ended by the proctor, seat lost); nothing this seat writes for it counts any more (`carrel unlock` clears it from this machine)")
        }
    }

    /// The session to resume, after the lock and the journal are checked.
    func waitingSession() throws -> (SessionRecord, Journal) {
        let probe = state.context(needsTerminal: true)
        if case let .held(holder) = probe.lock.inspect() {
            throw SessionError.lockHeld(holder).failure
        }
        guard let journal = try state.existingJournal() else { throw SessionError.nothingToResume.failure }
        let record: SessionRecord
        do {
            let waiting = try SessionRuntime.waiting(journal: journal, context: probe)
            record = try SessionRuntime.pick(session, from: waiting)
        } catch {
            throw error.failure
        }
        return (record, journal)
    }

    /// The resumed session on this thread, publishing through `publisher` (whose loop the
    /// caller runs).
    func session(_ record: SessionRecord, journal: Journal, publisher: SeatPublisher?) throws -> TakeApp.Exit {
        var context = state.context(needsTerminal: true, publisher: publisher)
        let (assessment, passphrase) = try ProctorCheck.opened(record, journal: journal, location: context.location, action: "resume")
        // The assessment-mode service checks the same passphrase before the resumed session
        // takes the machine's mode over.
        context.modePassphrase = passphrase
        if let publisher, record.options.shared != nil, let passphrase,
           let seatKey = try? journal.events(session: record.id).last(where: { $0.kind == EventKind.seatKey.rawValue })?.detail,
           let signing = assessment.proctor.key?.signingKey(passphrase: passphrase) {
            // The proctor's passphrase derives the session's key again (with the seat key its
            // start was wrapped to): what the resumed session publishes is authenticated as
            // before the interruption. A journal that cannot be read here leaves it unverified.
            publisher.authenticate(session: record.id, key: signing.sessionKey(record.id, seatKey: seatKey))
        }
        let theme = display.resolvedTheme(launched: record.options.theme)
        var model = TakeModel(
            // As the seat showed the candidate before: a rostered candidate with their number.
            assessment: assessment, candidate: record.options.shared?.candidateNumber.map { "\(record.candidate ?? "") (\($0))" } ?? record.candidate,
            timeAllowed: record.extraTime.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) },
            theme: theme, screenReader: display.screenReader || record.options.screenReader == true)
        // The language the session was launched in, unless --language asks for another.
        model.say = Localizer(try LanguagePick.choose(option: display.language ?? record.options.language, assessment: assessment.language).language)
        model.phase = .test
        model.show(model.say("Session resumed: your answers, flags and time are restored"), now: SessionClock.system.monotonic())
        if record.options.shared != nil {
            try Launcher.requireStore(publisher, policy: assessment.policy)
        }
        if let publisher, let label = record.options.shared, label.attestation != nil {
            // A session of a room goes on reading the proctor's commands after the last it applied.
            let events: [JournalEvent]
            do {
                events = try journal.events(session: record.id)
            } catch {
                throw CarrelFailure(status: .cannotOpenInput, message: "the journal's events of session \(record.id) cannot be read: \(error)")
            }
            publisher.follow(room: label.room, seat: label.seat, after: RoomControl.replay(events, watched: true).lastCommand)
        }
        let app = TakeApp(model: model, terminal: Canvas(theme: theme))
        // The proctor's commands are taken as they arrive, not looked for.
        let bell = app.bell
        publisher?.onNews { bell.ring() }
        let exit = app.run { app throws(SessionError) in
            // A session that published before publishes again (the begin step `publish`),
            // this run's records and any the last run left waiting.
            try SessionRuntime.resume(
                sessionID: record.id, context: context, open: { _ in assessment },
                enterUI: { app.terminal.setReports(true) }, leaveUI: { app.terminal.setReports(false) })
        }
        return exit
    }
}
