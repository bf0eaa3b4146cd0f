#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Localization
import SessionKit

/// The workshop demo in the app loop: keys and pastes, the real session controller, the lock's
/// status and the event log. It runs on any `Terminal`, so tests drive it in memory.
public final class DemoApp: LoopedScreen {
    /// The demo's own session follows no room: nothing rings it.
    public let bell = LoopBell()
    /// The demo's own session: one field, the default policy but for tmux, and the machine
    /// left as it is (a trainer's laptop is not locked to the playground).
    public static let sessionYAML = """
        carrel: 1
        id: carrel-demo
        title: Carrel workshop demo session
        description: A playground session started from `carrel demo`.
        policy: { multiplexer: allow, machine: off }
        sections:
          - title: Playground
            items:
              - id: try-field
                type: text
                prompt: Try typing here — try pasting here.
                accept: [anything]

        """

    public let assessment: Assessment
    public let source: StoredAssessment
    public let context: SessionContext
    public let theme: Theme
    public let terminal: any Terminal
    public var model: DemoModel
    public private(set) var controller: SessionRuntime?
    /// With --shared: demo sessions publish like any other, under this seat's label.
    public var label: SharedLabel?
    /// Runs the workshop test (F5) while this screen's terminal is stopped, and says in one
    /// line how it ended; nil when there is no workshop test.
    public var workshop: (() -> String)?
    var archived: [String] = []
    var quit = false
    var pendingWorkshop = false
    var lastStatusCheck = -Double.infinity
    let monotonic: @Sendable () -> Double
    let wallClock: @Sendable () -> Date

    public init(assessment: Assessment, source: StoredAssessment, context: SessionContext, theme: Theme, terminal: any Terminal,
                workshopAvailable: Bool, monotonic: @escaping @Sendable () -> Double = SessionClock.system.monotonic,
                wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.assessment = assessment
        self.source = source
        self.context = context
        self.theme = theme
        self.terminal = terminal
        self.monotonic = monotonic
        self.wallClock = wallClock
        model = DemoModel(policy: assessment.policy, workshopAvailable: workshopAvailable, theme: theme)
    }

    /// Runs the demo until the trainer quits; a session still running is ended first.
    public func run() {
        guard terminal.start() else { return }
        defer {
            endSession()
            terminal.stop()
        }
        AppLoop(terminal: terminal, monotonic: monotonic).run(self)
    }

    public func note(_ text: String) {
        let time = Timestamp.iso(wallClock()).dropFirst(11).prefix(8)
        archived.append("\(time) \(text)")
    }

    // MARK: the app loop

    public var readWait: Double { InputReader.idleWait }
    public var readsSecret: Bool { false }
    public var finished: Bool { quit }

    public func draw(on terminal: any Terminal) {
        refresh()
        let (w, h) = terminal.size
        terminal.paint(DemoView.render(model, width: w, height: h))
    }

    public func step(on terminal: any Terminal) {
        if let c = controller {
            // The demo shows what happened through the event log (a tracer that attached
            // included), not the reactions.
            _ = c.pump()
            if case .interrupted? = c.outcome { quit = true }
            if c.outcome != nil { sessionFinished() }
        }
        if pendingWorkshop {
            pendingWorkshop = false
            openWorkshop()
        }
    }

    public func handle(_ input: TerminalInput, on terminal: any Terminal) {
        switch input {
        case let .keys(keys):
            for k in keys { key(k) }
        case let .paste(count, keys):
            if let c = controller {
                _ = c.send(.pasteAttempt(characters: count))
            } else {
                for k in keys { _ = model.field.apply(k) }
            }
        case let .focus(on):
            _ = controller?.send(on ? .focusRegained : .focusLost)
        case .resize:
            // The new size is drawn before the resize is logged (a journal commit).
            draw(on: terminal)
            let (w, h) = terminal.size
            _ = controller?.send(.resized(columns: w, rows: h))
        case .store:
            // The demo's own session follows no room.
            break
        case .lost:
            if let c = controller { _ = c.send(.hangUp("terminal lost")) }
            quit = true
        }
    }

