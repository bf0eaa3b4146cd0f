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
    /// Each move to a spare seat, as the seat that took the session recorded it ("from A5 to S1
    /// by the proctor's command #12; records the store never received: 7").
    public var moves: [String] = []
    /// Assessment mode for the whole machine, as the session recorded it ("began: network: …",
    /// "not begun: …", "ended"), and what it saw there (a login, a device, another program).
    public var assessmentMode: [String] = []
    public var machineIncidents: [String] = []
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
            case .moved?: moves.append(e.detail)
            case .assessmentMode?: assessmentMode.append(e.detail)
            case .machineIncident?: machineIncidents.append(e.detail)
            case .pasteboardCleared?:
                // "on entry — tmux: cleared 2 buffers": the backend follows the first dash.
                let rest = e.detail.range(of: " — ").map { String(e.detail[$0.upperBound...]) } ?? e.detail
                let backend = rest.components(separatedBy: ":").first ?? "?"
                pasteboards[backend, default: []].append(e.detail)
            default: break
            }
        }
    }

    /// The report as `results show` and the proctor's console print it: the counts, then each
    /// pasteboard's lines indented under "pasteboards". What a machine or a student put in
    /// them (a display's name, an incident's words) is shown, never obeyed by the terminal.
    public var lines: [String] {
        unsanitisedLines.map { TerminalSafety.visible($0, keepLineBreaks: false) }
    }

    var unsanitisedLines: [String] {
        var out = [
            "paste attempts      \(pasteAttempts)",
            "focus losses        \(focusLosses)",
            "exit attempts       \(exitAttempts)",
            "wrong passphrases   \(wrongPassphrases)",
            "interruptions       \(interruptions)",
        ]
        for move in moves { out.append("moved               \(move)") }
        for mode in assessmentMode { out.append("assessment mode     \(mode)") }
        for incident in machineIncidents { out.append("machine incident    \(incident)") }
        out.append("pasteboards")
        for backend in pasteboards.keys.sorted() {
            for line in pasteboards[backend] ?? [] { out.append("  \(line)") }
        }
        return out
    }

    enum CodingKeys: String, CodingKey {
        case pasteAttempts, focusLosses, exitAttempts, wrongPassphrases, interruptions, resumes, moves, pasteboards
    }

    /// Reads reports written before moves were kept (no `moves`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        pasteAttempts = try c.decode(Int.self, forKey: .pasteAttempts)
        focusLosses = try c.decode(Int.self, forKey: .focusLosses)
        exitAttempts = try c.decode(Int.self, forKey: .exitAttempts)
        wrongPassphrases = try c.decode(Int.self, forKey: .wrongPassphrases)
        interruptions = try c.decode(Int.self, forKey: .interruptions)
        resumes = try c.decode(Int.self, forKey: .resumes)
        moves = try c.decodeIfPresent([String].self, forKey: .moves) ?? []
        pasteboards = try c.decode([String: [String]].self, forKey: .pasteboards)
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
    /// Checked with the proctor's key (`results --shared --passphrase-stdin`): whether every
    /// record of the session was written by its seat; false when not checked (a seat's own
    /// journal, or no passphrase).
    public var verified: Bool?
    /// What became of the session (`SessionStanding`), and in words.
    public var outcome: String = ""
    public var statusWords: String = ""
    /// The time and the proctor's commands (`SessionAccount`).
    public var timeAllowedSeconds: Int?
    public var extraTime: String = ""
    public var timeAddedSeconds: Int = 0
    public var timeAdded: [TimeAddition] = []
    public var pauses: Int = 0
    public var moves: [SeatMove] = []

    /// The row with `standing` and `account`.
    public mutating func add(_ standing: SessionStanding, _ account: SessionAccount) {
        outcome = standing.outcome
        statusWords = standing.words
        timeAllowedSeconds = account.timeAllowedSeconds
        extraTime = account.extraTime
        timeAddedSeconds = account.timeAddedSeconds
        timeAdded = account.timeAdded
        pauses = account.pauses
        moves = account.moves
    }

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
        // The bytes decide: a comma, quote or line break anywhere, or a space at either end.
        let utf8 = safe.utf8
        let needsQuotes = utf8.first == 0x20 || utf8.last == 0x20
            || utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return safe }
        return utf8.contains(0x22) ? "\"" + safe.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : "\"" + safe + "\""
    }

    /// Cells as the fields of one CSV row, without the line end.
    public static func fields(_ cells: [String]) -> String {
        cells.map(field).joined(separator: ",")
    }

    /// A cell as a spreadsheet shows it: text people typed or were given, with hostile
    /// characters quoted visibly and formulas neutralised (OWASP: a cell starting with `=`,
    /// `+`, `-`, `@`, tab or CR gets a leading `'`).
    public static func safeCell(_ text: String) -> String {
        TerminalSafety.spreadsheetCell(TerminalSafety.visible(text, keepLineBreaks: true))
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
    /// Each gap of a `gaps` item on a line of its own: number, outcome, points and response
    /// (made safe to show), for `results show` and `results mark`.
    public static func gapLines(_ item: ResultDocument.ItemResult) -> [String] {
        (item.gaps ?? []).map { gap in
            let response = TerminalSafety.visible(cell(gap.response), keepLineBreaks: false)
            return "gap \(gap.gap)  \(gap.outcome.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) "
                + "\(PointsText.format(gap.points))/\(PointsText.format(gap.max))  \(response.isEmpty ? "(open)" : String(response.prefix(60)))"
        }
    }

    /// An item's response as a gradebook shows it; a `gaps` item's names each gap.
    public static func cell(_ item: ResultDocument.ItemResult) -> String {
        if item.outcome == .notDrawn { return "(not drawn)" }
        guard let gaps = item.gaps else { return cell(item.response) }
        return gaps.map { "gap \($0.gap): \(cell($0.response))" }.joined(separator: "; ")
    }

    public static func cell(_ value: JSONValue) -> String {
        switch value {
        case let .string(s): return s
        case let .bool(b): return b ? "true" : "false"
        case let .array(a): return a.map(cell).joined(separator: "; ")
        case let .object(o): return o.keys.sorted().map { "\($0)=\(cell(o[$0] ?? .null))" }.joined(separator: "; ")
        case .null: return ""
        }
    }

    /// The columns of a gradebook of these results (assessment id and item ids of each):
    /// with results of one assessment one column per item id; with several, `ASSESSMENT:ITEM`
    /// columns, so two assessments never share a column even when their item ids are the
    /// same. Each list is looked at once however many results share it.
    public static func layout(_ results: [(assessment: String, items: [String])]) -> GradebookLayout {
        var assessments: [String: Int] = [:]
        var columns: [(assessment: String, item: String)] = []
        var known = Set<ColumnKey>()
        var lastList: [String: [String]] = [:]
        for r in results {
            if assessments[r.assessment] == nil { assessments[r.assessment] = assessments.count }
            guard lastList[r.assessment] != r.items else { continue }
            lastList[r.assessment] = r.items
            for item in r.items where known.insert(ColumnKey(assessment: r.assessment, item: item)).inserted {
                columns.append((r.assessment, item))
            }
        }
        let prefixed = assessments.count > 1
        if prefixed {
            // Stable: each assessment's columns keep their order, assessments in order of appearance.
            columns = columns.enumerated().sorted {
                (assessments[$0.element.assessment] ?? 0, $0.offset) < (assessments[$1.element.assessment] ?? 0, $1.offset)
            }.map(\.element)
        }
        return GradebookLayout(columns: columns, prefixed: prefixed)
    }

    static let fixedColumns = ["session", "candidate", "assessment", "status", "points", "max", "pending", "started", "ended",
                               "time_used_seconds", "interruptions", "paste_attempts", "focus_losses",
                               "exit_attempts", "wrong_passphrases", "room", "seat", "candidate_number"]

    /// The columns after the fixed ones and before the items: whether the seat's records
    /// were checked and verified, what became of the session, and its time (`SessionAccount`).
    public static let accountColumns = ["verified", "outcome", "status_words"] + SessionAccount.columns

    public static func header(_ layout: GradebookLayout) -> String {
        row(fixedColumns + accountColumns + layout.columns.map { layout.prefixed ? "\($0.assessment):\($0.item)" : $0.item })
    }

    /// The cells of `accountColumns`.
    static func accountCells(verified: Bool, standing: SessionStanding, account: SessionAccount) -> [String] {
        [verified ? "yes" : "no", standing.outcome, standing.words] + account.cells.map(safeCell)
    }

    /// The row of a session with no result (interrupted, refused, ended before one was
    /// written): its record's facts, no points, and an empty cell under every item.
    public static func row(_ r: SessionRecord, status: String, integrity: IntegrityReport, in layout: GradebookLayout,
                           verified: Bool, standing: SessionStanding, account: SessionAccount) -> String {
        fields([r.id, r.candidate.map(safeCell) ?? "", safeCell(r.assessmentID), safeCell(status), "", "", "",
                Timestamp.iso(r.startedAt), r.endedAt.map(Timestamp.iso) ?? "", "\(TimeUsed.seconds(r.elapsed))",
                "\(r.interruptions)", "\(integrity.pasteAttempts)", "\(integrity.focusLosses)", "\(integrity.exitAttempts)",
                "\(integrity.wrongPassphrases)", r.options.shared.map { safeCell($0.room) } ?? "",
                r.options.shared.map { safeCell($0.seat) } ?? "", r.options.shared?.candidateNumber.map(safeCell) ?? ""]
               + accountCells(verified: verified, standing: standing, account: account))
            + String(repeating: ",", count: layout.columns.count) + "\r\n"
    }

    /// One session's row. `csv` is the result's cells as ready fields (`fields`), used when
    /// the result's items are the gradebook's columns; otherwise `cells` places each cell in
    /// its column, and without them there is no row (nil: read the cells and ask again).
    public static func row(_ r: ResultHeading, integrity: IntegrityReport, items: [String], csv: String?, cells: [String]?,
                           in layout: GradebookLayout, verified: Bool = false, standing: SessionStanding? = nil,
                           account: SessionAccount = SessionAccount()) -> String? {
        let fixed = fields([r.session, r.candidate.map(safeCell) ?? "", r.assessment.id, r.status.rawValue,
                            PointsText.format(r.score.points), PointsText.format(r.score.max), PointsText.format(r.score.pending),
                            r.startedAt, r.endedAt,
                            "\(r.timeUsedSeconds)", "\(r.interruptions)", "\(integrity.pasteAttempts)", "\(integrity.focusLosses)",
                            "\(integrity.exitAttempts)", "\(integrity.wrongPassphrases)", r.room.map(safeCell) ?? "",
                            r.seat.map(safeCell) ?? "", r.candidateNumber.map(safeCell) ?? ""]
                           + accountCells(verified: verified, standing: standing ?? SessionStanding(status: r.status.rawValue, hasResult: true),
                                          account: account))
        if let csv, !layout.prefixed, items == layout.items {
            return fixed + (items.isEmpty ? "" : "," + csv) + "\r\n"
        }
        guard let cells else { return nil }
        var byItem: [String: String] = [:]
        byItem.reserveCapacity(items.count)
        for (item, cell) in zip(items, cells) where byItem[item] == nil { byItem[item] = cell }
        var out = fixed
        for column in layout.columns {
            out += ","
            guard column.assessment == r.assessment.id else { continue }
            out += field(byItem[column.item] ?? "")
        }
        return out + "\r\n"
    }

    /// A whole gradebook of results at hand (the digests made from full documents).
    public static func export(_ results: [(ResultDigest, IntegrityReport)]) -> String {
        let layout = layout(results.map { ($0.0.heading.assessment.id, $0.0.items) })
        var out = header(layout)
        for (digest, integrity) in results {
            out += row(digest.heading, integrity: integrity, items: digest.items, csv: nil, cells: digest.cells, in: layout) ?? ""
        }
        return out
    }
}

/// The columns of a gradebook.
public struct GradebookLayout: Sendable {
    public var columns: [(assessment: String, item: String)]
    public var prefixed: Bool
    /// The item ids of the columns, when they are one assessment's.
    public var items: [String]?

    init(columns: [(assessment: String, item: String)], prefixed: Bool) {
        self.columns = columns
        self.prefixed = prefixed
        items = prefixed ? nil : columns.map(\.item)
    }
}

/// One CSV column: an item of an assessment.
private struct ColumnKey: Hashable {
    var assessment: String
    var item: String
}
