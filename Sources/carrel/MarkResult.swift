import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore

struct MarkResult: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Record a person's mark for an essay (or override an item's score).",
        usage: """
            carrel results mark <session> <item> <points> [--comment <text>] [--state-dir <dir>]
            carrel results mark <session> <item> <points> --shared <url> [--passphrase-stdin --test <file.carrel> ...]
            """,
        discussion: """
            POINTS is from 0 to what the item is worth; halves and other decimals are fine. The \
            item's points and outcome (correct, partial, incorrect) follow the mark, the score and \
            the points still to mark are added up again, and the result file is rewritten. Marking \
            an item again replaces its mark; every mark stays in the journal and in the session's \
            timeline. Only a session that has ended (submitted, timed out or ended) can be marked.

            A session only the lab's store has is marked there (--shared URL). A sealed test's \
            seats started from the console had no answer key, so their results have no score to \
            mark against: give the sealed test and the proctor's passphrase on standard input \
            (--passphrase-stdin --test FILE.carrel); the result is scored with it, checked with \
            the proctor's key, then marked. Without the test such a mark is refused.

            Examples:
              carrel results mark 3f2a essay-1 2.5 --comment "Clear argument, no sources"
              printf '%s\\n' "$PASSPHRASE" | carrel results mark 3f2a essay-1 2.5 \\
                --shared URL --passphrase-stdin --test exam.carrel
            """)

    @Argument(help: "The session id (or its first characters).") var session: String
    @Argument(help: "The item id, as `carrel results show SESSION` lists it.") var item: String
    @Argument(help: "Points from 0 to the item's maximum, such as 2.5.") var points: String?
    /// The parser takes a negative POINTS for an unknown option: given after POINTS it lands
    /// here; in POINTS' place it is dropped (see `negative`). Either way the refusal names it.
    @Argument(parsing: .allUnrecognized, help: .private) var unrecognized: [String] = []
    @Option(help: ArgumentHelp("A note kept with the mark, up to \(TerminalSafety.commentMaximumCharacters) characters.",
                               valueName: "text"))
    var comment: String?
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions
    @OptionGroup var verify: VerifyOptions

    /// POINTS as typed, a negative one included.
    var typed: String { points ?? negative ?? "" }

    /// A negative number in POINTS' place, which the parser drops, read from the words as typed.
    var negative: String? {
        guard points == nil else { return nil }
        return CommandLine.arguments.dropFirst().first { $0.hasPrefix("-") && NumericText.parse($0) != nil }
    }

    /// POINTS as a number; nil when it is not one (`abc`, `nan`, `inf`).
    var value: Double? { NumericText.parse(typed) }

    func validate() throws {
        if let stray = unrecognized.first { throw ValidationError("unknown option or argument \"\(stray)\"") }
        guard points != nil || negative != nil else { throw ValidationError("POINTS is missing: give the points after the item, such as 2.5") }
        guard let value else { throw ValidationError("POINTS is a number such as 2.5, not \"\(typed)\"") }
        if NumericText.isAmbiguousGrouping(typed) {
            throw ValidationError("POINTS \"\(typed)\" could be read as a whole number with a thousands separator or as a decimal; write it without the comma, or with a point for a decimal (such as 1.5)")
        }
        guard value >= 0 else { throw ValidationError("POINTS cannot be negative (\(typed)); give 0 for no credit") }
        if let comment, let problem = TerminalSafety.commentProblem(comment) { throw ValidationError(problem) }
    }

    func run() async throws {
        try await reportingFailures {
            // The proctor's passphrase and sealed tests are for the lab's store's sessions.
            let proctor = verify.passphraseStdin || !verify.sealed.tests.isEmpty
            if proctor, try lab.url() == nil {
                throw CarrelFailure(status: .usage, message: "--passphrase-stdin and --test mark a session in the lab's store: give --shared URL")
            }
            let local = try ResultsData(state)
            // A session this machine's journal does not have is marked in the lab's store, and so
            // is one the proctor gives the passphrase for.
            if let url = try lab.url(), proctor || !local.records.contains(where: { $0.id == session || $0.id.hasPrefix(session.lowercased()) }) {
                try await markInStore(url)
                return
            }
            let (record, journal, value, short) = try markable(in: local)
            let marked: ResultDocument
            do {
                // `+ 0` turns a typed -0 into 0.
                marked = try journal.recordMark(session: record.id, item: item, points: value + 0, comment: comment, at: Date(),
                                                storage: SecureStateStorage(location: state.location))
            } catch let refusal as MarkRefusal {
                if case .pointsOutOfRange = refusal {
                    throw CarrelFailure(status: .usage, message: "cannot give \(typed) points: \(refusal)")
                }
                if case .notFinished = refusal { throw CarrelFailure(status: .lockActive, message: "\(refusal)") }
                throw CarrelFailure(status: .usage, message: "session \(short): \(refusal)")
            } catch let error as FileSystemError {
                throw CarrelFailure(status: .cannotCreate, message: "the mark was not recorded: the result file \(error.path) \(error.reason)")
            } catch {
                throw CarrelFailure(status: .cannotCreate, message: "the mark was not recorded: the journal \(state.location.journalPath) failed (\(error))")
            }
            FileOutput.standardOutput.write(summary(marked, value: value, short: short) + "\n")
            // A session that publishes sends its marked result to the lab's store too.
            try await lab.publishWaiting(journal)
        }
    }

    /// The session to mark, its journal (or the store's copy) and POINTS, once the session is
    /// found and has ended.
    func markable(in data: ResultsData) throws(CarrelFailure) -> (SessionRecord, Journal, Double, String) {
        let record = try data.session(session)
        let short = String(record.id.prefix(8))
        guard record.status == .ended else { throw Self.notEnded(record, short: short, waiting: data.waiting) }
        guard let journal = data.journal, let value else {
            throw CarrelFailure(status: .internalError, message: "session \(short) was found without a journal or POINTS")
        }
        return (record, journal, value, short)
    }

    /// "Marked ITEM of session SHORT (candidate): P of MAX. Score S of T, …"
    func summary(_ marked: ResultDocument, value: Double, short: String) -> String {
        let given = marked.items.first { $0.id == item }
        var line = "Marked \(item) of session \(short)"
        if let candidate = marked.candidate { line += " (\(TerminalSafety.visible(candidate, keepLineBreaks: false)))" }
        line += ": \(PointsText.format(given?.points ?? value)) of \(PointsText.format(given?.max ?? 0))."
        line += " Score \(PointsText.format(marked.score.points)) of \(PointsText.format(marked.score.max))"
        line += marked.score.pending > 0 ? ", \(PointsText.format(marked.score.pending)) still to mark." : ", nothing left to mark."
        // A text with gaps: what each gap was given and scored, beside the mark.
        for gap in given.map(CSV.gapLines) ?? [] { line += "\n  " + gap }
        return line
    }

    /// Marks a session found in the lab's store: checked against the store's copy of its result
    /// (the same rules as a local mark), then kept in the store, where results read it at once
    /// and the seat's journal takes it when the seat next connects.
    func markInStore(_ url: SharedURL) async throws(CarrelFailure) {
        // With --passphrase-stdin the store's copy is checked with the proctor's key, and with
        // --test a result whose seat had no answer key is scored before it is marked.
        let (record, journal, value, short) = try markable(in: try await ResultsData.load(state, lab: lab, verify: verify))
        let marked: ResultDocument
        do {
            marked = try journal.recordMark(session: record.id, item: item, points: value + 0, comment: comment, at: Date(),
                                            storage: NoResultFiles())
        } catch let refusal as MarkRefusal {
            if case .pointsOutOfRange = refusal {
                throw CarrelFailure(status: .usage, message: "cannot give \(typed) points: \(refusal)")
            }
            if case .unscored = refusal { throw Self.unscored(record, short: short, tests: verify.sealed.tests) }
            throw CarrelFailure(status: .usage, message: "session \(short): \(refusal)")
        } catch {
            throw CarrelFailure(status: .cannotOpenInput, message: "session \(short): the store's copy of its result cannot be marked: \(error)")
        }
        let (item, comment) = (self.item, self.comment)
        _ = try await ProctorStore.using(url, doing: "record the mark") {
            try await $0.addMark(session: record.id, item: item, points: value + 0, comment: comment)
        }
        FileOutput.standardOutput.write(summary(marked, value: value, short: short)
            + " Kept in the shared store; the seat's journal takes it when the seat next connects.\n")
    }

    /// Why a result its seat could not score cannot be marked without its sealed test: a mark
    /// on it would count against a score of 0 of 0, so none is kept.
    static func unscored(_ record: SessionRecord, short: String, tests: [String]) -> CarrelFailure {
        let test = TerminalSafety.visible(record.assessmentID, keepLineBreaks: false)
        if tests.isEmpty {
            return CarrelFailure(status: .usage, message: "session \(short) ran without the answer key (its seat had the questions of \(test) only), "
                + "so its result has no score to mark yet: give the sealed test and the proctor's passphrase, "
                + "`--passphrase-stdin --test \(test).carrel`; nothing was recorded")
        }
        return CarrelFailure(status: .usage, message: "session \(short) ran without the answer key, and no test given with --test is its test "
            + "(\(test), fingerprint \(TerminalSafety.visible(String(record.fingerprint.prefix(16)), keepLineBreaks: false))…): give its sealed test; nothing was recorded")
    }

    /// Why a session that has not ended cannot be marked yet, and what to do.
    static func notEnded(_ record: SessionRecord, short: String, waiting: Set<String>) -> CarrelFailure {
        switch ResultFilters.status(record, waiting: waiting) {
        case "interrupted":
            return CarrelFailure(status: .lockActive, message: "session \(short) was interrupted and has no result yet; "
                + "continue it with `carrel resume \(short)` or end it with `carrel unlock \(short)`, then mark it")
        case "active":
            return CarrelFailure(status: .lockActive, message: "session \(short) is still running; mark it once it is submitted or ended")
        case let other:
            return CarrelFailure(status: .usage, message: "session \(short) has no result to mark (it is \(other))")
        }
    }
}
