import AssessmentMode
import Localization
/// Reads and validates an assessment file, reporting every problem in one pass.
public enum AssessmentReader {
    public struct Outcome: Sendable {
        /// Present only when there are no errors.
        public var assessment: Assessment?
        public var diagnostics: [Diagnostic]
    }

    public static let supportedFormatVersion = 1

    static let topLevelKeys = [
        "carrel", "id", "title", "description", "time_limit", "navigation", "shuffle", "results",
        "proctor", "policy", "sections", "language",
    ]

    public static func read(bytes: [UInt8], file: String, fileSize: Int? = nil) -> Outcome {
        switch SourceText.decode(bytes, file: file, fileSize: fileSize) {
        case let .failure(diagnostic): return Outcome(assessment: nil, diagnostics: [diagnostic])
        case let .success(text): return read(text: text, file: file)
        }
    }

    public static func read(text: String, file: String) -> Outcome {
        let fields = FieldReader(file: file)
        let root: YNode
        switch YAMLTree.parse(text) {
        case let .failure(.diagnostic(line, column, message)):
            fields.error(line: line, column: column, message)
            return Outcome(assessment: nil, diagnostics: fields.diagnostics)
        case let .success(parsed):
            for case let .diagnostic(line, column, message) in parsed.duplicates {
                fields.error(line: line, column: column, message)
            }
            guard let node = parsed.root else {
                fields.error(line: 1, column: 1, "file is empty; an assessment starts with `carrel: 1`")
                return Outcome(assessment: nil, diagnostics: fields.diagnostics)
            }
            root = node
        }
        let assessment = AssessmentDecoder(fields: fields).assessment(root)
        let diagnostics = fields.diagnostics.sorted { ($0.line, $0.column) < ($1.line, $1.column) }
        let ok = diagnostics.errors.isEmpty
        return Outcome(assessment: ok ? assessment : nil, diagnostics: diagnostics)
    }
}

/// `[a-z0-9][a-z0-9-]*`, at most 64 characters.
public enum Identifier {
    public static func isValid(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, s.unicodeScalars.count <= 64 else { return false }
        func allowed(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("0"..."9").contains(c) }
        return allowed(first) && s.unicodeScalars.allSatisfy { allowed($0) || $0 == "-" }
    }
}

struct AssessmentDecoder {
    let fields: FieldReader

    func assessment(_ root: YNode) -> Assessment? {
        guard case .mapping = root.value, let map = fields.mapping(root, "the assessment") else {
            fields.error(root, "an assessment is a mapping that starts with `carrel: 1`, not \(root.kindName)")
            return nil
        }
        fields.rejectUnknownKeys(map, allowed: AssessmentReader.topLevelKeys)
        let version = formatVersion(map)
        let id = identifier(map, "id", what: "the assessment")
        let title = required(map, "title", in: "the assessment").flatMap { fields.text($0, "title") }
        let description = map["description"].flatMap { fields.text($0, "description", .multiLine) }
        let timeLimit = map["time_limit"].flatMap { fields.duration($0, "time_limit") }
        let navigation = map["navigation"].flatMap { fields.word($0, "navigation", as: Navigation.self) } ?? .free
        let shuffle = map["shuffle"].flatMap(shuffleOptions) ?? Shuffle()
        let results = map["results"].flatMap(resultOptions) ?? ResultOptions()
        let proctor = map["proctor"].flatMap(proctorSettings) ?? ProctorSettings()
        let policy = map["policy"].flatMap(restrictionPolicy) ?? RestrictionPolicy()
        if let limit = timeLimit, let node = map["time_limit"], limit > policy.maxDuration {
            fields.warning(node, "time_limit is longer than the session cap (policy.max_duration \(DurationText.format(policy.maxDuration))); the session will end at the cap")
        }
        let sections = required(map, "sections", in: "the assessment").flatMap(sectionList)
        var language: String?
        if let node = map["language"], let tag = fields.text(node, "language") {
            if let known = Language(tag: tag), known != .pseudo {
                language = known.rawValue
            } else {
                fields.error(node, "language: " + Language.unknown(tag.clippedForMessage))
            }
        }
        guard let version, let id, let title, let sections else { return nil }
        var assessment = Assessment(
            formatVersion: version, id: id, title: title, description: description, timeLimit: timeLimit,
            navigation: navigation, shuffle: shuffle, results: results, proctor: proctor, policy: policy,
            sections: sections)
        assessment.language = language
        return assessment
    }

