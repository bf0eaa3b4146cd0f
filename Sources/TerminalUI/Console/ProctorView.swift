import Localization
import AssessmentKit
import Foundation
import SessionKit

/// The proctor's console: every seat of a room, trouble first, and one seat's integrity report.
public struct ProctorModel: Sendable, Equatable {
    /// The language the console speaks.
    public var say = Localizer.english
    public var room: String?
    public var seats: [SeatView] = []
    /// The selected seat, by session, so a refresh that reorders rows keeps it.
    public var selected: String?
    /// The integrity report open for the selected seat (Enter), as lines.
    public var report: [String]?
    public var reportScroll = 0
    /// How the store was last read: "updated 10:02:03", or why it could not be (nil before the
    /// first reading: the console says it is connecting).
    public var storeLine: String?
    public var screenReader: Bool
    public var quit = false
    /// Seats marked for the next command (by session).
    public var marked: Set<String> = []
    /// The question line open now (minutes to add, a message, ending sessions).
    public var entry: Entry?
    /// What the last command did, or why it was not sent.
    public var notice: String?
    /// Seats whose raised hand the console has rung for.
    public var handsSeen: Set<String> = []

    public init(room: String?, screenReader: Bool) {
        self.room = room
        self.screenReader = screenReader
    }

    public var selectedIndex: Int {
        guard let selected, let i = seats.firstIndex(where: { $0.session == selected }) else { return 0 }
        return i
    }

    public var selectedSeat: SeatView? { seats.isEmpty ? nil : seats[selectedIndex] }

    /// New seats from the store; the selection stays on its seat.
    /// Returns true when a seat raised its hand since the last reading (the console rings).
    @discardableResult
    public mutating func update(_ new: [SeatView]) -> Bool {
        seats = new
        if selected == nil || !new.contains(where: { $0.session == selected }) { selected = new.first?.session }
        marked = marked.intersection(new.map(\.session))
        let raised = Set(new.filter { $0.hand == "raised" }.map(\.session))
        let fresh = !raised.subtracting(handsSeen).isEmpty
        handsSeen = raised
        return fresh
    }

    /// What the console's loop must do after a key.
    public enum Action: Equatable {
        case none, openReport, refresh
        /// Send a command to these seats.
        case send(ProctorAction, [SeatView])
        /// Move the first seat's session to the second (a spare waiting in the room).
        case move(SeatView, SeatView)
        /// End this seat's session as lost.
        case lost(SeatView)
    }
}

public enum ProctorView {
    /// Whole minutes for a screen reader (the frame changes at most once a minute by itself),
    /// minutes and seconds otherwise.
    static func clock(_ seconds: Int, coarse: Bool, say: Localizer = .english) -> String {
        if coarse { return seconds < 60 ? say("⟨time left⟩under 1 min") : say("⟨time left⟩{0} min", .n(seconds / 60)) }
        return seconds >= 3600 ? String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
                               : String(format: "%d:%02d", seconds / 60, seconds % 60)
    }

    static func heard(_ s: SeatView, coarse: Bool, say: Localizer = .english) -> String {
        // Within two of a running seat's reports: heard from now.
        if Double(s.lastHeardSeconds) < 2 * SeatView.pulseInterval { return say("⟨heard⟩now") }
        if coarse {
            return s.lastHeardSeconds < 60 ? say("⟨heard⟩under 1 min ago") : say("⟨heard⟩{0} min ago", .n(s.lastHeardSeconds / 60))
        }
        if s.lastHeardSeconds < 120 { return say("⟨heard⟩{0} s ago", .n(s.lastHeardSeconds)) }
        if s.lastHeardSeconds < 7200 { return say("⟨heard⟩{0} min ago", .n(s.lastHeardSeconds / 60)) }
        return say("⟨heard⟩{0} h ago", .n(s.lastHeardSeconds / 3600))
    }

    /// A name that came from a seat, with invisible characters shown as `\u{200B}`, so that a
    /// seat cannot pass for another ("A1" and "A\u{200B}1").
    static func name(_ text: String) -> String { TerminalSafety.visible(text, keepLineBreaks: false) }

    /// Between the parts of a seat's sentence, and of the room's summary.
    static func comma(_ say: Localizer) -> String { say("⟨seat sentence⟩, ") }

