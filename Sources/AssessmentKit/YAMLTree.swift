// libyaml's event parser, which the Yams package builds and links as its `CYaml` module (the
// `Yams` product brings it; SwiftPM makes a dependency's C modules importable). Carrel walks the
// events itself rather than composing Yams' `Node` tree: that tree resolves every scalar's tag
// through regular expressions to check for duplicate keys, allocates a tag object per value, and
// must be converted again; reading the events directly is several times faster. See `YAMLTree`.
import CYaml

/// A YAML value with the line and column it came from.
struct YNode: Sendable {
    enum Value: Sendable {
        /// `plain` is false for quoted and block scalars, which are always strings.
        case scalar(String, plain: Bool)
        case sequence([YNode])
        case mapping([YPair])
    }

    var value: Value
    // 32 bits each: a file is at most 16 MiB, and a smaller node makes the tree of a large
    // test smaller (a node is 32 bytes, not 40), which is memory every seat faults in.
    private var line32: Int32
    private var column32: Int32
    var line: Int { Int(line32) }
    var column: Int { Int(column32) }

    init(value: Value, line: Int, column: Int) {
        self.value = value
        self.line32 = Int32(clamping: line)
        self.column32 = Int32(clamping: column)
    }

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

/// One key and its value in a mapping. A struct, not a tuple: the compiler copies a struct of
/// known layout directly, where a tuple in a generic array goes through the runtime.
struct YPair: Sendable {
    var key: YNode
    var value: YNode
}

/// Turns YAML text into a located tree, with bounded work whatever the input.
///
/// The tree is built straight from libyaml's events, in one pass. Every scalar is kept as the
/// text written (with whether it was plain): Carrel interprets numbers, booleans and nulls
/// itself (`FieldReader`), so no tag is ever resolved. Duplicate keys are found by name as each
/// mapping is built, and what aliases add is counted as they are met.
enum YAMLTree {
    static let maximumDepth = 64

    /// Values that aliases may repeat in any file, however small.
    static let aliasAllowanceFloor = 250_000

    /// How many values aliases (`*name`) may add to a file of `bytes` bytes: its size again, plus
    /// the floor. Values written out in the file are never counted: reading them is linear in
    /// the file, whose size is capped, so a 16 MiB file of plain items is read whole. Only an
    /// alias makes the document larger than its text, and that growth is what is bounded.
    static func aliasAllowance(forBytes bytes: Int) -> Int {
        aliasAllowanceFloor + max(0, bytes)
    }

    enum Failure: Error {
        case diagnostic(line: Int, column: Int, message: String)
    }

    /// A tree, and the duplicate keys found (and dropped, the first kept) on the way.
    struct Parsed {
        var root: YNode?
        var duplicates: [Failure] = []
    }

    static func parse(_ text: String) -> Result<Parsed, Failure> {
        parse(text, aliasAllowance: aliasAllowance(forBytes: text.utf8.count))
    }

    static func parse(_ text: String, aliasAllowance: Int) -> Result<Parsed, Failure> {
        if let refusal = YAMLPrescan.refusal(in: text, maximumDepth: maximumDepth) {
            return .failure(.diagnostic(line: refusal.line, column: refusal.column, message: refusal.message))
        }
        var source = text
        return source.withUTF8 { bytes in
            let events = EventStream(bytes)
            var builder = Builder(events: events, aliasAllowance: aliasAllowance)
            do {
                let root = try builder.document()
                // A refusal found on the way waits until the whole text has parsed, so that a
                // syntax error, the likelier mistake, is the one reported.
                if let refusal = builder.refusal { return .failure(refusal) }
                return .success(Parsed(root: root, duplicates: builder.duplicates))
            } catch let error as SyntaxError {
                return .failure(failure(from: error, in: text))
            } catch {
                return .failure(.diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error)"))
            }
        }
    }

    /// What libyaml reports when it cannot go on (and the two composing errors found here).
    struct SyntaxError: Error {
        enum Stage { case reader, scanner, parser, composer, memory }
        var stage: Stage
        var problem: String
        var line: Int
        var column: Int
        var context: (text: String, line: Int, column: Int)?
    }

    private static func failure(from error: SyntaxError, in text: String) -> Failure {
        switch error.stage {
        case .scanner, .parser, .composer:
            let context = error.context.map { ($0.line, $0.column) }
            if let plain = PlainWords.explain(problem: error.problem, at: (error.line, error.column),
                                              context: context, in: text) {
                return .diagnostic(line: plain.line, column: plain.column, message: plain.message)
            }
            var message = "YAML syntax: \(error.problem)"
            if let context = error.context { message += " (\(context.text) at line \(context.line))" }
            return .diagnostic(line: error.line, column: error.column, message: message)
        case .reader, .memory:
            return .diagnostic(line: 1, column: 1, message: "YAML could not be read: \(error.problem)")
        }
    }

