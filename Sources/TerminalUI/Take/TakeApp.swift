import Localization
#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import SessionKit

/// The running `take` or `resume`: keys → model → session runtime → screen. It runs on any
/// `Terminal`, so tests drive the whole flow in memory.
public final class TakeApp: LoopedScreen {
    /// How the run ended: a sysexits code and the one line to print.
    public struct Exit: Sendable, Equatable {
        public var code: Int32
        public var line: String
        public init(_ code: Int32, _ line: String) {
            self.code = code
            self.line = line
        }

        /// An exit with one of the codes every command shares.
        public init(_ status: ExitStatus, _ line: String) {
            self.init(status.rawValue, line)
        }
    }

    public var model: TakeModel
    public let terminal: any Terminal
    public internal(set) var runtime: SessionRuntime?
    var finalExit: Exit?
    /// The way to the session: checks, passphrase, opening, confirmation, the proctor's start.
    public internal(set) var launch = LaunchState()
    /// What the launch asks of its command.
    var environment: (any LaunchEnvironment)?
    var quit = false
    /// Something on screen may have changed since the last frame.
    var frameDirty = true
    /// The clock text of the last frame.
    var drawnClock: String?
    /// When the last frame was drawn (monotonic seconds).
    var lastFrameAt = -Double.infinity
    /// When the receipt last looked whether a held score may be shown.
    var lastScoreLook = -Double.infinity
    /// A change of the clock alone waits until this long after the last frame: drawn straight
    /// after the answer to a key it would read as part of that answer (a second frame within a
    /// few milliseconds); while keys keep coming it goes out with the next key's frame.
    static let clockSettle = 0.04
    /// The input being read, and the held keys the last frame showed as typed.
    var reader: InputReader?
    var shownTentative: [Key] = []
    let monotonic: @Sendable () -> Double
    /// Rung by the seat's publisher when the proctor's start or commands arrive.
    public let bell = LoopBell()
    /// The proctor's start that began this session.
    public var startedBy: ProctorCommand? { launch.startedBy }

    public init(model: TakeModel, terminal: any Terminal, monotonic: @escaping @Sendable () -> Double = SessionClock.system.monotonic) {
        self.model = model
        self.terminal = terminal
        self.monotonic = monotonic
    }

    /// Runs until the student or proctor is done. `begin` starts (or resumes) the session
    /// when the student confirms, or at once when the model is already in the test.
    /// `prepare` runs once, after the first frame is on screen and before the first key is
    /// read: the slow checks (probes, lock, journal) that must pass before anything begins,
    /// but need not delay the start screen; an exit it returns ends the run.
    public func run(prepare: (() -> Exit?)? = nil, begin: @escaping (TakeApp) throws(SessionError) -> SessionRuntime?) -> Exit {
        run(SimpleLaunch(prepare: prepare, begin: begin))
    }

    /// Runs until the student or proctor is done, launched through `environment`.
    public func run(_ environment: any LaunchEnvironment) -> Exit {
        self.environment = environment
        guard terminal.start() else {
            send(.terminalFailed(term: ProcessInfo.processInfo.environment["TERM"] ?? "unset"))
            return finalExit ?? Exit(.refused, "cannot start the terminal interface")
        }
        defer { terminal.stop() }
        // Resuming: the session is already running.
        if model.phase == .test {
            send(.resumed)
            if let finalExit { return finalExit }
        }
        let loop = AppLoop(terminal: terminal, monotonic: monotonic)
        reader = loop.input
        loop.run(self)
        return finalExit ?? Exit(.ok, "")
    }

    // MARK: the app loop

    public func draw(on terminal: any Terminal) {
        // The first frame is drawn before the first read; after it, a frame is built only
        // when something on screen changed (an input, a reaction, a notice, the clock).
        if frameDirty || (shownClock() != drawnClock && monotonic() - lastFrameAt >= Self.clockSettle) { draw() }
        if launch.stage == .starting { send(.drawn) }
    }

    /// A passphrase line is a secret, never judged as a paste.
    public var readsSecret: Bool {
        (model.phase == .start && model.needsLaunchPassphrase) || model.session?.prompt == .proctor
    }

