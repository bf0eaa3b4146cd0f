/// Reads typed values out of located YAML nodes, recording a diagnostic for each problem.
/// Every accessor returns nil after recording why, so callers can keep going and report all.
final class FieldReader {
    let file: String
    private(set) var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    func error(_ node: YNode, _ message: String) {
        diagnostics.append(Diagnostic(file: file, line: node.line, column: node.column, message: message))
    }

    func warning(_ node: YNode, _ message: String) {
        diagnostics.append(Diagnostic(file: file, line: node.line, column: node.column, severity: .warning, message: message))
    }

    func error(line: Int, column: Int, _ message: String) {
        diagnostics.append(Diagnostic(file: file, line: line, column: column, message: message))
    }

    /// A mapping's entries with string keys, or nil (and a diagnostic) when it is not a mapping.
    func mapping(_ node: YNode, _ what: String) -> Mapping? {
        guard case let .mapping(pairs) = node.value else {
            error(node, "\(what) must be a mapping of `key: value` lines, not \(node.kindName)")
            return nil
        }
        var entries: [Mapping.Entry] = []
        entries.reserveCapacity(pairs.count)
        for index in pairs.indices {
            guard case let .scalar(key, _) = pairs[index].key.value else {
                error(pairs[index].key, "keys in \(what) must be plain words")
                continue
            }
            entries.append(Mapping.Entry(key: key, index: index))
        }
        return Mapping(node: node, what: what, pairs: pairs, entries: entries)
    }

    /// Reports keys outside `allowed`, suggesting the closest one.
    func rejectUnknownKeys(_ map: Mapping, allowed: [String], elsewhere: (String) -> String? = { _ in nil }) {
        for (index, entry) in map.entries.enumerated() where !allowed.contains(where: { $0.isSameKey(as: entry.key) }) {
            if index > 0, let explanation = decimalComma(before: entry, map.entries[index - 1], in: map) {
                error(map.keyNode(entry), explanation)
            } else if let explanation = elsewhere(entry.key) {
                error(map.keyNode(entry), explanation)
            } else {
                let hint = DidYouMean.hint(for: entry.key, among: allowed)
                error(map.keyNode(entry), "unknown key `\(entry.key.clippedForMessage)` in \(map.what)\(hint)")
            }
        }
    }

