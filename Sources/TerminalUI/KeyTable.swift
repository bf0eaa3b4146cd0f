/// The one table of the test's keys. Input handling looks keys up here; F1 help, the footer,
/// the README's key list, `carrel keys` and the man page are all written from it, so none of
/// them can say something the others do not.
public enum KeyTable {
    /// What a session key does. Answer keys (choosing, typing, ordering, matching) belong to
    /// the question's kind and are listed as `answering` entries.
    public enum Action: Sendable, Equatable {
        case next, previous, flag, review, submit, time, clock, scrollUp, scrollDown, help, proctor
    }

    public struct Entry: Sendable {
        /// The keys as a person says them: "Tab / Ctrl-N".
        public let keys: String
        /// What the keys do, in words.
        public let meaning: String
        /// The keys that trigger it (empty for answer keys, which the question handles).
        public let triggers: [Key]
        public let action: Action?
        /// The footer's short form, when the action is shown there.
        public let short: (key: String, label: String)?

        init(_ keys: String, _ meaning: String, _ triggers: [Key] = [], _ action: Action? = nil, short: (String, String)? = nil) {
            self.keys = keys
            self.meaning = meaning
            self.triggers = triggers
            self.action = action
            self.short = short.map { (key: $0.0, label: $0.1) }
        }
    }

    public static let entries: [Entry] = [
        Entry("Tab / Ctrl-N", "next question (a linear test asks before leaving one unanswered)",
              [.tab, .control("n")], .next, short: ("Tab", "next")),
        Entry("Shift-Tab / Ctrl-P", "previous question (not in linear tests)",
              [.backTab, .control("p")], .previous, short: ("S-Tab", "back")),
        Entry("↑ ↓, Enter or Space", "move between choices and choose; a letter a, b, c… or a digit picks one directly"),
        Entry("Shift-↑ ↓, or u / d", "move the highlighted entry of an ordering question up or down"),
        Entry("← → or a letter", "pick the match for the highlighted entry; Backspace clears it"),
        Entry("← → ↑ ↓ Home End", "move in a typed answer; in an essay Enter starts a new line and ↑ ↓ move by line"),
        Entry("PgUp / PgDn", "scroll a long question or essay by a page",
              [.pageUp], .scrollUp),
        Entry("Ctrl-F / F2", "flag or unflag the question for review",
              [.control("f"), .function(2)], .flag, short: ("^F", "flag")),
        Entry("Ctrl-R / F3", "review: every question, answered or not, flagged or not; Enter goes to one",
              [.control("r"), .function(3)], .review, short: ("^R", "review")),
        Entry("Ctrl-S / F10", "submit (asks first, naming unanswered and flagged questions)",
              [.control("s"), .function(10)], .submit, short: ("^S", "submit")),
        Entry("Ctrl-T / F4", "say the time left in words, and repeat the last time warning",
              [.control("t"), .function(4)], .time),
        Entry("Ctrl-K / F6", "hide or show the clock (time warnings still come)",
              [.control("k"), .function(6)], .clock),
        Entry("Ctrl-C, Ctrl-Z, Ctrl-\\, Ctrl-Q", "ask the proctor to end the session (a practice test asks you to confirm)",
              [.control("c"), .control("z"), .control("\\"), .control("q")], .proctor),
        Entry("F1 / Ctrl-G", "the list of keys on screen (Esc closes it)",
              [.function(1), .control("g")], .help, short: ("F1", "help")),
    ]

    /// PgDn is listed with PgUp; it triggers the other direction.
    static let extraTriggers: [(Key, Action)] = [(.pageDown, .scrollDown)]

    /// The session action a key triggers, if any.
    public static func action(for key: Key) -> Action? {
        for entry in entries where entry.triggers.contains(key) { return entry.action }
        return extraTriggers.first { $0.0 == key }?.1
    }

    /// The footer of the question screen.
    public static func footer(linear: Bool) -> [(String, String)] {
        entries.compactMap { entry in
            guard let short = entry.short else { return nil }
            if linear && entry.action == .previous { return nil }
            return (short.key, short.label)
        }
    }

    /// The key list as a Markdown table (the README's, between its markers).
    public static var markdown: String {
        var lines = ["| key | what it does |", "|---|---|"]
        for e in entries {
            let keys = e.keys.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
            lines.append("| \(keys) | \(e.meaning) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The key list as plain text, for `carrel keys` and the man page.
    public static var plainText: String {
        entries.map { "\($0.keys): \($0.meaning)." }.joined(separator: "\n")
    }
}
