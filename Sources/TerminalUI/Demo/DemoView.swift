import Localization
import AssessmentKit
import SessionKit

/// The workshop playground's screen, in the spirit of the ASAMple app: the lock status, the
/// actions, a field to try typing and pasting in, the effective policy, and a live event log.
public struct DemoModel: Sendable {
    /// The language the demo speaks.
    public var say = Localizer.english
    /// The lock's status in words (nil until it is first read: "No session").
    public var lockStatus: String?
    public var sessionActive = false
    public var field = TextEditor()
    public var log: [String] = []
    public var policy: RestrictionPolicy
    public var workshopAvailable: Bool
    /// Why F5 cannot open the workshop test, in words.
    public var workshopMissing: String?
    public var theme: Theme
    /// Quitting while a session runs asks first.
    public var confirmQuit = false
    /// How many lines the event log is scrolled back from its newest line.
    public var logScroll = 0

    /// How the demo's own End action is recorded, so the log can tell it from a blocked exit.
    public static let endRequest = "End session (demo)"

    public init(policy: RestrictionPolicy, workshopAvailable: Bool, theme: Theme) {
        self.policy = policy
        self.workshopAvailable = workshopAvailable
        self.theme = theme
    }

    /// Journal events as a trainer would say them. The details the session wrote (a key's
    /// name, a reason) are shown as they are.
    public static func describe(_ events: [JournalEvent], say: Localizer = .english) -> [String] {
        var lines: [String] = []
        var pending: (phase: String, parts: [String])? = nil
        func flush() {
            if let p = pending {
                lines.append(say("Pasteboards cleared {0}: {1}", .s(phaseWords(p.phase, say: say)),
                                 .s(p.parts.joined(separator: say("⟨demo log list⟩, ")))))
            }
            pending = nil
        }
        for e in events {
            if e.kind == EventKind.pasteboardCleared.rawValue, let dash = e.detail.range(of: " — ") {
                let phase = String(e.detail[..<dash.lowerBound])
                let rest = String(e.detail[dash.upperBound...])
                let parts = rest.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                let piece = parts.count == 2 ? "\(parts[0]) (\(parts[1]))" : rest
                if pending?.phase != phase { flush(); pending = (phase, []) }
                pending?.parts.append(piece)
                continue
            }
            flush()
            let time = Timestamp.iso(e.at).dropFirst(11).prefix(8)
            let text: String?
            switch EventKind(rawValue: e.kind) {
            case .began?: text = say("Begin session — succeeded")
            case .pasteBlocked?:
                // "42 characters"
                let words = e.detail.split(separator: " ")
                if words.count == 2, words[1] == "characters" || words[1] == "character", let n = Int(words[0]) {
                    text = say("Paste blocked: {0, plural, one {# character} other {# characters}}", .n(n))
                } else {
                    text = say("Paste blocked: {0}", .s(e.detail))
                }
            case .focusLost?: text = say("Focus lost")
            case .focusRegained?: text = say("Focus regained")
            case .exitAttempt?:
                text = e.detail == DemoModel.endRequest ? say("End session requested") : say("Leaving blocked: {0}", .s(e.detail))
            case .resized?: text = say("Terminal resized to {0}", .s(e.detail))
            case .ended?: text = say("Session ended")
            case .failedToBegin?: text = say("Begin session — failed: {0}", .s(e.detail))
            case .interrupted?:
                text = say("Session interrupted: {0}", .s(e.detail == "terminal lost" ? say("⟨interrupted by⟩terminal lost") : e.detail))
            case .tracerAttached?:
                if e.detail.hasPrefix("pid "), let pid = Int(e.detail.dropFirst(4)) {
                    text = say("A tracer attached to this session: pid {0}", .s(String(pid)))
                } else {
                    text = say("A tracer attached to this session: {0}", .s(e.detail))
                }
            default: text = nil
            }
            if let text { lines.append("\(time) \(text)") }
        }
        flush()
        return lines
    }

    /// When the pasteboards were cleared ("on entry", as the session writes it), in words.
    static func phaseWords(_ phase: String, say: Localizer) -> String {
        switch phase {
        case "on entry": return say("⟨pasteboards cleared⟩on entry")
        case "on exit": return say("⟨pasteboards cleared⟩on exit")
        case "on unlock": return say("⟨pasteboards cleared⟩on unlock")
        case "after a failed begin": return say("⟨pasteboards cleared⟩after a failed begin")
        default: return phase
        }
    }

    /// A pasteboard's line ("on entry — tmux: cleared 2 buffers") with its time in words; what
    /// the pasteboard said is shown as it is.
    static func clearedWords(_ detail: String, say: Localizer) -> String {
        guard let dash = detail.range(of: " — ") else { return detail }
        return phaseWords(String(detail[..<dash.lowerBound]), say: say) + " — " + detail[dash.upperBound...]
    }

    /// Why F5 cannot open the workshop test (`workshopMissing`, in English), in words.
    var workshopMissingWords: String? {
        guard let missing = workshopMissing else { return nil }
        if missing == "no Assessments/workshop.yaml here; start the demo with --workshop FILE" {
            return say("no Assessments/workshop.yaml here; start the demo with --workshop FILE")
        }
        if missing.hasSuffix(" not found") { return say("{0} not found", .s(String(missing.dropLast(" not found".count)))) }
        return missing
    }

