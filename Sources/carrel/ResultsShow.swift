import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import TerminalUI

struct ShowResult: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show one session's result and its integrity report.")
    @Argument(help: "The session id (or its first characters).") var session: String
    @Flag(help: "Print JSON: the result and the integrity report.") var json = false
    @OptionGroup var source: ResultSource

    func run() async throws {
        try await reportingFailures {
            let data = try await source.load()
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
                                                                      status: data.status(record),
                                                                      verified: verified)))
                try data.finish(nil, strict: source.skipping.strict)
                return
            }
            var out = "Session     \(record.id)\n"
            out += "Candidate   \(TextWidth.sanitise(record.candidate ?? "—"))\n"
            out += "Assessment  \(record.assessmentID) — \(record.assessmentTitle) (\(record.fingerprint.prefix(19))…)\n"
            out += "Status      \(data.status(record))\n"
            if let verified {
                out += "Verified    " + (verified ? "yes: every record and the result were written by its seat\n"
                                                  : "NO (see the lines above)\n")
            }
            out += "Started     \(Timestamp.iso(record.startedAt))\n"
            if let ended = record.endedAt { out += "Ended       \(Timestamp.iso(ended))\n" }
            out += "Time used   \(DurationText.format(TimeUsed.seconds(record.elapsed)))\n"
            if let result {
                if result.unscored == true {
                    // A seat without the answer key: the proctor's passphrase and the package score it.
                    out += "Score       not scored yet (the seat had no answer key: results show --shared URL --passphrase-stdin --test FILE.carrel scores it)\n"
                } else {
                    out += "Score       \(PointsText.format(result.score.points)) of \(PointsText.format(result.score.max))"
                    out += result.score.pending > 0 ? " (\(PointsText.format(result.score.pending)) to mark by hand)\n" : "\n"
                }
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
            try data.finish(nil, strict: source.skipping.strict)
        }
    }
}
