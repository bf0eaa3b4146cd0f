import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

struct ExportResults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export results as JSON (the result documents) or CSV (one row per session, one column per item).",
        discussion: """
            CSV columns: session, candidate, assessment, status, points, max, pending (points still \
            to mark by hand), started, ended, time_used_seconds, interruptions, paste_attempts, \
            focus_losses, exit_attempts, wrong_passphrases, room, seat, candidate_number (of a session in a room), \
            verified (yes/no: checked with the proctor's key), outcome (finished, interrupted, ended, refused, \
            running), status_words, time_allowed_seconds, extra_time (the roster's), time_added_seconds, \
            time_added (each addition: by whom, when), pauses, moves, then one column per item. Every session \
            is a row, once: one without a result has empty points. JSON gives each session's result \
            document (or its heading without score and items) with the same added keys. With results of one assessment the item columns \
            are its item ids; with several they are ASSESSMENT:ITEM, so assessments never share a \
            column. --assessment ID exports one assessment only. Cells a spreadsheet would run as a \
            formula start with a ' so they stay text.
            """)
    @Option(help: "json or csv.") var format: String = "json"
    @Option(help: "Write here (0600, atomically) instead of standard output.") var out: String?
    @OptionGroup var filters: ResultFilters
    @OptionGroup var source: ResultSource

    func validate() throws {
        guard ["json", "csv"].contains(format) else { throw ValidationError("--format is json or csv, not \"\(format)\"") }
    }

    func run() async throws {
        try await reportingFailures {
            var data = try await source.load()
            let sessions = filters.apply(data)
            VerifyOptions.report(data.checks, sessions: sessions.map(\.id))
            let text: String, count: Int
            if format == "csv" {
                (text, count) = try data.gradebook(sessions)
            } else {
                let chosen = try data.exportedSessions(sessions)
                (text, count) = (try JSONText.pretty(chosen), chosen.count)
            }
            let exported = "Exported \(count) session\(count == 1 ? "" : "s")"
            if let out {
                do {
                    let path = out.hasPrefix("/") ? out : FileManager.default.currentDirectoryPath + "/" + out
                    // The file holds exactly what standard output would show: the same sanitiser.
                    try SecureFiles.writeAtomically(Data(FileOutput.safe(text).utf8), to: path)
                } catch let error as FileSystemError {
                    throw CarrelFailure(status: .cannotCreate, message: "cannot write \(out): \(error.reason)")
                }
                try data.finish("\(exported) to \(out)", strict: source.skipping.strict)
            } else {
                FileOutput.standardOutput.write(text)
                try data.finish(data.skipped.isEmpty ? nil : exported, strict: source.skipping.strict)
            }
        }
    }
}