    /// One seat in words, as the focused line says it.
    public static func sentence(_ s: SeatView, coarse: Bool, marked: Bool = false, say: Localizer = .english) -> String {
        let state = statusWords(s, say: say)
        var parts = [s.candidate.map { say("Seat {0}, {1}: {2}", .s(name(s.seat)), .s(name($0)), .s(state)) }
            ?? say("Seat {0}: {1}", .s(name(s.seat)), .s(state))]
        if marked { parts.append(say("⟨seat⟩marked")) }
        // What the store says of a seat is the seat's word until the proctor's key checks it:
        // a console without the passphrase, or a seat that fails the check, says so.
        if s.verified != true { parts.append(say("⟨seat⟩unverified")) }
        for warning in s.warnings { parts.append(warningWords(warning, say: say)) }
        // What assessment mode saw on the seat's machine, said with the seat, trouble first.
        if s.machineIncidents > 0 {
            parts.append(say("{0, plural, one {# incident on the machine} other {# incidents on the machine}}, the last: {1}",
                             .n(s.machineIncidents), .s(s.lastIncident ?? "")))
        }
        if let refusal = s.lastRefusal, s.commandsRefused > 0 { parts.append(refusalWords(String(refusal.dropFirst()), say: say)) }
        if !s.commandable { parts.append(say("watch only: the test has no proctor key")) }
        // Where this seat is and the key it showed on its own screen (the table's columns at
        // 120 columns); before its start, what it runs too.
        if let key = s.seatKey.flatMap(SeatBox.fingerprint) { parts.append(say("seat key {0}", .s(key))) }
        if let host = s.host { parts.append(say("host {0}", .s(name(host)))) }
        if s.status == "not_started" {
            // "Carrel" and its digest are names.
            if let digest = s.executableDigest { parts.append("Carrel \(name(String(digest.prefix(19))))") }
        }
        if !s.moves.isEmpty { parts.append(say("moved {0}", .s(s.moves.map(name).joined(separator: comma(say))))) }
        if s.commandsPending > 0 {
            parts.append(say("{0, plural, one {# command not applied yet} other {# commands not applied yet}}", .n(s.commandsPending)))
        }
        parts.append(say("{0} of {1} answered", .n(s.answered), .n(s.total)))
        if let score = s.score, SeatScore.finished(s.status) { parts.append(scoreWords(score, say: say)) }
        if let left = s.timeLeftSeconds, ["active", "interrupted"].contains(s.status) {
            parts.append(say("{0} left", .s(clock(left, coarse: coarse, say: say))))
        }
        parts.append(say("{0, plural, one {# paste attempt} other {# paste attempts}}", .n(s.pasteAttempts)))
        parts.append(say("{0, plural, one {# focus loss} other {# focus losses}}", .n(s.focusLosses)))
        parts.append(say("{0, plural, one {# exit attempt} other {# exit attempts}}", .n(s.exitAttempts)))
        parts.append(say("last heard {0}", .s(heard(s, coarse: coarse, say: say))))
        return parts.joined(separator: comma(say))
    }

    /// A finished session's score in words: "score 7 of 10, 2 to mark"; a session whose seat
    /// had no answer key and that no test scored says so, never "0".
    static func scoreWords(_ score: SeatScore, say: Localizer) -> String {
        switch score {
        case let .scored(points, max, pending):
            let text = say("score {0} of {1}", .points(points), .points(max))
            return pending > 0 ? text + comma(say) + say("{0} to mark", .points(pending)) : text
        case .notScored:
            return say("not scored yet (give --test)")
        case .unverified:
            return say("no score: its result does not verify")
        }
    }

    /// What the store flags about a seat (`SeatView.warnings`, in English), in the console's
    /// language; a flag the console does not know is shown as it is.
    static func warningWords(_ warning: String, say: Localizer) -> String {
        // "refused 3 commands"
        let words = warning.split(separator: " ")
        if words.count == 3, words[0] == "refused", let n = Int(words[1]), words[2] == "command" || words[2] == "commands" {
            return say("{0, plural, one {refused # command} other {refused # commands}}", .n(n))
        }
        // "4 records not counted"
        if words.count == 4, let n = Int(words[0]), words[1] == "record" || words[1] == "records", words[2] == "not", words[3] == "counted" {
            return say("{0, plural, one {# record not counted (not written by the seat)} other {# records not counted (not written by the seat)}}", .n(n))
        }
        return say.known(warning, context: "seat warning")
    }

