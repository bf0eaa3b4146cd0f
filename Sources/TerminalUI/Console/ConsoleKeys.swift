import AssessmentKit
import Localization
import SessionKit

/// What a key does in the proctor's console.
public enum ConsoleAction: Sendable, Equatable {
    case up, down, pageUp, pageDown, first, last
    /// The selected seat's integrity report.
    case open
    /// Back from the report to the seats.
    case close
    case refresh, quit
    /// Mark or unmark the selected seat; mark every seat, or none.
    case mark, markAll
    /// The proctor's commands, to the marked seats (or the selected one).
    case start, pause, resume, addTime, message, end, acknowledge
    /// Move the selected session to a spare seat (or the one a spare asks for); end a seat
    /// that will not come back.
    case move, lost
    /// In the line that asks for minutes, a message or a confirmation.
    case type, submitEntry, cancelEntry
}

extension ProctorModel {
    typealias Binding = KeyBinding<ConsoleAction>

    static let refreshAndQuit = [
        Binding("r", "read the store now", keys: [.character("r")], .refresh, footer: ("r", "refresh")),
        Binding("q / Ctrl-C", "quit the console", keys: [.character("q"), .control("c")], .quit, footer: ("q", "quit")),
    ]

    /// The seats, one selected.
    public static let seatsKeyMap = KeyMap<ConsoleAction>("console", "The proctor's console (carrel proctor)", [
        Binding("↑ ↓ or k j", "select the seat above or below", keys: [.up, .character("k")], .up, footer: ("↑↓ j k", "seat")),
        Binding("", "", keys: [.down, .character("j")], .down),
        Binding("PgUp / PgDn", "select a seat a page away", keys: [.pageUp], .pageUp),
        Binding("", "", keys: [.pageDown], .pageDown),
        Binding("Home / End", "the first or the last seat", keys: [.home], .first),
        Binding("", "", keys: [.end], .last),
        Binding("Enter or →", "the selected seat's integrity report", keys: [.enter, .right], .open, footer: ("Enter", "integrity report")),
        Binding("Space", "mark or unmark the selected seat (commands go to the marked seats, else the selected one)",
                keys: [.character(" ")], .mark),
        Binding("*", "mark every seat, or none", keys: [.character("*")], .markAll),
        Binding("s", "start: the waiting seats begin", keys: [.character("s")], .start),
        Binding("p", "pause: clocks stop, answer keys wait", keys: [.character("p")], .pause),
        Binding("c", "continue paused seats", keys: [.character("c")], .resume),
        Binding("t", "add time (asks the minutes)", keys: [.character("t")], .addTime),
        Binding("m", "send a message (asks the text)", keys: [.character("m")], .message),
        Binding("a", "acknowledge a raised hand: the seat shows \"The proctor is coming\"", keys: [.character("a")], .acknowledge),
        Binding("x", "end the seats' sessions (asks first; answers are kept and scored)", keys: [.character("x")], .end),
        Binding("v", "move a session to a spare seat: on the spare that asks, or on the seat that died (asks which spare)",
                keys: [.character("v")], .move),
        Binding("l", "end the session of a seat that will not come back, as lost (asks first)", keys: [.character("l")], .lost),
    ] + refreshAndQuit)

    /// The commands' keys, on a line of their own above the seat's sentence: each key and its
    /// word (said through the catalogs as "⟨console action⟩WORD").
    public static let actions: [(key: String, label: String)] = [
        ("Space", "mark"), ("*", "all"), ("s", "start"), ("p", "pause"), ("c", "resume"), ("t", "time"), ("m", "message"),
        ("a", "hand"), ("x", "end"), ("v", "move"), ("l", "lost"),
    ]

    /// The commands' keys in English: "Space mark  * all  s start …".
    public static var actionsLine: String { actions.map { "\($0.key) \($0.label)" }.joined(separator: "  ") }

    /// The line that asks for minutes, a message's text or a confirmation.
    public static let entryKeyMap = KeyMap<ConsoleAction>("console-entry", "The console's question line", [
        Binding("Enter", "send", keys: [.enter], .submitEntry, footer: ("Enter", "send")),
        Binding("Esc", "cancel", keys: [.escape], .cancelEntry, footer: ("Esc", "cancel")),
        Binding("letters, Backspace", "type", keys: [.backspace], keyClass: .printableText, .type),
    ])

