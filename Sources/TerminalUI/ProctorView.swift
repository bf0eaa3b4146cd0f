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
    /// How the store was last read: "updated 10:02:03", or why it could not be.
    public var storeLine = "connecting to the shared store…"
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

    public struct Entry: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case minutes, message, confirmEnd, confirmStart }
        public var kind: Kind
        public var text: String

        public var prompt: String {
            switch kind {
            case .minutes: return "Minutes to add: "
            case .message: return "Message: "
            case .confirmEnd: return "End these sessions now (answers are kept and scored)? y/N "
            case .confirmStart: return "Start them and send each its keys (seat keys as listed)? y/N "
            }
        }
    }

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
    }
}

public enum ProctorView {
    /// Whole minutes for a screen reader (the frame changes at most once a minute by itself),
    /// minutes and seconds otherwise.
    static func clock(_ seconds: Int, coarse: Bool) -> String {
        if coarse { return seconds < 60 ? "under 1 min" : "\(seconds / 60) min" }
        return seconds >= 3600 ? String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
                               : String(format: "%d:%02d", seconds / 60, seconds % 60)
    }

    static func heard(_ s: SeatView, coarse: Bool) -> String {
        // Within two of a running seat's reports: heard from now.
        if Double(s.lastHeardSeconds) < 2 * SeatView.pulseInterval { return "now" }
        if coarse { return s.lastHeardSeconds < 60 ? "under 1 min ago" : "\(s.lastHeardSeconds / 60) min ago" }
        if s.lastHeardSeconds < 120 { return "\(s.lastHeardSeconds) s ago" }
        if s.lastHeardSeconds < 7200 { return "\(s.lastHeardSeconds / 60) min ago" }
        return "\(s.lastHeardSeconds / 3600) h ago"
    }

    /// A name that came from a seat, with invisible characters shown as `\u{200B}`, so that a
    /// seat cannot pass for another ("A1" and "A\u{200B}1").
    static func name(_ text: String) -> String { TerminalSafety.visible(text, keepLineBreaks: false) }

    /// One seat in words, as the focused line says it.
    public static func sentence(_ s: SeatView, coarse: Bool, marked: Bool = false) -> String {
        var parts = ["Seat \(name(s.seat))" + (s.candidate.map { ", \(name($0))" } ?? "") + ": \(statusWords(s))"]
        if marked { parts.append("marked") }
        for warning in s.warnings { parts.append(warning) }
        if let refusal = s.lastRefusal, s.commandsRefused > 0 { parts.append("command \(name(String(refusal.dropFirst())))") }
        if !s.commandable { parts.append("watch only: the test has no proctor key") }
        if s.status == "not_started" {
            // Before a start that sends the test's key: where this seat is, what it runs, and
            // the key it showed on its own screen.
            if let key = s.seatKey.flatMap(SeatBox.fingerprint) { parts.append("seat key \(key)") }
            if let host = s.host { parts.append("host \(name(host))") }
            if let digest = s.executableDigest { parts.append("Carrel \(name(String(digest.prefix(19))))") }
        }
        if s.commandsPending > 0 { parts.append("\(s.commandsPending) command\(s.commandsPending == 1 ? "" : "s") not applied yet") }
        parts.append("\(s.answered) of \(s.total) answered")
        if let left = s.timeLeftSeconds, ["active", "interrupted"].contains(s.status) {
            parts.append("\(clock(left, coarse: coarse)) left")
        }
        parts.append("\(s.pasteAttempts) paste attempt\(s.pasteAttempts == 1 ? "" : "s")")
        parts.append("\(s.focusLosses) focus loss\(s.focusLosses == 1 ? "" : "es")")
        parts.append("\(s.exitAttempts) exit attempt\(s.exitAttempts == 1 ? "" : "s")")
        parts.append("last heard \(heard(s, coarse: coarse))")
        return parts.joined(separator: ", ")
    }

    /// The status in words, the proctor's part first: "asks for help", "paused", "waiting".
    static func statusWords(_ s: SeatView) -> String {
        var words: [String] = []
        if s.hand == "raised" { words.append("asks for help") }
        if s.hand == "acknowledged" && s.status == "active" { words.append("help coming") }
        if s.status == "wrong_test" { return "wrong test" }
        if s.status == "candidate_twice" { return "refused: candidate seated twice" }
        if s.waiting { words.append("waiting for the start") } else if s.paused && s.status == "active" { words.append("paused") } else {
            words.append(s.statusWords)
        }
        return words.joined(separator: ", ")
    }

