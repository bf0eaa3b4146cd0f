import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore

/// `--strict`: what a report does about a session it could not read.
struct SkipOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Exit 65 when a session could not be read.",
        discussion: "Such a session is named on standard error with the reason and left out either way; everything readable is printed first."))
    var strict = false
}

/// The sessions `results` reports on: this seat's journal, or a copy of a shared store's.
/// Where `results list`, `show` and `export` read from, and how: the state directory or the
/// lab's store, what to do with sessions that cannot be read, the proctor's verification.
struct ResultSource: ParsableArguments {
    @OptionGroup var skipping: SkipOptions
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions
    @OptionGroup var verify: VerifyOptions

    func load() async throws(CarrelFailure) -> ResultsData {
        try await ResultsData.load(state, lab: lab, verify: verify)
    }
}

struct ResultsData {
    let journal: Journal?
    let records: [SessionRecord]
    let waiting: Set<String>
    /// Sessions left out because something of theirs cannot be read (named at the end).
    private(set) var skipped: [SkippedSession]
    /// Each session's check with the proctor's key, when asked for (`--passphrase-stdin`).
    var checks: [String: SessionCheck]?
    /// From a shared store: the status of each session its record cannot say (a refused
    /// attempt, `seat_lost`, a later Carrel's word), the roster's extra time of each, and who
    /// issued each `time` command when.
    var statuses: [String: String] = [:]
    var extraTimes: [String: String] = [:]
    var issues: [Int64: CommandIssue] = [:]
    var moves: [String: [SeatMove]] = [:]

    /// The results of this seat's journal, or with `--shared` (or CARREL_SHARED) those of the
    /// lab's shared store, one room or all, read into a journal of the same form.
    static func load(_ state: StateOptions, lab: SharedOptions, verify: VerifyOptions? = nil) async throws(CarrelFailure) -> ResultsData {
        guard let url = try lab.url() else {
            if verify?.passphraseStdin == true {
                throw CarrelFailure(status: .usage, message: "--passphrase-stdin checks a shared store's records: give --shared URL")
            }
            return try ResultsData(state)
        }
        let proctor = try verify?.keys()
        let signer = proctor?.signer
        let reader = try await SharedOptions.reader(url)
        do {
            var keys: RoomKeys?
            if let signer { keys = try await Self.roomKeys(reader, signer: signer) }
            let copy = try await reader.journalCopy(room: lab.roomName, verifying: keys, scoring: proctor?.scoring)
            await reader.close()
            var data = ResultsData(journal: copy.journal, records: try copy.journal.sessions(status: nil), waiting: copy.waiting,
                                   skipped: copy.skipped)
            if signer != nil { data.checks = copy.checks }
            data.statuses = copy.statuses
            data.extraTimes = copy.extraTimes
            data.issues = copy.issues
            data.moves = copy.moves
            return data
        } catch let failure as CarrelFailure {
            await reader.close()
            throw failure
        } catch {
            await reader.close()
            throw CarrelFailure(status: .cannotOpenInput, message: "cannot read the shared store \(url): \(url.redacting(SeatPublisher.describe(error)))")
        }
    }

    /// Every room's keys the passphrase derives (a wrong passphrase for a room's key is said
    /// at once, not found session by session).
    static func roomKeys(_ reader: SharedReader, signer: ProctorSigner) async throws -> RoomKeys {
        var plans: [String: RoomPlan] = [:]
        for plan in try await reader.rooms() where plan.proctorKey != nil {
            // A closed room's sessions are checked as an open one's; a wrong passphrase is said now.
            var open = plan
            open.closedAt = nil
            _ = try signer.key(room: plan.room, plan: open)
            plans[plan.room] = plan
        }
        return signer.roomKeys(plans)
    }

    init(journal: Journal?, records: [SessionRecord], waiting: Set<String>, skipped: [SkippedSession] = []) {
        self.journal = journal
        self.records = records
        self.waiting = waiting
        self.skipped = skipped
    }

