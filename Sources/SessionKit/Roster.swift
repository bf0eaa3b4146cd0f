import Localization
import Foundation
import AssessmentKit

/// One candidate of a room's roster: who sits where, and what they need.
public struct RosterEntry: Sendable, Equatable, Codable {
    public var candidate: String
    public var name: String
    public var seat: String?
    public var extraTime: ExtraTime?
    public var screenReader: Bool?
    /// `default`, `mono` or `contrast`, lower case.
    public var theme: String?
    public var language: String?
    /// The candidate's code (`code` column): typed at the seat with the candidate number, it
    /// proves who sits there. Never stored as it is: the store keeps a slow hash.
    public var code: String?
    /// The 1-based line of the file where the candidate's row starts.
    public var line: Int

    public init(candidate: String, name: String, seat: String? = nil, extraTime: ExtraTime? = nil,
                screenReader: Bool? = nil, theme: String? = nil, language: String? = nil, line: Int) {
        self.candidate = candidate
        self.name = name
        self.seat = seat
        self.extraTime = extraTime
        self.screenReader = screenReader
        self.theme = theme
        self.language = language
        self.line = line
    }

    enum CodingKeys: String, CodingKey {
        case candidate, name, seat
        case extraTime = "extra_time"
        case screenReader = "screen_reader"
        case theme, language, code, line
    }
}

/// A bad line of a roster. Its message quotes the file's text only through
/// `TerminalSafety.visible`, so it can be written to a terminal as it is.
public struct RosterProblem: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `line LINE: error: MESSAGE`.
    public var description: String { "line \(line): error: \(message)" }

    /// `FILE:LINE: error: MESSAGE`, the shape editors and CI annotators understand.
    public func described(file: String) -> String {
        "\(TerminalSafety.visible(file, keepLineBreaks: false)):\(line): error: \(message)"
    }
}

/// A proctor's room plan: a CSV file with a header line naming its columns (`candidate`,
/// `name`, and optionally `seat`, `extra_time`, `screen_reader`, `theme`, `language`, `code`)
/// and a row per candidate. Reading it is pure: bytes in, entries or every problem out.
public enum Roster {
    public static let maximumCandidates = 10_000
    public static let candidateMaximumCharacters = 64
    public static let nameMaximumCharacters = 200
    public static let seatMaximumCharacters = 32
    public static let themes = ["default", "mono", "contrast"]
    /// The columns a roster may have, in the order they are listed in messages.
    public static var columns: [String] { Column.allCases.map(\.rawValue) }

    enum Column: String, CaseIterable {
        case candidate, name, seat
        case extraTime = "extra_time"
        case screenReader = "screen_reader"
        case theme, language, code
    }

