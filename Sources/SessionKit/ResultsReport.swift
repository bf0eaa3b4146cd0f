import AssessmentKit
import Foundation

/// What the events of one session say about its integrity.
public struct IntegrityReport: Sendable, Equatable, Codable {
    public var pasteAttempts = 0
    public var focusLosses = 0
    public var exitAttempts = 0
    public var wrongPassphrases = 0
    public var interruptions = 0
    public var resumes = 0
    /// Per backend: what clearing did on entry and on exit ("tmux": ["on entry — tmux: cleared 2 buffers", …]).
    public var pasteboards: [String: [String]] = [:]

    public init(events: [JournalEvent], interruptions: Int) {
        self.interruptions = interruptions
        for e in events {
            switch EventKind(rawValue: e.kind) {
            case .pasteBlocked?: pasteAttempts += 1
            case .focusLost?: focusLosses += 1
            case .exitAttempt?: exitAttempts += 1
            case .passphraseFailed?: wrongPassphrases += 1
            case .resumed?: resumes += 1
            case .pasteboardCleared?:
                // "on entry — tmux: cleared 2 buffers": the backend follows the first dash.
                let rest = e.detail.range(of: " — ").map { String(e.detail[$0.upperBound...]) } ?? e.detail
                let backend = rest.components(separatedBy: ":").first ?? "?"
                pasteboards[backend, default: []].append(e.detail)
            default: break
            }
        }
    }
}

/// One row of `carrel results list`.
public struct SessionRow: Sendable, Equatable, Codable {
    public var session: String
    public var candidate: String?
    public var assessment: String
    public var status: String
    public var points: Double?
    public var max: Double?
    /// Points still to be marked by a person (essays).
    public var pending: Double?
    public var started: String
    public var ended: String?
    public var timeUsedSeconds: Int

    public init(session: String, candidate: String?, assessment: String, status: String, points: Double?, max: Double?,
                pending: Double? = nil, started: String, ended: String?, timeUsedSeconds: Int) {
        self.session = session
        self.candidate = candidate
        self.assessment = assessment
        self.status = status
        self.points = points
        self.max = max
        self.pending = pending
        self.started = started
        self.ended = ended
        self.timeUsedSeconds = timeUsedSeconds
    }
}

/// RFC 4180 CSV: CRLF line ends, fields quoted when they hold a comma, quote or line break, and
/// cells a spreadsheet would run as a formula neutralised.
public enum CSV {
    public static func field(_ text: String) -> String {
        let safe = neutralised(text)
        let needsQuotes = safe.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || safe.hasPrefix(" ") || safe.hasSuffix(" ")
        return needsQuotes ? "\"" + safe.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : safe
    }

    /// `=SUM(…)`, `+1+1`, `-2+3`, `@cmd`: a leading `'` keeps them text (OWASP's advice); plain
    /// numbers such as `-2.5` stay numbers.
    static func neutralised(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) else { return text }
        if NumericText.parse(text) != nil && !text.contains(",") { return text }
        return "'" + text
    }

    public static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// A response as one cell: text as typed, lists joined with "; ", matches as `left=right`.
    public static func cell(_ value: JSONValue) -> String {
        switch value {
        case let .string(s): return s
        case let .bool(b): return b ? "true" : "false"
        case let .array(a): return a.map(cell).joined(separator: "; ")
        case let .object(o): return o.keys.sorted().map { "\($0)=\(cell(o[$0] ?? .null))" }.joined(separator: "; ")
        case .null: return ""
        }
    }

    /// One row per session, then one column per item. Results of one assessment get one column
    /// per item id; results of several get `ASSESSMENT:ITEM` columns, so two assessments never
    /// share a column even when their item ids are the same.
    public static func export(_ results: [(ResultDocument, IntegrityReport)]) -> String {
        // Linear in results × items: columns and cells are found through dictionaries, never by
        // searching (a 5 000-item test has 5 000 columns and 5 000 cells a row).
        var assessments: [String: Int] = [:]
        var columns: [(assessment: String, item: String)] = []
        var known = Set<ColumnKey>()
        for (r, _) in results {
            if assessments[r.assessment.id] == nil { assessments[r.assessment.id] = assessments.count }
            for item in r.items where known.insert(ColumnKey(assessment: r.assessment.id, item: item.id)).inserted {
                columns.append((r.assessment.id, item.id))
            }
        }
        let prefixed = assessments.count > 1
        if prefixed {
            // Stable: each assessment's columns keep their order, assessments in order of appearance.
            columns = columns.enumerated().sorted {
                (assessments[$0.element.assessment] ?? 0, $0.offset) < (assessments[$1.element.assessment] ?? 0, $1.offset)
            }.map(\.element)
        }
        let fixed = ["session", "candidate", "assessment", "status", "points", "max", "pending", "started", "ended",
                     "time_used_seconds", "interruptions", "paste_attempts", "focus_losses"]
        var out = row(fixed + columns.map { prefixed ? "\($0.assessment):\($0.item)" : $0.item })
        for (r, integrity) in results {
            var fields = [r.session, r.candidate ?? "", r.assessment.id, r.status.rawValue,
                          PointsText.format(r.score.points), PointsText.format(r.score.max), PointsText.format(r.score.pending),
                          r.startedAt, r.endedAt,
                          "\(r.timeUsedSeconds)", "\(r.interruptions)", "\(integrity.pasteAttempts)", "\(integrity.focusLosses)"]
            var responses: [String: JSONValue] = [:]
            responses.reserveCapacity(r.items.count)
            for item in r.items where responses[item.id] == nil { responses[item.id] = item.response }
            fields.reserveCapacity(fields.count + columns.count)
            for column in columns {
                guard column.assessment == r.assessment.id else { fields.append(""); continue }
                fields.append(responses[column.item].map(cell) ?? "")
            }
            out += row(fields)
        }
        return out
    }
}

/// One CSV column: an item of an assessment.
private struct ColumnKey: Hashable {
    var assessment: String
    var item: String
}