    init(_ state: StateOptions) throws(CarrelFailure) {
        skipped = []
        journal = try state.existingJournal()
        guard let journal else {
            records = []
            waiting = []
            return
        }
        do {
            records = try journal.sessions(status: nil)
            waiting = Set(try SessionRuntime.waiting(journal: journal, context: state.context(needsTerminal: false)).map(\.id))
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "cannot read the journal \(state.location.journalPath): \(error)")
        }
    }

    /// Leaves `session` out of this report, with why.
    mutating func skip(_ session: String, _ reason: String) {
        skipped.append(SkippedSession(session: session, reason: reason))
    }

    /// The one session whose id is `id` or starts with it.
    func session(_ id: String) throws(CarrelFailure) -> SessionRecord {
        // An empty prefix would name whichever session happens to be alone in the journal.
        guard !id.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CarrelFailure(status: .usage, message: "name a session by its id or its first characters; `carrel results list` shows them")
        }
        let matches = records.filter { $0.id == id || $0.id.hasPrefix(id.lowercased()) }
        if matches.isEmpty, let unreadable = skipped.first(where: { $0.session == id || $0.session.hasPrefix(id.lowercased()) }) {
            throw CarrelFailure(status: .invalidAssessment, message: "session \(unreadable.session) cannot be read: \(unreadable.reason); "
                + "read it at its seat (`carrel results show` there)")
        }
        guard matches.count == 1, let record = matches.first else {
            throw CarrelFailure(status: .usage, message: matches.isEmpty
                ? "no session \(id); `carrel results list` shows them"
                : "\(id) matches \(matches.count) sessions; give more characters")
        }
        return record
    }

    /// Every session's score, without reading whole results.
    func scores() throws(CarrelFailure) -> [String: ScoreSummary] {
        do {
            return try journal?.scores() ?? [:]
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's results cannot be read: \(error)")
        }
    }

    /// A session's result, read once by `ResultDocument.read`; exit 65 when it is damaged.
    func result(_ id: String) throws(CarrelFailure) -> ResultDocument? {
        let (document, damage) = try readResult(id)
        if let damage {
            throw CarrelFailure(status: .invalidAssessment, message: "the result of session \(id) cannot be read: \(damage); "
                + "the journal or store holding it was changed by hand or damaged")
        }
        return document
    }

    /// A session's result, or why it cannot be read; exit 73 only when the journal itself
    /// cannot be read.
    func readResult(_ id: String) throws(CarrelFailure) -> (document: ResultDocument?, damage: String?) {
        let text: String?
        do {
            text = try journal?.result(session: id)
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's result of session \(id) cannot be read: \(error)")
        }
        guard let text else { return (nil, nil) }
        do throws(StrictJSON.Problem) {
            return (try ResultDocument.read(text), nil)
        } catch {
            return (nil, "its result cannot be read: \(error.description)")
        }
    }

    func integrity(_ r: SessionRecord) throws(CarrelFailure) -> IntegrityReport {
        IntegrityReport(events: try events(r), interruptions: r.interruptions)
    }

    func events(_ r: SessionRecord) throws(CarrelFailure) -> [JournalEvent] {
        do {
            return try journal?.events(session: r.id) ?? []
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's events of session \(r.id) cannot be read: \(error)")
        }
    }

    /// Names each session left out on standard error, then `summary` with their count; with
    /// `strict`, exit 65 when any was left out. Called once everything readable is printed.
    func finish(_ summary: String?, strict: Bool) throws(CarrelFailure) {
        guard !skipped.isEmpty else {
            if let summary { FileOutput.standardError.write(summary + "\n") }
            return
        }
        for s in skipped { Console.error("skipped session \(s.session): \(s.reason)") }
        let count = "\(skipped.count) session\(skipped.count == 1 ? "" : "s")"
        FileOutput.standardError.write("\(summary ?? "Done"); \(count) skipped, named above (cannot be read)\n")
        if strict {
            throw CarrelFailure(status: .invalidAssessment, message: "\(count) could not be read (named above) and --strict was given; "
                + "read \(skipped.count == 1 ? "it" : "them") at the seat (`carrel results export` there), or leave out --strict")
        }
    }
}

/// Why one session cannot be in a report (the others still are).
struct SessionDamage: Error {
    var reason: String
}

extension ResultsData {
    /// One gradebook row before the columns are known.
    struct GradebookEntry {
        var heading: ResultHeading
        var integrity: IntegrityReport
        var items: [String]
        var csv: String?
        var cells: [String]?
        var standing: SessionStanding
        var account: SessionAccount
    }

