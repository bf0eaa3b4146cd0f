#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit

struct UnlockCommand: AsyncParsableCommand {
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

    func run() async throws {
        SignalGuard.unblockRelied()
        try await reportingFailures {
            guard let (journal, chosen) = try unlockWaiting() else { return }
            // A seat that published sends the result to its store (the one its journal names
            // when no --shared is given), or it waits in the outbox for the next session.
            try await lab.publishWaiting(journal, remembered: chosen.compactMap { $0.options.shared?.store })
        }
    }

    /// Ends the sessions waiting for the proctor (after the passphrase); the journal and the
    /// sessions ended, or nil when there was nothing to unlock.
    func unlockWaiting() throws -> (Journal, [SessionRecord])? {
        let context = state.context(needsTerminal: false)
        // First: a special file planted in the state directory is refused before any is opened.
        let journal = try state.existingJournal()
        if case let .held(holder) = context.lock.inspect() {
            let who = holder.map { "\($0.summary), session \($0.session)" } ?? "a session that is starting"
            throw CarrelFailure(status: .lockActive, message: "refusing to unlock: the session holding the lock is still running (\(who)); end it at its terminal with the proctor passphrase — unlock is for sessions whose process has gone")
        }
        guard let journal else {
            FileOutput.standardOutput.write("Nothing to unlock: no session has run with this state directory.\n")
            return nil
        }
        let chosen: [SessionRecord]
        do {
            // A session the journal cannot give back as written is named, and nothing is changed.
            if let damage = try journal.sessionReport(status: [.active, .interrupted]).damaged.first {
                var failure = StateOptions.failure(damage, journal: context.location.journalPath)
                failure.message += "; nothing was unlocked"
                throw failure
            }
            let waiting = try SessionRuntime.waiting(journal: journal, context: context)
            if waiting.isEmpty {
                FileOutput.standardOutput.write("Nothing to unlock: the lock is free and no session is interrupted.\n")
                return nil
            }
            chosen = try session.map { id throws(SessionError) in [try SessionRuntime.pick(id, from: waiting)] } ?? waiting
        } catch let error as CarrelFailure {
            throw error
        } catch {
            throw StateOptions.failure(error, journal: context.location.journalPath)
        }
        for record in chosen {
            let (assessment, passphrase) = try ProctorCheck.opened(record, journal: journal, location: context.location, action: "unlock")
            var unlocking = context
            // The service checks the same passphrase before it ends the machine's assessment mode.
            unlocking.modePassphrase = passphrase
            let endings: [Ending]
            do throws(SessionError) {
                endings = try SessionRuntime.unlock(sessionID: record.id, context: unlocking, open: { _ in assessment })
            } catch {
                throw error.failure
            }
            for ending in endings {
                guard let result = ending.result, ending.recorded else {
                    throw CarrelFailure(status: .cannotCreate, message: "session \(record.id) could not be ended: \(ending.problem ?? "the journal refused the result"); it still waits for the proctor — free space in \(state.location.stateDirectory) and run `carrel unlock` again")
                }
                var line = "Session \(result.session) (\(result.candidate ?? "no candidate")) ended by the proctor; "
                line += "\(result.answered) of \(result.given) answered."
                if let path = ending.resultPath { line += " Result: \(path)" }
                FileOutput.standardOutput.write(line + "\n")
                if let machine = ending.machine {
                    // The session ended; the machine's lock did not: say so, never "free" alone.
                    FileOutput.standardError.write("carrel: this machine's assessment mode was not ended: \(TerminalSafety.visible(machine, keepLineBreaks: false)); it ends by itself at the test's max_duration, or an administrator frees it with `systemctl restart carrel-assessmentd`\n")
                }
                if let problem = ending.problem {
                    throw CarrelFailure(status: .cannotCreate, message: "session \(result.session) ended and its result is in the journal, but \(problem)")
                }
            }
        }
        FileOutput.standardOutput.write("The lock is free.\n")
        return (journal, chosen)
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
        try opened(record, journal: journal, location: location, action: action).assessment
    }

