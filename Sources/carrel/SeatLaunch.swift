import Localization
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

/// What `carrel take`'s launch needs, from its options, its file and its room: the checks after
/// the first frame, the proctor's passphrase and start, the sealed package and the begin. The
/// way through them is `LaunchState`'s; this only answers. It runs on the terminal's thread.
final class SeatLaunch: LaunchEnvironment {
    let take: TakeCommand
    let launch: TakeCommand.Launch
    let publisher: SeatPublisher?
    let room: RoomJoin?
    /// A roster's accommodations are the only ones a seat of its room has.
    let extra: ExtraTime
    let themeName: String?
    let theme: Theme
    /// A rostered candidate is named by the roster; their number goes with the seat's label.
    let candidate: String?
    let shownCandidate: String?
    let screenReader: Bool
    let language: LanguageChoice
    /// A seat of a room the proctor starts.
    let waits: Bool
    /// A sealed test in a room the proctor starts, whose header carries the proctor's key:
    /// the start opens it (its package key comes wrapped to this seat), no passphrase here.
    let startOpens: Bool
    /// The seat's key pair for the proctor's start (only its public half leaves memory).
    let box = SeatBox()
    let options: SessionOptions
    /// Chosen now, so that a seat waiting at its start screen can be shown to the proctor under
    /// it ("not started") before it begins.
    let sessionID: String

    /// Set by the checks.
    var context: SessionContext?
    var checker: (any PassphraseChecker)?
    /// The proctor's start, verified, once the seat has joined its room.
    var verifiedStart: (() -> ProctorCommand?)?
    /// What the proctor's start gave this session.
    var startSecrets: SeatSecrets?
    /// A move's earlier keys of the moved session (its records verify with them or the new one).
    var moveKeys: [[UInt8]] = []
    var opened = false

    init(_ take: TakeCommand, _ launch: TakeCommand.Launch, publisher: SeatPublisher?, room: RoomJoin?) throws {
        self.take = take
        self.launch = launch
        self.publisher = publisher
        self.room = room
        let assessment = launch.assessment
        extra = room?.match?.extraTime ?? take.extraTime ?? ExtraTime.none
        themeName = room?.match?.theme ?? take.display.theme?.rawValue
        theme = Theme.named(themeName, environment: ProcessEnvironment.current) ?? .standard
        candidate = room?.match.map { TerminalSafety.visible($0.name, keepLineBreaks: false) } ?? take.candidate
        shownCandidate = room?.match.map { "\($0.name) (\($0.candidate))" } ?? candidate
        screenReader = room?.match?.screenReader ?? take.display.screenReader
        language = try LanguagePick.choose(roster: room?.match?.language, option: take.display.language, assessment: assessment.language)
        // A candidate who asked to move here waits for the proctor's move, in any room.
        waits = room?.plan.startMode == .proctor || room?.moveFrom != nil
        startOpens = waits && launch.header != nil && assessment.proctor.key != nil
        sessionID = room?.session ?? SessionIDs.random.sessionID()
        var seatLabel = publisher.map { take.lab.label(publishingTo: $0) }
        // The token the roster's lookup was made with: the candidate found is this session's.
        if let token = room?.token { seatLabel?.storeToken = token }
        seatLabel?.attestation = room.map { room in
            var facts = SeatFacts.attestation(fingerprint: room.fingerprint, policy: assessment.policy)
            // The console shows the request: "1005 asks to move from A5 to S1".
            if let from = room.moveFrom { facts["move_from"] = from }
            return facts
        }
        seatLabel?.candidateNumber = room?.match?.candidate
        var options = SessionOptions(theme: themeName, screenReader: screenReader, shared: seatLabel)
        options.language = language.language.rawValue
        self.options = options
    }

    var timeAllowed: Int? {
        extra.apply(to: launch.assessment.timeLimit).map { min($0, launch.assessment.policy.maxDuration) }
    }

