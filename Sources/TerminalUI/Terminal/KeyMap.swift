import Localization
/// Keys a binding answers to beyond the ones it names.
public enum KeyClass: Sendable, Equatable {
    /// Any character typed into a field: letters, digits, punctuation and space, in any script.
    case printableText
    /// Any key at all ("press any key").
    case anyKey
    /// The current question's own keys: the answer widget's map stands in for this binding.
    case answerKeys

    public func contains(_ key: Key) -> Bool {
        switch self {
        case .printableText:
            guard case let .character(c) = key else { return false }
            return !c.unicodeScalars.contains { $0.properties.generalCategory == .control }
        case .anyKey: return true
        case .answerKeys: return false
        }
    }
}

/// One line of a screen's keys: what a person presses, in words and as `Key` values, what it
/// does, and the action a screen performs for it. `Action` is not required to be `Equatable`
/// here (only where actions are compared): a requirement on the type is checked when its
/// metadata is first made, a search of every conformance in the program at each launch.
public struct KeyBinding<Action: Sendable>: Sendable {
    /// The keys as a person says them: "Tab / Ctrl-N".
    public let words: String
    /// What the keys do, in words.
    public let meaning: String
    public let keys: [Key]
    public let keyClass: KeyClass?
    public let action: Action
    /// The footer's short form, when the binding is shown there.
    public let footer: (key: String, label: String)?

    public init(_ words: String, _ meaning: String, keys: [Key], keyClass: KeyClass? = nil, _ action: Action,
                footer: (String, String)? = nil) {
        self.words = words
        self.meaning = meaning
        self.keys = keys
        self.keyClass = keyClass
        self.action = action
        self.footer = footer.map { (key: $0.0, label: $0.1) }
    }

    public func matches(_ key: Key) -> Bool {
        keys.contains(key) || (keyClass?.contains(key) ?? false)
    }

    /// The same keys for another screen's action.
    public func map<Other: Sendable>(_ transform: (Action) -> Other) -> KeyBinding<Other> {
        KeyBinding<Other>(words, meaning, keys: keys, keyClass: keyClass, transform(action), footer: footer.map { ($0.key, $0.label) })
    }

    /// The same binding, not shown in the footer.
    public var unlisted: KeyBinding {
        KeyBinding(words, meaning, keys: keys, keyClass: keyClass, action)
    }
}

/// Every key of one screen. A screen reacts to a key only through its binding here; its
/// footer, its F1 help and `carrel keys` are written from the same bindings.
public struct KeyMap<Action: Sendable>: Sendable {
    /// A short name: `carrel keys --screen NAME`.
    public let name: String
    /// What the screen is, in words: "The question screen".
    public let title: String
    public let bindings: [KeyBinding<Action>]

    public init(_ name: String, _ title: String, _ bindings: [KeyBinding<Action>]) {
        self.name = name
        self.title = title
        self.bindings = bindings
    }

    /// The binding a key belongs to: one that names the key, else one whose class holds it.
    public func binding(for key: Key) -> KeyBinding<Action>? {
        bindings.first { $0.keys.contains(key) } ?? bindings.first { $0.keyClass?.contains(key) ?? false }
    }

    public func action(for key: Key) -> Action? { binding(for: key)?.action }

    /// The footer: the bindings that show themselves there, in order.
    public func footer(where include: (Action) -> Bool = { _ in true }) -> [(String, String)] {
        bindings.compactMap { b in b.footer.flatMap { include(b.action) ? ($0.key, $0.label) : nil } }
    }

    /// The footer as one line of words: "y: submit · n: keep working".
    public var footerLine: String { footerLine(.english) }

    /// The footer as one line of words in a language: "o : rendre · n : continuer".
    public func footerLine(_ say: Localizer, yes: String? = nil) -> String {
        footer().map { entry in
            let key = entry.0 == "y" ? yes ?? say.keyName("y") : say.keyName(entry.0)
            return say("{0}: {1}", .s(key), .s(say.footerLabel(entry.1)))
        }.joined(separator: " · ")
    }

    /// The same keys for another screen's actions.
    public func map<Other: Sendable>(_ transform: (Action) -> Other) -> KeyMap<Other> {
        KeyMap<Other>(name, title, bindings.map { $0.map(transform) })
    }

    /// The same keys under another name.
    public func named(_ name: String, _ title: String) -> KeyMap {
        KeyMap(name, title, bindings)
    }

    /// The map with `answerKeys` bindings replaced by `answer`'s bindings (where the first was).
    public func resolvingAnswerKeys(_ answer: [KeyBinding<Action>]) -> KeyMap {
        var out: [KeyBinding<Action>] = []
        var placed = false
        for b in bindings {
            guard b.keyClass == .answerKeys else { out.append(b); continue }
            if !placed { out += answer }
            placed = true
        }
        return KeyMap(name, title, out)
    }

    /// One row a binding; a binding without words is said by the row above it ("PgUp / PgDn").
    public var listing: KeyListing {
        KeyListing(name: name, title: title,
                   rows: bindings.filter { !$0.words.isEmpty }.map { KeyListing.Row(keys: $0.words, meaning: $0.meaning) })
    }
}

extension KeyMap where Action: Equatable {
    /// The footer key of the binding for `action`.
    public func footerKey(_ action: Action) -> String? {
        bindings.first { $0.action == action }?.footer?.key
    }

    /// The same map with more keys for `action` (a confirmation's yes in the student's language).
    public func adding(_ keys: [Key], to action: Action) -> KeyMap {
        KeyMap(name, title, bindings.map { b in
            guard b.action == action else { return b }
            let more = keys.filter { !b.keys.contains($0) }
            return KeyBinding(b.words, b.meaning, keys: b.keys + more, keyClass: b.keyClass, b.action, footer: b.footer.map { ($0.key, $0.label) })
        })
    }
}

/// A screen's keys as text, for F1, `carrel keys`, the README and the man page.
public struct KeyListing: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public let keys: String
        public let meaning: String
    }

    public let name: String
    public let title: String
    public let rows: [Row]

    /// A Markdown table (the README's, between its markers).
    public var markdown: String {
        var lines = ["| key | what it does |", "|---|---|"]
        for row in rows {
            let keys = row.keys.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
            lines.append("| \(keys) | \(row.meaning.replacingOccurrences(of: "|", with: "\\|")) |")
        }
        return lines.joined(separator: "\n")
    }

    /// One line a row: "Tab / Ctrl-N: next question.".
    public var plainText: String {
        rows.map { "\($0.keys): \($0.meaning)." }.joined(separator: "\n")
    }
}

/// Every screen's keys, in the order `carrel keys --all` lists them.
public enum KeyMaps {
    public static var every: [KeyListing] {
        TakeKeys.all + [DemoModel.mainKeyMap.listing, DemoModel.confirmQuitKeyMap.listing,
                        ProctorModel.seatsKeyMap.listing, ProctorModel.emptyKeyMap.listing, ProctorModel.reportKeyMap.listing]
    }

    public static func listing(_ name: String) -> KeyListing? {
        every.first { $0.name == name }
    }
}
