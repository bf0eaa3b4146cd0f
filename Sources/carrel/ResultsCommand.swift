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

struct ListResults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List sessions: candidate, assessment, status, score, started, duration.")
    @OptionGroup var filters: ResultFilters
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var skipping: SkipOptions
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions
    @OptionGroup var verify: VerifyOptions

    func run() async throws {
        try await reportingFailures {
            let data = try await ResultsData.load(state, lab: lab, verify: verify)
            VerifyOptions.report(data.checks, sessions: data.records.map(\.id))
            let count = try write(data)
            try data.finish(data.skipped.isEmpty ? nil : "Listed \(count) session\(count == 1 ? "" : "s")", strict: skipping.strict)
        }
    }

    /// The table (or JSON) of the sessions that could be read; how many rows it has.
    func write(_ data: ResultsData) throws(CarrelFailure) -> Int {
        let scores = try data.scores()
        let rows = filters.apply(data.records, waiting: data.waiting).map { r -> SessionRow in
            let score = scores[r.id]
            var row = SessionRow(session: r.id, candidate: r.candidate, assessment: r.assessmentID,
                                 status: ResultFilters.status(r, waiting: data.waiting), points: score?.points,
                                 max: score?.max, pending: score?.pending, started: Timestamp.iso(r.startedAt),
                                 ended: r.endedAt.map(Timestamp.iso), timeUsedSeconds: TimeUsed.seconds(r.elapsed))
            row.verified = data.checks.map { $0[r.id]?.verified ?? false }
            return row
        }
        if json {
            FileOutput.standardOutput.write(try JSONText.pretty(rows))
            return rows.count
        }
        if rows.isEmpty {
            FileOutput.standardOutput.write("No sessions match.\n")
            return 0
        }
        let checked = data.checks != nil
        var out = "session   candidate             assessment            status            score       started               time"
            + (checked ? "      verified" : "") + "\n"
        let pending = rows.compactMap(\.pending).filter { $0 > 0 }.count
        for r in rows {
            var score = r.points.map { "\(PointsText.format($0))/\(PointsText.format(r.max ?? 0))" } ?? "—"
            if let pending = r.pending, pending > 0 { score += " +\(PointsText.format(pending))?" }
            out += pad(String(r.session.prefix(8)), 10) + pad(r.candidate ?? "—", 22) + pad(r.assessment, 22)
            out += pad(r.status, 18) + pad(score, 12) + pad(r.started, 22)
            if let verified = r.verified {
                out += pad(DurationText.format(r.timeUsedSeconds), 12) + (verified ? "yes" : "NO") + "\n"
            } else {
                out += DurationText.format(r.timeUsedSeconds) + "\n"
            }
        }
        if pending > 0 {
            out += "\n+N? is points still to mark by hand (essays) in \(pending) session\(pending == 1 ? "" : "s").\n"
        }
        if checked {
            out += "\nverified: every record and the result were written by the session's seat (checked with the proctor's key).\n"
        }
        FileOutput.standardOutput.write(out)
        return rows.count
    }

    func pad(_ s: String, _ n: Int) -> String {
        let safe = TextWidth.sanitise(s)
        let clipped = safe.count >= n ? String(safe.prefix(n - 2)) + "…" : safe
        return clipped.padding(toLength: n, withPad: " ", startingAt: 0)
    }
}