    /// The demo's footer key as shown: the yes key in the language's letter.
    func keyWords(_ key: String) -> String { key == "y" ? say("⟨key⟩y") : key }
}

public enum DemoView {
    /// The policy's keys and values (`RestrictionPolicy.summary`) in words, short.
    static func policyWords(_ p: RestrictionPolicy, say: Localizer) -> [String] {
        p.summary.map { entry in
            switch (entry.key, entry.value) {
            case ("paste", "block"): return say("⟨policy⟩paste block")
            case ("paste", "allow"): return say("⟨policy⟩paste allow")
            case ("pasteboards", "clear"): return say("⟨policy⟩pasteboards clear")
            case ("pasteboards", "keep"): return say("⟨policy⟩pasteboards keep")
            case ("multiplexer", "refuse"): return say("⟨policy⟩multiplexer refuse")
            case ("multiplexer", "allow"): return say("⟨policy⟩multiplexer allow")
            case ("extensions", "refuse"): return say("⟨policy⟩extensions refuse")
            case ("extensions", "allow"): return say("⟨policy⟩extensions allow")
            case ("suspend", "block"): return say("⟨policy⟩suspend block")
            case ("suspend", "allow"): return say("⟨policy⟩suspend allow")
            case ("focus", "log"): return say("⟨policy⟩focus log")
            case ("focus", "ignore"): return say("⟨policy⟩focus ignore")
            case ("remote", "allow"): return say("⟨policy⟩remote allow")
            case ("remote", "refuse"): return say("⟨policy⟩remote refuse")
            case ("max_duration", _): return say("⟨policy⟩max_duration {0}", .s(entry.value))
            case ("shared", "optional"): return say("⟨policy⟩shared optional")
            case ("shared", "required"): return say("⟨policy⟩shared required")
            default: return "\(entry.key) \(entry.value)"
            }
        }
    }

    public static func render(_ m: DemoModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        let say = m.say
        guard width >= Views.minimumWidth, height >= Views.minimumHeight else {
            let text = say("Please enlarge the terminal to at least {0}×{1}.", .n(Views.minimumWidth), .n(Views.minimumHeight))
            for (i, line) in TextWidth.wrap(text, width: max(1, width - 2)).prefix(height).enumerated() {
                s.put(line, row: i, column: 1, role: .warning)
            }
            return s
        }
        s.put(say("Carrel workshop demo"), row: 0, column: 1, role: .title)
        let state = m.sessionActive ? "● " + say("⟨demo state⟩Session active") : "○ " + say("⟨demo state⟩No session")
        s.put(state, row: 0, column: width - TextWidth.of(state) - 1, role: m.sessionActive ? .success : .dim)
        Views.rule(&s, row: 1)
        // The status after its label, on one line or two (without the label when that is what
        // makes it fit).
        let status = m.lockStatus ?? say("⟨demo state⟩No session")
        var statusLines = TextWidth.wrap(say("Status: {0}", .s(status)), width: width - 4)
        if statusLines.count > 1, TextWidth.of(status) <= width - 4 { statusLines = [status] }
        for (i, line) in statusLines.prefix(2).enumerated() { s.put(line, row: 2 + i, column: 2) }

        let top = actionLines(&s, m, row: 2 + min(2, statusLines.count))
        if m.confirmQuit {
            // The question alone below the actions: nothing behind its box shows in part.
            Views.footer(&s, footer(DemoModel.mainKeyMap.footer(), say: say, width: width))
            let answers = DemoModel.confirmQuitKeyMap.footer().map { say("⟨footer entry⟩{0}: {1}", .s(m.keyWords($0.0)), .s(say("⟨footer⟩" + $0.1))) }
            Views.box(&s, [say("A session is running."), say("Quitting ends it: its answers are kept as a result."),
                           answers.joined(separator: " · ")],
                      field: nil, secret: 0)
            return s
        }
        s.put(say("Try typing here — try pasting here:"), row: top, column: 2, role: .title)
        let (shown, cursor) = Widgets.window(m.field.text, cursorColumn: m.field.cursorColumn, width: width - 8)
        s.put("› " + shown, row: top + 1, column: 2)
        s.put(String(repeating: "‾", count: width - 8), row: top + 2, column: 4, role: .dim)
        let pasting = m.sessionActive ? say("Pasting is blocked while the session runs.")
            : say("No session: pasting works here. Begin a session and try again.")
        for (i, line) in TextWidth.wrap(pasting, width: width - 6).prefix(2).enumerated() {
            s.put(line, row: top + 3 + i, column: 4, role: .dim)
        }
        let policyRow = top + 5
        s.put(say("Policy"), row: policyRow, column: 2, role: .title)
        // Up to four lines (three in English, the third where a blank line is otherwise).
        let policy = TextWidth.wrap(policyWords(m.policy, say: say).joined(separator: " · "), width: width - 6).prefix(4)
        for (i, line) in policy.enumerated() {
            s.put(line, row: policyRow + 1 + i, column: 4)
        }
        let logRow = policyRow + max(3, policy.count) + 1
        eventLog(&s, m, row: logRow)
        s.cursor = (top + 1, 4 + cursor)
        Views.footer(&s, footer(DemoModel.mainKeyMap.footer(), say: say, width: width))
        return s
    }

