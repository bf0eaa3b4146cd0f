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
    static let configuration = CommandConfiguration(
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
        let (loaded, header, assessment) = (launch.loaded, launch.header, launch.assessment)
        // A roster's accommodations are the only ones a seat of its room has.
        let extra = room?.match?.extraTime ?? extraTime ?? ExtraTime.none
        let themeName = room?.match?.theme ?? display.theme?.rawValue
        let theme = Theme.named(themeName, environment: ProcessInfo.processInfo.environment) ?? .standard
        // A rostered candidate is named by the roster; their number goes with the seat's label.
        let candidate = room?.match.map { TerminalSafety.visible($0.name, keepLineBreaks: false) } ?? self.candidate
        let shownCandidate = room?.match.map { "\($0.name) (\($0.candidate))" } ?? candidate
        let screenReader = room?.match?.screenReader ?? display.screenReader
        let language = try LanguagePick.choose(roster: room?.match?.language, option: display.language, assessment: assessment.language)
        let waits = room?.plan.startMode == .proctor
        // A sealed test in a room the proctor starts, whose header carries the proctor's key:
        // the start opens it (its package key comes wrapped to this seat), no passphrase here.
        let startOpens = waits && header != nil && assessment.proctor.key != nil
        // The seat's key pair for the proctor's start (only its public half leaves memory).
        let box = SeatBox()
        let model = { (assessment: Assessment) in
            var model = TakeModel(
                assessment: assessment, candidate: shownCandidate,
                timeAllowed: extra.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) },
                theme: theme, screenReader: screenReader)
            model.say = Localizer(language.language)
            model.waitingForProctor = waits
            model.passphraseOpensTest = header != nil && !startOpens
            if waits { model.seatKey = box.fingerprint }
            return model
        }
        let app = TakeApp(model: model(assessment), terminal: Canvas(theme: theme))
        let file = self.file
        var opened = false
        if header != nil {
            app.launchOpener = { typed, _ throws(SessionError) in
                do throws(SealedAssessment.Failure) {
                    // The launch gate has just checked `typed` against the header's hash.
                    let real = try SealedAssessment.open(loaded.bytes, passphrase: typed, file: file, passphraseChecked: true)
                    opened = true
                    return model(real)
                } catch {
                    throw .sealed(file: file, error)
                }
            }
        }
        var seatLabel = publisher.map { lab.label(publishingTo: $0) }
        seatLabel?.attestation = room.map { SeatFacts.attestation(fingerprint: $0.fingerprint, policy: assessment.policy) }
        seatLabel?.candidateNumber = room?.match?.candidate
        var options = SessionOptions(theme: themeName, screenReader: screenReader, shared: seatLabel)
        options.language = language.language.rawValue
        let source = StoredAssessment(bytes: Data(loaded.bytes), path: file, format: header == nil ? .yaml : .sealed)
        // The probes (loaded code, multiplexer, tracer), the lock and the journal run after
        // the start screen is on screen and before the first key is read: nothing can begin
        // until they pass, and a refusal leaves the screen with its one line.
        var context: SessionContext?
        let state = self.state
        // The session's id is chosen now, so that a seat waiting at its start screen can be
        // shown to the proctor under it ("not started") before it begins.
        let sessionID = SessionIDs.random.sessionID()
        let label = options.shared
        // What the proctor's start gave this session.
        let startSecrets = Holder<SeatSecrets?>(nil)
        let prepare = { () -> TakeApp.Exit? in
            var ready = state.context(needsTerminal: true, publisher: publisher)
            ready.ids = SessionIDs(sessionID: { sessionID }, seed: SessionIDs.random.seed)
            do throws(CarrelFailure) {
                try Launcher.precheck(assessment: assessment, context: ready)
                try Launcher.requireStore(publisher, policy: assessment.policy)
            } catch {
                return TakeApp.Exit(error.status.rawValue, error.message)
            }
            if let publisher, var label {
                label.total = assessment.questionsPerSession
                label.timeAllowed = extra.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) }
                publisher.announce(.init(session: sessionID, label: label, candidate: candidate,
                                         assessmentID: assessment.id, assessmentTitle: assessment.title,
                                         boxKey: waits ? box.publicKey : nil))
                publisher.start()
            }
            if let hash = assessment.proctor.passphrase, let make = ready.passphrases {
                app.launchChecker = make(hash, "launch \(assessment.id)")
            }
            if let publisher, let room, let label {
                publisher.follow(room: label.room, seat: label.seat, after: room.plan.lastCommand)
                if waits {
                    // A seat that waits makes its journal ready (created, migrated) now, so that
                    // the proctor's start does not wait for it; a failure here is met again,
                    // and reported, when the session begins.
                    if let writer = try? ready.storage.openJournal(create: true) { _ = try? Journal(writer: writer) }
                    SessionRuntime.rehearseBegin(assessment: assessment, candidate: candidate, extraTime: extra, options: options)
                    // The proctor's start, once one verifies against this test's key (a sealed
                    // test's is in its authenticated header) for this room, seat and test, and was
                    // signed after this seat joined; each that does not is reported, never obeyed.
                    let key = assessment.proctor.key
                    let fingerprint = room.fingerprint
                    let floor = SignedCommand.floor(joined: Date())
                    app.proctorStart = {
                        let check = SignedCommand.Check(key: key, room: label.room, seat: label.seat, fingerprint: fingerprint,
                                                        now: Date(), lastSequence: floor, session: sessionID)
                        guard let (command, secrets) = publisher.verifiedStart(check, box: box) else { return nil }
                        // The session's key: its records and liveness are authenticated with it.
                        if let secrets { publisher.authenticate(session: sessionID, key: secrets.sessionKey) }
                        startSecrets.value = secrets
                        return command
                    }
                    if startOpens {
                        app.startOpener = { _, _ throws(SessionError) in
                            guard let packageKey = startSecrets.value?.packageKey else {
                                throw .sealed(file: file, .damaged("the proctor's start did not carry the package key"))
                            }
                            do throws(SealedAssessment.Failure) {
                                let real = try SealedAssessment.open(loaded.bytes, packageKey: packageKey, file: file)
                                opened = true
                                return model(real)
                            } catch {
                                throw .sealed(file: file, error)
                            }
                        }
                    }
                }
            }
            context = ready
            return nil
        }
        let exit = app.run(prepare: prepare) { app throws(SessionError) in
            guard let context else { return nil }
            let chosen = app.model.assessment
            if header != nil, !opened {
                throw .sealed(file: file, .damaged("it was not opened before the session began"))
            }
            // In a room, the commands read before this session began are not its own.
            let start = room.map { _ in RoomStart(command: app.startedBy, seen: publisher?.lastReceived ?? 0) }
            return try SessionRuntime.begin(
                assessment: chosen, source: source, candidate: candidate, extraTime: extra, options: options,
                context: context, start: start,
                enterUI: { app.terminal.setReports(true) }, leaveUI: { app.terminal.setReports(false) })
        }
        return exit
    }
}

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
            publisher?.keepResults(in: SecureStateStorage(location: state.location))
            let exit = try await Publishing.session(publisher) {
                try await TerminalThread.run { try self.session(record, journal: journal, publisher: publisher) }
            }
            try exit.conclude()
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
        let context = state.context(needsTerminal: true, publisher: publisher)
        let (assessment, passphrase) = try ProctorCheck.opened(record, journal: journal, location: context.location, action: "resume")
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
            assessment: assessment, candidate: record.candidate,
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

