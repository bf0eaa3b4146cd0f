import Localization
import SessionKit

/// What a key does on a screen of `carrel take`.
public enum TakeAction: Sendable, Equatable {
    /// The test's own keys, on the question and the review screens.
    case next, previous, flag, review, submit, time, clock, scrollUp, scrollDown, help
    /// A key that tries to leave the test (asks the proctor, or a practice test asks first).
    case leave
    /// Documents the question's own keys; the answer widget's map takes its place.
    case answering
    /// One of the question's own keys.
    case answer(AnswerAction)
    /// Moving a highlight or a list: the review's questions, the help's lines.
    case move(Move)
    /// Review: go to the highlighted question.
    case open
    /// Leave this screen for the one before (close the review, the help; cancel a prompt).
    case back
    /// A confirmation's answers.
    case yes, no
    /// Typing in a field (the passphrase): characters and the keys that move in it.
    case edit
    /// Enter in a field, or on the start screen.
    case confirm
    /// Leave Carrel (before anything was locked, or after the receipt).
    case quit
    /// Any key: the banner goes on to the first question.
    case proceed
    /// Call the proctor (raise a hand).
    case hand

    public enum Move: Sendable, Equatable { case up, down, pageUp, pageDown, first, last }
}

/// The screens of `carrel take` and their key maps: the one place their keys are said.
public enum TakeKeys {
    typealias Binding = KeyBinding<TakeAction>

    static let leaveKeys: [Key] = [.control("c"), .control("z"), .control("\\"), .control("q")]

    /// The test's keys, shared by the question and the review screens, in the order help lists them.
    static func session(linear: Bool) -> [Binding] {
        [
            Binding("Tab / Ctrl-N", "next question (a linear test asks before leaving one unanswered)",
                    keys: [.tab, .control("n")], .next, footer: ("Tab", "next")),
            Binding("Shift-Tab / Ctrl-P", "previous question (not in linear tests)",
                    keys: [.backTab, .control("p")], .previous, footer: linear ? nil : ("S-Tab", "back")),
        ] + AnswerWidgets.summaries.map { Binding($0.keys, $0.meaning, keys: [], keyClass: .answerKeys, .answering) } + [
            Binding("PgUp / PgDn", "scroll a long question or essay by a page", keys: [.pageUp], .scrollUp),
            Binding("", "", keys: [.pageDown], .scrollDown),
            Binding("Ctrl-F / F2", "flag or unflag the question for review",
                    keys: [.control("f"), .function(2)], .flag, footer: ("^F", "flag")),
            Binding("Ctrl-R / F3", "review: every question, answered or not, flagged or not; Enter goes to one",
                    keys: [.control("r"), .function(3)], .review, footer: ("^R", "review")),
            Binding("Ctrl-S / F10", "submit (asks first, naming unanswered and flagged questions)",
                    keys: [.control("s"), .function(10)], .submit, footer: ("^S", "submit")),
            Binding("Ctrl-T / F4", "say the time left in words, and repeat the last time warning",
                    keys: [.control("t"), .function(4)], .time),
            Binding("Ctrl-K / F6", "hide or show the clock (time warnings still come)",
                    keys: [.control("k"), .function(6)], .clock),
            Binding("F12", "call the proctor (raise your hand); the screen says when the proctor is coming",
                    keys: [.function(12)], .hand),
            Binding("Ctrl-C, Ctrl-Z, Ctrl-\\, Ctrl-Q", "ask the proctor to end the session (a practice test asks you to confirm)",
                    keys: leaveKeys, .leave),
            Binding("F1 / Ctrl-G", "the list of keys on screen (Esc closes it)",
                    keys: [.function(1), .control("g")], .help, footer: ("F1", "help")),
        ]
    }

    /// The question screen, with the answer keys of every kind of question in words (F1, the
    /// README, `carrel keys`); `question(linear:answer:)` is the map of one question.
    public static func question(linear: Bool = false) -> KeyMap<TakeAction> {
        KeyMap("question", "The question screen", session(linear: linear))
    }