    /// One libyaml event, copied out of the C structure (which is freed at once).
    enum Event {
        case streamStart, streamEnd, documentStart, documentEnd
        case alias(anchor: String)
        case scalar(String, plain: Bool, anchor: String?)
        case sequenceStart(anchor: String?)
        case sequenceEnd
        case mappingStart(anchor: String?)
        case mappingEnd
    }

    /// libyaml's parser over UTF-8 bytes that stay valid while it lives.
    final class EventStream {
        private let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        private let event = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
        private let initialised: Bool

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            initialised = yaml_parser_initialize(parser) == 1
            guard initialised else { return }
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)
        }

        deinit {
            if initialised { yaml_parser_delete(parser) }
            parser.deallocate()
            event.deallocate()
        }

        /// The next event and the line and column (1-based, in characters) where it starts.
        func next() throws(SyntaxError) -> (event: Event, line: Int, column: Int) {
            guard initialised else {
                throw SyntaxError(stage: .memory, problem: "out of memory", line: 1, column: 1)
            }
            guard yaml_parser_parse(parser, event) == 1 else { throw error() }
            defer { yaml_event_delete(event) }
            let e = event.pointee
            let line = e.start_mark.line + 1, column = e.start_mark.column + 1
            switch e.type {
            case YAML_STREAM_START_EVENT: return (.streamStart, line, column)
            case YAML_STREAM_END_EVENT: return (.streamEnd, line, column)
            case YAML_DOCUMENT_START_EVENT: return (.documentStart, line, column)
            case YAML_DOCUMENT_END_EVENT: return (.documentEnd, line, column)
            case YAML_ALIAS_EVENT: return (.alias(anchor: Self.string(e.data.alias.anchor) ?? ""), line, column)
            case YAML_SCALAR_EVENT:
                let scalar = e.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                return (.scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE, anchor: Self.string(scalar.anchor)),
                        line, column)
            case YAML_SEQUENCE_START_EVENT: return (.sequenceStart(anchor: Self.string(e.data.sequence_start.anchor)), line, column)
            case YAML_SEQUENCE_END_EVENT: return (.sequenceEnd, line, column)
            case YAML_MAPPING_START_EVENT: return (.mappingStart(anchor: Self.string(e.data.mapping_start.anchor)), line, column)
            case YAML_MAPPING_END_EVENT: return (.mappingEnd, line, column)
            default:
                throw SyntaxError(stage: .parser, problem: "unexpected event", line: line, column: column)
            }
        }

        private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            pointer.map { String(cString: $0) }
        }

        private func error() -> SyntaxError {
            let p = parser.pointee
            let problem = p.problem.map { String(cString: $0) } ?? "unknown problem"
            let line = p.problem_mark.line + 1, column = p.problem_mark.column + 1
            switch p.error {
            case YAML_READER_ERROR:
                return SyntaxError(stage: .reader, problem: problem, line: 1, column: 1)
            case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
                let context = p.context.map {
                    (text: String(cString: $0), line: p.context_mark.line + 1, column: p.context_mark.column + 1)
                }
                return SyntaxError(stage: p.error == YAML_SCANNER_ERROR ? .scanner : .parser, problem: problem,
                                   line: line, column: column, context: context)
            default:
                return SyntaxError(stage: .memory, problem: "out of memory", line: 1, column: 1)
            }
        }
    }

    /// Builds the located tree from the events, counting what aliases repeat.
    struct Builder {
        let events: EventStream
        let aliasAllowance: Int
        var duplicates: [Failure] = []
        /// The first refusal (nesting, or aliases past the allowance), reported after the parse.
        var refusal: Failure?
        /// Values aliases have repeated so far.
        var repeated = 0
        /// Values in the tree so far, each repeat counted in full.
        var expanded = 0
        /// Each anchored node, with the values it expands to. An alias stands for the latest
        /// node anchored under its name; the node is shared, not rebuilt, but the validator walks
        /// every repeat, so each counts against the allowance.
        var anchors: [String: (node: YNode, size: Int)] = [:]
        /// The children of the lists and mappings being built, innermost last. Each collection
        /// is copied out at its end into an array of exactly its size: one allocation each,
        /// where appending to its own array would grow it several times.
        var openItems: [YNode] = []
        var openPairs: [YPair] = []

        init(events: EventStream, aliasAllowance: Int) {
            self.events = events
            self.aliasAllowance = aliasAllowance
        }

        /// The single document's root, or nil when the text holds none.
        mutating func document() throws(SyntaxError) -> YNode? {
            _ = try events.next()  // the stream's start
            guard case .documentStart = try events.next().event else { return nil }
            let root = try node(events.next(), depth: 0)
            _ = try events.next()  // the document's end
            let after = try events.next()
            if case .streamEnd = after.event { return root }
            throw SyntaxError(stage: .composer, problem: "but found another document", line: after.line, column: after.column,
                              context: (text: "expected a single document in the stream", line: 1, column: 1))
        }

        private mutating func refuse(_ line: Int, _ column: Int, _ message: String) {
            if refusal == nil { refusal = .diagnostic(line: line, column: column, message: message) }
        }

        mutating func node(_ start: (event: Event, line: Int, column: Int), depth: Int) throws(SyntaxError) -> YNode {
            let (event, line, column) = start
            if depth > maximumDepth {
                refuse(line, column, "nesting is deeper than \(maximumDepth) levels; this is not an assessment")
                try skip(event)
                return YNode(value: .scalar("", plain: true), line: line, column: column)
            }
            switch event {
            case let .scalar(text, plain, anchor):
                expanded += 1
                let node = YNode(value: .scalar(text, plain: plain), line: line, column: column)
                if let anchor { anchors[anchor] = (node, 1) }
                return node
            case let .alias(name):
                guard let anchored = anchors[name] else {
                    // Its anchor may be in a value not kept, past the nesting limit.
                    if refusal != nil { return YNode(value: .scalar("", plain: true), line: line, column: column) }
                    throw SyntaxError(stage: .composer, problem: "found undefined alias", line: line, column: column)
                }
                // Once refused, counting stops: sizes past the allowance only grow (nine
                // aliases of nine aliases, thirty times over, overflow any integer).
                guard refusal == nil else { return anchored.node }
                repeated += anchored.size
                expanded += anchored.size
                if repeated > aliasAllowance {
                    refuse(line, column, "through aliases (`*name`) the document expands to more than \(aliasAllowance) values beyond those written in it (aliases repeating aliases?); refused")
                }
                return anchored.node
            case let .sequenceStart(anchor):
                let before = expanded
                expanded += 1
                let base = openItems.count
                while true {
                    let next = try events.next()
                    if case .sequenceEnd = next.event { break }
                    let item = try node(next, depth: depth + 1)
                    openItems.append(item)
                }
                let items = Array(openItems[base...])
                openItems.removeSubrange(base...)
                let node = YNode(value: .sequence(items), line: line, column: column)
                if let anchor { anchors[anchor] = (node, expanded - before) }
                return node
            case let .mappingStart(anchor):
                let before = expanded
                expanded += 1
                let base = openPairs.count
                var keys = KeyIndex()
                while true {
                    let next = try events.next()
                    if case .mappingEnd = next.event { break }
                    let key = try node(next, depth: depth + 1)
                    let value = try node(events.next(), depth: depth + 1)
                    if case let .scalar(name, _) = key.value,
                       let first = keys.firstLine(of: name, among: openPairs[base...]) {
                        duplicates.append(.diagnostic(
                            line: key.line, column: key.column,
                            message: "duplicate key `\(name.clippedForMessage)` (first at line \(first)); keep one"))
                        continue
                    }
                    openPairs.append(YPair(key: key, value: value))
                    keys.added(key, among: openPairs[base...])
                }
                let pairs = Array(openPairs[base...])
                openPairs.removeSubrange(base...)
                let node = YNode(value: .mapping(pairs), line: line, column: column)
                if let anchor { anchors[anchor] = (node, expanded - before) }
                return node
            case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
                throw SyntaxError(stage: .parser, problem: "unexpected event", line: line, column: column)
            }
        }

        /// Where each scalar key of a mapping being read was first written. Most mappings are
        /// an item's handful of keys, where comparing with each key is quicker than hashing;
        /// past `linearKeys`, a dictionary keeps large mappings linear.
        struct KeyIndex {
            static let linearKeys = 16
            private var lines: [String: Int]? = nil

            func firstLine(of name: String, among pairs: ArraySlice<YPair>) -> Int? {
                if let lines { return lines[name] }
                for pair in pairs {
                    if case let .scalar(key, _) = pair.key.value, key == name { return pair.key.line }
                }
                return nil
            }

            /// Notes `key`, just added as the last of `pairs` and not among the keys before it.
            mutating func added(_ key: YNode, among pairs: ArraySlice<YPair>) {
                if lines != nil {
                    if case let .scalar(name, _) = key.value { lines?[name] = key.line }
                } else if pairs.count == Self.linearKeys {
                    var index: [String: Int] = [:]
                    for pair in pairs {
                        if case let .scalar(name, _) = pair.key.value { index[name] = pair.key.line }
                    }
                    lines = index
                }
            }
        }

        /// Consumes the rest of a value that is not kept.
        private mutating func skip(_ event: Event) throws(SyntaxError) {
            var open = 0
            var current = event
            while true {
                switch current {
                case .sequenceStart, .mappingStart: open += 1
                case .sequenceEnd, .mappingEnd: open -= 1
                default: break
                }
                if open <= 0 { return }
                current = try events.next().event
            }
        }
    }
}