    /// The last command a seat refused ("12 refused: expired"); the reason is the seat's own.
    static func refusalWords(_ refusal: String, say: Localizer) -> String {
        if let at = refusal.range(of: " refused: ") {
            return say("command {0} refused: {1}", .s(name(String(refusal[..<at.lowerBound]))),
                       .s(name(String(refusal[at.upperBound...]))))
        }
        return say("command {0}", .s(name(refusal)))
    }

    /// A seat's status (`SeatView.status`) in words.
    static func stateWords(_ status: String, say: Localizer) -> String {
        say.known(status.replacingOccurrences(of: "_", with: " "), context: "seat state")
    }

    /// The status in words, the proctor's part first: "asks for help", "paused", "waiting".
    static func statusWords(_ s: SeatView, say: Localizer = .english) -> String {
        var words: [String] = []
        if s.hand == "raised" { words.append(say("asks for help")) }
        if s.hand == "acknowledged" && s.status == "active" { words.append(say("help coming")) }
        if s.status == "wrong_test" { return stateWords(s.status, say: say) }
        if s.status == "candidate_twice" { return say("refused: candidate seated twice") }
        if s.lost { return say("ended by the proctor, seat lost") }
        if let from = s.moveRequest, s.status == "not_started" {
            words.append(say("{0} asks to move from {1} to {2}", .s(name(s.candidateNumber ?? s.candidate ?? "?")), .s(name(from)), .s(name(s.seat))))
            return words.joined(separator: comma(say))
        }
        if s.waiting { words.append(say("waiting for the start")) } else if s.paused && s.status == "active" {
            words.append(say("⟨seat state⟩paused"))
        } else {
            words.append(stateWords(s.status, say: say))
        }
        return words.joined(separator: comma(say))
    }

    /// How many seats are in a state: "2 interrupted".
    static func stateCount(_ status: String, _ n: Int, say: Localizer) -> String {
        switch status {
        case "interrupted": return say("⟨seats⟩{0, plural, one {# interrupted} other {# interrupted}}", .n(n))
        case "active": return say("⟨seats⟩{0, plural, one {# active} other {# active}}", .n(n))
        case "not_started": return say("⟨seats⟩{0, plural, one {# not started} other {# not started}}", .n(n))
        case "submitted": return say("⟨seats⟩{0, plural, one {# submitted} other {# submitted}}", .n(n))
        case "timed_out": return say("⟨seats⟩{0, plural, one {# timed out} other {# timed out}}", .n(n))
        case "ended": return say("⟨seats⟩{0, plural, one {# ended} other {# ended}}", .n(n))
        case "paused": return say("⟨seats⟩{0, plural, one {# paused} other {# paused}}", .n(n))
        default: return "\(n) \(status.replacingOccurrences(of: "_", with: " "))"
        }
    }

    /// The state a seat is counted under: its status, or "paused" for a running seat the
    /// proctor paused (as its line says).
    static func countedState(_ s: SeatView) -> String {
        s.paused && s.status == "active" ? "paused" : s.status
    }

    /// "6 seats: 4 active, 2 paused; 1 asks for help; 1 held back".
    static func summary(_ seats: [SeatView], say: Localizer = .english) -> String {
        var counts: [String] = []
        for status in ["interrupted", "active", "paused", "not_started", "submitted", "timed_out", "ended"] {
            let n = seats.filter { countedState($0) == status }.count
            if n > 0 { counts.append(stateCount(status, n, say: say)) }
        }
        let hands = seats.filter { $0.hand == "raised" }.count
        if hands > 0 { counts.append(say("{0, plural, one {# asks for help} other {# ask for help}}", .n(hands))) }
        let held = seats.filter { $0.warnings.contains { $0.hasSuffix(", held back") } }.count
        if held > 0 { counts.append(say("⟨seats⟩{0, plural, one {# held back} other {# held back}}", .n(held))) }
        let trouble = seats.filter { $0.status == "active" && $0.incidents > 0 }.count
        var text = say("{0, plural, one {# seat} other {# seats}}", .n(seats.count))
        if trouble > 0 {
            text = say("{0} ({1, plural, one {# active with incidents} other {# active with incidents}})", .s(text), .n(trouble))
        }
        if !counts.isEmpty { text = say("⟨seat summary⟩{0}: {1}", .s(text), .s(counts.joined(separator: comma(say)))) }
        return text
    }

