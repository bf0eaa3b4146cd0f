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

struct DemoCommand: ParsableCommand {
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
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions

    static let sessionYAML = """
        carrel: 1
        id: carrel-demo
        title: Carrel workshop demo session
        description: A playground session started from `carrel demo`.
        policy: { multiplexer: allow }
        sections:
          - title: Playground
            items:
              - id: try-field
                type: text
                prompt: Try typing here — try pasting here.
                accept: [anything]

        """

    func run() throws {
        try reportingFailures {
            guard isatty(0) == 1, isatty(1) == 1 else {
                throw CarrelFailure(status: .refused, message: "`carrel demo` needs a terminal on standard input and output")
            }
            guard let assessment = AssessmentReader.read(text: Self.sessionYAML, file: "(demo)").assessment else {
                throw CarrelFailure(status: .internalError, message: "the built-in demo session does not validate")
            }
            let workshopPath = workshop ?? "Assessments/workshop.yaml"
            let available = FileManager.default.fileExists(atPath: workshopPath)
            let missing = available ? nil : (workshop == nil
                ? "no Assessments/workshop.yaml here; start the demo with --workshop FILE"
                : "\(workshopPath) not found")
            let chosen = Theme.named(theme, environment: ProcessInfo.processInfo.environment) ?? .standard
            let publisher = try lab.publisher()
            let app = DemoApp(assessment: assessment, context: state.context(needsTerminal: true, publisher: publisher), theme: chosen,
                              workshop: available ? workshopPath : nil, state: state)
            app.model.workshopMissing = missing
            app.publisher = publisher
            app.label = publisher.map { lab.label(publishingTo: $0) }
            app.lab = lab
            app.run()
            Launcher.finishPublishing(publisher)
        }
    }
}

/// The demo's loop: keys and pastes, the real controller, the lock status and the log.
final class DemoApp {
    let assessment: Assessment
    let context: SessionContext
    let workshop: String?
    let state: StateOptions
    let theme: Theme
    var canvas: Canvas
    var model: DemoModel
    var controller: SessionRuntime?
    var archived: [String] = []
    var quit = false
    var lastStatusCheck = 0.0
    let monotonic = SessionClock.system.monotonic
    /// With --shared: demo sessions publish like any other, under this seat's label.
    var publisher: SeatPublisher?
    var label: SharedLabel?
    var lab: SharedOptions?

    init(assessment: Assessment, context: SessionContext, theme: Theme, workshop: String?, state: StateOptions) {
        self.assessment = assessment
        self.context = context
        self.workshop = workshop
        self.state = state
        self.theme = theme
        canvas = Canvas(theme: theme)
        model = DemoModel(policy: assessment.policy, workshopAvailable: workshop != nil, theme: theme)
    }

    func note(_ text: String) {
        let time = Timestamp.iso(Date()).dropFirst(11).prefix(8)
        archived.append("\(time) \(text)")
    }

    func run() {
        guard canvas.start() else { return }
        defer {
            endSession()
            canvas.stop()
        }
        var input = InputReader(canvas: canvas)
        while !quit {
            for event in input.next() { handle(event) }
            if let c = controller {
                // The demo shows what happened through the event log (a tracer that attached
                // included), not the reactions.
                _ = c.pump()
                if case .interrupted? = c.outcome { quit = true }
                if c.outcome != nil { sessionFinished() }
            }
            refresh()
            let (w, h) = canvas.size
            canvas.paint(DemoView.render(model, width: w, height: h))
            if pendingWorkshop {
                pendingWorkshop = false
                runWorkshop()
                canvas = Canvas(theme: theme)
                guard canvas.start() else { return }
                input = InputReader(canvas: canvas)
            }
        }
    }

    var pendingWorkshop = false

    func handle(_ input: InputReader.Input) {
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
            let (w, h) = canvas.size
            _ = controller?.send(.resized(columns: w, rows: h))
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
            controller = try SessionRuntime.begin(
                assessment: assessment, source: StoredAssessment(bytes: Data(DemoCommand.sessionYAML.utf8), path: "(demo)"),
                candidate: "Demo", extraTime: .none, options: SessionOptions(shared: label), context: context,
                enterUI: { [canvas] in canvas.setReports(true) }, leaveUI: { [canvas] in canvas.setReports(false) })
            model.field = TextEditor()
        } catch {
            note("Begin session — failed: \(error.description)")
        }
        lastStatusCheck = 0
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
        lastStatusCheck = 0
    }

    /// The session's events in words; a journal that cannot be read says so in the log.
    func events(of c: SessionRuntime) -> [String] {
        do {
            return DemoModel.describe(try c.journal.events(session: c.record.id))
        } catch {
            return ["The journal cannot be read: \(error)"]
        }
    }

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
        switch context.lock.inspect() {
        case .free:
            model.lockStatus = "No session — the lock is free"
        case let .held(holder?):
            let since = holder.started.dropFirst(11).prefix(5)
            let whose = holder.pid == getpid() ? "this demo" : "another process"
            model.lockStatus = "Session active since \(since) UTC, lock held by pid \(holder.pid) (\(whose))"
        case .held(nil):
            model.lockStatus = "Lock held by a session that is starting"
        }
    }

    func runWorkshop() {
        canvas.stop()
        guard let workshop else { return }
        do {
            var take = try TakeCommand.parse([workshop, "--candidate", "Workshop"] + (state.stateDir.map { ["--state-dir", $0] } ?? []))
            if let lab { take.lab = lab }
            take.display.theme = ThemeName(rawValue: theme.name)
            try take.run()
            note("Workshop test finished")
        } catch {
            note("Workshop test ended: \(TakeCommand.message(for: error))")
        }
    }
}
