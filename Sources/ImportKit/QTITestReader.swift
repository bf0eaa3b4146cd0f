import AssessmentKit

/// A QTI `assessmentTest` (QTI 3's `qti-assessment-test`) as sections of a bank: each test
/// part's sections in order, a `selection` as a pool (`draw`), `ordering shuffle` as Carrel's
/// item shuffle, the test's `timeLimits` as its time limit and a linear test part as linear
/// navigation. Every item it refers to is read with the item reader; what Carrel has no place
/// for is named once per kind.
struct QTITestReader {
    let files: PackageFiles
    var bank: ImportedBank
    /// The item files the test uses, and the first place each is referred to.
    var referenced: [String: (file: String, line: Int)] = [:]
    /// Section files being read, to refuse one that includes itself.
    var including: [String] = []
    /// Sections of more than one item that shuffle them, and those that keep their order.
    var shuffled: [Group] = []
    var ordered: [Group] = []
    /// Elements Carrel does not keep, by name: how many, and the first one's place.
    var dropped: [String: (file: String, line: Int, count: Int)] = [:]
    /// How deep the section being read is, across the files sections are kept in.
    var depth = 0
    /// Deeper sections are left out (no test nests so deep; reading them would only cost stack).
    static let maximumDepth = 64

    /// The items of one Carrel section, gathered from a QTI section and the hidden sections
    /// merged into it.
    struct Group {
        /// How messages name it: `section “Warm-up”`.
        var name: String
        var title: String?
        var file: String
        var line: Int
        var instructions: String?
        var proctorNote: String?
        var selection: XElement?
        var shuffles = false
        var references = 0
        var questions: [ImportedQuestion] = []
    }

    /// Reads the test at `path` into `bank` and returns the item files it uses.
    static func read(_ root: XElement, path: String, in files: PackageFiles,
                     into bank: inout ImportedBank) throws(ImportRefusal) -> Set<String> {
        var reader = QTITestReader(files: files, bank: bank)
        try reader.test(root, path: path)
        bank = reader.bank
        return Set(reader.referenced.keys)
    }

    mutating func test(_ root: XElement, path: String) throws(ImportRefusal) {
        let label = files.label(path)
        including = [path]
        bank.title = ImportText.clean(root.attributes["title"] ?? "", multiLine: false).nonEmpty
        if let limits = root.first("timeLimits") { timeLimit(limits, file: label) }
        note(root, file: label)
        let parts = root.all("testPart")
        if parts.isEmpty {
            bank.diagnostics.append(.error(label, root.line, "the test has no testPart, so it gives no items"))
        }
        var linear: [XElement] = []
        var free: [XElement] = []
        for part in parts {
            if part.attributes["navigationMode"] == "linear" { linear.append(part) } else { free.append(part) }
            var group = Group(name: "test part “\(Self.identifier(part))”", title: nil, file: label, line: part.line)
            try contents(of: part, in: path, titles: [], into: &group)
            close(&group)
        }
        if let first = linear.first {
            bank.navigation = .linear
            if let other = free.first {
                bank.diagnostics.append(.warning(label, other.line, "test part “\(Self.identifier(other))” is nonlinear but “\(Self.identifier(first))” is linear; Carrel's navigation is the whole test's, so all of it is linear"))
            }
        }
        if let first = shuffled.first {
            bank.shuffleItems = true
            if !ordered.isEmpty {
                let fixed = ordered.map(\.name).joined(separator: ", ").clippedForMessage(limit: 300)
                bank.diagnostics.append(.warning(first.file, first.line, "only some sections shuffle their items; Carrel shuffles the items of every section, so \(fixed) \(ordered.count == 1 ? "is" : "are") shuffled too"))
            }
        }
        for name in Self.notKept.map(\.name) + ["timeLimits"] {
            guard let found = dropped[name] else { continue }
            let count = found.count > 1 ? " (\(found.count) of them)" : ""
            let why = Self.notKept.first { $0.name == name }?.why
                ?? "only the whole test's time limit is kept (time_limit); test parts, sections and items have none of their own"
            let what = name == "timeLimits" ? "timeLimits below the test" : name
            bank.diagnostics.append(.warning(found.file, found.line, "\(what)\(count) is not kept: \(why)"))
        }
    }

