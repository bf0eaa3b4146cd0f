import Localization

/// What a key does in the workshop demo.
public enum DemoAction: Sendable, Equatable {
    case begin, end, workshop, quit, olderLog, newerLog
    /// Ctrl-C, Ctrl-Z, Ctrl-\: blocked and logged while a session runs.
    case leave
    /// A test key that means nothing here: the log says which keys the demo uses.
    case elsewhere
    /// Typing in the demo's field.
    case edit
    /// The quit confirmation's answers.
    case yes, no
}

/// What the demo's loop must do for a key.
public enum DemoRequest: Sendable, Equatable {
    case begin, end, openWorkshop, quit
    /// A key that tries to leave, for the running session (whose prompt is then cancelled).
    case exitAttempt(String)
    /// A line for the event log.
    case note(String)
    /// The field changed: the running session gets its text as the answer.
    case fieldEdited
}

extension DemoModel {
    typealias Binding = KeyBinding<DemoAction>

    /// The demo's own keys: none of its actions is on a key that means something in a test, so
    /// a trainer who opens the workshop test from the demo never ends it by habit.
    public static let mainKeyMap = KeyMap<DemoAction>("demo", "The workshop demo (carrel demo)", [
        Binding("F7 / Ctrl-B", "begin a session with the demo policy", keys: [.function(7), .control("b")], .begin, footer: ("F7", "begin")),
        Binding("F8 / Ctrl-E", "end the session", keys: [.function(8), .control("e")], .end, footer: ("F8", "end")),
        Binding("F5 / Ctrl-W", "open the workshop test (no session running)", keys: [.function(5), .control("w")], .workshop,
                footer: ("F5", "workshop test")),
        Binding("F9 / Ctrl-X", "quit (asks first while a session runs)", keys: [.function(9), .control("x")], .quit, footer: ("F9", "quit")),
        Binding("PgUp / PgDn", "scroll the event log back or forward", keys: [.pageUp], .olderLog, footer: ("PgUp", "log")),
        Binding("", "", keys: [.pageDown], .newerLog),
        Binding("Ctrl-C, Ctrl-Z, Ctrl-\\", "try to leave: blocked and logged while a session runs (Ctrl-C quits when none runs)",
                keys: [.control("c"), .control("z"), .control("\\")], .leave),
        Binding("Ctrl-Q, F2, F3, F10", "keys of a test: the log says which keys the demo uses",
                keys: [.control("q"), .function(2), .function(3), .function(10)], .elsewhere),
        TakeKeys.field("type in the field (pasting is blocked while a session runs)").map { _ in DemoAction.edit },
    ])

    public static let confirmQuitKeyMap: KeyMap<DemoAction> = TakeKeys.confirmDemoQuit.map { $0 == .yes ? .yes : .no }

    /// The map the demo reacts by now.
    public var keyMap: KeyMap<DemoAction> {
        confirmQuit ? Self.confirmQuitKeyMap.adding(TakeKeys.yesKeys(say), to: .yes) : Self.mainKeyMap
    }

    /// Does what the screen itself can (the log's scrolling, the field, the quit question) and
    /// says what the loop must do. `sessionRunning`: the loop's session, as it is now.
    public mutating func handle(_ key: Key, sessionRunning: Bool) -> DemoRequest? {
        guard let action = keyMap.action(for: key) else { return nil }
        switch action {
        case .yes, .no:
            confirmQuit = false
            return action == .yes ? .quit : nil
        case .begin: return .begin
        case .end: return .end
        case .workshop:
            if sessionRunning { return .note(say("End the demo session before opening the workshop test")) }
            if workshopAvailable { return .openWorkshop }
            return workshopMissingWords.map { .note(say("Workshop test: {0}", .s($0))) }
        case .quit:
            guard sessionRunning else { return .quit }
            confirmQuit = true
        case .olderLog: logScroll += 5
        case .newerLog: logScroll = max(0, logScroll - 5)
        case .leave:
            if sessionRunning { return .exitAttempt(TakeKeys.leaveName(key)) }
            if key == .control("c") { return .quit }
        case .elsewhere:
            let key = { (a: DemoAction) in Arg.s(Self.mainKeyMap.footerKey(a) ?? "") }
            return .note(say("In the demo: {0} begins, {1} ends, {2} opens the workshop test, {3} quits",
                             key(.begin), key(.end), key(.workshop), key(.quit)))
        case .edit:
            if field.apply(key) { return .fieldEdited }
        }
        return nil
    }
}