    func key(_ k: Key) {
        switch model.handle(k, sessionRunning: controller != nil) {
        case .begin?: beginSession()
        case .end?: endSession()
        case .openWorkshop?: pendingWorkshop = true
        case .quit?: quit = true
        case let .exitAttempt(name)?:
            _ = controller?.send(.exitAttempt(name))
            _ = controller?.send(.cancelPrompt)
        case let .note(text)?: note(text)
        case .fieldEdited?:
            if let c = controller {
                _ = c.send(.answer("try-field", model.field.text.isEmpty ? nil : .text(model.field.text)))
            }
        case nil: break
        }
    }

    func beginSession() {
        guard controller == nil else { return }
        do {
            let terminal = self.terminal
            // The demo's language goes with its session, as `take` keeps it for `resume`.
            var options = SessionOptions(shared: label)
            options.language = model.say.language.rawValue
            controller = try SessionRuntime.begin(
                assessment: assessment, source: source, candidate: "Demo", extraTime: .none,
                options: options, context: context,
                enterUI: { terminal.setReports(true) }, leaveUI: { terminal.setReports(false) })
            model.field = TextEditor()
            // A begin whose first commit failed says so in the log ("Not saved …").
            for notice in controller?.firstReaction()?.notices ?? [] { note(model.say.say(notice)) }
        } catch {
            note(model.say("Begin session — failed: {0}", .s(error.description)))
        }
        lastStatusCheck = -Double.infinity
    }

    func endSession() {
        guard let c = controller else { return }
        _ = c.send(.exitAttempt(DemoModel.endRequest))
        _ = c.send(.endConfirmed)
        sessionFinished()
    }

    func sessionFinished() {
        guard let c = controller else { return }
        archived += events(of: c)
        controller = nil
        lastStatusCheck = -Double.infinity
    }

    /// The session's events in words; a journal that cannot be read says so in the log.
    func events(of c: SessionRuntime) -> [String] {
        do {
            return DemoModel.describe(try c.journal.events(session: c.record.id), say: model.say)
        } catch {
            return [model.say("The journal cannot be read: {0}", .s("\(error)"))]
        }
    }

    /// The log and, once a second, the lock's status as another process would see it.
    func refresh() {
        var lines = archived
        if let c = controller {
            lines += events(of: c)
        }
        model.log = lines
        model.sessionActive = controller != nil
        let now = monotonic()
        guard now - lastStatusCheck >= 1 else { return }
        lastStatusCheck = now
        let say = model.say
        switch context.lock.inspect() {
        case .free:
            model.lockStatus = say("No session — the lock is free")
        case let .held(holder?):
            let since = Arg.s(String(holder.started.dropFirst(11).prefix(5)))
            let pid = Arg.s(String(holder.pid))
            model.lockStatus = holder.pid == context.pid
                ? say("Session active since {0} UTC, lock held by pid {1} (this demo)", since, pid)
                : say("Session active since {0} UTC, lock held by pid {1} (another process)", since, pid)
        case .held(nil):
            model.lockStatus = say("Lock held by a session that is starting")
        }
    }

    /// How the workshop test ended (the demo command's line, in English) in the demo's language;
    /// the reason it gives is shown as it is.
    static func workshopWords(_ line: String, say: Localizer) -> String {
        if line == "Workshop test finished" { return say("Workshop test finished") }
        let ended = "Workshop test ended: "
        if line.hasPrefix(ended) { return say("Workshop test ended: {0}", .s(String(line.dropFirst(ended.count)))) }
        return line
    }

    /// The workshop test runs on the real terminal with this screen stopped, then the demo
    /// takes the terminal back and draws itself whole.
    func openWorkshop() {
        guard let workshop else { return }
        terminal.stop()
        note(Self.workshopWords(workshop(), say: model.say))
        guard terminal.start() else {
            quit = true
            return
        }
        terminal.invalidate()
    }
}