enum Launcher {
    /// With a policy of `shared: required`, the store must answer before the session begins.
    /// The publisher's loop makes the connection (it is started here when it waits); this
    /// waits for its first answer.
    static func requireStore(_ publisher: SeatPublisher?, policy: RestrictionPolicy) throws(CarrelFailure) {
        guard let publisher, policy.sharedStore == .required else { return }
        publisher.start()
        if let why = publisher.firstAnswer() {
            throw CarrelFailure(status: .refused, message: "this assessment requires the lab's shared store, which cannot be reached (\(why)); check the network and PostgreSQL, then launch again")
        }
    }

    /// Fails fast, before the screen changes, for what would refuse the session anyway.
    static func requireTerminal() throws(CarrelFailure) {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CarrelFailure(status: .refused, message: "`carrel take` needs a terminal on standard input and output")
        }
    }

    static func precheck(assessment: Assessment, context: SessionContext) throws(CarrelFailure) {
        try requireTerminal()
        let refusals = context.gate.refusals(policy: assessment.policy, needsTerminal: true)
        if !refusals.isEmpty { throw SessionError.refused(refusals).failure }
        if case let .held(holder) = context.lock.inspect() {
            throw SessionError.lockHeld(holder).failure
        }
        let journal: Journal?
        do {
            journal = try context.storage.openJournal(create: false).map { try Journal(writer: $0) }
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "cannot open the journal \(context.location.journalPath): \(error); choose another state directory with --state-dir")
        }
        guard let journal else { return }
        do throws(SessionError) {
            let waiting = try SessionRuntime.waiting(journal: journal, context: context)
            if !waiting.isEmpty { throw SessionError.interruptedSessions(waiting) }
        } catch {
            throw error.failure
        }
    }
}

/// A value the terminal thread's closures share (they all run on that one thread).
final class Holder<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}
