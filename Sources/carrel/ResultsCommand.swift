import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

struct ResultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "results",
        abstract: "Collect results: list sessions, show one with its integrity report, export a gradebook, mark essays.",
        subcommands: [ListResults.self, ShowResult.self, ExportResults.self, MarkResult.self]
    )
}

/// Filters shared by `list` and `export`.
struct ResultFilters: ParsableArguments {
    @Option(help: "Only this assessment id.") var assessment: String?
    @Option(help: "Only sessions started on or after this date (2026-11-22, or a full ISO-8601 time).") var since: String?
    @Option(help: "Only this status: submitted, timed_out, ended_by_proctor, interrupted, active.") var status: String?

    func validate() throws {
        if let since, Self.date(since) == nil { throw ValidationError("--since takes a date such as 2026-11-22, not \"\(since)\"") }
        let known = ["submitted", "timed_out", "ended_by_proctor", "interrupted", "active"]
        if let status, !known.contains(status) {
            throw ValidationError("--status is one of \(known.joined(separator: ", ")), not \"\(status)\"")
        }
    }

    /// A date as typed on the command line; nil (reported as a usage error) when it is not one.
    static func date(_ text: String) -> Date? {
        if let full = try? Date(text, strategy: .iso8601) { return full }
        return try? Date(text + "T00:00:00Z", strategy: .iso8601)
    }

    /// Status as a teacher reads it: the end reason, or interrupted/active.
    static func status(_ r: SessionRecord, waiting: Set<String>) -> String {
        if let reason = r.endReason { return reason.rawValue }
        return waiting.contains(r.id) ? "interrupted" : r.status.rawValue
    }

    func apply(_ records: [SessionRecord], waiting: Set<String>) -> [SessionRecord] {
        records.filter { r in
            r.status != .failedToBegin
                && (assessment.map { r.assessmentID == $0 } ?? true)
                && (since.flatMap(Self.date).map { r.startedAt >= $0 } ?? true)
                && (status.map { Self.status(r, waiting: waiting) == $0 } ?? true)
        }
    }
}

struct ResultsData {
    let journal: Journal?
    let records: [SessionRecord]
    let waiting: Set<String>

    /// The results of this seat's journal, or with `--shared` (or CARREL_SHARED) those of the
    /// lab's shared store, one room or all, read into a journal of the same form.
    init(_ state: StateOptions, lab: SharedOptions) throws(CarrelFailure) {
        if let url = try lab.url() {
            let reader = try SharedOptions.reader(url)
            let room = lab.roomName
            do {
                let (copy, waiting) = try Blocking.run {
                    do {
                        let copy = try await reader.journalCopy(room: room)
                        await reader.close()
                        return copy
                    } catch {
                        await reader.close()
                        throw error
                    }
                }
                self.init(journal: copy, records: try copy.sessions(status: nil), waiting: waiting)
            } catch {
                throw CarrelFailure(status: .cannotOpenInput, message: "cannot read the shared store \(url): \(SeatPublisher.describe(error))")
            }
            return
        }
        try self.init(state)
    }

    init(journal: Journal?, records: [SessionRecord], waiting: Set<String>) {
        self.journal = journal
        self.records = records
        self.waiting = waiting
    }