    /// What Carrel has no place for, and why, in the order they are reported.
    static let notKept: [(name: String, why: String)] = [
        ("preCondition", "Carrel gives every section and item, whatever the answers so far"),
        ("branchRule", "Carrel does not jump; students go through every section"),
        ("itemSessionControl", "attempts, review, skipping, feedback and solutions follow Carrel's own navigation and results settings"),
        ("outcomeProcessing", "Carrel's score is the sum of the items' points"),
        ("testFeedback", "Carrel shows no feedback of the test's own"),
        ("weight", "each item is worth its own points"),
        ("variableMapping", "each item is scored as written"),
        ("templateDefault", "Carrel computes no template variables"),
    ]

    /// Counts every element of `root` that Carrel does not keep (`timeLimits` anywhere but on the test).
    mutating func note(_ root: XElement, file: String) {
        let testLimits = root.name == "assessmentTest" ? root.first("timeLimits") : nil
        for element in root.descendants {
            let counted = element.name == "timeLimits" ? element !== testLimits : Self.notKept.contains { $0.name == element.name }
            guard counted else { continue }
            if let seen = dropped[element.name] {
                dropped[element.name] = (seen.file, seen.line, seen.count + 1)
            } else {
                dropped[element.name] = (file, element.line, 1)
            }
        }
    }

    /// The longest `maxTime` kept; anything longer is surely not meant (a week).
    static let longestTimeLimit = 7 * 24 * 3600

    /// The test's `maxTime` (seconds, possibly with a fraction) as its time limit.
    mutating func timeLimit(_ limits: XElement, file: String) {
        if limits.attributes["minTime"] != nil {
            bank.diagnostics.append(.warning(file, limits.line, "minTime is not kept: Carrel lets students hand in at any time"))
        }
        guard let text = limits.attributes["maxTime"] else { return }
        let shown = text.clippedForMessage(limit: 40)
        guard let seconds = Double(text.trimmed()), seconds.isFinite, seconds > 0 else {
            bank.diagnostics.append(.warning(file, limits.line, "the test's maxTime “\(shown)” is not a number of seconds above zero; the test is imported untimed"))
            return
        }
        guard seconds <= Double(Self.longestTimeLimit) else {
            bank.diagnostics.append(.warning(file, limits.line, "the test's maxTime of \(shown) seconds is longer than a week; the test is imported untimed"))
            return
        }
        let limit = Int(seconds.rounded(.up))
        bank.timeLimit = limit
        if limit > RestrictionPolicy.defaultMaxDuration {
            bank.diagnostics.append(.warning(file, limits.line, "the test's maxTime (\(DurationText.format(limit))) is longer than a session may last (policy.max_duration \(DurationText.format(RestrictionPolicy.defaultMaxDuration))); raise max_duration or the session ends first"))
        }
    }

    /// The item references and sections inside a test part or section, in order.
    mutating func contents(of parent: XElement, in path: String, titles: [String], into group: inout Group) throws(ImportRefusal) {
        for child in parent.elements {
            switch child.name {
            case "assessmentItemRef": try item(child, in: path, into: &group)
            case "assessmentSection": try section(child, in: path, titles: titles, around: &group)
            case "assessmentSectionRef": try sectionFile(child, in: path, titles: titles, around: &group)
            default: continue
            }
        }
    }