    public func handle(_ input: TerminalInput, on terminal: any Terminal) { handle(input) }

    public func step(on terminal: any Terminal) {
        if let reader, reader.tentative != shownTentative { frameDirty = true }
        revealHeldScore()
        // A start that came while it could not be taken (help on screen, a seat's clock behind
        // the proctor's) is looked at again on every turn: the starts already read are in
        // memory, so this asks nothing of the store. Without a bell (no pipe could be made),
        // the commands are looked for on every turn too, by the pump.
        if runtime == nil { lookForStart() }
        if finalExit != nil { return }
        pump()
        if model.expireNotice(now: monotonic()) { frameDirty = true }
    }

    /// The store has news: the proctor's start for a seat that waits for it, or commands for
    /// the running session, taken at once.
    func storeNews() {
        lookForStart()
        if finalExit != nil { return }
        pump()
    }

    /// The proctor's start, for a seat that waits for it at its start screen.
    func lookForStart() {
        guard runtime == nil, launch.stage == .ready, model.phase == .start, model.waitsForProctor, !model.showHelp,
              let start = environment?.proctorStart() else { return }
        let before = screenContext
        send(.startRead(start))
        if finalExit != nil { return }
        frameDirty = true
        if model.screenReader && screenContext != before { model.repaintWhole = true }
    }

    /// The session's pump: signals, tracers, the clock, the proctor's commands.
    func pump() {
        let roomBefore = model.session?.room
        if let runtime, finalExit == nil, let fate = runtime.fate {
            // The proctor moved this session to another seat, or ended it as lost: it stops here
            // (nothing this seat writes for it counts any more), saying where it went.
            let words = Self.fateWords(fate)
            react(runtime.send(.hangUp(words)))
            finalExit = Exit(.refused, "session \(runtime.record.id) stops here: \(words); nothing this seat writes for it counts any more")
            return
        }
        if let runtime { react(runtime.pump()) }
        if model.screenReader, let roomBefore, let now = model.session?.room,
           roomBefore.message != now.message || roomBefore.paused != now.paused {
            model.repaintWhole = true
        }
    }

    public var finished: Bool {
        if quit { return true }
        return finalExit != nil && !isShowingReceipt
    }

    public var readWait: Double {
        // Without a bell, a seat waiting for the proctor's start looks for it often.
        if !bell.works && runtime == nil && environment != nil && model.waitsForProctor { return min(0.1, nextWait()) }
        return nextWait()
    }

    var isShowingReceipt: Bool {
        if case .receipt = model.phase { return true }
        return false
    }

    /// How long the next read may wait when nothing arrives: until the time left next
    /// crosses a whole second (the clock's next change, a warning, the time-out), a second at
    /// most; a fifth of a second while typed text waits for its save or a notice for its
    /// end. An idle session wakes about once a second.
    func nextWait() -> Double {
        guard let runtime else { return InputReader.idleWait }
        if shownClock() != drawnClock {
            // The clock changed while a frame settles: wake when it may be drawn.
            return min(InputReader.idleWait, max(0.001, lastFrameAt + Self.clockSettle - monotonic()))
        }
        let state = runtime.state
        if !state.drafts.isEmpty || (model.notice != nil && !model.screenReader) { return InputReader.idleWait }
        guard let left = state.remaining, left > 0 else { return 1 }
        return min(1, left - left.rounded(.down) + 0.005)
    }

    /// The clock as the screen shows it (nil where no clock is drawn: screen-reader mode, a
    /// hidden clock, no session yet): it changes once a second at most.
    func shownClock() -> String? {
        guard !model.screenReader, !model.clockHidden, let session = model.session else { return nil }
        return model.timeText(session)
    }