    /// The map a question screen dispatches by: the test's keys and the question's own.
    static func question(linear: Bool, answer: KeyMap<AnswerAction>) -> KeyMap<TakeAction> {
        KeyMap("question", "The question screen", session(linear: linear))
            .resolvingAnswerKeys(answer.bindings.map { $0.map(TakeAction.answer) })
    }

    public static func review(linear: Bool = false) -> KeyMap<TakeAction> {
        let own = [
            Binding("↑ ↓", "choose a question", keys: [.up], .move(.up), footer: ("↑↓", "choose")),
            Binding("", "", keys: [.down], .move(.down)),
            Binding("PgUp / PgDn", "choose a question a page away", keys: [.pageUp], .move(.pageUp)),
            Binding("", "", keys: [.pageDown], .move(.pageDown)),
            Binding("Home / End", "the first or the last question", keys: [.home], .move(.first)),
            Binding("", "", keys: [.end], .move(.last)),
            Binding("Enter", linear ? "go to the chosen question (forward only)" : "go to the chosen question",
                    keys: [.enter], .open, footer: ("Enter", linear ? "go to (forward only)" : "go to")),
            Binding("Esc", "back to the question", keys: [.escape], .back, footer: ("Esc", "back")),
            Binding("s", "submit (asks first)", keys: [.character("s"), .character("S")], .submit, footer: ("s", "submit")),
        ]
        // The test's keys work here too; the footer keeps to the review's own, and help.
        let shared = session(linear: linear).filter { b in
            b.keyClass != .answerKeys && b.action != .scrollUp && b.action != .scrollDown
        }.map { b -> Binding in
            switch b.action {
            case .help: return b
            case .review: return Binding(b.words, "back to the question (as Esc)", keys: b.keys, .review)
            default: return b.unlisted
            }
        }
        return KeyMap("review", "The review screen", own + shared)
    }

    /// A confirmation: y or n (Esc is n).
    static func confirmation(_ name: String, _ title: String, yes: String, no: String, enterSaysNo: Bool = false) -> KeyMap<TakeAction> {
        KeyMap(name, title, [
            Binding("y", yes, keys: [.character("y"), .character("Y")], .yes, footer: ("y", yes)),
            Binding(enterSaysNo ? "n, Esc or Enter" : "n or Esc", no,
                    keys: [.character("n"), .character("N"), .escape] + (enterSaysNo ? [.enter] : []), .no, footer: ("n", no)),
        ])
    }

    public static let confirmLock = confirmation("begin", "Begin? (the lock confirmation)", yes: "begin", no: "back", enterSaysNo: true)
    public static let confirmSubmit = confirmation("submit", "Submit? (the submit confirmation)", yes: "submit", no: "keep working")
    public static let confirmEnd = confirmation("end", "End this practice test? (its confirmation)", yes: "end now", no: "keep working")

    /// A linear test's "leave it unanswered?"; the keys that leave the test still work.
    public static let confirmSkip = KeyMap("skip", "Leave a question unanswered? (linear tests)",
                                           confirmation("", "", yes: "leave it unanswered", no: "stay and answer").bindings
                                           + session(linear: true).filter { $0.action == .leave })

    /// Quitting the demo while its session runs.
    static let confirmDemoQuit = confirmation("demo-quit", "Quit the demo? (while a session runs)", yes: "end it and quit", no: "stay")

    /// The keys that edit a one-line field.
    static func field(_ meaning: String) -> Binding {
        Binding("a character, ← → Home End, Backspace Delete", meaning,
                keys: [.left, .right, .home, .end, .backspace, .delete], keyClass: .printableText, .edit)
    }

    public static let proctorPrompt = KeyMap<TakeAction>("proctor", "Ask your proctor (the proctor's passphrase)", [
        field("type the proctor's passphrase (shown as dots)"),
        Binding("Enter", "check the passphrase", keys: [.enter], .confirm),
        Binding("Esc", "back to the test", keys: [.escape], .back),
    ])