    static func summary(_ seats: [SeatView]) -> String {
        var counts: [(String, Int)] = []
        for status in ["interrupted", "active", "not_started", "submitted", "timed_out", "ended"] {
            let n = seats.filter { $0.status == status }.count
            if n > 0 { counts.append((status.replacingOccurrences(of: "_", with: " "), n)) }
        }
        let trouble = seats.filter { $0.status == "active" && $0.incidents > 0 }.count
        var text = "\(seats.count) seat\(seats.count == 1 ? "" : "s")"
        if trouble > 0 { text += " (\(trouble) active with incidents)" }
        if !counts.isEmpty { text += ": " + counts.map { "\($1) \($0)" }.joined(separator: ", ") }
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

    public static func render(_ m: ProctorModel, width: Int, height: Int) -> Screen {
        var screen = Screen(width: width, height: height)
        if width < 40 || height < 10 {
            _ = screen.put(cell("Make this window at least 40 × 10 to see the seats.", width), row: 0, column: 0)
            return screen
        }
        let title = "Carrel proctor — " + (m.room.map { "room \(name($0))" } ?? "every room")
        _ = screen.put(TextWidth.sanitise(title), row: 0, column: 0, role: .title)
        for (i, line) in TextWidth.wrap(summary(m.seats), width: width).prefix(2).enumerated() {
            _ = screen.put(line, row: 1 + i, column: 0)
        }
        let coarse = m.screenReader
        if let report = m.report {
            let room = height - 4
            let start = min(m.reportScroll, max(0, report.count - room))
            for (i, line) in report.dropFirst(start).prefix(room).enumerated() {
                _ = screen.put(cell(line, width), row: 3 + i, column: 0)
            }
            _ = screen.put(cell(m.keyMap.footerLine, width), row: height - 1, column: 0, role: .dim)
            screen.cursor = (3, 0)
            return screen
        }
        // seat 12 · candidate 16 · status 12 · answered 8 · left 8 · P/F/X 9 · heard rest
        let heading = cell("seat", 12) + cell("candidate", 16) + cell("status", 12) + cell("answered", 9)
            + cell("left", 8) + cell("pst foc ext", 12) + "heard"
        _ = screen.put(cell(heading, width), row: 3, column: 0, role: .dim)
        // One line less for the seats: the commands' keys are said above the seat's sentence.
        let rows = max(1, height - 8)
        let selected = m.selectedIndex
        let first = max(0, min(selected - rows / 2, m.seats.count - rows))
        if m.seats.isEmpty {
            _ = screen.put(cell("No seats yet. Seats appear here when they begin with --shared" + (m.room.map { " --room \(name($0))" } ?? "") + ".", width),
                           row: 4, column: 0)
            screen.cursor = (4, 0)
        }
        for (offset, s) in m.seats.dropFirst(first).prefix(rows).enumerated() {
            let index = first + offset
            let left = s.timeLeftSeconds.map { clock($0, coarse: coarse) } ?? "—"
            let shownLeft = ["active", "interrupted"].contains(s.status) ? left : "—"
            let counts = String(format: "%3d %3d %3d", s.pasteAttempts, s.focusLosses, s.exitAttempts)
            let mark = m.marked.contains(s.session) ? "* " : ""
            var line = cell(mark + name(s.seat), 12) + cell(s.candidate.map(name) ?? "—", 16) + cell(statusWords(s), 12)
            line += cell("\(s.answered)/\(s.total)", 9) + cell(shownLeft, 8) + cell(counts, 12) + heard(s, coarse: coarse)
            let role: Role = index == selected ? .focus : (s.rank <= 1 ? .warning : .plain)
            let row = 4 + offset
            _ = screen.put(cell(line, width), row: row, column: 0, role: role)
            if index == selected { screen.cursor = (row, 0) }
        }
        if !m.seats.isEmpty {
            _ = screen.put(cell(ProctorModel.actionsLine, width), row: height - 4, column: 0, role: .dim)
        }
        if let s = m.selectedSeat {
            // The focused seat in words, wrapped over two lines; with a screen reader the
            // cursor is there, so the line it reads says everything about the seat.
            let words = sentence(s, coarse: coarse, marked: m.marked.contains(s.session))
            let wrapped = TextWidth.wrap(TextWidth.sanitise(words), width: width)
            for (i, line) in wrapped.prefix(2).enumerated() {
                _ = screen.put(line, row: height - 3 + i, column: 0)
            }
            if m.screenReader { screen.cursor = (height - 3, 0) }
        }
        if let entry = m.entry {
            // The question line replaces the key line; the cursor waits in it.
            let text = entry.prompt + entry.text
            let shown = TextWidth.of(text) < width - 1 ? text : "…" + String(text.suffix(width - 4))
            let end = screen.put(cell(shown, width), row: height - 1, column: 0, role: .title)
            _ = end
            screen.cursor = (height - 1, min(width - 1, TextWidth.of(shown)))
            return screen
        }
        // The store's state first: at any width, "not reachable" is what must show.
        let keys = (m.notice.map { $0 + " · " } ?? "") + m.storeLine + " · " + m.keyMap.footerLine
        _ = screen.put(cell(keys, width), row: height - 1, column: 0, role: .dim)
        return screen
    }
}