    static func cell(_ text: String, _ width: Int) -> String {
        let safe = TextWidth.sanitise(text)
        if TextWidth.of(safe) <= width { return safe + String(repeating: " ", count: width - TextWidth.of(safe)) }
        var out = ""
        for ch in safe {
            if TextWidth.of(out + String(ch)) > width - 1 { break }
            out.append(ch)
        }
        return out + "…" + String(repeating: " ", count: max(0, width - 1 - TextWidth.of(out)))
    }

    /// The last `columns` columns of `text`, whole characters only.
    static func tail(_ text: String, columns: Int) -> String {
        var kept: [Character] = []
        var used = 0
        for ch in text.reversed() {
            let w = TextWidth.of(ch)
            if used + w > columns { break }
            used += w
            kept.append(ch)
        }
        return String(kept.reversed())
    }

    /// A key map's footer in the console's language: "Enter: integrity report".
    static func footerEntries(_ map: KeyMap<ConsoleAction>, say: Localizer) -> [String] {
        map.footer().map { say("⟨footer entry⟩{0}: {1}", .s($0.0), .s(say("⟨footer⟩" + $0.1))) }
    }

    /// `lead` then as many of `entries` as fit `width` columns, in order, joined by `separator`:
    /// an entry that does not fit is left out whole (a later, shorter one may still fit). With
    /// `keepLast`, room is kept for the last entry (quit) first.
    static func fitted(_ lead: [String], _ entries: [String], width: Int, separator: String = " · ", keepLast: Bool = false) -> String {
        func joined(_ parts: [String]) -> String { parts.joined(separator: separator) }
        let all = lead + entries
        if TextWidth.of(joined(all)) <= width { return joined(all) }
        let last = keepLast ? entries.last : nil
        let others = keepLast ? Array(entries.dropLast()) : entries
        var kept = lead
        for entry in others where TextWidth.of(joined(kept + [entry] + (last.map { [$0] } ?? []))) <= width {
            kept.append(entry)
        }
        if let last, TextWidth.of(joined(kept + [last])) <= width { kept.append(last) }
        return joined(kept)
    }

    /// `entries` on at most `lines` lines of `width` columns, each entry whole and in order; an
    /// entry that fits on none is left out.
    static func packed(_ entries: [String], width: Int, separator: String, lines: Int) -> [String] {
        var out: [String] = []
        var line = ""
        for entry in entries {
            let next = line.isEmpty ? entry : line + separator + entry
            if TextWidth.of(next) <= width {
                line = next
            } else if out.count + 1 < lines, TextWidth.of(entry) <= width {
                out.append(line)
                line = entry
            }
        }
        if !line.isEmpty { out.append(line) }
        return out
    }

    /// From this width on, the table has the seat key and host columns.
    static let wideConsole = 120

