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
    }

    public var model: TakeModel
    public let terminal: any Terminal
    public private(set) var runtime: SessionRuntime?
    var finalExit: Exit?
    /// The start screen's passphrase: tries and waits, by the one rule (`PassphrasePrompt`).
    var launchGate = PassphrasePrompt()
    var quit = false
    /// Something on screen may have changed since the last frame.
    var frameDirty = true
    /// The clock text of the last frame.
    var drawnClock: String?
    /// When the last frame was drawn (monotonic seconds).
    var lastFrameAt = -Double.infinity
    /// A change of the clock alone waits until this long after the last frame: drawn straight
    /// after the answer to a key it would read as part of that answer (a second frame within a
    /// few milliseconds); while keys keep coming it goes out with the next key's frame.
    static let clockSettle = 0.04
    /// The input being read, and the held keys the last frame showed as typed.
    var reader: InputReader?
    var shownTentative: [Key] = []
    let monotonic: @Sendable () -> Double
    var beginAction: ((TakeApp) throws(SessionError) -> SessionRuntime?)?
    /// The slow checks still to run after the first frame (see `run`).
    var prepare: (() -> Exit?)?
    /// Checks the start screen's passphrase (tries and waits kept in the state directory);
    /// nil checks in this process only.
    public var launchChecker: (any PassphraseChecker)?
    /// For a sealed assessment: opens it with the accepted start-screen passphrase and gives
    /// the model of the real test (until then the start screen shows the public facts).
    public var launchOpener: ((String, TakeModel) throws(SessionError) -> TakeModel)?
    /// A seat the proctor starts: asked on every turn of the loop while the start screen
    /// waits; the proctor's start command, once there is one, begins the session.
    public var proctorStart: (() -> ProctorCommand?)?
    /// For a sealed test the proctor's start opens (its package key came wrapped to this
    /// seat): gives the model of the real test before the session begins.
    public var startOpener: ((ProctorCommand, TakeModel) throws(SessionError) -> TakeModel)?
    /// The proctor's start that began this session.
    public private(set) var startedBy: ProctorCommand?

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
        guard terminal.start() else {
            return Exit(69, "cannot start the terminal interface (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? "unset")); use a real terminal")
        }
        defer { terminal.stop() }
        self.prepare = prepare
        beginAction = begin
        if model.phase == .test {
            // Resuming: the session is already running.
            do {
                runtime = try begin(self)
            } catch {
                return Exit(error.exitCode, error.description)
            }
            syncState()
        }
        let loop = AppLoop(terminal: terminal, monotonic: monotonic)
        reader = loop.input
        loop.run(self)
        return finalExit ?? Exit(0, "")
    }

    // MARK: the app loop

    public func draw(on terminal: any Terminal) {
        // The first frame is drawn before the first read; after it, a frame is built only
        // when something on screen changed (an input, a reaction, a notice, the clock).
        if frameDirty || (shownClock() != drawnClock && monotonic() - lastFrameAt >= Self.clockSettle) { draw() }
        if let ready = prepare {
            prepare = nil
            if let exit = ready() {
                finalExit = exit
                quit = true
            }
        }
    }

    /// A passphrase line is a secret, never judged as a paste.
    public var readsSecret: Bool {
        (model.phase == .start && model.needsLaunchPassphrase) || model.session?.prompt == .proctor
    }

    public func handle(_ input: TerminalInput, on terminal: any Terminal) { handle(input) }

    public func step(on terminal: any Terminal) {
        if let reader, reader.tentative != shownTentative { frameDirty = true }
        if runtime == nil, prepare == nil, finalExit == nil, model.phase == .start, model.waitsForProctor,
           !model.showHelp, let start = proctorStart?() {
            startedBy = start
            if let open = startOpener {
                do {
                    model = try open(start, model)
                } catch {
                    finalExit = Exit(error.exitCode, error.description)
                    quit = true
                    return
                }
            }
            let before = screenContext
            beginSession()
            frameDirty = true
            if model.screenReader && screenContext != before { model.repaintWhole = true }
        }
        let roomBefore = model.session?.room
        if let runtime { react(runtime.pump()) }
        if model.screenReader, let roomBefore, let now = model.session?.room,
           roomBefore.message != now.message || roomBefore.paused != now.paused {
            model.repaintWhole = true
        }
        if model.expireNotice(now: monotonic()) { frameDirty = true }
    }

    public var finished: Bool {
        if quit { return true }
        return finalExit != nil && !isShowingReceipt
    }

    public var readWait: Double {
        // A seat waiting for the proctor's start looks for it as often as the store is read.
        if runtime == nil && proctorStart != nil && model.waitsForProctor { return min(0.1, nextWait()) }
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
        if model.phase == .start && launchGate.wait(now: monotonic()) != nil { return }
        let (w, h) = terminal.size
        model.viewSize = (w, h)
        if w < Views.minimumWidth || h < Views.minimumHeight, !model.reactsWhileTooSmall(key) { return }
        let before = screenContext
        perform(model.handle(key, now: monotonic()))
        if model.screenReader && screenContext != before { model.repaintWhole = true }
    }

    func perform(_ commands: [Command]) {
        for command in commands {
            switch command {
            case let .session(event):
                guard let runtime else { continue }
                react(runtime.send(event))
            case .begin:
                beginSession()
            case let .checkLaunchPassphrase(typed):
                checkLaunch(typed)
            case let .proctorPassphrase(typed):
                guard let runtime else { continue }
                react(runtime.enterPassphrase(typed))
            case .quit:
                if runtime == nil || isShowingReceipt { quit = true }
            }
        }
    }

    /// The start screen's passphrase: the attempts file (or the hash, by the same rule) gives
    /// a verdict, `launchGate` says what it means, and this says it on screen.
    func checkLaunch(_ typed: String) {
        guard let hash = model.assessment.proctor.passphrase else { return }
        let now = monotonic()
        let verdict = launchChecker?.check(typed) ?? launchGate.verdict(correct: hash.verify(typed))
        switch launchGate.apply(verdict, now: now) {
        case .accepted:
            if let open = launchOpener {
                do {
                    model = try open(typed, model)
                } catch {
                    finalExit = Exit(error.exitCode, error.description)
                    quit = true
                    return
                }
            }
            model.launchAccepted()
        case let .wrong(attempt, triesLeft, wait):
            if triesLeft == 0 {
                finalExit = Exit(77, "wrong proctor passphrase \(attempt) times; nothing was started (every attempt is recorded)")
                quit = true
                return
            }
            let say = model.say
            let tries = say("{0, plural, one {That passphrase is not right (attempt {1}, # try left).} other {That passphrase is not right (attempt {1}, # tries left).}}",
                            .n(triesLeft), .n(attempt))
            model.startMessage = wait >= 1
                ? tries + " " + say("{0, plural, one {Wait # second before trying again.} other {Wait # seconds before trying again.}}", .n(Int(wait.rounded(.up))))
                : tries
        case let .mustWait(seconds):
            model.startMessage = model.say("{0, plural, one {Wait # second before trying the passphrase again.} other {Wait # seconds before trying the passphrase again.}}",
                                           .n(Int(seconds.rounded(.up))))
        case let .unavailable(why):
            finalExit = Exit(73, "the proctor passphrase cannot be checked: \(why)")
            quit = true
        }
    }

    func beginSession() {
        guard let begin = beginAction else { return }
        do {
            guard let started = try begin(self) else { return }
            runtime = started
            for attempt in 0..<launchGate.failures {
                react(started.log(.passphraseFailed, "launch, attempt \(attempt + 1)"))
            }
            syncState()
            model.phase = .lockedBanner
        } catch {
            finalExit = Exit(error.exitCode, error.description)
            quit = true
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
            model.phase = .receipt(TakeModel.Receipt(
                status: result.status, session: result.session, timeUsed: result.timeUsedSeconds, answered: result.answered,
                total: result.given, score: model.assessment.results.showScore ? result.score : nil,
                resultPath: path, problem: problem))
        case .interrupted, .saveFailed:
            quit = true
        }
    }

    /// The closing line and exit code for each way a session leaves.
    static func exit(for outcome: SessionOutcome, session: String, state: SessionState) -> Exit {
        func numbers(_ ids: [String]) -> String {
            ids.compactMap { id in state.plan.itemOrder.firstIndex(of: id).map { "question \($0 + 1) (\(id))" } }
                .joined(separator: ", ")
        }
        switch outcome {
        case let .finished(result, path, problem?):
            return Exit(73, "session \(result.session) ended (\(result.status.rawValue)) and its result is in the journal, but \(problem)\(path.map { "; \($0)" } ?? "")")
        case let .finished(result, path, nil):
            return Exit(0, "session \(result.session) ended (\(result.status.rawValue)); result: \(path ?? "-")")
        case let .interrupted(reason, unsaved):
            if unsaved.isEmpty {
                return Exit(75, "session \(session) interrupted (\(reason)); every answer is saved — the proctor continues it with `carrel resume` or ends it with `carrel unlock`")
            }
            return Exit(75, "session \(session) interrupted (\(reason)); not saved: \(numbers(unsaved)), every other answer is saved — the proctor continues it with `carrel resume` or ends it with `carrel unlock`")
        case let .saveFailed(why, unsaved):
            let what = unsaved.isEmpty ? "every answer is saved" : "not saved: \(numbers(unsaved)); every other answer is saved"
            return Exit(73, "session \(session) could not be ended: \(why); \(what). The session is kept: free space in the state directory, then the proctor runs `carrel resume` to continue and submit")
        }
    }
}
