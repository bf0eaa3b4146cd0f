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

    static func parse(_ text: String) -> Result<YNode?, Failure> {
        if let refusal = YAMLPrescan.refusal(in: text, maximumDepth: maximumDepth) {
            return .failure(.diagnostic(line: refusal.line, column: refusal.column, message: refusal.message))
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            return .failure(failure(from: error))
        } catch {
            return .failure(.diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error)"))
        }
        guard let root else { return .success(nil) }
        var budget = nodeBudget
        do {
            return .success(try convert(root, depth: 0, budget: &budget))
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(.diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error)"))
        }
    }

    private static func convert(_ node: Node, depth: Int, budget: inout Int) throws -> YNode {
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
            return YNode(value: .scalar(scalar.string, plain: scalar.style == .plain), line: line, column: column)
        case let .sequence(sequence):
            var items: [YNode] = []
            items.reserveCapacity(sequence.count)
            for child in sequence {
                items.append(try convert(child, depth: depth + 1, budget: &budget))
            }
            return YNode(value: .sequence(items), line: line, column: column)
        case let .mapping(mapping):
            var pairs: [(key: YNode, value: YNode)] = []
            pairs.reserveCapacity(mapping.count)
            for (key, value) in mapping {
                let k = try convert(key, depth: depth + 1, budget: &budget)
                let v = try convert(value, depth: depth + 1, budget: &budget)
                pairs.append((k, v))
            }
            return YNode(value: .mapping(pairs), line: line, column: column)
        case let .alias(alias):
            throw Failure.diagnostic(
                line: alias.mark?.line ?? line, column: alias.mark?.column ?? column,
                message: "unresolved alias")
        }
    }

    private static func failure(from error: YamlError) -> Failure {
        switch error {
        case let .scanner(context, problem, mark, _),
             let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            var message = "YAML syntax: \(problem)"
            if let context { message += " (\(context.text) at line \(context.mark.line))" }
            return .diagnostic(line: mark.line, column: mark.column, message: message)
        case let .duplicatedKeysInMapping(duplicates, context):
            let names = duplicates.map { "\"\($0.clippedForMessage)\"" }.joined(separator: ", ")
            return .diagnostic(line: context.mark.line, column: context.mark.column,
                               message: "duplicate key \(names) in the same mapping; keep one")
        case let .reader(problem, _, _, _):
            return .diagnostic(line: 1, column: 1, message: "YAML could not be read: \(problem)")
        default:
            return .diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error)")
        }
    }
}