    /// A room with no seats yet.
    public static let emptyKeyMap = KeyMap("console-empty", "The proctor's console, before any seat", refreshAndQuit)

    /// A seat's integrity report.
    public static let reportKeyMap = KeyMap<ConsoleAction>("console-report", "A seat's integrity report (the console)", [
        Binding("Esc, Enter, ←, Backspace or q", "back to the seats", keys: [.escape, .enter, .left, .backspace, .character("q")], .close,
                footer: ("Esc", "back to the seats")),
        Binding("↑ ↓", "scroll by a line", keys: [.up], .up, footer: ("↑↓ PgUp PgDn", "scroll")),
        Binding("", "", keys: [.down], .down),
        Binding("PgUp / PgDn or Space", "scroll by a page", keys: [.pageDown, .character(" ")], .pageDown),
        Binding("", "", keys: [.pageUp], .pageUp),
        Binding("Home", "the top of the report", keys: [.home], .first),
    ])

    /// The map the console reacts by now.
    public var keyMap: KeyMap<ConsoleAction> {
        if entry != nil { return Self.entryKeyMap }
        return report != nil ? Self.reportKeyMap : (seats.isEmpty ? Self.emptyKeyMap : Self.seatsKeyMap)
    }

    /// Keys, through the console's map: move the selection, open or close a report, refresh, quit.
    public mutating func handle(_ key: Key, pageSize: Int) -> Action {
        if entry != nil { return entryKey(key) }
        guard let action = keyMap.action(for: key) else { return .none }
        if report != nil {
            scrollReport(action, pageSize: pageSize)
            return .none
        }
        var i = selectedIndex
        switch action {
        case .open: return .openReport
        case .refresh: return .refresh
        case .quit: quit = true
        case .down: i += 1
        case .up: i -= 1
        case .pageDown: i += pageSize
        case .pageUp: i -= pageSize
        case .first: i = 0
        case .last: i = seats.count - 1
        case .close, .type, .submitEntry, .cancelEntry: break
        case .mark:
            if let seat = selectedSeat {
                if marked.contains(seat.session) { marked.remove(seat.session) } else { marked.insert(seat.session) }
            }
        case .markAll:
            marked = marked.count == seats.count ? [] : Set(seats.map(\.session))
        case .start:
            // The start sends each seat its keys: asked first, as an end is, naming the seats.
            if !targets.isEmpty { entry = Entry(kind: .confirmStart, text: "", seats: targets.map(\.seat)) }
        case .pause: return confirmed(.pause)
        case .resume: return confirmed(.resume)
        case .acknowledge: return confirmed(.acknowledge)
        case .addTime: entry = Entry(kind: .minutes, text: "")
        case .message: entry = Entry(kind: .message, text: "")
        case .end:
            let to = recipients(.end)
            if to.isEmpty {
                if !targets.isEmpty { notice = say("Nothing sent: no seat chosen is running") }
            } else {
                entry = Entry(kind: .confirmEnd, text: "", seats: to.map(\.seat))
            }
        case .move: askMove()
        case .lost: askLost()
        }
        if !seats.isEmpty { selected = seats[min(max(0, i), seats.count - 1)].session }
        return .none
    }

    /// The seats a command goes to: the marked ones, else the selected one.
    public var targets: [SeatView] {
        let chosen = seats.filter { marked.contains($0.session) }
        return chosen.isEmpty ? (selectedSeat.map { [$0] } ?? []) : chosen
    }

    /// The seats of `targets` a command goes to: a start to the waiting ones, any other command
    /// to the running ones (an acknowledgement to those with a raised hand).
    public func recipients(_ action: ProctorAction) -> [SeatView] {
        targets.filter { seat in
            switch action {
            case .start: return seat.status == "not_started"
            case .acknowledge: return ["active", "interrupted"].contains(seat.status) && seat.hand == "raised"
            default: return ["active", "interrupted"].contains(seat.status)
            }
        }
    }

