import Localization
import AssessmentKit
import SessionKit

/// The workshop playground's screen, in the spirit of the ASAMple app: the lock status, the
/// actions, a field to try typing and pasting in, the effective policy, and a live event log.
public struct DemoModel: Sendable {
    /// The language the demo speaks.
    public var say = Localizer.english
    public var lockStatus = "No session"
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

    /// Journal events as a trainer would say them.
    public static func describe(_ events: [JournalEvent]) -> [String] {
        var lines: [String] = []
        var pending: (phase: String, parts: [String])? = nil
        func flush() {
            if let p = pending { lines.append("Pasteboards cleared \(p.phase): " + p.parts.joined(separator: ", ")) }
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
            case .began?: text = "Begin session — succeeded"
            case .pasteBlocked?: text = "Paste blocked: \(e.detail)"
            case .focusLost?: text = "Focus lost"
            case .focusRegained?: text = "Focus regained"
            case .exitAttempt?:
                text = e.detail == DemoModel.endRequest ? "End session requested" : "Leaving blocked: \(e.detail)"
            case .resized?: text = "Terminal resized to \(e.detail)"
            case .ended?: text = "Session ended"
            case .failedToBegin?: text = "Begin session — failed: \(e.detail)"
            case .interrupted?: text = "Session interrupted: \(e.detail)"
            case .tracerAttached?: text = "A tracer attached to this session: \(e.detail)"
            default: text = nil
            }
            if let text { lines.append("\(time) \(text)") }
        }
        flush()
        return lines
    }
}

public enum DemoView {
    public static func render(_ m: DemoModel, width: Int, height: Int) -> Screen {
        var s = Screen(width: width, height: height)
        guard width >= Views.minimumWidth, height >= Views.minimumHeight else {
            s.put("Please enlarge the terminal to at least 80×24.", row: 0, column: 1, role: .warning)
            return s
        }
        s.put("Carrel workshop demo", row: 0, column: 1, role: .title)
        let state = m.sessionActive ? "● Session active" : "○ No session"
        s.put(state, row: 0, column: width - TextWidth.of(state) - 1, role: m.sessionActive ? .success : .dim)
        Views.rule(&s, row: 1)
        s.put("Status: " + TextWidth.clip(m.lockStatus, to: width - 12), row: 2, column: 2)
        var col = 2
        let why: (String?, String?, String?) = (
            m.sessionActive ? "a session is running" : nil, m.sessionActive ? nil : "no session",
            m.workshopMissing ?? (!m.workshopAvailable ? "no workshop file" : (m.sessionActive ? "end the session first" : nil)))
        let key = { (action: DemoAction) in DemoModel.mainKeyMap.footerKey(action) ?? "" }
        let actions: [(String, String, String?)] = [
            (key(.begin), "Begin", why.0), (key(.end), "End", why.1), (key(.workshop), "Workshop test", why.2), (key(.quit), "Quit", nil),
        ]
        s.put("Actions:", row: 3, column: 2)
        col = 11
        var notes: [String] = []
        for (key, label, unavailable) in actions {
            // Unavailable actions are dimmed and say why in words, not by colour alone.
            col = s.put(key, row: 3, column: col, role: unavailable == nil ? .key : .dim)
            col = s.put(" " + label + (unavailable == nil ? "" : " (n/a)") + "  ", row: 3, column: col, role: unavailable == nil ? .plain : .dim)
            if let unavailable, label == "Workshop test" { notes.append("Workshop test: \(unavailable)") }
        }
        if let note = notes.first { s.put(TextWidth.clip(note, to: width - 6), row: 4, column: 4, role: .dim) }
        s.put("Try typing here — try pasting here:", row: 5, column: 2, role: .title)
        let (shown, cursor) = Widgets.window(m.field.text, cursorColumn: m.field.cursorColumn, width: width - 8)
        s.put("› " + shown, row: 6, column: 2)
        s.put(String(repeating: "‾", count: width - 8), row: 7, column: 4, role: .dim)
        s.put(m.sessionActive ? "Pasting is blocked while the session runs." : "No session: pasting works here. Begin a session and try again.",
              row: 8, column: 4, role: .dim)
        s.put("Policy", row: 10, column: 2, role: .title)
        let policy = m.policy.summary.map { "\($0.key) \($0.value)" }.joined(separator: " · ")
        var row = 11
        for line in TextWidth.wrap(policy, width: width - 6).prefix(2) {
            s.put(line, row: row, column: 4)
            row += 1
        }
        s.put("Event log", row: 14, column: 2, role: .title)
        let room = height - 17
        let wrapped = m.log.flatMap { line in
            TextWidth.wrap(line, width: width - 8).enumerated().map { $0.offset == 0 ? $0.element : "  " + $0.element }
        }
        // Newest at the bottom; PgUp reaches the first line, however long the log grows.
        let back = min(m.logScroll, max(0, wrapped.count - room))
        let end = wrapped.count - back
        let start = max(0, end - room)
        for (i, line) in wrapped[start..<end].enumerated() {
            s.put(line, row: 15 + i, column: 4)
        }
        var position: [String] = []
        if start > 0 { position.append("↑ \(start) earlier line\(start == 1 ? "" : "s"): PgUp") }
        if back > 0 { position.append("↓ \(back) newer: PgDn") }
        if !position.isEmpty {
            let text = position.joined(separator: " · ")
            s.put(text, row: 14, column: width - TextWidth.of(text) - 2, role: .dim)
        }
        if m.log.isEmpty { s.put("Nothing yet: begin a session.", row: 15, column: 4, role: .dim) }
        s.cursor = (6, 4 + cursor)
        Views.footer(&s, DemoModel.mainKeyMap.footer())
        if m.confirmQuit {
            Views.box(&s, ["A session is running.", "Quitting ends it: its answers are kept as a result.", DemoModel.confirmQuitKeyMap.footerLine],
                      field: nil, secret: 0)
        }
        return s
    }
}