    /// A visible section (or one that draws) is a Carrel section of its own, titled with the
    /// titles of the sections around it; a hidden one gives its items to the section around it.
    mutating func section(_ e: XElement, in path: String, titles: [String], around outer: inout Group) throws(ImportRefusal) {
        guard depth < Self.maximumDepth else {
            bank.diagnostics.append(.error(files.label(path), e.line, "sections nest deeper than \(Self.maximumDepth) levels; section “\(Self.identifier(e))” and what it holds are left out"))
            return
        }
        depth += 1
        defer { depth -= 1 }
        let visible = e.attributes["visible"] != "false"
        let title = ImportText.clean(e.attributes["title"] ?? "", multiLine: false)
        let inner = visible && !title.isEmpty ? titles + [title] : titles
        let shuffles = e.first("ordering")?.attributes["shuffle"] == "true"
        let selection = e.first("selection")
        guard visible || selection != nil else {
            outer.shuffles = outer.shuffles || shuffles
            try contents(of: e, in: path, titles: inner, into: &outer)
            return
        }
        close(&outer)
        let label = files.label(path)
        let name = "section “\(title.nonEmpty ?? Self.identifier(e))”"
        var group = Group(name: name, title: inner.isEmpty ? nil : inner.joined(separator: " / "), file: label, line: e.line)
        group.shuffles = shuffles
        (group.instructions, group.proctorNote) = Self.rubric(e)
        if let selection {
            let nested = e.elements.first { $0.name == "assessmentSection" || $0.name == "assessmentSectionRef" }
            if let nested {
                bank.diagnostics.append(.warning(label, selection.line, "\(name) selects among its sections (“\(Self.identifier(nested))” at line \(nested.line)); Carrel draws only items, so every item of it is given"))
            } else {
                group.selection = selection
            }
        }
        try contents(of: e, in: path, titles: inner, into: &group)
        close(&group)
    }

    /// A section kept in a file of its own (`assessmentSectionRef`), read like one written in place.
    mutating func sectionFile(_ ref: XElement, in path: String, titles: [String], around outer: inout Group) throws(ImportRefusal) {
        guard let target = target(ref, in: path, what: "section") else { return }
        guard !including.contains(target) else {
            bank.diagnostics.append(.error(files.label(path), ref.line, "the section reference “\(Self.href(ref))” includes a file that is already being read; it is left out"))
            return
        }
        guard let root = try QTIReader.parseFile(target, in: files, what: "section", into: &bank.diagnostics) else { return }
        guard root.name == "assessmentSection" else {
            bank.diagnostics.append(.error(files.label(target), root.line, "this file is referred to as a section, but its root element is <\(root.shownName.clippedForMessage)>, not <assessmentSection>"))
            return
        }
        note(root, file: files.label(target))
        including.append(target)
        defer { including.removeLast() }
        try section(root, in: target, titles: titles, around: &outer)
    }

    /// One item reference: its file read as a question, named by the reference's identifier
    /// (unique in the test, where exports often repeat the items' own).
    mutating func item(_ ref: XElement, in path: String, into group: inout Group) throws(ImportRefusal) {
        group.references += 1
        guard let target = target(ref, in: path, what: "item") else { return }
        if let first = referenced[target] {
            bank.diagnostics.append(.warning(files.label(path), ref.line, "\(target.clippedForMessage(limit: 200)) is referred to again (first at \(first.file):\(first.line)); it is given once"))
            return
        }
        referenced[target] = (files.label(path), ref.line)
        guard let root = try QTIReader.parseFile(target, in: files, what: "item", into: &bank.diagnostics) else { return }
        guard root.name != "assessmentTest" else {
            bank.diagnostics.append(.error(files.label(path), ref.line, "the item reference “\(Self.href(ref))” names a test, not an item; it is left out"))
            return
        }
        guard var question = try QTIReader.item(root, path: target, in: files, into: &bank.diagnostics) else { return }
        if let name = ref.attributes["identifier"]?.trimmed().nonEmpty { question.name = name }
        group.questions.append(question)
    }