    func required(_ map: Mapping, _ key: String, in what: String) -> YNode? {
        if let node = map[key] { return node }
        let entry = map.entries.first { $0.key == key }
        if let entry {
            fields.error(map.value(entry), "`\(key)` in \(what) is empty")
        } else {
            fields.error(map.node, "\(what) is missing the required key `\(key)`")
        }
        return nil
    }

    func formatVersion(_ map: Mapping) -> Int? {
        guard let node = map["carrel"] else {
            fields.error(map.node, "missing the format version: the file must start with `carrel: 1`")
            return nil
        }
        guard let version = fields.wholeNumber(node, "carrel (the format version)", atLeast: 1) else { return nil }
        guard version == AssessmentReader.supportedFormatVersion else {
            fields.error(node, "format version \(version) is not supported; this Carrel reads `carrel: 1`")
            return nil
        }
        return version
    }

    func identifier(_ map: Mapping, _ key: String, what: String) -> String? {
        guard let node = required(map, key, in: what), let value = fields.text(node, key) else { return nil }
        guard Identifier.isValid(value) else {
            fields.error(node, "\(key) \"\(value.clippedForMessage)\" must use only a-z, 0-9 and '-', start with a letter or digit, and be at most 64 characters")
            return nil
        }
        return value
    }

    func shuffleOptions(_ node: YNode) -> Shuffle? {
        guard let map = fields.mapping(node, "shuffle") else { return nil }
        fields.rejectUnknownKeys(map, allowed: ["items", "choices"])
        var shuffle = Shuffle()
        if let n = map["items"], let b = fields.bool(n, "shuffle.items") { shuffle.items = b }
        if let n = map["choices"], let b = fields.bool(n, "shuffle.choices") { shuffle.choices = b }
        return shuffle
    }

    func resultOptions(_ node: YNode) -> ResultOptions? {
        guard let map = fields.mapping(node, "results") else { return nil }
        fields.rejectUnknownKeys(map, allowed: ["show_score"])
        var options = ResultOptions()
        if let n = map["show_score"], let b = fields.bool(n, "results.show_score") { options.showScore = b }
        return options
    }

    func proctorSettings(_ node: YNode) -> ProctorSettings? {
        guard let map = fields.mapping(node, "proctor") else { return nil }
        fields.rejectUnknownKeys(map, allowed: ["passphrase", "key"])
        var settings = ProctorSettings()
        var readable = true
        if let n = map["passphrase"], let text = fields.text(n, "proctor.passphrase") {
            do {
                settings.passphrase = try PassphraseHash(parsing: text)
            } catch {
                fields.error(n, "proctor.passphrase is \(error.description)")
                readable = false
            }
        }
        if let n = map["key"], let text = fields.text(n, "proctor.key") {
            do {
                settings.key = try ProctorKey(parsing: text)
            } catch {
                fields.error(n, "proctor.key is \(error.description)")
                readable = false
            }
            if readable, settings.passphrase == nil {
                fields.error(n, "proctor.key needs proctor.passphrase beside it: `carrel passphrase` prints both lines from the same passphrase")
                readable = false
            }
        }
        return readable ? settings : nil
    }

    func restrictionPolicy(_ node: YNode) -> RestrictionPolicy? {
        guard let map = fields.mapping(node, "policy") else { return nil }
        fields.rejectUnknownKeys(map, allowed: RestrictionPolicy.keys)
        var p = RestrictionPolicy()
        if let n = map["paste"], let v = fields.word(n, "policy.paste", as: RestrictionPolicy.Paste.self) { p.paste = v }
        if let n = map["pasteboards"], let v = fields.word(n, "policy.pasteboards", as: RestrictionPolicy.Pasteboards.self) { p.pasteboards = v }
        if let n = map["multiplexer"], let v = fields.word(n, "policy.multiplexer", as: RestrictionPolicy.Multiplexer.self) { p.multiplexer = v }
        if let n = map["extensions"], let v = fields.word(n, "policy.extensions", as: RestrictionPolicy.Extensions.self) { p.extensions = v }
        if let n = map["suspend"], let v = fields.word(n, "policy.suspend", as: RestrictionPolicy.Suspend.self) { p.suspend = v }
        if let n = map["focus"], let v = fields.word(n, "policy.focus", as: RestrictionPolicy.Focus.self) { p.focus = v }
        if let n = map["remote"], let v = fields.word(n, "policy.remote", as: RestrictionPolicy.Remote.self) { p.remote = v }
        if let n = map["shared"], let v = fields.word(n, "policy.shared", as: RestrictionPolicy.Shared.self) {
            p.shared = v == .optional ? nil : v
        }
        if let n = map["max_duration"], let seconds = fields.duration(n, "policy.max_duration") {
            if seconds < 60 || seconds > RestrictionPolicy.longestMaxDuration {
                fields.error(n, "policy.max_duration must be between 1m and 24h")
            } else {
                p.maxDuration = seconds
            }
        }
        p.machine = machinePolicy(map)
        return p
    }