    /// The CSV gradebook of these sessions: every session a row, once, in their order. A
    /// result's row is made from the stored heading, item ids and ready fields of each,
    /// decoding each distinct item list once; a result whose items are not the columns has its
    /// cells read, and one recorded before digests were kept is read whole. A session with no
    /// result has its record's row with empty points. A session whose result or events cannot
    /// be read is left out and named (`skipped`).
    mutating func gradebook(_ sessions: [SessionRecord]) throws(CarrelFailure) -> (text: String, count: Int) {
        guard journal != nil else { return (CSV.header(CSV.layout([])), 0) }
        let (entries, damaged) = try gradebookEntries(sessions)
        // With the proctor's key, an assessment's item columns come from the results that verify
        // (their seats' own): a result anyone could have stored under a session of its own adds
        // no column when one of that assessment's results verifies (its cells under the real
        // columns are kept, its own inventions are not).
        let verifiedAssessments = Set(entries.values.filter { checks?[$0.heading.session]?.verified == true }.map(\.heading.assessment.id))
        let columned = sessions.compactMap { entries[$0.id] }.filter {
            checks == nil || checks?[$0.heading.session]?.verified == true || !verifiedAssessments.contains($0.heading.assessment.id)
        }
        let layout = CSV.layout(columned.map { ($0.heading.assessment.id, $0.items) })
        var text = CSV.header(layout)
        var count = 0
        for record in sessions where !damaged.contains(record.id) {
            guard let entry = entries[record.id] else {
                switch try sessionEvents(record) {
                case let .success(events):
                    let status = status(record)
                    text += CSV.row(record, status: status, integrity: IntegrityReport(events: events, interruptions: record.interruptions),
                                    in: layout, verified: verified(record), standing: SessionStanding(status: status, hasResult: false),
                                    account: account(record, events: events, document: nil))
                    count += 1
                case let .failure(damage): skip(record.id, damage.reason)
                }
                continue
            }
            let verified = verified(record)
            var row = CSV.row(entry.heading, integrity: entry.integrity, items: entry.items, csv: entry.csv,
                              cells: entry.cells, in: layout, verified: verified, standing: entry.standing, account: entry.account)
            if row == nil, let cells = try cells(entry.heading.session) {
                row = CSV.row(entry.heading, integrity: entry.integrity, items: entry.items, csv: nil, cells: cells, in: layout,
                              verified: verified, standing: entry.standing, account: entry.account)
            }
            guard let row else {
                skip(entry.heading.session, "its result has no cells")
                continue
            }
            text += row
            count += 1
        }
        return (text, count)
    }

    /// The gradebook entry of each of `sessions` that has a result, and the sessions left out
    /// (named in `skipped`) because their result or events cannot be read.
    mutating func gradebookEntries(_ sessions: [SessionRecord]) throws(CarrelFailure) -> (entries: [String: GradebookEntry], damaged: Set<String>) {
        guard let journal else { return ([:], []) }
        let stored: [StoredGradebookRow]
        do {
            stored = try journal.gradebookRows(sessions: sessions.map(\.id))
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's results cannot be read: \(error)")
        }
        let records = Dictionary(sessions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var entries: [String: GradebookEntry] = [:]
        var damaged: Set<String> = []
        var lists: [String: [String]] = [:]
        for row in stored {
            guard let record = records[row.session] else { continue }
            switch try entry(row, record, lists: &lists) {
            case let .success(entry): entries[row.session] = entry
            case let .failure(damage):
                skip(row.session, damage.reason)
                damaged.insert(row.session)
            }
        }
        return (entries, damaged)
    }

    /// A result's stored spreadsheet cells, read only when its own items are not the columns.
    func cells(_ session: String) throws(CarrelFailure) -> [String]? {
        do {
            guard let text = try journal?.gradebookCells(session: session) else { return nil }
            return try JSONDecoder().decode([String].self, from: Data(text.utf8))
        } catch where !SkippedSession.isRowDamage(error) {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's result of session \(session) cannot be read: \(error)")
        } catch {
            // Cells that do not read are no cells: the row is then left out and named.
            return nil
        }
    }

    /// One session's gradebook entry, or why it cannot have one.
    func entry(_ row: StoredGradebookRow, _ record: SessionRecord,
               lists: inout [String: [String]]) throws(CarrelFailure) -> Result<GradebookEntry, SessionDamage> {
        let events: [JournalEvent]
        switch try sessionEvents(record) {
        case let .success(found): events = found
        case let .failure(damage): return .failure(damage)
        }
        let integrity = IntegrityReport(events: events, interruptions: record.interruptions)
        let standing = SessionStanding(status: status(record), hasResult: true)
        let account = account(record, events: events, document: nil)
        if let json = row.json {
            do throws(StrictJSON.Problem) {
                let digest = ResultDigest(try ResultDocument.read(json))
                return .success(GradebookEntry(heading: digest.heading, integrity: integrity, items: digest.items, csv: nil,
                                               cells: digest.cells, standing: standing, account: account))
            } catch {
                return .failure(SessionDamage(reason: "its result cannot be read: \(error.description)"))
            }
        }
        guard let headingText = row.heading, let itemsText = row.items else {
            return .failure(SessionDamage(reason: "its result has no heading"))
        }
        let decoder = JSONDecoder()
        guard let heading = try? decoder.decode(ResultHeading.self, from: Data(headingText.utf8)) else {
            // The heading is Carrel's own digest; one that does not read is this session's damage alone.
            return .failure(SessionDamage(reason: "its result's heading cannot be read"))
        }
        if let known = lists[itemsText] {
            return .success(GradebookEntry(heading: heading, integrity: integrity, items: known, csv: row.csv, cells: nil,
                                           standing: standing, account: account))
        }
        guard let items = try? decoder.decode([String].self, from: Data(itemsText.utf8)) else {
            // As for the heading: this session's damage alone, named by the caller.
            return .failure(SessionDamage(reason: "its result's item list cannot be read"))
        }
        lists[itemsText] = items
        return .success(GradebookEntry(heading: heading, integrity: integrity, items: items, csv: row.csv, cells: nil,
                                       standing: standing, account: account))
    }
}

/// `--passphrase-stdin` of the results commands: with `--shared`, each session's records are
/// checked with the proctor's key of its room, and with `--test`, the sessions whose seats had
/// no answer key are scored from that sealed test.
struct VerifyOptions: ParsableArguments {
    @Flag(name: .customLong("passphrase-stdin"), help: "With --shared: read the proctor passphrase from standard input and check that each session's records and result were written by its seat (a \"verified\" column; each record that fails is named).")
    var passphraseStdin = false
    @OptionGroup var sealed: SealedTests