    /// A command to the selected seat goes at once; to several marked seats it is asked first,
    /// naming how many and which (those it goes to).
    mutating func confirmed(_ action: ProctorAction) -> Action {
        let to = recipients(action)
        guard !to.isEmpty else {
            notice = say("Nothing sent: no seat chosen is running")
            return .none
        }
        guard to.count > 1 else { return command(action) }
        entry = Entry(kind: .confirmSend(action), text: "", seats: to.map(\.seat))
        return .none
    }

    mutating func command(_ action: ProctorAction) -> Action {
        let to = action == .start ? targets : recipients(action)
        guard !to.isEmpty else { return .none }
        // Sent: the marks are done with (the next command goes to the seats marked for it).
        marked = []
        let what = Self.commandWords(action.name, say)
        if to.count == 1 {
            notice = say("Sending {0} to seat {1}…", .s(what), .s(ProctorView.name(to[0].seat)))
        } else {
            notice = say("Sending {0} to {1, plural, one {# seat} other {# seats}}…", .s(what), .n(to.count))
        }
        return .send(action, to)
    }

    /// The commands' names, as the store and the journal know them.
    static let commandNames: Set<String> = ["start", "pause", "resume", "time", "message", "end", "acknowledge", "move", "lost"]

    /// A command's name (as the store and the journal know it) in the console's language.
    static func commandWords(_ name: String, _ say: Localizer) -> String {
        say.known(name, context: "command")
    }

    /// Letters that answer yes to the console's questions: y, and the yes letter of the
    /// console's language (o in French, j in German, s in Spanish), in either case.
    func saysYes(_ ch: Character) -> Bool {
        let lower = Character(ch.lowercased())
        return lower == "y" || String(lower) == say.keyName("y")
    }

    /// A key in the question line: minutes, a message, or y/N before ending sessions.
    mutating func entryKey(_ key: Key) -> Action {
        guard var e = entry else { return .none }
        switch key {
        case .escape:
            entry = nil
            notice = say("Cancelled")
            return .none
        case .enter:
            entry = nil
            switch e.kind {
            case .minutes:
                guard let minutes = Int(e.text.trimmingCharacters(in: .whitespaces)), minutes > 0, minutes <= 600 else {
                    notice = say("Give whole minutes from 1 to 600")
                    return .none
                }
                return confirmed(.addTime(seconds: minutes * 60))
            case .message:
                guard let action = ProctorAction(name: "message", argument: e.text) else {
                    notice = say("Nothing sent: the message is empty")
                    return .none
                }
                return confirmed(action)
            case .confirmEnd:
                return e.text.lowercased() == "y" ? command(.end) : .none
            case .confirmStart:
                return e.text.lowercased() == "y" ? command(.start) : .none
            case let .confirmSend(action):
                return e.text.lowercased() == "y" ? command(action) : .none
            case .moveTo, .confirmMove, .confirmLost:
                return moveEntry(e)
            }
        case .backspace:
            if !e.text.isEmpty { e.text.removeLast() }
        case let .character(ch):
            if e.isConfirmation {
                if saysYes(ch) { e.text = "y"; entry = e; return entryKey(.enter) }
                entry = nil
                switch e.kind {
                case .confirmEnd, .confirmLost: notice = say("Nothing ended")
                case .confirmStart: notice = say("Nothing started")
                case .confirmMove: notice = say("Nothing moved")
                default: notice = say("Nothing sent")
                }
                return .none
            }
            let limit = e.kind == .minutes ? 3 : ProctorAction.messageLimit
            if e.text.count < limit, TerminalSafety.firstUnsafe(in: String(ch)) == nil { e.text.append(ch) }
        default:
            break
        }
        entry = e
        return .none
    }

    mutating func scrollReport(_ action: ConsoleAction, pageSize: Int) {
        switch action {
        case .down: reportScroll += 1
        case .up: reportScroll = max(0, reportScroll - 1)
        case .pageDown: reportScroll += pageSize
        case .pageUp: reportScroll = max(0, reportScroll - pageSize)
        case .first: reportScroll = 0
        default:
            report = nil
            reportScroll = 0
        }
    }
}

extension ProctorModel.Entry {
    /// A question answered with one key, y or no.
    var isConfirmation: Bool {
        switch kind {
        case .confirmEnd, .confirmStart, .confirmSend, .confirmMove, .confirmLost: return true
        case .minutes, .message, .moveTo: return false
        }
    }
}