    /// The seats' table: its headings, each column's width, and each seat's cells. Columns are
    /// as wide as their headings and words need (at least: seat 12, candidate 16, status 12,
    /// answered 9, left 8, counts 12, then the time heard from). When that is wider than the
    /// screen, the candidate's column gives up to 6 columns, then columns are left out from the
    /// right (the focused seat's sentence says them all): no word is cut. Names are the seats'
    /// own and are cut with "…" where they are longer than their column.
    static func table(_ m: ProctorModel, width: Int) -> (headings: [String], widths: [Int], rows: [[String]]) {
        let say = m.say
        let coarse = m.screenReader
        // A wide console (120 columns) adds each seat's key and host, which an 80-column one
        // says in the focused seat's sentence.
        let wide = width >= Self.wideConsole
        var headings = [say("⟨column⟩seat"), say("⟨column⟩candidate"), say("⟨column⟩status"), say("⟨column⟩answered"),
                        say("⟨column⟩left"), say("⟨column⟩pst foc ext"), say("⟨column⟩heard")]
        if wide { headings += [say("⟨column⟩seat key"), say("⟨column⟩host")] }
        let rows: [[String]] = m.seats.map { s in
            let left = ["active", "interrupted"].contains(s.status) ? (s.timeLeftSeconds.map { clock($0, coarse: coarse, say: say) } ?? "—") : "—"
            var cells = [(m.marked.contains(s.session) ? "* " : "") + name(s.seat), s.candidate.map(name) ?? "—", statusWords(s, say: say),
                         "\(s.answered)/\(s.total)", left, String(format: "%3d %3d %3d", s.pasteAttempts, s.focusLosses, s.exitAttempts),
                         heard(s, coarse: coarse, say: say)]
            if wide { cells += [s.seatKey.flatMap(SeatBox.fingerprint) ?? "—", s.host.map(name) ?? "—"] }
            return cells
        }
        // The seat's and the candidate's names do not widen their columns; words do.
        let least = [12, 16, 12, 9, 8, 12, 0] + (wide ? [21, 0] : [])
        let measured = [false, false, true, true, true, true, true] + (wide ? [true, true] : [])
        var widths = headings.indices.map { i in
            let words = measured[i] ? (rows.map { TextWidth.of(TextWidth.sanitise($0[i])) }.max() ?? 0) : 0
            let gap = i == headings.count - 1 ? 0 : 1
            return max(least[i], TextWidth.of(headings[i]) + gap, words + gap)
        }
        if widths.reduce(0, +) > width {
            widths[1] = max(10, TextWidth.of(headings[1]) + 1, widths[1] - max(0, widths.reduce(0, +) - width))
        }
        while widths.count > 3, widths.reduce(0, +) > width { widths.removeLast() }
        return (headings, widths, rows)
    }

    /// One line of the table: each cell at its column's width with a space kept before the next
    /// (a name as wide as its column is cut, never run into the next cell), the last as it is.
    static func tableLine(_ cells: [String], _ widths: [Int]) -> String {
        var line = ""
        for (i, w) in widths.enumerated() {
            line += i == widths.count - 1 && i == cells.count - 1 ? TextWidth.sanitise(cells[i]) : cell(cells[i], max(1, w - 1)) + " "
        }
        return line
    }

    public static func render(_ m: ProctorModel, width: Int, height: Int) -> Screen {
        var screen = Screen(width: width, height: height)
        let say = m.say
        if width < 40 || height < 10 {
            let lines = TextWidth.wrap(say("Make this window at least {0} × {1} to see the seats.", .n(40), .n(10)), width: width)
            for (i, line) in lines.prefix(height).enumerated() { _ = screen.put(line, row: i, column: 0) }
            return screen
        }
        let title = m.room.map { say("Carrel proctor — room {0}", .s(name($0))) } ?? say("Carrel proctor — every room")
        for (i, line) in TextWidth.wrap(TextWidth.sanitise(title), width: width).prefix(1).enumerated() {
            _ = screen.put(line, row: i, column: 0, role: .title)
        }
        let summaryLines = TextWidth.wrap(summary(m.seats, say: say), width: width).prefix(3)
        for (i, line) in summaryLines.enumerated() {
            _ = screen.put(line, row: 1 + i, column: 0)
        }
        // Row 3 in English: the summary takes two lines at most.
        let top = max(3, 1 + summaryLines.count)
        let coarse = m.screenReader
        if let report = m.report {
            renderReport(report, m, into: &screen, top: top)
            return screen
        }
        let (headings, widths, cells) = table(m, width: width)
        _ = screen.put(cell(tableLine(headings, widths), width), row: top, column: 0, role: .dim)
        // From the bottom up: the key line (or the question being asked), the focused seat's
        // sentence (two lines, or three), the commands' keys (one line, or two in a language
        // whose words are longer), each whole; the seats have the rows left.
        let bottom = bottomRows(m, width: width)
        let actions = m.seats.isEmpty ? [] : packed(ProctorModel.actions.map { "\($0.key) \(say("⟨console action⟩" + $0.label))" },
                                                    width: width, separator: "  ", lines: 2)
        let words = m.selectedSeat.map { s in
            TextWidth.wrap(TextWidth.sanitise(sentence(s, coarse: coarse, marked: m.marked.contains(s.session), say: say)), width: width)
        } ?? []
        let sentenceRows = max(2, min(4, words.count))
        let sentenceRow = height - bottom.count - sentenceRows
        let actionsRow = sentenceRow - max(1, actions.count)
        let rows = max(1, actionsRow - top - 1)
        let selected = m.selectedIndex
        let first = max(0, min(selected - rows / 2, m.seats.count - rows))
        if m.seats.isEmpty {
            let text = m.room.map { say("No seats yet. Seats appear here when they begin with --shared --room {0}.", .s(name($0))) }
                ?? say("No seats yet. Seats appear here when they begin with --shared.")
            for (i, line) in TextWidth.wrap(TextWidth.sanitise(text), width: width).prefix(max(1, height - bottom.count - top - 1)).enumerated() {
                _ = screen.put(line, row: top + 1 + i, column: 0)
            }
            screen.cursor = (top + 1, 0)
        }
        for (offset, s) in m.seats.enumerated().dropFirst(first).prefix(rows) {
            let role: Role = offset == selected ? .focus : (s.rank <= 1 ? .warning : .plain)
            let row = top + 1 + offset - first
            _ = screen.put(cell(tableLine(cells[offset], widths), width), row: row, column: 0, role: role)
            if offset == selected { screen.cursor = (row, 0) }
        }
        for (i, line) in actions.enumerated() {
            _ = screen.put(cell(line, width), row: actionsRow + i, column: 0, role: .dim)
        }
        if !words.isEmpty {
            // The focused seat in words; with a screen reader the cursor is there, so the line
            // it reads says everything about the seat.
            for (i, line) in words.prefix(sentenceRows).enumerated() {
                _ = screen.put(line, row: sentenceRow + i, column: 0)
            }
            if m.screenReader { screen.cursor = (sentenceRow, 0) }
        }
        for (i, line) in bottom.enumerated() {
            _ = screen.put(cell(line, width), row: height - bottom.count + i, column: 0, role: m.entry == nil ? .dim : .title)
        }
        if m.entry != nil, let last = bottom.last { screen.cursor = (height - 1, min(width - 1, TextWidth.of(last))) }
        return screen
    }