    public static func start(passphrase: Bool) -> KeyMap<TakeAction> {
        var bindings = [
            Binding("Enter", "go on to the lock confirmation (once the proctor's passphrase is right, when the test has one)",
                    keys: [.enter], .confirm, footer: ("Enter", passphrase ? "start" : "continue")),
            Binding("Esc, Ctrl-C, Ctrl-Q", "leave (nothing is locked yet)", keys: [.escape, .control("c"), .control("q")], .quit,
                    footer: ("Esc", "leave")),
            Binding("F1", "the keys of the test (Esc closes it)", keys: [.function(1)], .help, footer: ("F1", "help")),
        ]
        if passphrase { bindings.append(field("type the proctor's passphrase (shown as dots)")) }
        return KeyMap("start", "The start screen", bindings)
    }

    public static let banner = KeyMap<TakeAction>("banner", "The locked banner", [
        Binding("any key", "the first question", keys: [], keyClass: .anyKey, .proceed),
    ])

    public static let receipt = KeyMap<TakeAction>("receipt", "The receipt", [
        Binding("Enter, Esc or q", "close Carrel", keys: [.enter, .escape, .character("q")], .quit, footer: ("Enter", "close")),
    ])

    public static let help = KeyMap<TakeAction>("help", "The list of keys (F1)", [
        Binding("Esc, Enter, F1, Ctrl-G or q", "close the list", keys: [.escape, .enter, .function(1), .control("g"), .character("q")],
                .back, footer: ("Esc", "close help")),
        Binding("↑ ↓", "scroll by a line", keys: [.up], .move(.up)),
        Binding("", "", keys: [.down], .move(.down)),
        Binding("PgUp / PgDn or Space", "scroll by a page", keys: [.pageDown, .character(" ")], .move(.pageDown),
                footer: ("PgDn ↓ PgUp ↑", "scroll")),
        Binding("", "", keys: [.pageUp], .move(.pageUp)),
    ])

    /// The letters that say yes, in the languages Carrel speaks: y, and French o(ui),
    /// German j(a), Spanish s(í). A confirmation takes y and its own language's letter.
    public static func yesKeys(_ say: Localizer, opener: Character? = nil) -> [Key] {
        let letter = yesLetter(say, opener: opener)
        var keys: [Key] = [.character("y"), .character("Y")]
        if letter != "y", let c = letter.first, letter.count == 1 {
            keys += [.character(c), .character(Character(c.uppercased()))]
        }
        return keys
    }

    /// The letter a confirmation shows for yes: its language's own, unless that letter is the
    /// one that opens the confirmation (Spanish `s` is also the review's submit key, and `s`
    /// twice must never submit): then `y`.
    public static func yesLetter(_ say: Localizer, opener: Character? = nil) -> String {
        let letter = say.keyName("y")
        if let opener, letter.lowercased() == String(opener).lowercased() { return "y" }
        return letter
    }

    /// The key that opens the submit confirmation from the review.
    static let submitLetter: Character = "s"

    /// Every screen's map, in the order `carrel keys --all` lists them.
    public static var all: [KeyListing] {
        [start(passphrase: true), confirmLock, question(), help, review(), confirmSkip, confirmSubmit, confirmEnd, proctorPrompt, receipt]
            .map(\.listing)
    }

    /// The name said in the journal for a key that tries to leave.
    static func leaveName(_ key: Key) -> String {
        switch key {
        case .control("c"): return "Ctrl-C"
        case .control("z"): return "Ctrl-Z"
        case .control("\\"): return "Ctrl-\\"
        default: return "quit key"
        }
    }
}

/// The question screen's keys as text, as they have always been published (`carrel keys`,
/// the README's list, the man page).
public enum KeyTable {
    public static var markdown: String { TakeKeys.question().listing.markdown }
    public static var plainText: String { TakeKeys.question().listing.plainText }
}