    /// The keys of assessment mode for the whole machine; nil when the test names none.
    func machinePolicy(_ map: Mapping) -> MachinePolicy? {
        guard MachinePolicy.keys.contains(where: { map[$0] != nil }) else { return nil }
        var m = MachinePolicy()
        if let n = map["machine"] { m.machine = fields.word(n, "policy.machine", as: MachinePolicy.Machine.self) }
        if let n = map["network"] { m.network = fields.word(n, "policy.network", as: MachinePolicy.Network.self) }
        if let n = map["logins"] { m.logins = fields.word(n, "policy.logins", as: MachinePolicy.Logins.self) }
        if let n = map["sessions"] { m.sessions = fields.word(n, "policy.sessions", as: MachinePolicy.Sessions.self) }
        if let n = map["consoles"] { m.consoles = fields.word(n, "policy.consoles", as: MachinePolicy.Consoles.self) }
        if let n = map["devices"] { m.devices = fields.word(n, "policy.devices", as: MachinePolicy.Devices.self) }
        if let n = map["processes"] { m.processes = fields.word(n, "policy.processes", as: MachinePolicy.Processes.self) }
        return m
    }

    func sectionList(_ node: YNode) -> [Section]? {
        guard let nodes = fields.list(node, "sections") else { return nil }
        guard !nodes.isEmpty else {
            fields.error(node, "sections is empty; an assessment needs at least one section with items")
            return nil
        }
        var ids = ItemIDs()
        var sections: [Section] = []
        var ok = true
        for (index, sectionNode) in nodes.enumerated() {
            if let section = section(sectionNode, number: index + 1, ids: &ids) {
                sections.append(section)
            } else {
                ok = false
            }
        }
        return ok ? sections : nil
    }

    /// Item ids seen so far, to report duplicates with the first place.
    struct ItemIDs {
        var firstLine: [String: Int] = [:]
    }

    func section(_ node: YNode, number: Int, ids: inout ItemIDs) -> Section? {
        let what = "section \(number)"
        guard let map = fields.mapping(node, what) else { return nil }
        fields.rejectUnknownKeys(map, allowed: ["title", "instructions", "proctor_note", "items", "draw"])
        let title = map["title"].flatMap { fields.text($0, "\(what) title") }
        let instructions = map["instructions"].flatMap { fields.text($0, "\(what) instructions", .multiLine) }
        let proctorNote = map["proctor_note"].flatMap { fields.text($0, "\(what) proctor_note", .multiLine) }
        guard let itemsNode = required(map, "items", in: what), let nodes = fields.list(itemsNode, "\(what) items") else {
            return nil
        }
        guard !nodes.isEmpty else {
            fields.error(itemsNode, "\(what) has no items")
            return nil
        }
        var items: [Item] = []
        items.reserveCapacity(nodes.count)
        var ok = true
        for itemNode in nodes {
            if let item = ItemDecoder(fields: fields).item(itemNode, ids: &ids) {
                items.append(item)
            } else {
                ok = false
            }
        }
        guard ok else { return nil }
        var section = Section(title: title, instructions: instructions, items: items, proctorNote: proctorNote)
        if let drawNode = map["draw"] {
            guard let draw = fields.wholeNumber(drawNode, "\(what) draw", atLeast: 1) else { return nil }
            guard draw <= items.count else {
                fields.error(drawNode, "\(what) draws \(draw) items but has only \(items.count); draw at most \(items.count)")
                return nil
            }
            if let first = items.first, let other = items.first(where: { $0.points != first.points }) {
                fields.warning(drawNode, "the items of this pool are not worth the same points (\(first.id): \(PointsText.format(first.points)), \(other.id): \(PointsText.format(other.points))), so students can be given tests of different totals")
            }
            section.draw = draw
        }
        return section
    }
}
