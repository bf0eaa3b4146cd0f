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
    @Option(help: "Only this status: submitted, timed_out, ended_by_proctor, ended_by_candidate, seat_lost, interrupted, active, wrong_test, candidate_twice.") var status: String?

    func validate() throws {
        if let since, Self.date(since) == nil { throw ValidationError("--since takes a date such as 2026-11-22, not \"\(since)\"") }
        let known = ["submitted", "timed_out", "ended_by_proctor", "ended_by_candidate", "seat_lost", "interrupted", "active",
                     "wrong_test", "candidate_twice"]
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

    /// The sessions of `data` these filters keep (each with the status `results` gives it).
    func apply(_ data: ResultsData) -> [SessionRecord] {
        data.records.filter { r in
            r.status != .failedToBegin
                && (assessment.map { r.assessmentID == $0 } ?? true)
                && (since.flatMap(Self.date).map { r.startedAt >= $0 } ?? true)
                && (status.map { data.status(r) == $0 } ?? true)
        }
    }
}