    /// `answer: 3,14` inside `{…}` reads as `answer: 3` and a key `14`: the comma separates entries.
    func decimalComma(before entry: Mapping.Entry, _ previous: Mapping.Entry, in map: Mapping) -> String? {
        guard map.value(entry).isNull, map.keyNode(entry).line == map.value(previous).line,
              entry.key.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }),
              case let .scalar(whole, true) = map.value(previous).value, Int(whole) != nil
        else { return nil }
        let written = "\(whole),\(entry.key)"
        let key = previous.key.clippedForMessage
        return "`\(key): \(written)` was read as two entries because a comma separates entries inside `{…}`; write `\(key): \(whole).\(entry.key)` or quote it: `\(key): \"\(written)\"`"
    }

    // MARK: scalars

    enum TextKind { case singleLine, multiLine }

    func scalar(_ node: YNode, _ what: String) -> (text: String, plain: Bool)? {
        guard case let .scalar(text, plain) = node.value else {
            error(node, "\(what) must be a single value, not \(node.kindName)")
            return nil
        }
        return (text, plain)
    }

    func text(_ node: YNode, _ what: String, _ kind: TextKind = .singleLine, allowEmpty: Bool = false) -> String? {
        guard let (value, _) = scalar(node, what) else { return nil }
        guard safeText(value, node, what, kind) else { return nil }
        if !allowEmpty && value.trimmingSpaces().isEmpty {
            error(node, "\(what) is empty")
            return nil
        }
        return value
    }

    /// Refuses control characters, escape sequences, bidirectional controls and invisible
    /// characters that no script needs: they could drive the terminal or make text read
    /// differently from how it is scored.
    func safeText(_ value: String, _ node: YNode, _ what: String, _ kind: TextKind) -> Bool {
        if PlainText.isPrintableASCII(value, allowingLineBreaks: kind == .multiLine) { return true }
        let allowed: Set<Unicode.Scalar> = kind == .multiLine ? ["\n", "\t"] : []
        guard let finding = TerminalSafety.firstUnsafe(in: value, allowing: allowed) else { return true }
        error(node, "\(what) contains \(finding); \(finding.hazard.rule) are not allowed in assessment text")
        return false
    }

    func bool(_ node: YNode, _ what: String) -> Bool? {
        guard let (value, plain) = scalar(node, what) else { return nil }
        if plain {
            switch value.lowercased() {
            case "true": return true
            case "false": return false
            default: break
            }
        }
        error(node, "\(what) must be true or false, not \"\(value.clippedForMessage)\"")
        return nil
    }

    func number(_ node: YNode, _ what: String) -> Double? {
        guard let (value, _) = scalar(node, what) else { return nil }
        guard let number = NumericText.parse(value) else {
            error(node, "\(what) must be a number, not \"\(value.clippedForMessage)\"")
            return nil
        }
        return number
    }

    /// A percentage such as `50%` or `-33.333%`, within `range`.
    func percent(_ node: YNode, _ what: String, within range: ClosedRange<Double>) -> Double? {
        guard let (value, _) = scalar(node, what) else { return nil }
        let trimmed = value.trimmingSpaces()
        guard trimmed.hasSuffix("%"), let number = NumericText.parse(String(trimmed.dropLast())) else {
            error(node, "\(what) must be a percentage such as 50% or -25%, not \"\(value.clippedForMessage)\"")
            return nil
        }
        guard range.contains(number) else {
            error(node, "\(what) must be between \(PointsText.format(range.lowerBound))% and \(PointsText.format(range.upperBound))%")
            return nil
        }
        return number
    }

    func wholeNumber(_ node: YNode, _ what: String, atLeast minimum: Int = 0) -> Int? {
        guard let (value, _) = scalar(node, what) else { return nil }
        guard let n = Int(value.trimmingSpaces()), n >= minimum else {
            error(node, "\(what) must be a whole number of at least \(minimum), not \"\(value.clippedForMessage)\"")
            return nil
        }
        return n
    }

    func duration(_ node: YNode, _ what: String) -> Int? {
        guard let (value, _) = scalar(node, what) else { return nil }
        if Int(value.trimmingSpaces()) != nil {
            error(node, "\(what) needs a unit: write \(value)s, or minutes and hours such as 10m or 1h30m")
            return nil
        }
        guard let seconds = DurationText.parse(value) else {
            error(node, "\(what) \"\(value.clippedForMessage)\" is not a duration; write it like 90s, 10m or 1h30m")
            return nil
        }
        guard seconds > 0 else {
            error(node, "\(what) must be longer than zero")
            return nil
        }
        return seconds
    }

    /// One of a fixed set of words, suggesting the closest on a miss.
    func word<T: RawRepresentable & CaseIterable>(_ node: YNode, _ what: String, as: T.Type) -> T? where T.RawValue == String {
        guard let (value, _) = scalar(node, what) else { return nil }
        if let match = T(rawValue: value) { return match }
        let options = T.allCases.map(\.rawValue)
        let hint = DidYouMean.hint(for: value, among: options)
        error(node, "\(what) must be one of \(options.joined(separator: ", ")), not \"\(value.clippedForMessage)\"\(hint)")
        return nil
    }

    func list(_ node: YNode, _ what: String) -> [YNode]? {
        guard case let .sequence(items) = node.value else {
            error(node, "\(what) must be a list, not \(node.kindName)")
            return nil
        }
        return items
    }

    /// A list of single-line texts with no empty and no repeated entry.
    func textList(_ node: YNode, _ what: String, entry: String) -> [(text: String, node: YNode)]? {
        guard let nodes = list(node, what) else { return nil }
        var out: [(text: String, node: YNode)] = []
        out.reserveCapacity(nodes.count)
        var seen = SeenTexts(capacity: nodes.count)
        var allNormal = true
        var ok = true
        for child in nodes {
            guard let value = text(child, entry) else { ok = false; continue }
            let isNormal = PlainText.isNormal(value)
            allNormal = allNormal && isNormal
            let key = isNormal ? value : AnswerText.normalise(value, caseSensitive: true)
            if let first = seen.firstLine(of: key) {
                error(child, "duplicate \(entry) \"\(value.clippedForMessage)\" (first at line \(first))")
                ok = false
                continue
            }
            seen.add(key, line: child.line)
            out.append((value, child))
        }
        // Texts all in normal form are each their own look-alike key: no two look alike.
        if ok, !allNormal, !rejectLookAlikes(out, entry: entry) { ok = false }
        return ok ? out : nil
    }
}

/// The texts of one list seen so far, and the line each was first written on. A short list,
/// an item's few choices, is searched entry by entry, which is quicker than hashing each text;
/// a long one is hashed, so that a list of thousands stays linear.
struct SeenTexts {
    static let linearTexts = 16
    private var texts: [String] = []
    private var lines: [Int] = []
    private var index: [String: Int]? = nil

    init(capacity: Int) {
        if capacity > Self.linearTexts {
            index = Dictionary(minimumCapacity: capacity)
        } else {
            texts.reserveCapacity(capacity)
            lines.reserveCapacity(capacity)
        }
    }

    func firstLine(of text: String) -> Int? {
        if let index { return index[text] }
        return texts.firstIndex(of: text).map { lines[$0] }
    }

    /// Adds a text not seen before.
    mutating func add(_ text: String, line: Int) {
        if index != nil {
            index?[text] = line
        } else {
            texts.append(text)
            lines.append(line)
        }
    }
}