    /// The screen of `assessment` (the header's preview until a sealed package is opened).
    func model(_ assessment: Assessment) -> TakeModel {
        var model = TakeModel(
            assessment: assessment, candidate: shownCandidate,
            timeAllowed: extra.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) },
            theme: theme, screenReader: screenReader)
        model.say = Localizer(language.language)
        model.waitingForProctor = waits
        model.passphraseOpensTest = launch.header != nil && !startOpens
        if waits { model.seatKey = box.fingerprint }
        if let from = room?.moveFrom {
            model.startMessage = model.say("Waiting for the proctor to move your session here from seat {0}.",
                                           .s(TerminalSafety.visible(from, keepLineBreaks: false)))
        }
        return model
    }

    /// The probes (loaded code, multiplexer, tracer), the lock and the journal, after the start
    /// screen is on screen and before the first key is read: nothing can begin until they
    /// pass, and a refusal leaves the screen with its one line. Then the seat is announced
    /// to its room and follows its commands.
    func prepare() -> TakeApp.Exit? {
        let assessment = launch.assessment
        var ready = take.state.context(needsTerminal: true, publisher: publisher)
        let sessionID = self.sessionID
        ready.ids = SessionIDs(sessionID: { sessionID }, seed: SessionIDs.random.seed)
        do throws(CarrelFailure) {
            try Launcher.precheck(assessment: assessment, context: ready)
            try Launcher.requireStore(publisher, policy: assessment.policy)
        } catch {
            return TakeApp.Exit(error.status.rawValue, error.message)
        }
        if let publisher, var label = options.shared {
            label.total = assessment.questionsPerSession
            label.timeAllowed = timeAllowed
            if waits {
                // The machine's signature over this announcement (enrolled machines only).
                label.attestation = MachineSigning.sealed(label.attestation, session: sessionID, room: label.room, seat: label.seat,
                                                          boxKey: box.publicKey, version: SelfAttestation.version)
            }
            publisher.announce(.init(session: sessionID, label: label, candidate: candidate,
                                     assessmentID: assessment.id, assessmentTitle: assessment.title,
                                     boxKey: waits ? box.publicKey : nil))
            publisher.start()
        }
        if let hash = assessment.proctor.passphrase, let make = ready.passphrases {
            checker = make(hash, "launch \(assessment.id)")
        }
        if let publisher, let room, let label = options.shared {
            publisher.follow(room: label.room, seat: label.seat, after: room.plan.lastCommand)
            if waits { getReadyForStart(ready, publisher: publisher, room: room, label: label) }
        }
        context = ready
        return nil
    }

    /// A seat that waits makes its journal ready (created, migrated) now, so that the proctor's
    /// start does not wait for it, and looks for the proctor's start: one that verifies against
    /// this test's key (a sealed test's is in its authenticated header) for this room, seat and
    /// test, signed after this seat joined; each that does not is reported, never obeyed.
    func getReadyForStart(_ ready: SessionContext, publisher: SeatPublisher, room: RoomJoin, label: SharedLabel) {
        let assessment = launch.assessment
        // A failure here is met again, and reported, when the session begins.
        if let writer = try? ready.storage.openJournal(create: true) { _ = try? Journal(writer: writer) }
        SessionRuntime.rehearseBegin(assessment: assessment, candidate: candidate, extraTime: extra, options: options)
        let (key, fingerprint, floor, sessionID, box) = (assessment.proctor.key, room.fingerprint, SignedCommand.floor(joined: Date()),
                                                         self.sessionID, self.box)
        verifiedStart = { [weak self] in
            let check = SignedCommand.Check(key: key, room: label.room, seat: label.seat, fingerprint: fingerprint,
                                            now: Date(), lastSequence: floor, session: sessionID)
            guard let (command, secrets) = publisher.verifiedStart(check, box: box) else { return nil }
            if let move = command.move {
                // A move: the keys are the moved session's, and its earlier keys come with them.
                let earlier = move.history.compactMap { box.open($0, session: MoveOrder.historyLabel(move.session))?.sessionKey }
                guard earlier.count == move.history.count, !earlier.isEmpty else {
                    publisher.reportRefusal(ProctorCommand.refusedDetail(command.id, .notForThisSeat))
                    return nil
                }
                self?.moveKeys = earlier
            } else if let secrets {
                // The session's key: its records and liveness are authenticated with it.
                publisher.authenticate(session: sessionID, key: secrets.sessionKey)
            }
            self?.startSecrets = secrets
            return command
        }
    }

    func checkPassphrase(_ typed: String) -> PassphraseVerdict? { checker?.check(typed) }

    func open(passphrase: String, model: TakeModel) throws(SessionError) -> TakeModel? {
        guard launch.header != nil else { return nil }
        do throws(SealedAssessment.Failure) {
            // The launch has just checked `passphrase` against the header's hash.
            let real = try SealedAssessment.open(launch.loaded.bytes, passphrase: passphrase, file: take.file, passphraseChecked: true)
            opened = true
            return self.model(real)
        } catch {
            throw .sealed(file: take.file, error)
        }
    }

    func proctorStart() -> ProctorCommand? { verifiedStart?() }

    func open(start: ProctorCommand, model: TakeModel) throws(SessionError) -> TakeModel? {
        guard startOpens else { return nil }
        guard let packageKey = startSecrets?.packageKey else {
            throw .sealed(file: take.file, .damaged("the proctor's start did not carry the package key"))
        }
        do throws(SealedAssessment.Failure) {
            let real = try SealedAssessment.open(launch.loaded.bytes, packageKey: packageKey, file: take.file)
            opened = true
            return self.model(real)
        } catch {
            throw .sealed(file: take.file, error)
        }
    }

    func begin(_ app: TakeApp) throws(SessionError) -> SessionRuntime? {
        guard let context else { return nil }
        if launch.header != nil, !opened {
            throw .sealed(file: take.file, .damaged("it was not opened before the session began"))
        }
        if let command = app.startedBy, let move = command.move { return try continueMoved(app, command: command, move: move) }
        // In a room, the commands read before this session began are not its own.
        let start = room.map { _ in RoomStart(command: app.startedBy, seen: publisher?.lastReceived ?? 0) }
        let source = StoredAssessment(bytes: Data(launch.loaded.bytes), path: take.file, format: launch.header == nil ? .yaml : .sealed)
        return try SessionRuntime.begin(
            assessment: app.model.assessment, source: source, candidate: candidate, extraTime: extra, options: options,
            context: context, start: start,
            enterUI: { app.terminal.setReports(true) }, leaveUI: { app.terminal.setReports(false) })
    }
}
