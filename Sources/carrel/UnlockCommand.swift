#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit

struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "End an interrupted session (or clear a stale lock) as the proctor.",
        discussion: """
            Use after a crash when the session should not be continued. The answers already \
            saved are kept: the session ends as `ended_by_proctor` and its result is written. \
            The proctor passphrase of the session's assessment is asked for (from a pipe: one \
            line). Refused while the process holding the lock is still alive. To continue the \
            session instead, use `carrel resume`.
            """
    )

    @OptionGroup var state: StateOptions
    @Argument(help: "The session id (or its first characters); all interrupted sessions when omitted.")
    var session: String?

    static let attempts = 3

    func run() throws {
        SignalGuard.unblockRelied()
        try reportingFailures {
            let location = state.location
            if case let .held(holder) = SessionLock.inspect(path: location.lockPath) {
                let who = holder.map { "\($0.summary), session \($0.session)" } ?? "a session that is starting"
                throw CarrelFailure(status: .lockActive, message: "refusing to unlock: the session holding the lock is still running (\(who)); end it at its terminal with the proctor passphrase — unlock is for sessions whose process has gone")
            }
            guard let journal = try state.existingJournal() else {
                FileOutput.standardOutput.write("Nothing to unlock: no session has run with this state directory.\n")
                return
            }
            let waiting: [SessionRecord]
            do {
                waiting = try SessionController.waiting(journal: journal, location: location)
            } catch let error as SessionError {
                throw error.failure
            }
            if waiting.isEmpty {
                FileOutput.standardOutput.write("Nothing to unlock: the lock is free and no session is interrupted.\n")
                return
            }
            let chosen: [SessionRecord]
            do {
                chosen = try session.map { [try SessionController.pick($0, from: waiting)] } ?? waiting
            } catch let error as SessionError {
                throw error.failure
            }
            for record in chosen {
                try ProctorCheck.require(for: record, journal: journal, action: "unlock")
                do {
                    for ended in try Unlock.run(sessionID: record.id, context: state.context(needsTerminal: false)) {
                        let answered = ended.result.items.filter { $0.outcome != .unanswered }.count
                        var line = "Session \(ended.result.session) (\(ended.result.candidate ?? "no candidate")) ended by the proctor; "
                        line += "\(answered) of \(ended.result.items.count) answered."
                        if let path = ended.resultPath { line += " Result: \(path)" }
                        FileOutput.standardOutput.write(line + "\n")
                        if let error = ended.writeError {
                            throw CarrelFailure(status: .cannotCreate, message: "the result is in the journal but its file could not be written: \(error)")
                        }
                    }
                } catch let error as SessionError {
                    throw error.failure
                }
            }
            FileOutput.standardOutput.write("The lock is free.\n")
        }
    }
}

/// The proctor passphrase gate for `resume` and `unlock`: a few tries, growing delays, each
/// failure logged; nothing is asked in practice mode.
enum ProctorCheck {
    static func require(for record: SessionRecord, journal: Journal, action: String) throws(CarrelFailure) {
        let assessment: Assessment
        do {
            assessment = try SessionController.storedAssessment(record)
        } catch {
            throw error.failure
        }
        guard let hash = assessment.proctor.passphrase else { return }
        let reader = SecretReader()
        for attempt in 1...UnlockCommand.attempts {
            let typed = try reader.read(prompt: "Proctor passphrase to \(action) \(record.id.prefix(8)) (\(record.candidate ?? "no candidate")): ")
            if hash.verify(typed) { return }
            try? journal.log(session: record.id, kind: .passphraseFailed, detail: "\(action), attempt \(attempt)", at: Date())
            if attempt < UnlockCommand.attempts {
                FileOutput.standardError.write("That passphrase is not right.\n")
                sleep(UInt32(1 << (attempt - 1)))
            }
        }
        throw CarrelFailure(status: .wrongPassphrase, message: "wrong proctor passphrase; the session is unchanged (\(UnlockCommand.attempts) attempts logged)")
    }
}