extension FieldReader {
    /// Refuses two different entries that look the same once compatibility forms, invisible
    /// characters and bidirectional controls are set aside ("Ottawa" and "Ｏｔｔａｗａ"): a
    /// student could not tell them apart. True when there is no such pair.
    func rejectLookAlikes(_ entries: [(text: String, node: YNode)], entry: String) -> Bool {
        // Each such text is its own look-alike key, so two of them look alike only when equal.
        if entries.allSatisfy({ PlainText.isNormal($0.text) }) { return true }
        guard let (a, b) = TerminalSafety.firstLookAlike(entries.map(\.text)) else { return true }
        let first = entries[a], second = entries[b]
        error(second.node, "\(entry) \"\(second.text.clippedForMessage)\" looks identical to \"\(first.text.clippedForMessage)\" (line \(first.node.line)); make them differ visibly")
        return false
    }

    /// The same for a `match`: left-hand entries among themselves, right-hand entries and
    /// distractors together (the same right-hand text may serve several left-hand entries).
    func rejectLookAlikeMatch(_ pairs: Mapping, distractors: YNode?) -> Bool {
        let lefts = pairs.entries.map { (text: $0.key, node: pairs.keyNode($0)) }
        var rights = pairs.entries.compactMap { entry in
            scalarText(pairs.value(entry)).map { (text: $0, node: pairs.value(entry)) }
        }
        if let distractors, case let .sequence(nodes) = distractors.value {
            rights += nodes.compactMap { node in scalarText(node).map { (text: $0, node: node) } }
        }
        let leftsOK = rejectLookAlikes(lefts, entry: "left-hand entry")
        return rejectLookAlikes(rights, entry: "right-hand entry") && leftsOK
    }

    private func scalarText(_ node: YNode) -> String? {
        if case let .scalar(text, _) = node.value { return text }
        return nil
    }
}

/// Most assessment text is plain ASCII, for which the Unicode checks have a known answer;
/// telling so costs one pass over the bytes, where the checks cost a pass over the scalars'
/// properties and a normalisation each. A 50 000-item file spent most of its validation there.
/// `YAMLReadingTests` pins each answer against the full check.
enum PlainText {
    /// Printable ASCII (and line breaks and tabs, when allowed) has no character that
    /// `TerminalSafety.firstUnsafe` refuses: no control, bidirectional control or invisible one.
    static func isPrintableASCII(_ text: String, allowingLineBreaks: Bool) -> Bool {
        func check<S: Sequence<UInt8>>(_ bytes: S) -> Bool {
            for byte in bytes where byte &- 0x20 >= 0x5F {
                guard allowingLineBreaks && (byte == 0x0A || byte == 0x09) else { return false }
            }
            return true
        }
        // The text's own bytes in one buffer, for a tight loop; any other string by its view.
        return text.utf8.withContiguousStorageIfAvailable(check) ?? check(text.utf8)
    }

    /// Printable ASCII with single spaces between words and none at either end is its own
    /// look-alike key (`TerminalSafety.lookAlikeKey`: ASCII is unchanged by NFKC and holds nothing
    /// invisible, and its spaces are already single) and its own normal form
    /// (`AnswerText.normalise` keeping case, for the same reasons with NFC).
    static func isNormal(_ text: String) -> Bool {
        func check<S: Sequence<UInt8>>(_ bytes: S) -> Bool {
            var afterSpace = true
            for byte in bytes {
                guard byte &- 0x20 < 0x5F else { return false }
                if byte == 0x20 && afterSpace { return false }
                afterSpace = byte == 0x20
            }
            return !afterSpace || text.isEmpty
        }
        return text.utf8.withContiguousStorageIfAvailable(check) ?? check(text.utf8)
    }
}

/// A YAML mapping with string keys, in file order.
struct Mapping {
    /// A key, and where its pair is in `pairs`. The nodes stay in the tree's own array, which
    /// the mapping shares: a key is looked up without copying any node but the one found.
    struct Entry {
        var key: String
        var index: Int
    }

    var node: YNode
    var what: String
    var pairs: [YPair]
    var entries: [Entry]

    func keyNode(_ entry: Entry) -> YNode { pairs[entry.index].key }
    func value(_ entry: Entry) -> YNode { pairs[entry.index].value }

    subscript(key: String) -> YNode? {
        for entry in entries where entry.key.isSameKey(as: key) {
            let value = pairs[entry.index].value
            return value.isNull ? nil : value
        }
        return nil
    }

    func has(_ key: String) -> Bool { entries.contains { $0.key == key } }
}

extension String {
    /// Equality, with the lengths compared first: keys are short and mostly differ in length,
    /// which the standard library's comparison of two unequal strings does not look at first.
    @inline(__always)
    func isSameKey(as other: String) -> Bool {
        utf8.count == other.utf8.count && self == other
    }

    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }

    /// Long or hostile values are shortened, and unsafe characters quoted (`\u{1B}`), in messages.
    public var clippedForMessage: String { clippedForMessage(limit: 40) }

    public func clippedForMessage(limit: Int) -> String {
        let safe = TerminalSafety.visible(self, keepLineBreaks: false)
        return safe.count > limit ? String(safe.prefix(limit - 1)) + "…" : safe
    }
}