struct ShowResult: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one session's result and its integrity report.")
    @Argument(help: "The session id (or its first characters).") var session: String
    @Flag(help: "Print JSON: the result and the integrity report.") var json = false
    @OptionGroup var skipping: SkipOptions
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions
    @OptionGroup var verify: VerifyOptions

    func run() async throws {
        try await reportingFailures {
            let data = try await ResultsData.load(state, lab: lab, verify: verify)
            let record = try data.session(session)
            VerifyOptions.report(data.checks, sessions: [record.id])
            let verified = data.checks.map { $0[record.id]?.verified ?? false }
            let integrity = try data.integrity(record)
            let result = try data.result(record.id)
            let events = try data.events(record)
            if json {
                struct Output: Encodable {
                    var result: ResultDocument?
                    var integrity: IntegrityReport
                    var status: String
                    var verified: Bool?
                }
                FileOutput.standardOutput.write(try JSONText.pretty(Output(result: result, integrity: integrity,
                                                                      status: ResultFilters.status(record, waiting: data.waiting),
                                                                      verified: verified)))
                try data.finish(nil, strict: skipping.strict)
                return
            }
            var out = "Session     \(record.id)\n"
            out += "Candidate   \(TextWidth.sanitise(record.candidate ?? "—"))\n"
            out += "Assessment  \(record.assessmentID) — \(record.assessmentTitle) (\(record.fingerprint.prefix(19))…)\n"
            out += "Status      \(ResultFilters.status(record, waiting: data.waiting))\n"
            if let verified {
                out += "Verified    " + (verified ? "yes: every record and the result were written by its seat\n"
                                                  : "NO (see the lines above)\n")
            }
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
                    out += "\(PointsText.format(item.points))/\(PointsText.format(item.max))\(flag)  \(TextWidth.sanitise(CSV.cell(item)).prefix(60))\n"
                    for line in CSV.gapLines(item) { out += "  \(String(repeating: " ", count: 20)) \(line)\n" }
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
            try data.finish(nil, strict: skipping.strict)
        }
    }
}

struct ExportResults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export results as JSON (the result documents) or CSV (one row per session, one column per item).",
        discussion: """
            CSV columns: session, candidate, assessment, status, points, max, pending (points still \
            to mark by hand), started, ended, time_used_seconds, interruptions, paste_attempts, \
            focus_losses, exit_attempts, wrong_passphrases, room, seat, candidate_number (of a session in a room), then one column per item. With results of one assessment the item columns \
            are its item ids; with several they are ASSESSMENT:ITEM, so assessments never share a \
            column. --assessment ID exports one assessment only. Cells a spreadsheet would run as a \
            formula start with a ' so they stay text.
            """)
    @Option(help: "json or csv.") var format: String = "json"
    @Option(help: "Write here (0600, atomically) instead of standard output.") var out: String?
    @OptionGroup var filters: ResultFilters
    @OptionGroup var skipping: SkipOptions
    @OptionGroup var state: StateOptions
    @OptionGroup var lab: SharedOptions
    @OptionGroup var verify: VerifyOptions

    func validate() throws {
        guard ["json", "csv"].contains(format) else { throw ValidationError("--format is json or csv, not \"\(format)\"") }
    }

    func run() async throws {
        try await reportingFailures {
            var data = try await ResultsData.load(state, lab: lab, verify: verify)
            let sessions = filters.apply(data.records, waiting: data.waiting)
            VerifyOptions.report(data.checks, sessions: sessions.map(\.id))
            let text: String, count: Int
            if format == "csv" {
                (text, count) = try data.gradebook(sessions)
            } else {
                var chosen: [ResultDocument] = []
                for r in sessions {
                    let (result, damage) = try data.readResult(r.id)
                    if let damage { data.skip(r.id, damage) }
                    if let result { chosen.append(result) }
                }
                (text, count) = (try JSONText.pretty(chosen), chosen.count)
            }
            let exported = "Exported \(count) result\(count == 1 ? "" : "s")"
            if let out {
                do {
                    let path = out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out
                    // The file holds exactly what standard output would show: the same sanitiser.
                    try SecureFiles.writeAtomically(Data(FileOutput.safe(text).utf8), to: path)
                } catch let error as FileSystemError {
                    throw CarrelFailure(status: .cannotCreate, message: "cannot write \(out): \(error.reason)")
                }
                try data.finish("\(exported) to \(out)", strict: skipping.strict)
            } else {
                FileOutput.standardOutput.write(text)
                try data.finish(data.skipped.isEmpty ? nil : exported, strict: skipping.strict)
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