    func draw() {
        frameDirty = false
        drawnClock = shownClock()
        lastFrameAt = monotonic()
        let (w, h) = terminal.size
        model.viewSize = (w, h)
        if model.repaintWhole {
            // Screen-reader mode, a new screen: every line is written again, from the top,
            // so the reader says it whole ("Question 2 of 8, section …") and not in pieces.
            model.repaintWhole = false
            terminal.repaintWhole()
        }
        // Typed keys still being judged are echoed at once; they enter the answer only once
        // judged typing.
        shownTentative = reader?.tentative ?? []
        let shown = model.typingPreview(shownTentative, now: monotonic()) ?? model
        if model.repeatNotice {
            // A status written over another (a second Ctrl-T, "13 minutes 30 seconds left"
            // over "… 35 …"): the line is blanked first, so it is written, and said, whole.
            model.repeatNotice = false
            if let notice = model.notice {
                if Views.noticeLines(notice, width: w).count > 1 { terminal.clearLine(h - 3) }
                terminal.clearLine(h - 2)
            }
        }
        terminal.paint(Views.render(shown, width: w, height: h))
        if model.bell {
            model.bell = false
            terminal.bell()
        }
    }

    /// What makes a new screen for a screen reader: another question, phase, box or help.
    var screenContext: [Int] {
        let phaseTag: Int
        switch model.phase {
        case .start: phaseTag = 0
        case .confirmLock: phaseTag = 1
        case .lockedBanner: phaseTag = 2
        case .test: phaseTag = model.reviewing ? 4 : 3
        case .receipt: phaseTag = 5
        }
        let promptTag: Int
        switch model.session?.prompt {
        case nil: promptTag = 0
        case .confirmSubmit?: promptTag = 1
        case .proctor?: promptTag = 2
        case .confirmEnd?: promptTag = 3
        }
        let small = terminal.size.width < Views.minimumWidth || terminal.size.height < Views.minimumHeight
        let room = model.session?.room
        return [phaseTag, model.session?.position ?? -1, promptTag, model.showHelp ? 1 : 0, model.confirmSkip ? 1 : 0, small ? 1 : 0,
                room?.message != nil ? 1 : 0, room?.paused == true ? 1 : 0, model.waitsForProctor ? 1 : 0]
    }

    func syncState() {
        if let runtime { model.show(runtime.state) }
    }

    func handle(_ input: InputReader.Input) {
        frameDirty = true
        let running = runtime != nil && !isShowingReceipt
        switch input {
        case let .keys(keys):
            for k in keys { dispatch(k) }
        case let .paste(count, keys):
            if running { pasted(count, keys: keys) } else { for k in keys { dispatch(k) } }
        case let .focus(on):
            if running, let r = runtime { react(r.send(on ? .focusRegained : .focusLost)) }
        case .resize:
            if model.screenReader { model.repaintWhole = true }
            // The new size is drawn first: logging the resize commits to the journal (an fsync,
            // tens of milliseconds on a busy disk), and the frame does not depend on it.
            draw()
            let (w, h) = terminal.size
            if running, let r = runtime { react(r.send(.resized(columns: w, rows: h))) }
        case .store:
            storeNews()
        case .lost:
            if let runtime, !isShowingReceipt {
                react(runtime.send(.hangUp("terminal lost")))
            } else {
                quit = true
            }
        }
    }

    func pasted(_ count: Int, keys: [Key]) {
        guard let runtime, !isShowingReceipt else { return }
        if runtime.assessment.policy.paste == .allow {
            for k in keys { dispatch(k) }
            return
        }
        react(runtime.send(.pasteAttempt(characters: count)))
    }

    func dispatch(_ key: Key) {
        // During the wait after a wrong start-screen passphrase, typed keys are dropped.
        if model.phase == .start && launch.gate.wait(now: monotonic()) != nil { return }
        let (w, h) = terminal.size
        model.viewSize = (w, h)
        if w < Views.minimumWidth || h < Views.minimumHeight, !model.reactsWhileTooSmall(key) { return }
        let before = screenContext
        perform(model.handle(key, now: monotonic()))
        if model.screenReader && screenContext != before { model.repaintWhole = true }
    }

    func perform(_ commands: [TakeRequest]) {
        for command in commands {
            switch command {
            case let .session(event):
                guard let runtime else { continue }
                react(runtime.send(event))
            case .begin:
                send(.confirmed)
            case let .checkLaunchPassphrase(typed):
                send(.passphraseTyped(typed, now: monotonic()))
            case let .proctorPassphrase(typed):
                guard let runtime else { continue }
                react(runtime.enterPassphrase(typed))
            case .quit:
                if runtime == nil || isShowingReceipt { quit = true }
            }
        }
    }