    /// A report in place of the seats, scrolled, with the keys on the last line.
    static func renderReport(_ report: [String], _ m: ProctorModel, into screen: inout Screen, top: Int) {
        let width = screen.width, height = screen.height
        // Long lines wrap: a line of the report is never cut.
        let lines = report.flatMap { TextWidth.wrap(TextWidth.sanitise($0), width: width) }
        let room = max(1, height - 1 - top)
        let start = min(m.reportScroll, max(0, lines.count - room))
        for (i, line) in lines.dropFirst(start).prefix(room).enumerated() {
            _ = screen.put(line, row: top + i, column: 0)
        }
        _ = screen.put(cell(fitted([], footerEntries(m.keyMap, say: m.say), width: width, keepLast: true), width),
                       row: height - 1, column: 0, role: .dim)
        screen.cursor = (top, 0)
    }

    /// The screen's last lines: the question being asked, or the store's state and the keys.
    static func bottomRows(_ m: ProctorModel, width: Int) -> [String] {
        let say = m.say
        if let entry = m.entry {
            // The question replaces the key line (and, when it is long, the lines above it); the
            // cursor waits after the answer typed so far.
            var question = TextWidth.wrap(entry.prompt(say), width: width - 3)
            var last = (question.popLast() ?? "") + " " + entry.text
            if TextWidth.of(last) >= width - 1 { last = "…" + tail(last, columns: width - 4) }
            return question.suffix(2) + [last]
        }
        // The store's state first: at any width, "not reachable" is what must show. The keys
        // follow, as many as fit, each whole, the last (quit) kept first.
        let store = m.storeLine ?? say("connecting to the shared store…")
        return bottomLines((m.notice.map { [$0] } ?? []) + [store], footerEntries(m.keyMap, say: say), width: width)
    }

    /// The console's last lines: `lead` (what the last command did, the store's state) then the
    /// keys, on one line when that fits (keys left out whole where they do not); else the lead
    /// wrapped (three lines at most), then the keys on a line of their own.
    static func bottomLines(_ lead: [String], _ entries: [String], width: Int) -> [String] {
        let leadText = lead.joined(separator: " · ")
        if TextWidth.of(leadText) <= width { return [fitted(lead, entries, width: width, keepLast: true)] }
        return Array(TextWidth.wrap(leadText, width: width).prefix(3)) + [fitted([], entries, width: width, keepLast: true)]
    }
}