    /// The actions from `firstRow`, each whole, and why the workshop test cannot be opened;
    /// returns the first row below them.
    static func actionLines(_ s: inout Screen, _ m: DemoModel, row firstRow: Int) -> Int {
        let say = m.say, width = s.width
        // The actions, each whole, on as many lines as they need (one in English).
        let why: (String?, String?, String?) = (
            m.sessionActive ? say("a session is running") : nil, m.sessionActive ? nil : say("no session"),
            m.workshopMissingWords ?? (!m.workshopAvailable ? say("no workshop file") : (m.sessionActive ? say("end the session first") : nil)))
        let key = { (action: DemoAction) in DemoModel.mainKeyMap.footerKey(action) ?? "" }
        let actions: [(String, String, String?)] = [
            (key(.begin), say("⟨demo action⟩Begin"), why.0), (key(.end), say("⟨demo action⟩End"), why.1),
            (key(.workshop), say("⟨demo action⟩Workshop test"), why.2), (key(.quit), say("⟨demo action⟩Quit"), nil),
        ]
        var row = firstRow
        let start = s.put(say("Actions:"), row: row, column: 2) + 1
        var col = start
        for (key, label, unavailable) in actions {
            // Unavailable actions are dimmed and say why in words, not by colour alone.
            let words = unavailable == nil ? label : say("{0} (n/a)", .s(label))
            if col > start, col + TextWidth.of(key) + 1 + TextWidth.of(words) > width - 1 {
                row += 1
                col = start
            }
            col = s.put(key, row: row, column: col, role: unavailable == nil ? .key : .dim)
            let piece = " " + words
            col = s.put(piece + (col + TextWidth.of(piece) + 2 <= width ? "  " : ""), row: row, column: col,
                        role: unavailable == nil ? .plain : .dim)
        }
        row += 1
        // Why the workshop test cannot be opened, in words (row 4 in English, empty without it).
        var noteRows = 1
        if let unavailable = why.2 {
            let lines = TextWidth.wrap(say("Workshop test: {0}", .s(unavailable)), width: width - 6)
            for (i, line) in lines.prefix(2).enumerated() { s.put(line, row: row + i, column: 4, role: .dim) }
            noteRows = max(1, min(2, lines.count))
        }
        return row + noteRows
    }

    /// The event log under its heading at `logRow`, newest at the bottom, with where it is
    /// scrolled to right of the heading.
    static func eventLog(_ s: inout Screen, _ m: DemoModel, row logRow: Int) {
        let say = m.say, width = s.width, height = s.height
        let heading = say("Event log")
        s.put(heading, row: logRow, column: 2, role: .title)
        let room = max(1, height - 3 - logRow)
        let wrapped = m.log.flatMap { line in
            TextWidth.wrap(line, width: width - 8).enumerated().map { $0.offset == 0 ? $0.element : "  " + $0.element }
        }
        // Newest at the bottom; PgUp reaches the first line, however long the log grows.
        let back = min(m.logScroll, max(0, wrapped.count - room))
        let end = wrapped.count - back
        let first = max(0, end - room)
        for (i, line) in wrapped[first..<end].enumerated() {
            s.put(line, row: logRow + 1 + i, column: 4)
        }
        var position: [String] = []
        if first > 0 { position.append(say("{0, plural, one {↑ # earlier line: PgUp} other {↑ # earlier lines: PgUp}}", .n(first))) }
        if back > 0 { position.append(say("{0, plural, one {↓ # newer: PgDn} other {↓ # newer: PgDn}}", .n(back))) }
        // Right of the heading, as much of it as fits, each part whole.
        let text = ProctorView.fitted([], position, width: width - TextWidth.of(heading) - 6)
        if !text.isEmpty {
            s.put(text, row: logRow, column: width - TextWidth.of(text) - 2, role: .dim)
        }
        if m.log.isEmpty { s.put(say("Nothing yet: begin a session."), row: logRow + 1, column: 4, role: .dim) }
    }

    /// The demo's footer in its language: entries that do not fit the line are left out whole,
    /// from the end, the quit key kept.
    static func footer(_ entries: [(String, String)], say: Localizer, width: Int) -> [(String, String)] {
        var shown = entries.map { ($0.0, say("⟨footer⟩" + $0.1)) }
        // As Views.footer lays it out: one column, then each "KEY LABEL" and two spaces.
        func used(_ list: [(String, String)]) -> Int { 1 + list.reduce(0) { $0 + TextWidth.of($1.0) + TextWidth.of($1.1) + 3 } }
        let quit = DemoModel.mainKeyMap.footerKey(.quit)
        while used(shown) > width, let drop = shown.lastIndex(where: { $0.0 != quit }) { shown.remove(at: drop) }
        return shown
    }
}