    /// The package path an `href` names, or nil with an error: a reference that leaves the
    /// package (or is a web address) is never followed, and a missing file is named.
    mutating func target(_ ref: XElement, in path: String, what: String) -> String? {
        let label = files.label(path)
        let href = Self.href(ref)
        // `#part` names a place in a file; the file is what is read.
        let local = String((ref.attributes["href"] ?? "").split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        guard !local.trimmed().isEmpty else {
            bank.diagnostics.append(.error(label, ref.line, "the \(what) reference “\(Self.identifier(ref))” has no href; it is left out"))
            return nil
        }
        guard let target = PackagePath.resolve(local, from: path) else {
            let decoded = PackagePath.percentDecoded(local)
            let why = PackagePath.hasScheme(decoded) || decoded.hasPrefix("//")
                ? "is a web address; only the package's own files are read"
                : "leads outside the package; it is not followed"
            bank.diagnostics.append(.error(label, ref.line, "the \(what) reference “\(href)” \(why), so it is left out"))
            return nil
        }
        guard files.paths.contains(target) else {
            bank.diagnostics.append(.error(label, ref.line, "the \(what) reference “\(href)” names \(target.clippedForMessage(limit: 200)), which is not in the package"))
            return nil
        }
        return target
    }

    /// Ends a group: its questions become a section, its selection a pool.
    mutating func close(_ group: inout Group) {
        defer {
            group.references = 0
            group.questions = []
            group.selection = nil
            group.instructions = nil
            group.proctorNote = nil
        }
        guard group.references > 0 else { return }
        var section = ImportedSection(title: group.title, instructions: group.instructions, questions: group.questions,
                                      proctorNote: group.proctorNote, file: group.file, line: group.line)
        if let selection = group.selection { section.draw = draw(selection, group) }
        if group.questions.count > 1 {
            if group.shuffles { shuffled.append(group) } else { ordered.append(group) }
        }
        if !section.questions.isEmpty { bank.sections.append(section) }
    }

    /// `select` as a pool's draw, or nil (every item given) with the reason.
    mutating func draw(_ selection: XElement, _ group: Group) -> Int? {
        let text = selection.attributes["select"] ?? ""
        let held = group.references
        let read = group.questions.count
        guard let n = Int(text.trimmed()), n >= 1 else {
            bank.diagnostics.append(.error(group.file, selection.line, "\(group.name) has select “\(text.clippedForMessage(limit: 40))”, which is not a number of items of at least 1; every item of it is given"))
            return nil
        }
        if selection.attributes["withReplacement"] == "true" {
            bank.diagnostics.append(.warning(group.file, selection.line, "\(group.name) draws with replacement (an item may come twice); Carrel draws each item at most once"))
        }
        guard n <= held else {
            bank.diagnostics.append(.error(group.file, selection.line, "\(group.name) selects \(n) items but holds only \(held); every item of it is given"))
            return nil
        }
        guard read == held || n < read else {
            bank.diagnostics.append(.warning(group.file, selection.line, "\(group.name) selects \(n) of its \(held) items, but only \(read) could be imported; every one of them is given"))
            return nil
        }
        let points = Set(group.questions.map(\.item.points))
        if points.count > 1, let low = points.min(), let high = points.max() {
            bank.diagnostics.append(.warning(group.file, selection.line, "the items \(group.name) draws from are not worth the same points (\(PointsText.format(low)) to \(PointsText.format(high))), so students can be given tests of different totals"))
        }
        return n
    }

    /// A section's rubric: what candidates see as its instructions, what the scorer, proctor
    /// or tutor sees as its proctor note.
    static func rubric(_ section: XElement) -> (instructions: String?, proctorNote: String?) {
        var body = QTIBody(target: nil)
        for block in section.all("rubricBlock") { body.renderElement(block) }
        let instructions = ImportText.clean(body.builder.text, multiLine: true).nonEmpty
        let note = body.proctorNote.map { ImportText.clean($0, multiLine: true) }.flatMap(\.nonEmpty)
        return (instructions, note)
    }

    static func identifier(_ e: XElement) -> String {
        (e.attributes["identifier"] ?? "").clippedForMessage(limit: 100)
    }

    static func href(_ ref: XElement) -> String {
        (ref.attributes["href"] ?? "").clippedForMessage(limit: 200)
    }
}