    func react(_ reaction: Reaction) {
        guard let runtime else { return }
        // A tick that only moved time on changes nothing on screen but the clock.
        if reaction != Reaction() { frameDirty = true }
        model.apply(reaction, state: runtime.state, now: monotonic())
        guard let outcome = reaction.outcome else { return }
        finalExit = Self.exit(for: outcome, session: runtime.record.id, state: runtime.state)
        switch outcome {
        case let .finished(result, path, problem):
            let shown = model.assessment.results.showScore && result.unscored != true ? result.score : nil
            var receipt = TakeModel.Receipt(
                status: result.status, session: result.session, timeUsed: result.timeUsedSeconds, answered: result.answered,
                total: result.given, score: shown, resultPath: path, problem: problem, unscored: result.unscored == true)
            if shown != nil, runtime.record.options.shared?.attestation != nil, !resultReachedStore(runtime) {
                receipt.heldScore = shown
                receipt.score = nil
            }
            model.phase = .receipt(receipt)
        case .interrupted, .saveFailed:
            quit = true
        }
    }

    /// Whether the store holds every record of the session, its result included (nothing of it
    /// waits in the journal's outbox).
    func resultReachedStore(_ runtime: SessionRuntime) -> Bool {
        // A journal that cannot be read now keeps the score held: it shows once it can.
        ((try? runtime.journal.outboxWaiting(session: runtime.record.id)) ?? 1) == 0
    }

    /// A room's score held on the receipt, shown once the store holds the result (looked at
    /// twice a second).
    func revealHeldScore() {
        guard case var .receipt(receipt) = model.phase, let held = receipt.heldScore, let runtime else { return }
        let now = monotonic()
        guard now - lastScoreLook >= 0.5 else { return }
        lastScoreLook = now
        guard resultReachedStore(runtime) else { return }
        receipt.score = held
        receipt.heldScore = nil
        model.phase = .receipt(receipt)
        frameDirty = true
    }

    /// The store's word of a session's fate ("moved S1", "lost") in a sentence.
    static func fateWords(_ fate: String) -> String {
        if fate.hasPrefix("moved ") { return "this session continues at seat \(fate.dropFirst(6)): the proctor moved it there" }
        return "the proctor ended this session: its seat was lost"
    }

    /// The closing line and exit code for each way a session leaves.
    static func exit(for outcome: SessionOutcome, session: String, state: SessionState) -> Exit {
        func numbers(_ ids: [String]) -> String {
            ids.compactMap { id in state.plan.itemOrder.firstIndex(of: id).map { "question \($0 + 1) (\(id))" } }
                .joined(separator: ", ")
        }
        switch outcome {
        case let .finished(result, path, problem?):
            return Exit(.cannotCreate, "session \(result.session) ended (\(result.status.rawValue)) and its result is in the journal, but \(problem)\(path.map { "; \($0)" } ?? "")")
        case let .finished(result, path, nil):
            return Exit(.ok, "session \(result.session) ended (\(result.status.rawValue)); result: \(path ?? "-")")
        case let .interrupted(reason, unsaved):
            if unsaved.isEmpty {
                return Exit(.lockActive, "session \(session) interrupted (\(reason)); every answer is saved — the proctor continues it with `carrel resume` or ends it with `carrel unlock`")
            }
            return Exit(.lockActive, "session \(session) interrupted (\(reason)); not saved: \(numbers(unsaved)), every other answer is saved — the proctor continues it with `carrel resume` or ends it with `carrel unlock`")
        case let .saveFailed(why, unsaved):
            let what = unsaved.isEmpty ? "every answer is saved" : "not saved: \(numbers(unsaved)); every other answer is saved"
            return Exit(.cannotCreate, "session \(session) could not be ended: \(why); \(what). The session is kept: free space in the state directory, then the proctor runs `carrel resume` to continue and submit")
        }
    }
}