    init(_ state: StateOptions) throws(CarrelFailure) {
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

    /// The one session whose id is `id` or starts with it.
    func session(_ id: String) throws(CarrelFailure) -> SessionRecord {
        // An empty prefix would name whichever session happens to be alone in the journal.
        guard !id.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CarrelFailure(status: .usage, message: "name a session by its id or its first characters; `carrel results list` shows them")
        }
        let matches = records.filter { $0.id == id || $0.id.hasPrefix(id.lowercased()) }
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

    func result(_ id: String) throws(CarrelFailure) -> ResultDocument? {
        do {
            guard let text = try journal?.result(session: id) else { return nil }
            return try JSONDecoder().decode(ResultDocument.self, from: Data(text.utf8))
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's result of session \(id) cannot be read: \(error)")
        }
    }

    /// The CSV gradebook of these sessions' results: the stored heading, item ids and ready
    /// fields of each, decoding each distinct item list once; a result whose items are not the
    /// columns has its cells read, and one recorded before digests were kept is read whole.
    func gradebook(_ sessions: [SessionRecord]) throws(CarrelFailure) -> (text: String, count: Int) {
        guard let journal else { return (CSV.header(CSV.layout([])), 0) }
        struct Entry {
            var heading: ResultHeading
            var integrity: IntegrityReport
            var items: [String]
            var csv: String?
            var cells: [String]?
        }
        let decoder = JSONDecoder()
        var entries: [Entry] = []
        var lists: [String: [String]] = [:]
        var session = ""
        do {
            let stored = try journal.gradebookRows(sessions: sessions.map(\.id))
            let records = Dictionary(sessions.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for row in stored {
                session = row.session
                guard let record = records[row.session] else { continue }
                let integrity = try integrity(record)
                if let json = row.json {
                    let digest = ResultDigest(try decoder.decode(ResultDocument.self, from: Data(json.utf8)))
                    entries.append(Entry(heading: digest.heading, integrity: integrity, items: digest.items, csv: nil, cells: digest.cells))
                    continue
                }
                guard let headingText = row.heading, let itemsText = row.items else {
                    throw JournalCorruption(what: "the result of session \(row.session) has no heading")
                }
                let heading = try decoder.decode(ResultHeading.self, from: Data(headingText.utf8))
                let items: [String]
                if let known = lists[itemsText] {
                    items = known
                } else {
                    items = try decoder.decode([String].self, from: Data(itemsText.utf8))
                    lists[itemsText] = items
                }
                entries.append(Entry(heading: heading, integrity: integrity, items: items, csv: row.csv, cells: nil))
            }
            let layout = CSV.layout(entries.map { ($0.heading.assessment.id, $0.items) })
            var text = CSV.header(layout)
            for entry in entries {
                session = entry.heading.session
                if let row = CSV.row(entry.heading, integrity: entry.integrity, items: entry.items, csv: entry.csv,
                                     cells: entry.cells, in: layout) {
                    text += row
                    continue
                }
                guard let cellsText = try journal.gradebookCells(session: entry.heading.session) else {
                    throw JournalCorruption(what: "the result of session \(entry.heading.session) has no cells")
                }
                let cells = try decoder.decode([String].self, from: Data(cellsText.utf8))
                text += CSV.row(entry.heading, integrity: entry.integrity, items: entry.items, csv: nil, cells: cells, in: layout) ?? ""
            }
            return (text, entries.count)
        } catch let failure as CarrelFailure {
            throw failure
        } catch {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's result of session \(session) cannot be read: \(error)")
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
}

struct ListResults: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List sessions: candidate, assessment, status, score, started, duration.")
    @OptionGroup var filters: ResultFilters
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions

    func run() throws {
        try reportingFailures {
            let data = try ResultsData(state, lab: lab)
            let scores = try data.scores()
            let rows = filters.apply(data.records, waiting: data.waiting).map { r -> SessionRow in
                let score = scores[r.id]
                return SessionRow(session: r.id, candidate: r.candidate, assessment: r.assessmentID,
                                  status: ResultFilters.status(r, waiting: data.waiting), points: score?.points,
                                  max: score?.max, pending: score?.pending, started: Timestamp.iso(r.startedAt),
                                  ended: r.endedAt.map(Timestamp.iso), timeUsedSeconds: TimeUsed.seconds(r.elapsed))
            }
            if json {
                FileOutput.standardOutput.write(try JSONText.pretty(rows))
                return
            }
            if rows.isEmpty {
                FileOutput.standardOutput.write("No sessions match.\n")
                return
            }
            var out = "session   candidate             assessment            status            score       started               time\n"
            let pending = rows.compactMap(\.pending).filter { $0 > 0 }.count
            for r in rows {
                var score = r.points.map { "\(PointsText.format($0))/\(PointsText.format(r.max ?? 0))" } ?? "—"
                if let pending = r.pending, pending > 0 { score += " +\(PointsText.format(pending))?" }
                out += pad(String(r.session.prefix(8)), 10) + pad(r.candidate ?? "—", 22) + pad(r.assessment, 22)
                out += pad(r.status, 18) + pad(score, 12) + pad(r.started, 22) + DurationText.format(r.timeUsedSeconds) + "\n"
            }
            if pending > 0 {
                out += "\n+N? is points still to mark by hand (essays) in \(pending) session\(pending == 1 ? "" : "s").\n"
            }
            FileOutput.standardOutput.write(out)
        }
    }

    func pad(_ s: String, _ n: Int) -> String {
        let safe = TextWidth.sanitise(s)
        let clipped = safe.count >= n ? String(safe.prefix(n - 2)) + "…" : safe
        return clipped.padding(toLength: n, withPad: " ", startingAt: 0)
    }
}

struct ShowResult: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one session's result and its integrity report.")
    @Argument(help: "The session id (or its first characters).") var session: String
    @Flag(help: "Print JSON: the result and the integrity report.") var json = false
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions

    func run() throws {
        try reportingFailures {
            let data = try ResultsData(state, lab: lab)
            let record = try data.session(session)
            let integrity = try data.integrity(record)
            let result = try data.result(record.id)
            let events = try data.events(record)
            if json {
                struct Output: Encodable {
                    var result: ResultDocument?
                    var integrity: IntegrityReport
                    var status: String
                }
                FileOutput.standardOutput.write(try JSONText.pretty(Output(result: result, integrity: integrity,
                                                                      status: ResultFilters.status(record, waiting: data.waiting))))
                return
            }
            var out = "Session     \(record.id)\n"
            out += "Candidate   \(TextWidth.sanitise(record.candidate ?? "—"))\n"
            out += "Assessment  \(record.assessmentID) — \(record.assessmentTitle) (\(record.fingerprint.prefix(19))…)\n"
            out += "Status      \(ResultFilters.status(record, waiting: data.waiting))\n"
            out += "Started     \(Timestamp.iso(record.startedAt))\n"
            if let ended = record.endedAt { out += "Ended       \(Timestamp.iso(ended))\n" }
            out += "Time used   \(DurationText.format(TimeUsed.seconds(record.elapsed)))\n"
            if let result {
                out += "Score       \(PointsText.format(result.score.points)) of \(PointsText.format(result.score.max))"
                out += result.score.pending > 0 ? " (\(PointsText.format(result.score.pending)) to mark by hand)\n" : "\n"
                out += "\nItems\n"
                for item in result.items {
                    let flag = item.flagged ? " ⚑" : ""
                    out += "  \(item.id.padding(toLength: 20, withPad: " ", startingAt: 0)) \(item.outcome.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) "
                    out += "\(PointsText.format(item.points))/\(PointsText.format(item.max))\(flag)  \(TextWidth.sanitise(CSV.cell(item.response)).prefix(60))\n"
                    if let mark = item.mark {
                        out += "  \(String(repeating: " ", count: 20)) marked \(PointsText.format(mark.points)) at \(mark.at)"
                        out += mark.comment.map { ": \(TextWidth.sanitise($0))\n" } ?? "\n"
                    }
                }
            } else {
                out += "Result      none yet (the session has not ended)\n"
            }
            out += "\nIntegrity report\n"
            for line in integrity.lines { out += "  \(line)\n" }
            out += "\nTimeline\n"
            for e in events {
                out += "  \(Timestamp.iso(e.at))  \(e.kind.padding(toLength: 19, withPad: " ", startingAt: 0)) \(TextWidth.sanitise(e.detail))\n"
            }
            FileOutput.standardOutput.write(out)
        }
    }
}

struct ExportResults: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export results as JSON (the result documents) or CSV (one row per session, one column per item).",
        discussion: """
            CSV columns: session, candidate, assessment, status, points, max, pending (points still \
            to mark by hand), started, ended, time_used_seconds, interruptions, paste_attempts, \
            focus_losses, then one column per item. With results of one assessment the item columns \
            are its item ids; with several they are ASSESSMENT:ITEM, so assessments never share a \
            column. --assessment ID exports one assessment only. Cells a spreadsheet would run as a \
            formula start with a ' so they stay text.
            """)
    @Option(help: "json or csv.") var format: String = "json"
    @Option(help: "Write here (0600, atomically) instead of standard output.") var out: String?
    @OptionGroup var filters: ResultFilters
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions

    func validate() throws {
        guard ["json", "csv"].contains(format) else { throw ValidationError("--format is json or csv, not \"\(format)\"") }
    }

    func run() throws {
        try reportingFailures {
            let data = try ResultsData(state, lab: lab)
            let sessions = filters.apply(data.records, waiting: data.waiting)
            let text: String, count: Int
            if format == "csv" {
                (text, count) = try data.gradebook(sessions)
            } else {
                var chosen: [ResultDocument] = []
                for r in sessions {
                    if let result = try data.result(r.id) { chosen.append(result) }
                }
                (text, count) = (try JSONText.pretty(chosen), chosen.count)
            }
            if let out {
                do {
                    let path = out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out
                    try SecureFiles.writeAtomically(Data(text.utf8), to: path)
                } catch let error as FileSystemError {
                    throw CarrelFailure(status: .cannotCreate, message: "cannot write \(out): \(error.reason)")
                }
                FileOutput.standardError.write("Exported \(count) result\(count == 1 ? "" : "s") to \(out)\n")
            } else {
                FileOutput.standardOutput.write(text)
            }
        }
    }
}

/// JSON for people and scripts: sorted snake_case keys, and every control, bidirectional
/// or invisible character inside a string escaped as `\uXXXX` (the same data, nothing that
/// could act on a terminal).
enum JSONText {
    static func pretty<T: Encodable>(_ value: T) throws(CarrelFailure) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        do {
            return TerminalSafety.escapingJSON(String(decoding: try encoder.encode(value), as: UTF8.self)) + "\n"
        } catch {
            throw CarrelFailure(status: .internalError, message: "cannot write the results as JSON: \(error)")
        }
    }
}
