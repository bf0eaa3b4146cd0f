import AssessmentKit
import Foundation
import GRDB

/// Reading a stored result: the one way a result document's text becomes a `ResultDocument`.
extension ResultDocument {
    /// Reads a stored result (from a journal or the shared store): strict JSON without a key
    /// given twice (`StrictJSON`), read by `JSONDecoder` alone, then its numbers and times
    /// checked. Throws, with a reason that quotes none of the text, for a damaged document.
    public static func read(_ text: String) throws(StrictJSON.Problem) -> ResultDocument {
        try StrictJSON.check(text)
        let document: ResultDocument
        do {
            document = try JSONDecoder().decode(ResultDocument.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw StrictJSON.Problem(description: "it is not a result (\(Self.words(error)))")
        } catch {
            throw StrictJSON.Problem(description: "it is not a result")
        }
        if let problem = document.problem { throw StrictJSON.Problem(description: problem) }
        return document
    }

    /// What `JSONDecoder` missed, by the path of the field (no value quoted).
    static func words(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the document" : TerminalSafety.visible(String(keys.joined(separator: ".").prefix(80)), keepLineBreaks: false)
        }
        switch error {
        case let .keyNotFound(key, context):
            return "\(path(context)) has no \(TerminalSafety.visible(String(key.stringValue.prefix(40)), keepLineBreaks: false))"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            return "\(path(context)) cannot be read"
        @unknown default:
            return "a field cannot be read"
        }
    }

    /// Why a document that decoded is still not a result Carrel can show, or nil.
    var problem: String? {
        let numbers = [score.points, score.max, score.pending] + items.flatMap { [$0.points, $0.max] + ($0.mark.map { [$0.points] } ?? []) }
        if let bad = numbers.first(where: { !$0.isFinite || abs($0) > ResultDocument.largestPoints }) {
            return bad.isFinite ? "a score is out of range" : "a score is not a number"
        }
        if !(0...Int(Int32.max)).contains(timeUsedSeconds) { return "its time used is out of range" }
        if !(0...1_000_000).contains(interruptions) { return "its count of interruptions is out of range" }
        if let t = timeAllowedSeconds, !(0...Int(Int32.max)).contains(t) { return "its time allowed is out of range" }
        if let t = timeAddedSeconds, !(0...Int(Int32.max)).contains(t) { return "its time added is out of range" }
        let additions: [TimeAddition] = timeAdded ?? []
        let seconds = 0...Int(Int32.max)
        if additions.count > 100_000 || additions.contains(where: { !seconds.contains($0.seconds) }) {
            return "a time added is out of range"
        }
        if let p = pauses, !(0...1_000_000).contains(p) { return "its count of pauses is out of range" }
        if Timestamp.date(startedAt) == nil { return "its start time is not a time Carrel writes" }
        if Timestamp.date(endedAt) == nil { return "its end time is not a time Carrel writes" }
        if events.contains(where: { Timestamp.date($0.at) == nil }) { return "an event's time is not a time Carrel writes" }
        if items.contains(where: { $0.mark.map { Timestamp.date($0.at) == nil } ?? false }) {
            return "a mark's time is not a time Carrel writes"
        }
        return nil
    }

    /// No score Carrel writes comes near this.
    static let largestPoints = 1e12
}

extension Timestamp {
    /// The times Carrel reads back: from 1970 to the end of year 9999 (a journal writes
    /// dates with four-digit years, and no session ran before 1970).
    public static let readable = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799)

    /// An ISO-8601 time as `iso` writes it, within `readable`; nil for anything else.
    public static func date(_ text: String) -> Date? {
        // A text that does not parse is not a time: nil says so, and the caller names the field.
        guard text.utf8.count <= 64, let date = try? Date(text, strategy: .iso8601), readable.contains(date) else { return nil }
        return date
    }
}

/// A session a report leaves out because something of it cannot be read, and why.
public struct SkippedSession: Sendable, Equatable {
    /// The session's id as the store or journal holds it, made safe to print: at most 40
    /// characters, anything that could act on a terminal quoted.
    public var session: String
    /// Why, in Carrel's words (no value of the row quoted).
    public var reason: String

    public init(session: String, reason: String) {
        let short = session.count > 40 ? String(session.prefix(40)) + "…" : session
        self.session = TerminalSafety.visible(short, keepLineBreaks: false)
        self.reason = reason
    }

    /// Whether an error from reading a journal is one row's damage (a value that does not
    /// decode as what it should be) rather than the journal itself failing to be read (an
    /// SQLite error: I/O, a locked or corrupt file), which no report can go on from.
    public static func isRowDamage(_ error: any Error) -> Bool {
        !(error is DatabaseError)
    }
}
