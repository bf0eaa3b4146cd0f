import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import TerminalUI

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether a session holds the lock, and any interrupted sessions.",
        discussion: """
            An interrupted session (crash, kill -9, SIGHUP, power loss) blocks new sessions \
            until the proctor continues it with `carrel resume` or ends it with `carrel unlock`. \
            A session the journal cannot give back as Carrel wrote it is listed as damaged (exit \
            65) and every other one is still shown; a state directory this user cannot write is \
            read without writing anything; a FIFO, socket, device or link where Carrel keeps a \
            file is refused at once with its path (exit 73).
            """
    )

    @OptionGroup var state: StateOptions
    @Flag(help: "Print the status as JSON.") var json = false

    struct Progress: Codable {
        var answered: Int
        var items: Int
        var elapsedSeconds: Int
        /// The time allowed: the test's limit with the roster's extra time, and the time the
        /// proctor added.
        var timeAllowedSeconds: Int?
        var addedSeconds: Int = 0
    }

    /// What `status` prints of a session (its JSON, a format scripts read): the record's facts
    /// for a proctor, with its progress and its standing with the shared store.
    struct SessionSummary: Codable {
        var session: String
        var candidate: String?
        var assessment: String
        var status: String
        var started: String
        var pid: Int32
        var host: String
        var interruptions: Int
        var progress: Progress
        /// Set for a session that publishes to a lab's shared store.
        var shared: SharedInfo?
        /// For an interrupted session: the whole commands that continue or end it.
        var resumeCommand: String?
        var unlockCommand: String?
    }

    /// How a publishing session stands with the lab's shared store, for the proctor.
    struct SharedInfo: Codable {
        var room: String
        var seat: String
        /// What the seat's process last reported: "connected", "not reachable (why)",
        /// "connecting"; nil before the first try.
        var store: String?
        /// When it reported it.
        var since: String?
        /// How the seat stands with the store now: `store` while its process runs, "not
        /// connected (its process has ended)" once it is gone.
        var storeNow: String?
        /// The store's URL, without its password, that `resume` publishes to again.
        var url: String?
        /// This session's records not yet in the store.
        var waitingRecords: Int
        /// When the store last confirmed every record the seat had sent.
        var lastReached: String?
        /// When the seat last reached the store: the later of `lastReached` and the time it last
        /// found the store connected.
        var lastHeard: String?
    }

    struct LockInfo: Codable {
        var held: Bool
        var holder: LockHolder?
        var session: SessionSummary?
    }

    /// Wrong proctor passphrases recorded in the state directory (launch, resume, unlock).
    struct PassphraseInfo: Codable {
        var failuresInARow: Int
        var nextTryAllowed: String?
        var recent: [PassphraseAttempts.Entry]
    }

    struct Output: Codable {
        var stateDirectory: String
        var lock: LockInfo
        var interrupted: [SessionSummary]
        var passphraseAttempts: PassphraseInfo?
        /// Records of any session in this journal not yet in a lab's shared store.
        var sharedRecordsWaiting: Int
        /// What the journal cannot give back as Carrel wrote it, one line per session.
        var damaged: [String] = []
        /// Why the passphrase attempts record cannot be read, when it cannot.
        var passphraseAttemptsProblem: String?
    }

    func run() throws {
        try reportingFailures {
            let output = try collect()
            if json {
                FileOutput.standardOutput.write(try JSONText.pretty(output))
            } else {
                FileOutput.standardOutput.write(text(output))
            }
            // Everything readable is shown above; damage still fails the command (65).
            if !output.damaged.isEmpty {
                throw StateOptions.failure(JournalCorruption(what: output.damaged.count == 1 ? output.damaged[0]
                    : "\(output.damaged.count) sessions cannot be read (listed above)"), journal: state.location.journalPath)
            }
        }
    }

    func collect() throws(CarrelFailure) -> Output {
        let context = state.context(needsTerminal: false)
        let journal = try state.existingJournal()
        var output = Output(stateDirectory: context.location.stateDirectory, lock: LockInfo(held: false, holder: nil, session: nil),
                            interrupted: [], passphraseAttempts: nil, sharedRecordsWaiting: 0)
        do {
            let lock = context.lock.inspect()
            if case let .held(holder) = lock {
                output.lock.held = true
                output.lock.holder = holder
                if let id = holder?.session, let journal {
                    output.lock.session = try noting(&output.damaged) {
                        try journal.session(id).map { try summary($0, journal: journal, live: true) }
                    } ?? nil
                }
            }
            if let journal {
                output.interrupted = try waiting(journal, lock: lock, damaged: &output.damaged)
                output.sharedRecordsWaiting = try journal.outboxWaiting().records
            }
            do {
                if let record = try PassphraseAttempts(stateDirectory: context.location.stateDirectory).stored(), !record.recent.isEmpty {
                    let next = record.nextAllowed > Date().timeIntervalSince1970 ? Timestamp.iso(Date(timeIntervalSince1970: record.nextAllowed)) : nil
                    output.passphraseAttempts = PassphraseInfo(failuresInARow: record.failures, nextTryAllowed: next,
                                                               recent: Array(record.recent.suffix(5)))
                }
            } catch {
                output.passphraseAttemptsProblem = error.description
            }
            return output
        } catch let error as CarrelFailure {
            throw error
        } catch {
            throw StateOptions.failure(error, journal: context.location.journalPath)
        }
    }

    /// Sessions waiting for the proctor, as `SessionRuntime.waiting` finds them (marked
    /// interrupted, or active with no live holder of the lock), each summarised; a session the
    /// journal cannot give back is added to `damaged` and every other one is still shown.
    func waiting(_ journal: Journal, lock: LockState, damaged: inout [String]) throws -> [SessionSummary] {
        let report = try journal.sessionReport(status: [.active, .interrupted])
        damaged += report.damaged.map(\.what)
        let live: String?
        switch lock {
        case .free: live = nil
        case let .held(holder):
            guard let session = holder?.session else { return [] }
            live = session
        }
        return try report.sessions.filter { $0.id != live }.compactMap { record in
            try noting(&damaged) {
                var s = try summary(record, journal: journal, live: false)
                // Still marked active with no live holder: its process is gone.
                s.status = "interrupted"
                s.resumeCommand = command("resume", record)
                s.unlockCommand = command("unlock", record)
                return s
            }
        }
    }

    /// `read()`, with damage to the journal noted in `damaged` (nil then) and any other
    /// failure thrown.
    func noting<T>(_ damaged: inout [String], _ read: () throws -> T) throws -> T? {
        do {
            return try read()
        } catch {
            guard let damage = JournalCorruption.damage(in: error) else { throw error }
            damaged.append(damage)
            return nil
        }
    }

    /// The whole command that continues (`resume`) or ends (`unlock`) `record`, to copy as it
    /// is: the full session id, this state directory when one was chosen, and the store a
    /// publishing session goes on publishing to (never a password; the journal keeps none).
    /// Options come first and the id after `--`, so no id can be read as an option; nil when
    /// a word holds anything a terminal could not show as it is (a hand-edited journal), as
    /// a command changed to be shown would not be the one to run.
    func command(_ verb: String, _ record: SessionRecord) -> String? {
        var words = ["carrel", verb]
        if state.stateDir != nil || !(ProcessEnvironment.current["CARREL_STATE_DIR"] ?? "").isEmpty {
            words.append("--state-dir=" + state.location.stateDirectory)
        }
        if verb == "resume", let label = record.options.shared {
            words.append("--shared=" + (label.store ?? "URL"))
        }
        words += ["--", record.id]
        guard words.allSatisfy({ TerminalSafety.firstUnsafe(in: $0) == nil }) else { return nil }
        return words.map(Self.shellWord).joined(separator: " ")
    }

    /// A word as a POSIX shell reads it back: quoted when it holds anything but plain
    /// characters, and made safe to print.
    static func shellWord(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_./:@%+=,".unicodeScalars.contains($0)) }
        let shown = TextWidth.sanitise(word)
        return plain && !word.isEmpty ? shown : "'" + shown.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    func summary(_ record: SessionRecord, journal: Journal, live: Bool) throws -> SessionSummary {
        // A journal whose assessment cannot be read still has a status to show; a sealed one
        // tells its size and time from its public header, without the passphrase.
        let facts = TestFacts.of(record, journal: journal)
        let answers = try journal.answers(session: record.id)
        let answered = answers.values.filter { !$0.isEmpty }.count
        let added = RoomControl.replay(try journal.events(session: record.id), watched: record.options.shared != nil).addedSeconds
        // The seat's own figure (its test's limit with the roster's extra time) when its test
        // cannot be read here, and always the time the proctor added on top.
        let limit = facts.map { record.extraTime.apply(to: $0.timeLimit) } ?? record.options.shared?.timeAllowed
        let allowed = limit.map { $0 + added }
        var shared: SharedInfo?
        if let p = try journal.publication(session: record.id) {
            let reported = p.since.map(Timestamp.iso)
            // A seat whose process has ended is connected to nothing, whatever it last said.
            shared = SharedInfo(room: p.room, seat: p.seat, store: p.state, since: reported,
                                storeNow: live ? p.state : "not connected (its process has ended)",
                                url: record.options.shared?.store,
                                waitingRecords: try journal.outboxWaiting(session: record.id),
                                lastReached: try journal.lastPublished().map(Timestamp.iso))
            // When the store last received anything from the seat: its last confirmation, or the
            // last time the seat found it connected (never just when the session began).
            let connectedAt = p.state == "connected" ? p.since : nil
            shared?.lastHeard = [try journal.lastPublished(), connectedAt].compactMap { $0 }.max().map(Timestamp.iso)
        }
        return SessionSummary(
            session: record.id, candidate: record.candidate, assessment: record.assessmentID,
            status: record.status == .active ? "active" : record.status.rawValue, started: Timestamp.iso(record.startedAt),
            pid: record.pid, host: record.host, interruptions: record.interruptions,
            progress: Progress(answered: answered, items: facts?.items ?? 0,
                               elapsedSeconds: TimeUsed.seconds(record.elapsed), timeAllowedSeconds: allowed, addedSeconds: added),
            shared: shared)
    }

    func text(_ o: Output) -> String {
        var out = ""
        if o.lock.held {
            let who = o.lock.holder.map { "\($0.summary), session \($0.session)" } ?? "a session that is starting"
            out += "Lock: held by \(who)\n"
            if let s = o.lock.session {
                out += "  progress: \(progressText(s.progress))\n"
                if let shared = s.shared { out += "  \(sharedText(shared))\n" }
            }
        } else {
            out += "Lock: free\n"
        }
        if o.interrupted.isEmpty {
            out += "Interrupted sessions: none\n"
        } else {
            out += "Interrupted sessions waiting for the proctor:\n"
            for s in o.interrupted {
                out += "  \(s.session)  \(s.candidate ?? "(no candidate)")  \(s.assessment)  started \(s.started)\n"
                out += "    \(progressText(s.progress))\n"
                if let shared = s.shared { out += "    \(sharedText(shared))\n" }
                if let resume = s.resumeCommand, let unlock = s.unlockCommand {
                    out += "    continue: \(resume)\n"
                    out += "    end:      \(unlock)\n"
                } else {
                    out += "    continue with `carrel resume`, end with `carrel unlock` (this session's record holds characters that cannot be shown as they are; see `carrel status --json`)\n"
                }
                if s.shared != nil && s.shared?.url == nil {
                    out += "    (this journal does not name the seat's store: give its URL as --shared)\n"
                }
            }
        }
        if let p = o.passphraseAttempts, p.failuresInARow > 0 {
            let last = p.recent.last.map { " (last: \($0.action) at \($0.at))" } ?? ""
            out += "Wrong proctor passphrases: \(p.failuresInARow) in a row\(last)"
            out += p.nextTryAllowed.map { "; next try from \($0)\n" } ?? "\n"
        }
        if let problem = o.passphraseAttemptsProblem {
            out += "Wrong proctor passphrases: the record cannot be read: \(problem)\n"
        }
        if !o.damaged.isEmpty {
            out += "Damaged in the journal (not as Carrel wrote it; nothing is guessed):\n"
            for line in o.damaged { out += "  \(line)\n" }
        }
        if o.sharedRecordsWaiting > 0 {
            out += "Shared store: \(o.sharedRecordsWaiting) record\(o.sharedRecordsWaiting == 1 ? "" : "s") not yet published; the next session on this seat with --shared sends them\n"
        }
        out += "State: \(o.stateDirectory)\n"
        return out
    }

    /// "shared store (room lab-1, seat A3): not reachable (…) since …; 12 records waiting".
    func sharedText(_ s: SharedInfo) -> String {
        var text = "shared store (room \(TextWidth.sanitise(s.room)), seat \(TextWidth.sanitise(s.seat))): "
        let now = s.storeNow ?? s.store
        text += now.map { TextWidth.sanitise($0) } ?? "not tried yet"
        if now == s.store {
            if let since = s.since { text += " since \(since)" }
        } else if let heard = s.lastHeard {
            text += " (it last reached the store at \(heard))"
        } else if let last = s.store {
            text += " (it last reported \(TextWidth.sanitise(last))\(s.since.map { " at \($0)" } ?? ""))"
        }
        text += s.waitingRecords == 0 ? "; every record published"
            : "; \(s.waitingRecords) record\(s.waitingRecords == 1 ? "" : "s") waiting to be published"
        if let reached = s.lastReached { text += "; the store last confirmed every record at \(reached)" }
        return text
    }

    func progressText(_ p: Progress) -> String {
        let added = p.addedSeconds > 0 ? " (\(DurationText.format(p.addedSeconds)) added by the proctor)" : ""
        let time = p.timeAllowedSeconds.map { "\(DurationText.format(p.elapsedSeconds)) used of \(DurationText.format($0))\(added)" }
            ?? "\(DurationText.format(p.elapsedSeconds)) used"
        return "\(p.answered) of \(p.items) answered, \(time)"
    }
}
