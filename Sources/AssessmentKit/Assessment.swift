/// A whole assessment as the teacher wrote it, validated.
public struct Assessment: Sendable, Hashable, Codable {
    public var formatVersion: Int
    public var id: String
    public var title: String
    public var description: String?
    /// Seconds; nil means untimed.
    public var timeLimit: Int?
    public var navigation: Navigation
    public var shuffle: Shuffle
    public var results: ResultOptions
    public var proctor: ProctorSettings
    public var policy: RestrictionPolicy
    public var sections: [Section]
    /// The language the students read the test's screens in (`language: fr`), unless the
    /// roster or `--language` says otherwise; nil leaves it to the student's environment.
    public var language: String?
    /// True for a sealed test opened with its package key alone (a seat the proctor started):
    /// `withoutKey` removed its answer key, so it cannot be scored here. Not part of the
    /// canonical form (nor its fingerprint): a test is the same test with or without its key.
    public var keyless = false

    enum CodingKeys: String, CodingKey {
        case formatVersion, id, title, description, timeLimit, navigation, shuffle, results, proctor, policy, sections, language
    }

    public init(
        formatVersion: Int = 1, id: String, title: String, description: String? = nil,
        timeLimit: Int? = nil, navigation: Navigation = .free, shuffle: Shuffle = Shuffle(),
        results: ResultOptions = ResultOptions(), proctor: ProctorSettings = ProctorSettings(),
        policy: RestrictionPolicy = RestrictionPolicy(), sections: [Section]
    ) {
        self.formatVersion = formatVersion
        self.id = id
        self.title = title
        self.description = description
        self.timeLimit = timeLimit
        self.navigation = navigation
        self.shuffle = shuffle
        self.results = results
        self.proctor = proctor
        self.policy = policy
        self.sections = sections
    }

    /// Every item in file order. A copy of each: where only the number or a sum is needed,
    /// `itemCount` and `maximumPoints` count without one (15 000 items copied cost a large
    /// test's `validate` about a twentieth of its time).
    public var items: [Item] { sections.flatMap(\.items) }

    public var itemCount: Int { sections.reduce(0) { $0 + $1.items.count } }

    public var maximumPoints: Double {
        sections.reduce(0) { total, section in section.items.reduce(total) { $0 + $1.points } }
    }

    /// The questions each session is given: every item, less those a pool leaves out.
    public var questionsPerSession: Int {
        sections.reduce(0) { total, section in total + min(section.draw ?? section.items.count, section.items.count) }
    }

    /// True when some section draws its items from a pool.
    public var hasPools: Bool { sections.contains { $0.draw != nil } }
}

public enum Navigation: String, Sendable, Hashable, Codable, CaseIterable {
    /// Students may move to any question at any time.
    case free
    /// Students move forward only; an answered question cannot be revisited.
    case linear
}

public struct Shuffle: Sendable, Hashable, Codable {
    public var items: Bool
    public var choices: Bool
    public init(items: Bool = false, choices: Bool = false) {
        self.items = items
        self.choices = choices
    }
}

public struct ResultOptions: Sendable, Hashable, Codable {
    /// Whether the student sees the score on the receipt.
    public var showScore: Bool
    public init(showScore: Bool = true) { self.showScore = showScore }
}

public struct ProctorSettings: Sendable, Hashable, Codable {
    /// The `carrel passphrase` hash line; nil for practice mode.
    public var passphrase: PassphraseHash?
    /// The public key the proctor's console signs commands with (`carrel passphrase` prints
    /// it); nil when the test's seats can be watched but not commanded.
    public var key: ProctorKey?
    public init(passphrase: PassphraseHash? = nil, key: ProctorKey? = nil) {
        self.passphrase = passphrase
        self.key = key
    }
}

/// A titled group of items.
public struct Section: Sendable, Hashable, Codable {
    public var title: String?
    public var instructions: String?
    public var items: [Item]
    /// For the proctor only, like `Item.proctorNote`.
    public var proctorNote: String?
    /// A pool: each session is given this many of the section's items, drawn from its seed.
    public var draw: Int?
    public init(title: String? = nil, instructions: String? = nil, items: [Item], proctorNote: String? = nil, draw: Int? = nil) {
        self.title = title
        self.instructions = instructions
        self.items = items
        self.proctorNote = proctorNote
        self.draw = draw
    }
}
