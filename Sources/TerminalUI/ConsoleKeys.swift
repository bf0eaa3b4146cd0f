/// What a key does in the proctor's console.
public enum ConsoleAction: Sendable, Equatable {
    case up, down, pageUp, pageDown, first, last
    /// The selected seat's integrity report.
    case open
    /// Back from the report to the seats.
    case close
    case refresh, quit
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
    ] + refreshAndQuit)

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
        report != nil ? Self.reportKeyMap : (seats.isEmpty ? Self.emptyKeyMap : Self.seatsKeyMap)
    }

    /// Keys, through the console's map: move the selection, open or close a report, refresh, quit.
    public mutating func handle(_ key: Key, pageSize: Int) -> Action {
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
        case .close: break
        }
        if !seats.isEmpty { selected = seats[min(max(0, i), seats.count - 1)].session }
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
