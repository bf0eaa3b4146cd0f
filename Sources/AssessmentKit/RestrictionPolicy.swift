import AssessmentMode
/// The AAC-style restrictions of a session. Every key defaults to its restrictive value.
public struct RestrictionPolicy: Sendable, Hashable, Codable {
    public enum Paste: String, Sendable, Hashable, Codable, CaseIterable { case block, allow }
    public enum Pasteboards: String, Sendable, Hashable, Codable, CaseIterable { case clear, keep }
    public enum Multiplexer: String, Sendable, Hashable, Codable, CaseIterable { case refuse, allow }
    public enum Extensions: String, Sendable, Hashable, Codable, CaseIterable { case refuse, allow }
    public enum Suspend: String, Sendable, Hashable, Codable, CaseIterable { case block, allow }
    public enum Focus: String, Sendable, Hashable, Codable, CaseIterable { case log, ignore }
    public enum Remote: String, Sendable, Hashable, Codable, CaseIterable { case allow, refuse }
    public enum Shared: String, Sendable, Hashable, Codable, CaseIterable { case optional, required }

    /// Like AAC's eight hours: no session outlives this.
    public static let defaultMaxDuration = 8 * 3600
    /// The longest cap an assessment may set.
    public static let longestMaxDuration = 24 * 3600

    public var paste: Paste = .block
    public var pasteboards: Pasteboards = .clear
    public var multiplexer: Multiplexer = .refuse
    public var extensions: Extensions = .refuse
    public var suspend: Suspend = .block
    public var focus: Focus = .log
    public var remote: Remote = .allow
    /// Seconds.
    public var maxDuration: Int = defaultMaxDuration
    /// With `--shared`: whether a session may begin while the lab's store cannot be reached.
    /// Kept as nil for the default (`optional`), so it is left out of the canonical form and
    /// the fingerprints of assessments written before it existed do not change.
    public var shared: Shared?
    /// Assessment mode for the whole machine (`machine`, `network`, `logins`, `sessions`,
    /// `consoles`, `devices`, `processes`): nil when the test names none of its keys, so that
    /// tests written before them keep their fingerprints.
    public var machine: MachinePolicy?

    /// The machine's keys, with their defaults where the test says nothing.
    public var machinePolicy: MachinePolicy { machine ?? MachinePolicy() }

    /// `shared`, with its default.
    public var sharedStore: Shared { shared ?? .optional }

    public init() {}

    /// The keys of the file format, in the order they are shown.
    public static let keys = [
        "paste", "pasteboards", "multiplexer", "extensions", "suspend", "focus", "remote", "max_duration", "shared",
    ] + MachinePolicy.keys

    /// What Carrel never offers, whatever the policy says.
    public static let neverOffered = [
        "autocorrect", "spell check", "predictive text", "text replacement",
        "dictionary and definition lookup", "shell escapes", "external editors", "hyperlinks", "plug-ins",
    ]

    /// Key, value and what it means for the student, for `inspect` and the start screen.
    public var summary: [(key: String, value: String, meaning: String)] {
        [
            ("paste", paste.rawValue,
             paste == .block ? "pasted text never enters an answer; attempts are logged" : "pasting into answers is allowed"),
            ("pasteboards", pasteboards.rawValue,
             pasteboards == .clear ? "every clipboard found is cleared on entry and on exit" : "clipboards are left as they are"),
            ("multiplexer", multiplexer.rawValue,
             multiplexer == .refuse ? "will not start inside tmux or screen" : "may run inside tmux or screen"),
            ("extensions", extensions.rawValue,
             extensions == .refuse ? "will not start with injected libraries or a debugger attached" : "injected libraries and tracers are allowed"),
            ("suspend", suspend.rawValue,
             suspend == .block ? "Ctrl-C, Ctrl-Z and Ctrl-\\ ask for the proctor instead of leaving" : "Ctrl-C and Ctrl-Z leave the test (saved; the proctor can resume it)"),
            ("focus", focus.rawValue,
             focus == .log ? "leaving the terminal window is logged" : "focus changes are not recorded"),
            ("remote", remote.rawValue,
             remote == .allow ? "SSH sessions are allowed" : "only a local console may be used"),
            ("max_duration", DurationText.format(maxDuration),
             "the session saves and ends itself after this long"),
            ("shared", sharedStore.rawValue,
             sharedStore == .required ? "with --shared, will not begin while the lab's shared store cannot be reached"
                                      : "with --shared, begins even when the lab's shared store cannot be reached, and catches up later"),
        ]
    }
}
