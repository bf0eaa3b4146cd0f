import Foundation
import AssessmentKit

/// Extra time for one candidate: a multiplier, fixed minutes, or no limit (`--extra-time`).
public enum ExtraTime: Sendable, Equatable, Codable, CustomStringConvertible {
    case none
    case multiplier(Double)
    case add(seconds: Int)
    case unlimited

    /// `1.5`, `x1.5`, `+15m`, `unlimited`.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if t == "unlimited" { self = .unlimited; return }
        if t.hasPrefix("+") {
            guard let seconds = DurationText.parse(String(t.dropFirst())), seconds > 0 else { return nil }
            self = .add(seconds: seconds)
            return
        }
        let number = t.hasPrefix("x") ? String(t.dropFirst()) : t
        guard let m = NumericText.parse(number), m >= 1, m <= 10 else { return nil }
        self = m == 1 ? .none : .multiplier(m)
    }

    /// Seconds allowed for a base limit; nil means no limit (the session cap still applies).
    public func apply(to base: Int?) -> Int? {
        guard let base else { return nil }
        switch self {
        case .none: return base
        case let .multiplier(m): return Int((Double(base) * m).rounded(.up))
        case let .add(seconds): return base + seconds
        case .unlimited: return nil
        }
    }

    public var description: String {
        switch self {
        case .none: return "none"
        case let .multiplier(m): return "×\(PointsText.format(m))"
        case let .add(seconds): return "+\(DurationText.format(seconds))"
        case .unlimited: return "unlimited"
        }
    }
}

/// What stays fixed for one session: its id, seed, the order students see, and its time.
/// Derived from the assessment and the seed alone, so a resumed session is identical.
public struct SessionPlan: Sendable, Equatable {
    public var sessionID: String
    public var seed: UInt64
    /// Item ids in the order they are shown.
    public var itemOrder: [String] { didSet { positions = Self.positions(of: itemOrder) } }
    /// Each item id's place in `itemOrder`: a message naming an item finds it without walking
    /// the test.
    public private(set) var positions: [String: Int]
    /// Per item, the order its choices (or order/match entries) are shown in.
    public var displayOrders: [String: [String]]
    /// Seconds; nil when untimed or unlimited.
    public var timeAllowed: Int?
    public var maxDuration: Int
    public var navigation: Navigation
    public var policy: RestrictionPolicy
    /// True when no proctor passphrase is set: ending early needs only a confirmation.
    public var practiceMode: Bool

    public init(sessionID: String, seed: UInt64, itemOrder: [String], displayOrders: [String: [String]],
                timeAllowed: Int?, maxDuration: Int, navigation: Navigation, policy: RestrictionPolicy,
                practiceMode: Bool) {
        self.sessionID = sessionID
        self.seed = seed
        self.itemOrder = itemOrder
        self.positions = Self.positions(of: itemOrder)
        self.displayOrders = displayOrders
        self.timeAllowed = timeAllowed
        self.maxDuration = maxDuration
        self.navigation = navigation
        self.policy = policy
        self.practiceMode = practiceMode
    }

    /// The place of each id (the first, should an id repeat).
    static func positions(of order: [String]) -> [String: Int] {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(order.count)
        for (index, id) in order.enumerated() where positions[id] == nil { positions[id] = index }
        return positions
    }

    public static func make(assessment: Assessment, sessionID: String, seed: UInt64, extraTime: ExtraTime) -> SessionPlan {
        var rng = SplitMix64(seed: seed)
        var order: [String] = []
        let pools = draws(assessment, seed: seed)
        for (index, section) in assessment.sections.enumerated() {
            var ids = pools[index] ?? section.items.map(\.id)
            if assessment.shuffle.items { rng.shuffle(&ids) }
            order += ids
        }
        var display: [String: [String]] = [:]
        let given: Set<String>? = pools.isEmpty ? nil : Set(order)
        for section in assessment.sections {
            for item in section.items where given?.contains(item.id) ?? true {
                switch item.kind {
                case let .choice(choices, _), let .multiple(choices, _, _):
                    var c = choices
                    if assessment.shuffle.choices { rng.shuffle(&c) }
                    display[item.id] = c
                case let .order(entries):
                    // Always shown out of order; never in the correct order when it can be avoided.
                    var c = entries
                    for _ in 0..<8 {
                        rng.shuffle(&c)
                        if c != entries { break }
                    }
                    display[item.id] = c
                case let .match(pairs, distractors):
                    var rights: [String] = []
                    for r in pairs.map(\.right) + distractors where !rights.contains(r) { rights.append(r) }
                    rng.shuffle(&rights)
                    display[item.id] = rights
                case let .gaps(gaps) where assessment.shuffle.choices:
                    for (i, gap) in gaps.enumerated() where gap.kind.isChoice {
                        var options = gap.kind.options
                        rng.shuffle(&options)
                        display["\(item.id)#\(i + 1)"] = options
                    }
                default:
                    break
                }
            }
        }
        let allowed = extraTime.apply(to: assessment.timeLimit).map { min($0, assessment.policy.maxDuration) }
        return SessionPlan(
            sessionID: sessionID, seed: seed, itemOrder: order, displayOrders: display, timeAllowed: allowed,
            maxDuration: assessment.policy.maxDuration, navigation: assessment.navigation, policy: assessment.policy,
            practiceMode: assessment.proctor.passphrase == nil)
    }
}

extension SessionPlan {
    /// The items each pool gives this session, by section index, in file order: `draw` of the
    /// section's items, each equally likely, from the session's seed (so `resume` draws the
    /// same on any machine). Drawn with a generator of its own, so the shuffles of tests
    /// without pools are what they always were.
    public static func draws(_ assessment: Assessment, seed: UInt64) -> [Int: [String]] {
        guard assessment.hasPools else { return [:] }
        var rng = SplitMix64(seed: seed ^ 0x6A09_E667_F3BC_C908)
        var out: [Int: [String]] = [:]
        for (index, section) in assessment.sections.enumerated() {
            guard let draw = section.draw, draw < section.items.count else { continue }
            // A partial Fisher–Yates shuffle of the places, with our own index draws like
            // `shuffle` (the standard library's may change): the first `draw` are the pick.
            var places = Array(section.items.indices)
            for i in 0..<draw {
                let j = i + Int(rng.next() % UInt64(places.count - i))
                places.swapAt(i, j)
            }
            out[index] = places[0..<draw].sorted().map { section.items[$0].id }
        }
        return out
    }

    /// The ids of the items a session was given, or nil when the test has no pool (every item).
    public static func drawn(_ assessment: Assessment, seed: UInt64) -> Set<String>? {
        let pools = draws(assessment, seed: seed)
        guard !pools.isEmpty else { return nil }
        var ids = Set<String>()
        for (index, section) in assessment.sections.enumerated() {
            ids.formUnion(pools[index] ?? section.items.map(\.id))
        }
        return ids
    }
}

/// A small, fixed PRNG: the same seed gives the same order on every platform and release.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Fisher–Yates with our own index draws, independent of the standard library's algorithm.
    public mutating func shuffle<T>(_ array: inout [T]) {
        guard array.count > 1 else { return }
        for i in stride(from: array.count - 1, to: 0, by: -1) {
            let j = Int(next() % UInt64(i + 1))
            array.swapAt(i, j)
        }
    }
}
