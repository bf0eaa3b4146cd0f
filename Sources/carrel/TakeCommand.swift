#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import TerminalUI

struct TakeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "take",
        abstract: "Launch a locked assessment session in this terminal.",
        discussion: """
            Shows the start screen (what the test is and what is restricted), asks the proctor \
            passphrase when the assessment has one, confirms the lock, then runs the test until \
            it is submitted, the time runs out, or the proctor ends it. Keys: F1 in the test.
            Refuses to start (exit 75) while another session holds the lock or an interrupted \
            session waits for the proctor, and (exit 69) when the policy refuses the environment.
            """
    )

    @Argument(help: "The assessment file (.yaml).") var file: String
    @Option(help: "The candidate's name, shown on screen and in the result.") var candidate: String?
    @Option(name: .customLong("extra-time"), help: "Extra time: a multiplier (1.5), fixed minutes (+15m), or unlimited.")
    var extraTime: String?
    @Flag(name: .customLong("screen-reader"), help: "Keep the cursor on the focused element and never redraw by itself.")
    var screenReader = false
    @Option(help: "default, mono (also chosen by NO_COLOR) or contrast.") var theme: String?
    @OptionGroup var state: StateOptions

    func validate() throws {
        if let extraTime, ExtraTime(parsing: extraTime) == nil {
            throw ValidationError("--extra-time takes a multiplier from 1 to 10 (1.5), added time (+15m), or unlimited; not \"\(extraTime)\"")
        }
        if let theme, Theme.named(theme, environment: [:]) == nil {
            throw ValidationError("--theme is default, mono or contrast; not \"\(theme)\"")
        }
        if let candidate, let problem = TerminalSafety.candidateNameProblem(candidate) {
            throw ValidationError(problem)
        }
    }

    func run() throws {
        try reportingFailures {
            let loaded = try AssessmentFile.load(file)
            let assessment = try AssessmentFile.validated(file)
            let source = String(decoding: loaded.bytes, as: UTF8.self)
            let extra = extraTime.flatMap(ExtraTime.init(parsing:)) ?? ExtraTime.none
            let context = state.context(needsTerminal: true)
            try Launcher.precheck(assessment: assessment, context: context)
            let environment = ProcessInfo.processInfo.environment
            let model = TakeModel(
                assessment: assessment, candidate: candidate,
                timeAllowed: extra.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) },
                theme: Theme.named(theme, environment: environment) ?? .standard, screenReader: screenReader)
            let app = SessionApp(model: model)
            let (status, line) = app.run { app throws(SessionError) in
                try SessionController.begin(
                    assessment: assessment, source: source, path: file, candidate: candidate, extraTime: extra,
                    context: context, enterUI: { app.canvas.setReports(true) }, leaveUI: { app.canvas.setReports(false) })
            }
            try Launcher.finish(status, line)
        }
    }
}

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Continue an interrupted session where it stopped (proctor).",
        discussion: """
            After a crash, kill -9, SIGHUP or power loss, the session continues with the same \
            question order, every saved answer and flag, the same position, and the time that \
            was left. Asks the proctor passphrase when the assessment has one.
            """
    )

    @Argument(help: "The session id (or its first characters); needed only when several wait.")
    var session: String?
    @Flag(name: .customLong("screen-reader"), help: "Keep the cursor on the focused element and never redraw by itself.")
    var screenReader = false
    @Option(help: "default, mono (also chosen by NO_COLOR) or contrast.") var theme: String?
    @OptionGroup var state: StateOptions

    func run() throws {
        try reportingFailures {
            let location = state.location
            if case let .held(holder) = SessionLock.inspect(path: location.lockPath) {
                throw SessionError.lockHeld(holder).failure
            }
            guard let journal = try state.existingJournal() else { throw SessionError.nothingToResume.failure }
            let record: SessionRecord
            let assessment: Assessment
            do {
                let waiting = try SessionController.waiting(journal: journal, location: location)
                record = try SessionController.pick(session, from: waiting)
                assessment = try SessionController.storedAssessment(record)
            } catch let error as SessionError {
                throw error.failure
            }
            try ProctorCheck.require(for: record, journal: journal, action: "resume")
            let context = state.context(needsTerminal: true)
            var model = TakeModel(
                assessment: assessment, candidate: record.candidate,
                timeAllowed: record.extraTime.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) },
                theme: Theme.named(theme, environment: ProcessInfo.processInfo.environment) ?? .standard, screenReader: screenReader)
            model.phase = .question
            model.show("Session resumed: your answers, flags and time are restored", now: SessionClock.system.monotonic())
            let app = SessionApp(model: model)
            let (status, line) = app.run { app throws(SessionError) in
                try SessionController.resume(
                    sessionID: record.id, context: context,
                    enterUI: { app.canvas.setReports(true) }, leaveUI: { app.canvas.setReports(false) })
            }
            try Launcher.finish(status, line)
        }
    }
}

enum Launcher {
    /// Fails fast, before the screen changes, for what would refuse the session anyway.
    static func precheck(assessment: Assessment, context: SessionContext) throws(CarrelFailure) {
        guard isatty(0) == 1, isatty(1) == 1 else {
            throw CarrelFailure(status: .refused, message: "`carrel take` needs a terminal on standard input and output")
        }
        let refusals = Preflight.refusals(context.facts, policy: assessment.policy, needsTerminal: true)
        if !refusals.isEmpty { throw SessionError.refused(refusals).failure }
        if case let .held(holder) = SessionLock.inspect(path: context.location.lockPath) {
            throw SessionError.lockHeld(holder).failure
        }
        if FileManager.default.fileExists(atPath: context.location.journalPath),
           let journal = try? Journal(path: context.location.journalPath),
           let waiting = try? SessionController.waiting(journal: journal, location: context.location), !waiting.isEmpty {
            throw SessionError.interruptedSessions(waiting).failure
        }
    }

    static func finish(_ status: ExitStatus, _ line: String) throws(CarrelFailure) {
        guard status == .ok else { throw CarrelFailure(status: status, message: line) }
        if !line.isEmpty { FileOutput.standardOutput.write(line + "\n") }
    }
}
