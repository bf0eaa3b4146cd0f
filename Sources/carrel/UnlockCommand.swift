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
            line); it also opens an assessment that was sealed. Refused while the process holding the lock is still alive. To continue the \
            session instead, use `carrel resume`.
            """
    )

    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions
    @Argument(help: "The session id (or its first characters); all interrupted sessions when omitted.")
    var session: String?

    static let attempts = 3

    func run() throws {
        SignalGuard.unblockRelied()
        try reportingFailures {
            let context = state.context(needsTerminal: false)
            if case let .held(holder) = context.lock.inspect() {
                let who = holder.map { "\($0.summary), session \($0.session)" } ?? "a session that is starting"
                throw CarrelFailure(status: .lockActive, message: "refusing to unlock: the session holding the lock is still running (\(who)); end it at its terminal with the proctor passphrase — unlock is for sessions whose process has gone")
            }
            guard let journal = try state.existingJournal() else {
                FileOutput.standardOutput.write("Nothing to unlock: no session has run with this state directory.\n")
                return
            }
            let chosen: [SessionRecord]
            do {
                let waiting = try SessionRuntime.waiting(journal: journal, context: context)
                if waiting.isEmpty {
                    FileOutput.standardOutput.write("Nothing to unlock: the lock is free and no session is interrupted.\n")
                    return
                }
                chosen = try session.map { id throws(SessionError) in [try SessionRuntime.pick(id, from: waiting)] } ?? waiting
            } catch let error as SessionError {
                throw error.failure
            }
            for record in chosen {
                let assessment = try ProctorCheck.open(record, journal: journal, location: context.location, action: "unlock")
                let endings: [Ending]
                do throws(SessionError) {
                    endings = try SessionRuntime.unlock(sessionID: record.id, context: context, open: { _ in assessment })
                } catch {
                    throw error.failure
                }
                for ending in endings {
                    guard let result = ending.result, ending.recorded else {
                        throw CarrelFailure(status: .cannotCreate, message: "session \(record.id) could not be ended: \(ending.problem ?? "the journal refused the result"); it still waits for the proctor — free space in \(state.location.stateDirectory) and run `carrel unlock` again")
                    }
                    let answered = result.items.filter { $0.outcome != .unanswered }.count
                    var line = "Session \(result.session) (\(result.candidate ?? "no candidate")) ended by the proctor; "
                    line += "\(answered) of \(result.items.count) answered."
                    if let path = ending.resultPath { line += " Result: \(path)" }
                    FileOutput.standardOutput.write(line + "\n")
                    if let problem = ending.problem {
                        throw CarrelFailure(status: .cannotCreate, message: problem)
                    }
                }
            }
            FileOutput.standardOutput.write("The lock is free.\n")
            try lab.publishWaiting(journal)
        }
    }
}

/// The proctor passphrase gate for `resume` and `unlock` (`ProctorGate`): three tries (from
/// a pipe, one per line; the input ending after a wrong one is wrong too, exit 77); a wait
/// after every wrong passphrase that grows and holds across processes; each failure logged;
/// echo off throughout. Nothing is asked in practice mode.
enum ProctorCheck {
    /// The session's assessment from the journal, after the proctor passphrase when it has
    /// one: a sealed copy shows its passphrase hash in its header and is opened, in memory
    /// only, by the passphrase the gate accepted.
    static func open(_ record: SessionRecord, journal: Journal, location: StateLocation,
                     action: String) throws(CarrelFailure) -> Assessment {
        do {
            let stored = try SessionRuntime.stored(record, journal: journal)
            guard stored.format == .sealed else {
                let assessment = try SessionRuntime.readYAML(stored)
                _ = try require(for: record, hash: assessment.proctor.passphrase, journal: journal, location: location, action: action)
                return assessment
            }
            let hash = try SessionRuntime.publicFacts(stored).passphrase
            let typed = try require(for: record, hash: hash, journal: journal, location: location, action: action)
            return try SessionRuntime.open(stored, passphrase: typed, checked: true)
        } catch let error as SessionError {
            throw error.failure
        } catch let error as CarrelFailure {
            throw error
        } catch {
            throw CarrelFailure(status: .internalError, message: "\(error)")
        }
    }

    /// Asks until the gate accepts; returns the accepted passphrase (nil when none is needed).
    static func require(for record: SessionRecord, hash: PassphraseHash?, journal: Journal, location: StateLocation,
                        action: String) throws(CarrelFailure) -> String? {
        guard let hash else { return nil }
        let reader = SecretReader()
        defer { reader.finish() }
        let attempts = PassphraseAttempts(stateDirectory: location.stateDirectory)
        let gate = ProctorGate(hash: hash, attempts: attempts, tries: UnlockCommand.attempts, action: "\(action) \(record.id.prefix(8))")
        let prompt = "Proctor passphrase to \(action) \(record.id.prefix(8)) (\(record.candidate ?? "no candidate")): "
        var attempt = 0
        while true {
            // At a terminal the wait comes before the prompt (what is typed meanwhile is
            // dropped); from a pipe the line is read first, so input that ended ends at once.
            if reader.interactive { waitOut(gate, reader) }
            guard let typed = try reader.readIfAny(prompt: prompt) else {
                if attempt > 0 { throw wrong(attempt) }
                throw CarrelFailure(status: .usage, message: "no passphrase was given on standard input; type it at a terminal or pipe it, one per line")
            }
            if !reader.interactive { waitOut(gate, reader) }
            switch gate.check(typed) {
            case .accepted:
                return typed
            case .mustWait:
                continue
            case let .unavailable(why):
                throw CarrelFailure(status: .cannotCreate, message: why)
            case let .rejected(triesLeft, _):
                attempt += 1
                // The attempt is already in the attempts file; a journal that cannot take the
                // event must not stop the refusal.
                try? journal.commit(session: record.id, [.event(.passphraseFailed, "\(action), attempt \(attempt)", at: Date())], at: Date())
                if triesLeft == 0 { throw wrong(attempt) }
                reader.say("That passphrase is not right.\n")
            }
        }
    }

    /// Sits out the wait left by wrong passphrases (of this process or any other).
    static func waitOut(_ gate: ProctorGate, _ reader: SecretReader) {
        let wait = gate.waitNeeded()
        guard wait > 0 else { return }
        reader.say("After wrong passphrases the next try waits \(Int(wait.rounded(.up))) s.\n")
        reader.pause(wait)
    }

    static func wrong(_ attempts: Int) -> CarrelFailure {
        CarrelFailure(status: .wrongPassphrase, message: "wrong proctor passphrase; the session is unchanged (\(attempts) attempt\(attempts == 1 ? "" : "s") logged)")
    }
}
