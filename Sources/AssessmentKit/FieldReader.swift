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
        for pair in pairs {
            guard case let .scalar(key, _) = pair.key.value else {
                error(pair.key, "keys in \(what) must be plain words")
                continue
            }
            entries.append(Mapping.Entry(key: key, keyNode: pair.key, value: pair.value))
        }
        return Mapping(node: node, what: what, entries: entries)
    }

    /// Reports keys outside `allowed`, suggesting the closest one.
    func rejectUnknownKeys(_ map: Mapping, allowed: [String], elsewhere: (String) -> String? = { _ in nil }) {
        for (index, entry) in map.entries.enumerated() where !allowed.contains(entry.key) {
            if index > 0, let explanation = decimalComma(before: entry, map.entries[index - 1]) {
                error(entry.keyNode, explanation)
            } else if let explanation = elsewhere(entry.key) {
                error(entry.keyNode, explanation)
            } else {
                let hint = DidYouMean.hint(for: entry.key, among: allowed)
                error(entry.keyNode, "unknown key `\(entry.key.clippedForMessage)` in \(map.what)\(hint)")
            }
        }
    }

    /// `answer: 3,14` inside `{…}` reads as `answer: 3` and a key `14`: the comma separates entries.
    func decimalComma(before entry: Mapping.Entry, _ previous: Mapping.Entry) -> String? {
        guard entry.value.isNull, entry.keyNode.line == previous.value.line,
              entry.key.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }),
              case let .scalar(whole, true) = previous.value.value, Int(whole) != nil
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
        var seen: [String: YNode] = [:]
        var ok = true
        for child in nodes {
            guard let value = text(child, entry) else { ok = false; continue }
            let key = PlainText.isNormal(value) ? value : AnswerText.normalise(value, caseSensitive: true)
            if let first = seen[key] {
                error(child, "duplicate \(entry) \"\(value.clippedForMessage)\" (first at line \(first.line))")
                ok = false
                continue
            }
            seen[key] = child
            out.append((value, child))
        }
        if ok, !rejectLookAlikes(out, entry: entry) { ok = false }
        return ok ? out : nil
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
        let lefts = pairs.entries.map { (text: $0.key, node: $0.keyNode) }
        var rights = pairs.entries.compactMap { entry in scalarText(entry.value).map { (text: $0, node: entry.value) } }
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
        text.utf8.allSatisfy { byte in
            (0x20..<0x7F).contains(byte) || (allowingLineBreaks && (byte == 0x0A || byte == 0x09))
        }
    }

    /// Printable ASCII with single spaces between words and none at either end is its own
    /// look-alike key (`TerminalSafety.lookAlikeKey`: ASCII is unchanged by NFKC and holds nothing
    /// invisible, and its spaces are already single) and its own normal form
    /// (`AnswerText.normalise` keeping case, for the same reasons with NFC).
    static func isNormal(_ text: String) -> Bool {
        var afterSpace = true
        for byte in text.utf8 {
            guard (0x20..<0x7F).contains(byte) else { return false }
            if byte == 0x20 && afterSpace { return false }
            afterSpace = byte == 0x20
        }
        return !afterSpace || text.isEmpty
    }
}

/// A YAML mapping with string keys, in file order.
struct Mapping {
    struct Entry {
        var key: String
        var keyNode: YNode
        var value: YNode
    }

    var node: YNode
    var what: String
    var entries: [Entry]

    subscript(key: String) -> YNode? {
        entries.first { $0.key == key }.flatMap { $0.value.isNull ? nil : $0.value }
    }

    func has(_ key: String) -> Bool { entries.contains { $0.key == key } }
}

extension String {
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