    /// `open`, with the passphrase the gate accepted (nil in practice mode).
    static func opened(_ record: SessionRecord, journal: Journal, location: StateLocation,
                       action: String) throws(CarrelFailure) -> (assessment: Assessment, passphrase: String?) {
        guard !journal.isReadOnly else {
            throw CarrelFailure(status: .cannotCreate, message: "cannot \(action) session \(record.id.prefix(8)): the state directory \(location.stateDirectory) cannot be written here (a read-only medium or another user's copy); \(action) needs to record in its journal, so run it where the journal can be written (status and results only read it)")
        }
        do {
            let stored = try SessionRuntime.stored(record, journal: journal)
            guard stored.format == .sealed else {
                let assessment = try SessionRuntime.readYAML(stored)
                let typed = try require(for: record, hash: assessment.proctor.passphrase, journal: journal, location: location, action: action)
                return (assessment, typed)
            }
            let hash = try SessionRuntime.publicFacts(stored).passphrase
            let typed = try require(for: record, hash: hash, journal: journal, location: location, action: action)
            return (try SessionRuntime.open(stored, passphrase: typed, checked: true), typed)
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
        let events = UnrecordedEvents(journal: journal, session: record.id, attemptsPath: attempts.path)
        var attempt = 0
        while true {
            // At a terminal the wait comes before the prompt (what is typed meanwhile is
            // dropped); from a pipe the line is read first, so input that ended ends at once.
            if reader.interactive { waitOut(gate, reader) }
            guard let typed = try reader.readIfAny(prompt: prompt) else {
                if attempt > 0 { throw wrong(attempt, events) }
                throw CarrelFailure(status: .usage, message: "no passphrase was given on standard input; type it at a terminal or pipe it, one per line")
            }
            if !reader.interactive { waitOut(gate, reader) }
            switch gate.check(typed) {
            case .accepted:
                // The proctor is in; wrong passphrases before still go to the journal, or are said.
                if let missing = events.flush() { Console.error("warning: \(missing)") }
                return typed
            case .mustWait:
                continue
            case let .unavailable(why):
                throw CarrelFailure(status: .cannotCreate, message: why + (events.flush().map { "; \($0)" } ?? ""))
            case let .rejected(triesLeft, _):
                attempt += 1
                // The attempt is already in the attempts file; the journal gets it too, or
                // the refusal says it could not (the refusal never waits on the journal).
                events.add(.event(.passphraseFailed, "\(action), attempt \(attempt)", at: Date()))
                if triesLeft == 0 { throw wrong(attempt, events) }
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

    static func wrong(_ attempts: Int, _ events: UnrecordedEvents) -> CarrelFailure {
        var message = "wrong proctor passphrase; the session is unchanged (\(attempts) attempt\(attempts == 1 ? "" : "s") logged)"
        if let missing = events.flush() { message += "; but \(missing)" }
        return CarrelFailure(status: .wrongPassphrase, message: message)
    }
}

/// Integrity events for one session's journal (wrong proctor passphrases): each is committed
/// when it happens; one the journal cannot take stays here and is committed with the next, and
/// again before the command ends. What still cannot be committed is reported, never dropped.
final class UnrecordedEvents {
    let journal: Journal
    let session: String
    let attemptsPath: String
    private(set) var waiting: [JournalWrite] = []
    private var lastError = ""

    init(journal: Journal, session: String, attemptsPath: String) {
        self.journal = journal
        self.session = session
        self.attemptsPath = attemptsPath
    }

    func add(_ event: JournalWrite) {
        waiting.append(event)
        _ = flush()
    }

    /// Commits every event still waiting (a few tries, a tenth of a second apart); nil when the
    /// journal has them all, else the sentence that says what it lacks and where it is kept.
    func flush(tries: Int = 3) -> String? {
        for attempt in 1...tries where !waiting.isEmpty {
            do {
                try journal.commit(session: session, waiting, at: Date())
                waiting = []
            } catch {
                lastError = "\(error)"
                if attempt < tries { usleep(100_000) }
            }
        }
        guard !waiting.isEmpty else { return nil }
        let count = waiting.count == 1 ? "a wrong passphrase" : "\(waiting.count) wrong passphrases"
        return "the journal could not record \(count) for session \(session.prefix(8)) (\(lastError)); \(attemptsPath) has every attempt"
    }
}