    func signer() throws(CarrelFailure) -> ProctorSigner? { try keys()?.signer }

    /// The passphrase's signer, and the scoring of keyless results by each `--test` opened
    /// with it (nil without `--test`).
    func keys() throws(CarrelFailure) -> (signer: ProctorSigner, scoring: ResultScoring?)? {
        guard passphraseStdin else {
            try sealed.needsPassphrase()
            return nil
        }
        let reader = SecretReader(prompting: false)
        defer { reader.finish() }
        let passphrase = try reader.read(prompt: "")
        return (ProctorSigner(passphrase: passphrase), try sealed.scoring(passphrase: passphrase))
    }

    /// Names every record that failed its check, on standard error.
    static func report(_ checks: [String: SessionCheck]?, sessions: [String]) {
        guard let checks else { return }
        for session in sessions {
            for problem in checks[session]?.problems ?? [] { Console.error(problem) }
            for record in checks[session]?.outside ?? [] { Console.error(record) }
        }
    }
}

/// `--test FILE.carrel` (repeatable), of `results` and of the console: the sealed tests whose
/// sessions' seats had no answer key, opened with the proctor's passphrase to score them.
struct SealedTests: ParsableArguments {
    @Option(name: .customLong("test"), help: ArgumentHelp(
        "With the proctor's passphrase (--passphrase-stdin, or the console's): a sealed test (.carrel) whose sessions' seats had no answer key; their responses are scored with it (repeat for several).",
        valueName: "file.carrel"))
    var tests: [String] = []

    /// `--test` is read with the passphrase only: refused without it.
    func needsPassphrase() throws(CarrelFailure) {
        if !tests.isEmpty {
            throw CarrelFailure(status: .usage, message: "--test scores with the proctor's passphrase: give --passphrase-stdin too")
        }
    }

    /// Each test opened with `passphrase` (a wrong one, or a file that is not a sealed test, is
    /// refused as `results` refuses it), and the scoring of a keyless result by the one of them
    /// whose fingerprint is the result's; nil without `--test`.
    func scoring(passphrase: String) throws(CarrelFailure) -> ResultScoring? {
        var byFingerprint: [String: Assessment] = [:]
        for path in tests {
            let loaded = try AssessmentFile.load(path)
            let header = try SealedFile.header(loaded, path: path)
            byFingerprint[header.metadata.fingerprint] = try SealedFile.open(loaded, path: path, passphrase: passphrase)
        }
        guard !byFingerprint.isEmpty else { return nil }
        let tests = byFingerprint
        return { document in
            guard let test = tests[document.assessment.fingerprint] else { return nil }
            return document.scored(with: test)
        }
    }
}
