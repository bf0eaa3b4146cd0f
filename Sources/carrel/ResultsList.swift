import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

struct ListResults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List sessions: candidate, assessment, status, score, started, duration.")
    @OptionGroup var filters: ResultFilters
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var source: ResultSource

    func run() async throws {
        try await reportingFailures {
            let data = try await source.load()
            VerifyOptions.report(data.checks, sessions: data.records.map(\.id))
            let count = try write(data)
            try data.finish(data.skipped.isEmpty ? nil : "Listed \(count) session\(count == 1 ? "" : "s")", strict: source.skipping.strict)
        }
    }

    /// The table (or JSON) of the sessions that could be read; how many rows it has.
    func write(_ data: ResultsData) throws(CarrelFailure) -> Int {
        let scores = try data.scores()
        var rows: [SessionRow] = []
        for r in filters.apply(data) { rows.append(try data.listRow(r, score: scores[r.id])) }
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
            if checked {
                out += pad(DurationText.format(r.timeUsedSeconds), 12) + (r.verified == true ? "yes" : "NO") + "\n"
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