    /// Every problem in one pass; entries only when there is no problem.
    public static func read(bytes: [UInt8]) -> (entries: [RosterEntry], problems: [RosterProblem]) {
        if let line = firstLineNotUTF8(bytes) {
            return ([], [RosterProblem(line: line, message: "not UTF-8 text")])
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let parsed = CSVReader.parse(body)
        var problems = parsed.problems
        let records = parsed.records.filter { !$0.isBlank }
        guard let header = records.first else {
            if problems.isEmpty {
                problems.append(RosterProblem(line: 1, message: "the roster is empty: it needs a header line with candidate and name"))
            }
            return ([], problems)
        }
        guard let columns = readHeader(header, problems: &problems) else { return ([], sorted(problems)) }

        var reader = RowReader(columns: columns, width: header.fields.count)
        for (count, record) in records.dropFirst().enumerated() {
            if count == maximumCandidates {
                // Problems of rows past the cap are not looked for; the parser's are dropped too.
                problems.removeAll { $0.line > record.line }
                problems.append(RosterProblem(line: record.line, message: "the roster has more than \(maximumCandidates) candidates"))
                break
            }
            reader.read(record, problems: &problems)
        }
        guard problems.isEmpty else { return ([], sorted(problems)) }
        return (reader.entries, [])
    }

    /// JSON of the entries (for storing in the database): keys sorted, and any invisible
    /// character a name keeps (the joiner of an emoji sequence) written as a `\u` escape.
    public static func json(_ entries: [RosterEntry]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(entries) else { return "[]" }
        return TerminalSafety.escapingJSON(String(decoding: data, as: UTF8.self))
    }

    /// The entries `json` wrote, or nil when the text is not such a document (it passes
    /// `StrictJSON` first, as every stored document does).
    public static func entries(fromJSON text: String) -> [RosterEntry]? {
        guard (try? StrictJSON.check(text)) != nil else { return nil }
        return try? JSONDecoder().decode([RosterEntry].self, from: Data(text.utf8))
    }

    // MARK: the header

    /// The place of each known column, or nil when the rows cannot be read (no candidate or
    /// no name column). Problems with other columns are recorded and the rows still read.
    static func readHeader(_ header: CSVReader.Record, problems: inout [RosterProblem]) -> [Column: Int]? {
        var index: [Column: Int] = [:]
        let known = columns.joined(separator: ", ")
        for (i, raw) in header.fields.enumerated() {
            let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if name.isEmpty {
                problems.append(RosterProblem(line: header.line, message: "column \(i + 1) of the header has no name"))
            } else if let column = Column(rawValue: name) {
                if let first = index[column] {
                    problems.append(RosterProblem(line: header.line, message: "duplicate column \(quoted(name)) (also column \(first + 1))"))
                } else {
                    index[column] = i
                }
            } else {
                let hint = suggestion(for: name).map { " (did you mean \($0)?)" } ?? ""
                problems.append(RosterProblem(line: header.line, message: "unknown column \(quoted(name))\(hint); the known columns are \(known)"))
            }
        }
        switch (index[.candidate] == nil, index[.name] == nil) {
        case (true, true):
            problems.append(RosterProblem(line: header.line, message:
                "the header has no candidate and no name column: the first line must name the columns, such as candidate,name,seat"))
        case (true, false):
            problems.append(RosterProblem(line: header.line, message: "the header has no candidate column"))
        case (false, true):
            problems.append(RosterProblem(line: header.line, message: "the header has no name column"))
        case (false, false):
            return index
        }
        return nil
    }

    /// The known column an unknown one was probably meant to be: the same letters and
    /// digits (`extra-time`, `Screen Reader`), one or two edits away (`names`, `thme`), or one
    /// starting with the other (`lang`, `candidate id`).
    static func suggestion(for name: String) -> String? {
        func letters(_ s: String) -> [Character] { s.filter { $0.isLetter || $0.isNumber } }
        let typed = letters(name)
        guard !typed.isEmpty else { return nil }
        var best: (column: String, distance: Int)?
        for column in columns {
            let wanted = letters(column)
            var distance = editDistance(typed, wanted)
            let shorter = min(typed.count, wanted.count)
            if shorter >= 4 && (typed.starts(with: wanted) || wanted.starts(with: typed)) { distance = min(distance, 1) }
            if distance <= 2, distance < (best?.distance ?? .max) { best = (column, distance) }
        }
        return best?.column
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        // Long names are never close to the short known ones.
        if a.count > 40 || b.count > 40 { return .max }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    // MARK: the rows

    /// Reads rows one after another, remembering the candidates and seats already given.
    struct RowReader {
        let columns: [Column: Int]
        let width: Int
        var entries: [RosterEntry] = []
        /// Lower-cased candidate → its line.
        var candidates: [String: Int] = [:]
        /// Lower-cased seat → the candidate given it and the line.
        var seats: [String: (candidate: String, line: Int)] = [:]

        init(columns: [Column: Int], width: Int) {
            self.columns = columns
            self.width = width
        }

        mutating func read(_ record: CSVReader.Record, problems: inout [RosterProblem]) {
            let line = record.line
            var row = RowFields(record: record, columns: columns)
            if record.fields.count > width {
                row.problem("this row has \(record.fields.count) fields but the header has \(width) columns")
            }
            let candidate = self.candidate(&row)
            let name = row.text(.name, maximum: Roster.nameMaximumCharacters)
            if name == "" { row.problem("name is empty: every row needs a name") }
            let seat = self.seat(&row, candidate: candidate)
            let extraTime = row.extraTime()
            let screenReader = row.screenReader()
            let theme = row.theme()
            let language = row.language()
            let code = row.code()
            problems += row.problems
            guard row.problems.isEmpty, let candidate, let name, !name.isEmpty else { return }
            var entry = RosterEntry(
                candidate: candidate, name: name, seat: seat?.isEmpty == false ? seat : nil, extraTime: extraTime,
                screenReader: screenReader, theme: theme, language: language, line: line)
            entry.code = code
            entries.append(entry)
        }

        /// The row's candidate, remembered; nil when missing, unusable or given before.
        mutating func candidate(_ row: inout RowFields) -> String? {
            var candidate = row.text(.candidate, maximum: Roster.candidateMaximumCharacters)
            if candidate == "" {
                row.problem("candidate is empty: every row needs a candidate id")
                candidate = nil
            }
            if let id = candidate {
                let key = id.lowercased()
                if let first = candidates[key] {
                    row.problem("duplicate candidate \(Roster.quoted(id)) (first on line \(first))")
                } else {
                    candidates[key] = row.record.line
                }
            }
            return candidate
        }

        /// The row's seat, remembered for its candidate; a seat given twice is a problem.
        mutating func seat(_ row: inout RowFields, candidate: String?) -> String? {
            let seat = row.text(.seat, maximum: Roster.seatMaximumCharacters)
            if let seat, !seat.isEmpty {
                let key = seat.lowercased()
                if let taken = seats[key] {
                    row.problem("seat \(Roster.quoted(seat)) is already given to candidate \(Roster.quoted(taken.candidate)) on line \(taken.line)")
                } else if let candidate {
                    seats[key] = (candidate, row.record.line)
                }
            }
            return seat
        }
    }

    /// One row's fields by column, and the problems found in them, in the order found.
    struct RowFields {
        let record: CSVReader.Record
        let columns: [Column: Int]
        var problems: [RosterProblem] = []

        mutating func problem(_ message: String) { problems.append(RosterProblem(line: record.line, message: message)) }

        /// The field of a column: nil when the header has no such column, empty when
        /// the row is short of it.
        func field(_ column: Column) -> String? {
            guard let i = columns[column] else { return nil }
            return i < record.fields.count ? record.fields[i] : ""
        }

        /// The trimmed text of a column, "" when empty or absent, nil when it cannot be used.
        mutating func text(_ column: Column, maximum: Int) -> String? {
            guard let raw = field(column) else { return "" }
            if let unsafe = Roster.unsafeCharacter(in: raw) {
                problem("\(column.rawValue) contains \(unsafe)")
                return nil
            }
            let value = raw.trimmingCharacters(in: .whitespaces)
            // Counted in characters, and in scalars so that combining marks cannot make it huge.
            if value.count > maximum || value.unicodeScalars.count > maximum * 4 {
                problem("\(column.rawValue) is longer than \(maximum) characters")
                return nil
            }
            return value
        }

        mutating func extraTime() -> ExtraTime? {
            var extraTime: ExtraTime?
            if let value = text(.extraTime, maximum: 64), !value.isEmpty {
                extraTime = ExtraTime(parsing: value)
                if extraTime == nil {
                    problem("extra_time \(Roster.quoted(value)) is not understood: use a multiplier from 1 to 10 such as 1.5 or x1.5, added time such as +15m, or unlimited")
                }
            }
            return extraTime
        }

        mutating func screenReader() -> Bool? {
            var screenReader: Bool?
            if let value = text(.screenReader, maximum: 64), !value.isEmpty {
                switch value.lowercased() {
                case "yes", "true", "1": screenReader = true
                case "no", "false", "0": screenReader = false
                default: problem("screen_reader \(Roster.quoted(value)) is not yes or no (true, false, 1 and 0 are also accepted)")
                }
            }
            return screenReader
        }

        mutating func theme() -> String? {
            var theme: String?
            if let value = text(.theme, maximum: 64), !value.isEmpty {
                if Roster.themes.contains(value.lowercased()) {
                    theme = value.lowercased()
                } else {
                    problem("theme \(Roster.quoted(value)) is not one of \(Roster.themes.joined(separator: ", "))")
                }
            }
            return theme
        }

        /// A roster with a `code` column gives every candidate one: a candidate without a code
        /// would be the one any seat could claim.
        mutating func code() -> String? {
            guard columns[.code] != nil else { return nil }
            // nil: the field cannot be used, and `text` said why.
            guard let value = text(.code, maximum: 200) else { return nil }
            guard !value.isEmpty else {
                problem("code is empty: a roster with a code column gives every candidate a code")
                return nil
            }
            if let why = CandidateCode.problem(value) {
                problem(why)
                return nil
            }
            return value
        }

        mutating func language() -> String? {
            var language: String?
            if let value = text(.language, maximum: 64), !value.isEmpty {
                let isTag = (2...35).contains(value.utf8.count) && value.utf8.allSatisfy {
                    (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-")
                }
                if isTag, let known = Language(tag: value), known != .pseudo {
                    language = known.rawValue
                } else if isTag {
                    problem("language " + Language.unknown(value))
                } else {
                    problem("language \(Roster.quoted(value)) is not a language tag such as en, fr or es-MX (letters, digits and hyphens, 2 to 35 characters)")
                }
            }
            return language
        }
    }

    // MARK: characters

    /// Why a field cannot be kept, naming its first unsafe character: what
    /// `TerminalSafety.firstUnsafe` finds (controls C0, DEL and C1; bidirectional controls
    /// and direction marks; default-ignorable characters such as U+200B, U+2060–U+2064,
    /// U+FEFF and U+00AD), then any other format character (Unicode category Cf, such as
    /// U+0600). Invisible characters that do a job for the text around them are allowed, as
    /// `TerminalSafety` decides everywhere else: U+200D between two emoji (👩‍👩‍👧) or between
    /// letters of a script that shapes with it (Arabic, the Indic scripts), U+FE0F after an
    /// emoji (❤️), the tags of a subdivision flag. Unassigned and private-use characters are
    /// allowed.
    static func unsafeCharacter(in text: String) -> String? {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return nil }
        if let finding = TerminalSafety.firstUnsafe(in: text) {
            return "\(finding): \(finding.hazard.rule) are not allowed"
        }
        if let format = text.unicodeScalars.first(where: {
            $0.properties.generalCategory == .format && !$0.properties.isDefaultIgnorableCodePoint
        }) {
            return "\(TerminalSafety.codePoint(format)) (a format character): invisible and format characters are not allowed"
        }
        return nil
    }

    /// A value from the file, quoted for a message: every hostile character shown as
    /// `\u{1B}`, and at most 40 characters of it.
    static func quoted(_ value: String) -> String {
        let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
        return "\"" + TerminalSafety.visible(shown, keepLineBreaks: false) + "\""
    }

    /// The 1-based line of the first byte that is not part of valid UTF-8, or nil.
    static func firstLineNotUTF8(_ bytes: [UInt8]) -> Int? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded):
                offset += encoded.count
            case .emptyInput:
                return nil
            case .error:
                return 1 + bytes[..<min(offset, bytes.count)].lazy.filter { $0 == 0x0A }.count
            }
        }
    }

    static func sorted(_ problems: [RosterProblem]) -> [RosterProblem] {
        problems.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
    }
}
