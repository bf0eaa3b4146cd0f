import Yams

/// A YAML value with the line and column it came from.
struct YNode: Sendable {
    enum Value: Sendable {
        /// `plain` is false for quoted and block scalars, which are always strings.
        case scalar(String, plain: Bool)
        case sequence([YNode])
        case mapping([(key: YNode, value: YNode)])
    }

    var value: Value
    var line: Int
    var column: Int

    var kindName: String {
        switch value {
        case .scalar: return "a single value"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }

    /// True for `~`, `null` and an empty plain value.
    var isNull: Bool {
        if case let .scalar(text, plain) = value, plain {
            return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
        }
        return false
    }
}

/// Turns YAML text into a located tree, with bounded work whatever the input.
enum YAMLTree {
    /// More nodes than this means an alias bomb or a file no person wrote by hand.
    static let nodeBudget = 250_000
    static let maximumDepth = 64

    enum Failure: Error {
        case diagnostic(line: Int, column: Int, message: String)
    }

    /// A tree, and the duplicate keys found (and dropped, the first kept) on the way.
    struct Parsed {
        var root: YNode?
        var duplicates: [Failure] = []
    }

    static func parse(_ text: String) -> Result<Parsed, Failure> {
        if let refusal = YAMLPrescan.refusal(in: text, maximumDepth: maximumDepth) {
            return .failure(.diagnostic(line: refusal.line, column: refusal.column, message: refusal.message))
        }
        let root: Node?
        var renames = KeyRenames()
        do {
            root = try composeRenamingDuplicates(text, &renames)
        } catch let error as YamlError {
            return .failure(failure(from: error, in: text))
        } catch {
            return .failure(.diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error)"))
        }
        guard let root else { return .success(Parsed(root: nil)) }
        var budget = nodeBudget
        var duplicates: [Failure] = []
        do {
            let tree = try convert(root, depth: 0, budget: &budget, renames: renames, duplicates: &duplicates)
            return .success(Parsed(root: tree, duplicates: duplicates))
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(.diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error)"))
        }
    }

    /// Keys renamed so that the parser, which stops at the first duplicate key, can read the rest
    /// of the file: key position → the character replaced.
    struct KeyRenames {
        var original: [Position: (replacement: Unicode.Scalar, original: Unicode.Scalar)] = [:]
        struct Position: Hashable { var line: Int; var column: Int }
    }

    /// Re-parses at most this many bytes in all while working around duplicate keys.
    static let duplicateRecoveryBytes = 64 * 1024 * 1024

    /// Yams refuses a mapping with a duplicate key outright. To report every duplicate at its own
    /// place and still check the rest of the file, the first key of a duplicated pair is renamed
    /// (one character, so every position stays put) and the text parsed again; `convert` restores
    /// the name and reports the later key.
    private static func composeRenamingDuplicates(_ text: String, _ renames: inout KeyRenames) throws -> Node? {
        var source = text
        let attempts = min(100, duplicateRecoveryBytes / max(1, text.utf8.count))
        while true {
            do {
                return try Yams.compose(yaml: source)
            } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
                let position = KeyRenames.Position(line: context.mark.line, column: context.mark.column)
                let replacement = Unicode.Scalar(0xE000 + UInt32(renames.original.count)) ?? "\u{E000}"
                guard renames.original.count < attempts, renames.original[position] == nil, let key = duplicates.first,
                      let (renamed, replaced) = rename(key, at: position, in: source, with: replacement)
                else { throw YamlError.duplicatedKeysInMapping(duplicates: duplicates, context: context) }
                renames.original[position] = (replacement, replaced)
                source = renamed
            }
        }
    }

