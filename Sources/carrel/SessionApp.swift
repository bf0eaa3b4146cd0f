#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import TerminalUI

/// The running `take` or `resume`: keys → model → session controller → screen.
final class SessionApp {
    var model: TakeModel
    let canvas: Canvas
    var controller: SessionController?
    var finalLine: (ExitStatus, String)?
    var launchFailures = 0
    var quit = false
    let monotonic = SessionClock.system.monotonic

    init(model: TakeModel) {
        self.model = model
        self.canvas = Canvas(theme: model.theme)
    }

    /// Runs until the student or proctor is done; returns the exit status and closing line.
    func run(begin: @escaping (SessionApp) throws(SessionError) -> SessionController?) -> (ExitStatus, String) {
        guard canvas.start() else {
            return (.refused, "cannot start the terminal interface (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? "unset")); use a real terminal")
        }
        defer { canvas.stop() }
        self.beginAction = begin
        if model.phase == .question || model.phase == .review {
            // Resuming: the session is already running.
            do {
                controller = try begin(self)
            } catch {
                return (ExitStatus(rawValue: error.exitCode) ?? .internalError, error.description)
            }
            syncState()
        }
        let input = InputReader(canvas: canvas)
        while !quit {
            for event in input.next() { handle(event) }
            if let controller {
                react(controller.pollSignals())
                react(controller.tick())
            }
            let now = monotonic()
            perform(model.flushText(now: now, force: false))
            _ = model.expireNotice(now: now)
            if let line = finalLine, !isShowingReceipt { return line }
            draw()
        }
        return finalLine ?? (.ok, "")
    }

    var beginAction: ((SessionApp) throws(SessionError) -> SessionController?)?

    var isShowingReceipt: Bool {
        if case .receipt = model.phase { return true }
        return false
    }

    func draw() {
        let (w, h) = canvas.size
        canvas.paint(Views.render(model, width: w, height: h))
    }

    func syncState() {
        if let controller { model.session = controller.state }
    }

    func terminalLost() {
        if let controller { react(controller.handle(.hangUp("terminal lost"))) } else { quit = true }
    }

    func handle(_ input: InputReader.Input) {
        let running = controller != nil && !isShowingReceipt
        switch input {
        case let .keys(keys):
            for k in keys { dispatch(k) }
        case let .paste(count, keys):
            if running { pasted(count, keys: keys) } else { for k in keys { dispatch(k) } }
        case let .focus(on):
            if running, let c = controller { react(c.handle(on ? .focusRegained : .focusLost)) }
        case .resize:
            let (w, h) = canvas.size
            if running, let c = controller { react(c.handle(.resized(columns: w, rows: h))) }
        case .lost:
            terminalLost()
        }
    }

    func pasted(_ count: Int, keys: [Key]) {
        guard let controller, !isShowingReceipt else { return }
        if controller.assessment.policy.paste == .allow {
            for k in keys { dispatch(k) }
            return
        }
        react(controller.handle(.pasteAttempt(characters: count)))
    }

    func dispatch(_ key: Key) {
        perform(model.handle(key, now: monotonic()))
    }

    func perform(_ commands: [Command]) {
        for command in commands {
            switch command {
            case let .session(event):
                guard let controller else { continue }
                react(controller.handle(event))
            case .begin:
                beginSession()
            case let .checkLaunchPassphrase(typed):
                if model.assessment.proctor.passphrase?.verify(typed) == true {
                    model.launchAccepted()
                } else {
                    launchFailures += 1
                    model.startMessage = "That passphrase is not right (attempt \(launchFailures))."
                    draw()
                    sleep(UInt32(min(1 << min(launchFailures - 1, 4), 15)))
                }
            case let .proctorPassphrase(typed):
                guard let controller else { continue }
                react(controller.enterPassphrase(typed))
            case .quit:
                if controller == nil || isShowingReceipt { quit = true }
            }
        }
    }

    func beginSession() {
        guard let begin = beginAction else { return }
        do {
            guard let started = try begin(self) else { return }
            controller = started
            for attempt in 0..<launchFailures {
                try? started.journal.log(session: started.record.id, kind: .passphraseFailed, detail: "launch, attempt \(attempt + 1)", at: Date())
            }
            syncState()
            model.phase = .lockedBanner
        } catch {
            finalLine = (ExitStatus(rawValue: error.exitCode) ?? .internalError, error.description)
            quit = true
        }
    }

    func react(_ reaction: Reaction) {
        guard let controller else { return }
        model.apply(reaction, state: controller.state, now: monotonic())
        switch reaction.outcome {
        case let .finished(result, path, error)?:
            let answered = result.items.filter { $0.outcome != .unanswered }.count
            model.phase = .receipt(TakeModel.Receipt(
                status: result.status, session: result.session, timeUsed: result.timeUsedSeconds, answered: answered,
                total: result.items.count, score: model.assessment.results.showScore ? result.score : nil,
                resultPath: path, problem: error.map { "the result file could not be written (\($0)); it is safe in the journal" }))
            if let error {
                finalLine = (.cannotCreate, "session \(result.session) ended (\(result.status.rawValue)) but its result file could not be written: \(error); the result is in the journal")
            } else {
                finalLine = (.ok, "session \(result.session) ended (\(result.status.rawValue)); result: \(path ?? "-")")
            }
        case let .interrupted(reason)?:
            finalLine = (.lockActive, "session \(controller.record.id) interrupted (\(reason)); every answer is saved — the proctor continues it with `carrel resume` or ends it with `carrel unlock`")
            quit = true
        case nil:
            break
        }
    }
}
