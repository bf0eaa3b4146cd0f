/// A language's plural rules for whole numbers, as CLDR writes them and a catalog's
/// `X-Carrel-Plural-Rules` header gives them:
/// `one: n = 1; few: n % 10 = 2..4 and n % 100 != 12..14; many: …`. A number that no rule
/// takes is `other`. `and` binds tighter than `or`; a relation is `n` (or `i`, the same for a
/// whole number; `v`, always 0) with an optional `% m`, `=` or `!=`, and a list of numbers and
/// ranges.
public struct PluralRules: Sendable, Equatable {
    public static let categories = ["zero", "one", "two", "few", "many"]

    struct Relation: Sendable, Equatable {
        var operandIsZero: Bool
        var modulo: Int?
        var equal: Bool
        var ranges: [ClosedRange<Int>]

        func holds(_ n: Int) -> Bool {
            var value = operandIsZero ? 0 : n
            if let modulo { value %= modulo }
            let inside = ranges.contains { $0.contains(value) }
            return inside == equal
        }
    }

    /// Each category with its condition: alternatives (`or`) of relations that all hold (`and`).
    let rules: [(category: String, condition: [[Relation]])]

    public static func == (a: PluralRules, b: PluralRules) -> Bool {
        a.rules.map(\.category) == b.rules.map(\.category) && zip(a.rules, b.rules).allSatisfy { $0.condition == $1.condition }
    }

    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// No category but `other` (Japanese, Chinese, Korean).
    public static let otherOnly = PluralRules(rules: [])

    init(rules: [(category: String, condition: [[Relation]])]) { self.rules = rules }

    public init(_ text: String) throws(Failure) {
        var rules: [(category: String, condition: [[Relation]])] = []
        for part in text.split(separator: ";") where !part.trimmed.isEmpty {
            guard let colon = part.firstIndex(of: ":") else {
                throw Failure(reason: "a plural rule needs a category and a condition: \(part.trimmed)")
            }
            let category = part[..<colon].trimmed
            guard Self.categories.contains(category) else {
                throw Failure(reason: "\(category) is not a CLDR plural category (zero, one, two, few, many; other is the rest)")
            }
            var alternatives: [[Relation]] = []
            for alternative in part[part.index(after: colon)...].splitting(by: " or ") {
                var relations: [Relation] = []
                for relation in alternative.splitting(by: " and ") {
                    relations.append(try Self.relation(relation.trimmed))
                }
                alternatives.append(relations)
            }
            rules.append((category, alternatives))
        }
        self.rules = rules
    }

    /// The category of `n`.
    public func category(_ n: Int) -> String {
        let n = n.magnitude > UInt(Int.max) ? Int.max : abs(n)
        for rule in rules where rule.condition.contains(where: { $0.allSatisfy { $0.holds(n) } }) {
            return rule.category
        }
        return "other"
    }

    /// The categories whole numbers reach, with `other` (which every plural block names).
    public var wholeNumberCategories: Set<String> {
        var out: Set<String> = ["other"]
        for n in 0..<1200 { out.insert(category(n)) }
        for n in [1_000_000, 2_000_000, 10_000_000] { out.insert(category(n)) }
        return out
    }

    static func relation(_ text: String) throws(Failure) -> Relation {
        var rest = Substring(text)
        guard let operand = rest.first, "niv".contains(operand) else {
            throw Failure(reason: "cannot read the plural condition \"\(text)\": it begins with n")
        }
        rest = rest.dropFirst().trimmedSubstring
        var modulo: Int?
        if rest.first == "%" {
            rest = rest.dropFirst().trimmedSubstring
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard let m = Int(digits), m > 0 else { throw Failure(reason: "cannot read the plural condition \"\(text)\"") }
            modulo = m
            rest = rest.dropFirst(digits.count).trimmedSubstring
        }
        let equal: Bool
        if rest.hasPrefix("!=") {
            equal = false
            rest = rest.dropFirst(2)
        } else if rest.hasPrefix("=") {
            equal = true
            rest = rest.dropFirst()
        } else {
            throw Failure(reason: "cannot read the plural condition \"\(text)\": = or != is missing")
        }
        var ranges: [ClosedRange<Int>] = []
        for item in rest.split(separator: ",") {
            let bounds = item.trimmed.splitting(by: "..").map(String.init)
            guard let low = Int(bounds[0]), let high = Int(bounds.last ?? ""), bounds.count <= 2, low <= high else {
                throw Failure(reason: "cannot read the plural condition \"\(text)\": \(item.trimmed) is not a number or a range")
            }
            ranges.append(low...high)
        }
        guard !ranges.isEmpty else { throw Failure(reason: "cannot read the plural condition \"\(text)\": no number follows") }
        return Relation(operandIsZero: operand == "v", modulo: modulo, equal: equal, ranges: ranges)
    }
}

extension StringProtocol {
    /// The parts between each `separator` (no Foundation in this module).
    func splitting(by separator: String) -> [Substring] {
        // Byte by byte: the standard library's `firstRange(of:)` sets up its string-processing
        // machinery the first time, a fifth of a millisecond on the way to the first frame.
        let text = Substring(self)
        let bytes = Array(text.utf8), needle = Array(separator.utf8)
        var parts: [Substring] = []
        var start = 0, i = 0
        while !needle.isEmpty, i + needle.count <= bytes.count {
            if bytes[i..<(i + needle.count)].elementsEqual(needle) {
                parts.append(Self.slice(text, start, i))
                i += needle.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(Self.slice(text, start, bytes.count))
        return parts
    }

    static func slice(_ text: Substring, _ from: Int, _ to: Int) -> Substring {
        let utf8 = text.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: from), upper = utf8.index(utf8.startIndex, offsetBy: to)
        return text[lower..<upper]
    }
}