    /// Replaces the first character of `key` written at `position` (plain or quoted), or nil
    /// when the text there is not that key.
    static func rename(_ key: String, at position: KeyRenames.Position, in text: String,
                       with replacement: Unicode.Scalar) -> (String, Unicode.Scalar)? {
        var scalars = Array(text.unicodeScalars)
        var line = 1, i = 0
        while line < position.line, i < scalars.count {
            if scalars[i] == "\n" { line += 1 }
            i += 1
        }
        i += position.column - 1
        guard line == position.line, i >= 0, i < scalars.count else { return nil }
        if scalars[i] == "\"" || scalars[i] == "'" { i += 1 }
        guard i < scalars.count, let first = key.unicodeScalars.first, scalars[i] == first, first != "\\" else { return nil }
        let rest = key.unicodeScalars.dropFirst()
        guard scalars[(i + 1)...].starts(with: rest) else { return nil }
        scalars[i] = replacement
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return (String(out), first)
    }

    private static func convert(_ node: Node, depth: Int, budget: inout Int, renames: KeyRenames,
                                duplicates: inout [Failure]) throws -> YNode {
        let line = node.mark?.line ?? 1
        let column = node.mark?.column ?? 1
        budget -= 1
        if budget < 0 {
            throw Failure.diagnostic(
                line: line, column: column,
                message: "the document expands to more than \(nodeBudget) values (aliases referring to aliases?); refused")
        }
        if depth > maximumDepth {
            throw Failure.diagnostic(
                line: line, column: column,
                message: "nesting is deeper than \(maximumDepth) levels; this is not an assessment")
        }
        switch node {
        case let .scalar(scalar):
            var text = scalar.string
            if let renamed = renames.original[.init(line: line, column: column)] {
                text = String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == renamed.replacement ? renamed.original : $0 }))
            }
            return YNode(value: .scalar(text, plain: scalar.style == .plain), line: line, column: column)
        case let .sequence(sequence):
            var items: [YNode] = []
            items.reserveCapacity(sequence.count)
            for child in sequence {
                items.append(try convert(child, depth: depth + 1, budget: &budget, renames: renames, duplicates: &duplicates))
            }
            return YNode(value: .sequence(items), line: line, column: column)
        case let .mapping(mapping):
            var pairs: [(key: YNode, value: YNode)] = []
            pairs.reserveCapacity(mapping.count)
            var firstLine: [String: Int] = [:]
            for (key, value) in mapping {
                let k = try convert(key, depth: depth + 1, budget: &budget, renames: renames, duplicates: &duplicates)
                let v = try convert(value, depth: depth + 1, budget: &budget, renames: renames, duplicates: &duplicates)
                if case let .scalar(name, _) = k.value {
                    if let first = firstLine[name] {
                        duplicates.append(.diagnostic(
                            line: k.line, column: k.column,
                            message: "duplicate key `\(name.clippedForMessage)` (first at line \(first)); keep one"))
                        continue
                    }
                    firstLine[name] = k.line
                }
                pairs.append((k, v))
            }
            return YNode(value: .mapping(pairs), line: line, column: column)
        case let .alias(alias):
            throw Failure.diagnostic(
                line: alias.mark?.line ?? line, column: alias.mark?.column ?? column,
                message: "unresolved alias")
        }
    }

    private static func failure(from error: YamlError, in text: String) -> Failure {
        switch error {
        case let .scanner(context, problem, mark, _),
             let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            if let plain = PlainWords.explain(problem: problem, at: (mark.line, mark.column),
                                              context: context.map { ($0.mark.line, $0.mark.column) }, in: text) {
                return .diagnostic(line: plain.line, column: plain.column, message: plain.message)
            }
            var message = "YAML syntax: \(problem)"
            if let context { message += " (\(context.text) at line \(context.mark.line))" }
            return .diagnostic(line: mark.line, column: mark.column, message: message)
        case let .duplicatedKeysInMapping(duplicates, context):
            let names = duplicates.map { "`\($0.clippedForMessage)`" }.joined(separator: ", ")
            return .diagnostic(line: context.mark.line, column: context.mark.column,
                               message: "duplicate key \(names) in the same mapping; keep one")
        case let .reader(problem, _, _, _):
            return .diagnostic(line: 1, column: 1, message: "YAML could not be read: \(problem)")
        default:
            return .diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error)")
        }
    }
}
