import AssessmentKit

/// One QTI 2.1, 2.2 or 3.0 `assessmentItem` as a Carrel item: choice (one answer, or several),
/// order, match, text entry (text or numeric), extended text (essay), and a lone inline choice;
/// several text entries and inline choices in one text make a `gaps` item. Everything else is
/// reported as skipped with the reason.
enum QTIItemReader {
    struct Outcome {
        var question: ImportedQuestion?
        var diagnostics: [ImportDiagnostic] = []
        /// Files the item shows (images, media), as written in the item.
        var assets: [String] = []
    }

    static let supported: Set<String> = [
        "choiceInteraction", "orderInteraction", "matchInteraction", "textEntryInteraction",
        "extendedTextInteraction", "inlineChoiceInteraction",
    ]

    /// Why an interaction has no Carrel equivalent, in a teacher's words.
    static func unsupportedReason(_ name: String) -> String {
        switch name {
        case "associateInteraction": return "associateInteraction (pairing entries of one list with each other) has no Carrel item type"
        case "gapMatchInteraction": return "gapMatchInteraction (dragging words into gaps) has no Carrel item type"
        case "hottextInteraction": return "hottextInteraction (picking words inside the text) has no Carrel item type"
        case "sliderInteraction": return "sliderInteraction (a slider) has no Carrel item type"
        case "hotspotInteraction", "graphicOrderInteraction", "graphicAssociateInteraction", "graphicGapMatchInteraction",
             "selectPointInteraction", "positionObjectInteraction":
            return "\(name) needs a picture to point at, which a terminal cannot show"
        case "mediaInteraction": return "mediaInteraction (playing audio or video) is not something a terminal can offer"
        case "uploadInteraction": return "uploadInteraction (uploading a file) is not something a locked test can offer"
        case "drawingInteraction": return "drawingInteraction (drawing on a canvas) is not something a terminal can offer"
        case "customInteraction", "portableCustomInteraction": return "\(name) runs the item's own code, which Carrel never does"
        case "endAttemptInteraction": return "endAttemptInteraction (a button that ends the attempt) has no Carrel item type"
        default: return "\(name) has no Carrel item type"
        }
    }

    static let qti1 = "this is QTI 1.x (<questestinterop>); export the items as QTI 2.1 or 3.0"

    static func read(_ root: XElement, file: String, fallbackName: String) -> Outcome {
        var out = Outcome()
        guard root.name == "assessmentItem" else {
            let why: String
            switch root.name {
            case "questestinterop": why = qti1
            case "assessmentTest": why = "this is a QTI test, not an item; import its package (the zip, or its imsmanifest.xml)"
            default: why = QTIReader.unknownRoot(root)
            }
            out.diagnostics.append(.error(file, root.line, why))
            return out
        }
        let line = root.line
        if root.attributes["adaptive"] == "true" {
            out.diagnostics.append(.skip(file, line, "an adaptive item (it changes as the student answers) has no Carrel equivalent"))
            return out
        }
        if root.first("templateDeclaration") != nil {
            out.diagnostics.append(.skip(file, line, "the item uses template variables (a different version for each student), which Carrel does not compute"))
            return out
        }
        guard let body = root.first("itemBody") else {
            out.diagnostics.append(.error(file, line, "the item has no <itemBody>"))
            return out
        }
        // An element of another vocabulary (`{urn:x}x:noteInteraction`) is no QTI interaction.
        let interactions = body.descendants.filter { $0.name.hasSuffix("Interaction") && !$0.name.hasPrefix("{") }
        guard let interaction = interactions.first else {
            out.diagnostics.append(.skip(file, line, "the item has no interaction, so there is nothing to answer"))
            return out
        }
        if interactions.count > 1, interactions.allSatisfy({ QTIBody.gapInteractions.contains($0.name) }) {
            return gaps(root, body: body, interactions: interactions, file: file, fallbackName: fallbackName)
        }
        guard interactions.count == 1 else {
            let names = Array(Set(interactions.map(\.name))).sorted().joined(separator: ", ").clippedForMessage(limit: 200)
            out.diagnostics.append(.skip(file, interactions[1].line, "the item has \(interactions.count) interactions (\(names)); a Carrel item has one"))
            return out
        }
        guard supported.contains(interaction.name) else {
            out.diagnostics.append(.skip(file, interaction.line, unsupportedReason(interaction.name)))
            return out
        }
        var renderer = QTIBody(target: interaction)
        renderer.render(body)
        out.assets = renderer.assets
        // Every text of the item (prompt, choices, answers, note) passes through it.
        let cleaner = TextCleaner()
        let prompt = cleaner.clean(renderer.builder.text, multiLine: true)
        guard !prompt.isEmpty else {
            out.diagnostics.append(.error(file, line, "the item has no question text"))
            return out
        }
        let declaration = root.all("responseDeclaration").first { $0.attributes["identifier"] == interaction.attributes["responseIdentifier"] }
        let response = declaration.map(QTIResponse.init)
        do {
            let built = try kind(interaction, response, root: root, cleaner)
            let points = QTIResponse.points(root: root, response: response)
            let note = renderer.proctorNote.map { cleaner.clean($0, multiLine: true) }.flatMap(\.nonEmpty)
            let item = Item(id: "q", prompt: prompt, points: points, kind: built.kind, proctorNote: note, marking: built.marking)
            built.warnings.forEach { out.diagnostics.append(.warning(file, line, $0)) }
            if let id = response?.identifier, let why = QTIResponse.customScoring(root, id) {
                out.diagnostics.append(.warning(file, line, why))
            }
            let name = root.attributes["identifier"].flatMap(\.nonEmpty) ?? fallbackName
            out.question = ImportedQuestion(item: item, file: file, line: line, name: name)
            if let warning = cleaner.warning { out.diagnostics.append(.warning(file, line, warning)) }
        } catch {
            out.diagnostics.append(error.diagnostic(file, interaction.line))
        }
        return out
    }

    /// Several text entries and inline choices: one gap each, `{1}`, `{2}`, … where they stand
    /// in the text, each scored by its own response declaration. A gap's weight is what its
    /// mapping is worth (1 without one); the item is worth its MAXSCORE, else their sum.
    static func gaps(_ root: XElement, body: XElement, interactions: [XElement], file: String, fallbackName: String) -> Outcome {
        var out = Outcome()
        var gaps: [Gap] = []
        var weights: [Double] = []
        var failed = false
        // Every text of the item (prompt, options, answers, note) passes through it.
        let cleaner = TextCleaner()
        for (i, interaction) in interactions.enumerated() {
            let declaration = root.all("responseDeclaration").first { $0.attributes["identifier"] == interaction.attributes["responseIdentifier"] }
            let response = declaration.map(QTIResponse.init)
            do {
                let built = try kind(interaction, response, root: root, cleaner)
                gaps.append(Gap(kind: try ItemBuilder.gap(built)))
                weights.append(response?.scale(addingUp: false) ?? 1)
                built.warnings.forEach { out.diagnostics.append(.warning(file, interaction.line, "gap \(i + 1): \($0)")) }
                if let id = response?.identifier, let why = QTIResponse.customScoring(root, id) {
                    out.diagnostics.append(.warning(file, interaction.line, "gap \(i + 1): \(why)"))
                }
            } catch {
                var diagnostic = error.diagnostic(file, interaction.line)
                diagnostic.message = "gap \(i + 1) of \(interactions.count): \(diagnostic.message)"
                out.diagnostics.append(diagnostic)
                failed = true
            }
        }
        guard !failed else { return out }
        var renderer = QTIBody(target: nil)
        for (i, interaction) in interactions.enumerated() { renderer.gapNumbers[ObjectIdentifier(interaction)] = i + 1 }
        renderer.render(body)
        out.assets = renderer.assets
        let prompt = cleaner.clean(renderer.builder.text, multiLine: true)
        guard Item.gapMarkers(in: prompt).map(\.number) == Array(1...gaps.count) else {
            out.diagnostics.append(.skip(file, root.line, "the item's text holds braces such as {1} that Carrel would read as a gap; write them another way"))
            return out
        }
        if Set(weights).count > 1, weights.allSatisfy({ $0 > 0 && $0 <= 1000 }) {
            for i in gaps.indices { gaps[i].points = ItemBuilder.points(weights[i]) }
        }
        let declared = QTIResponse.maxScore(root)
        let total = declared ?? gaps.reduce(0) { $0 + ($1.points ?? 1) }
        let note = renderer.proctorNote.map { cleaner.clean($0, multiLine: true) }.flatMap(\.nonEmpty)
        let worth = declared != nil ? ItemBuilder.declared(total) : ItemBuilder.points(total)
        let item = Item(id: "q", prompt: prompt, points: total > 0 && total <= 1000 ? worth : Double(gaps.count),
                        kind: .gaps(gaps), proctorNote: note)
        let name = root.attributes["identifier"].flatMap(\.nonEmpty) ?? fallbackName
        out.question = ImportedQuestion(item: item, file: file, line: root.line, name: name)
        if let warning = cleaner.warning { out.diagnostics.append(.warning(file, root.line, warning)) }
        return out
    }

    static func kind(_ interaction: XElement, _ response: QTIResponse?, root: XElement,
                     _ cleaner: TextCleaner) throws(BuildFailure) -> BuiltKind {
        switch interaction.name {
        case "extendedTextInteraction":
            return try keyedEssay(response, root: root, cleaner)
        case "choiceInteraction":
            let choices = try QTIChoices(interaction.all("simpleChoice"), cleaner)
            let response = try require(response)
            let single = Int(interaction.attributes["maxChoices"] ?? "1") == 1
            return single ? try response.single(choices) : try response.multiple(choices)
        case "inlineChoiceInteraction":
            return try require(response).single(try QTIChoices(interaction.all("inlineChoice"), cleaner))
        case "orderInteraction":
            let choices = try QTIChoices(interaction.all("simpleChoice"), cleaner)
            let order = try require(response).correct
            guard !order.isEmpty else { throw QTIResponse.noKey }
            guard order.count == choices.ids.count, Set(order) == Set(choices.ids) else {
                throw .unsupported("the correct order uses only some of the entries; Carrel orders all of them")
            }
            return try ItemBuilder.order(try order.map { id throws(BuildFailure) in try choices.text(of: id) })
        case "matchInteraction":
            return try match(interaction, try require(response), cleaner)
        case "textEntryInteraction":
            let response = try require(response)
            switch response.baseType {
            case "string": return try response.text(root: root, cleaner)
            case "float", "integer": return try response.numeric(root: root)
            default: throw .unsupported("a text entry with answers of type \(response.baseType.clippedForMessage) has no Carrel item type")
            }
        default:
            throw .unsupported(unsupportedReason(interaction.name))
        }
    }

    /// The response of an interaction scored by its key: an item that names no correct
    /// response and maps no answer to a score is skipped, whatever its interaction.
    static func require(_ response: QTIResponse?) throws(BuildFailure) -> QTIResponse {
        guard let response else { throw .malformed("the interaction's responseIdentifier names no <responseDeclaration>") }
        guard response.hasKey else { throw QTIResponse.noKey }
        return response
    }

    /// An extended text is an essay, marked by a person, unless its declaration names a correct
    /// response: then it is the keyed item it is (one number a `numeric` item, strings a
    /// `text` item), and a key Carrel cannot keep is named in a warning, never dropped silently.
    static func keyedEssay(_ response: QTIResponse?, root: XElement, _ cleaner: TextCleaner) throws(BuildFailure) -> BuiltKind {
        let essay = BuiltKind(kind: .essay(minWords: nil, maxWords: nil))
        guard let response, response.hasKey else { return essay }
        switch (response.baseType, response.cardinality) {
        case ("float", "single"), ("integer", "single"): return try response.numeric(root: root)
        case ("string", "single"): return try response.text(root: root, cleaner)
        default:
            var kept = essay
            let key = response.correct.first.map { " (“\($0.clippedForMessage)”)" } ?? ""
            kept.warnings.append("imported as an essay, which a person marks: its correct response\(key) is not kept, as Carrel scores no \(response.cardinality.clippedForMessage) answer of type \(response.baseType.clippedForMessage) typed at length")
            return kept
        }
    }

    /// The first match set is the left-hand column, the second the right-hand one.
    static func match(_ interaction: XElement, _ response: QTIResponse, _ cleaner: TextCleaner) throws(BuildFailure) -> BuiltKind {
        let sets = interaction.all("simpleMatchSet")
        guard sets.count == 2 else { throw .malformed("a match interaction needs two <simpleMatchSet> lists") }
        let lefts = try QTIChoices(sets[0].all("simpleAssociableChoice"), cleaner)
        let rights = try QTIChoices(sets[1].all("simpleAssociableChoice"), cleaner)
        var correct = response.correct
        if correct.isEmpty, let mapping = response.mapping {
            correct = mapping.entries.filter { $0.value > 0 }.map(\.key)
        }
        var matchOf: [String: [String]] = [:]
        for value in correct {
            let ids = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
            guard ids.count == 2 else { throw .malformed("the pair “\(value.clippedForMessage)” is not two identifiers") }
            if lefts.ids.contains(ids[0]) && rights.ids.contains(ids[1]) {
                matchOf[ids[0], default: []].append(ids[1])
            } else if lefts.ids.contains(ids[1]) && rights.ids.contains(ids[0]) {
                matchOf[ids[1], default: []].append(ids[0])
            } else {
                throw .malformed("the pair “\(value.clippedForMessage)” names entries the lists do not have")
            }
        }
        guard !matchOf.isEmpty else { throw QTIResponse.noKey }
        var pairs: [(left: String, right: String)] = []
        for id in lefts.ids {
            let left = try lefts.text(of: id)
            guard let matches = matchOf[id], !matches.isEmpty else {
                throw .unsupported("“\(left.clippedForMessage)” matches nothing; a Carrel match needs a match for every left-hand entry")
            }
            guard Set(matches).count == 1 else {
                throw .unsupported("“\(left.clippedForMessage)” has several right matches; a Carrel match has one")
            }
            pairs.append((left, try rights.text(of: matches[0])))
        }
        let used = Set(matchOf.values.flatMap { $0 })
        for id in rights.ids where !used.contains(id) { pairs.append(("", try rights.text(of: id))) }
        var built = try ItemBuilder.match(pairs)
        // Each pair of a Carrel match is worth the same share of the item.
        let weights = Set((response.mapping?.entries ?? []).filter { $0.value > 0 }.map(\.value))
        if weights.count > 1 {
            built.warnings.append("the pairs are worth different points in the item's mapping; in Carrel every pair is worth the same share of the item's points")
        }
        return built
    }
}

/// The choices of an interaction: identifiers in order and their text.
struct QTIChoices {
    var ids: [String] = []
    var texts: [String: String] = [:]

    init(_ elements: [XElement], _ cleaner: TextCleaner) throws(BuildFailure) {
        for e in elements {
            guard let id = e.attributes["identifier"], !id.isEmpty else { throw .malformed("a choice has no identifier") }
            guard texts[id] == nil else { throw .malformed("two choices share the identifier “\(id.clippedForMessage)”") }
            var body = QTIBody(target: nil)
            body.render(e)
            ids.append(id)
            texts[id] = cleaner.clean(body.builder.text, multiLine: false)
        }
    }

    func text(of id: String) throws(BuildFailure) -> String {
        guard let t = texts[id] else { throw .malformed("the answer “\(id.clippedForMessage)” is not one of the choices") }
        return t
    }
}

/// The item body as text: the interaction's prompt in place of a block interaction, a gap in
/// place of an inline one; feedback and template blocks left out; rubrics for proctors kept apart.
struct QTIBody {
    let target: XElement?
    var builder = TextBuilder()
    var assets: [String] = []
    var proctorNote: String?
    /// Inside `<pre>`: text keeps its spaces and line breaks.
    var preformatted = false

    static let inlineInteractions: Set<String> = ["textEntryInteraction", "inlineChoiceInteraction", "endAttemptInteraction"]
    /// The interactions that can be gaps of a `gaps` item.
    static let gapInteractions: Set<String> = ["textEntryInteraction", "inlineChoiceInteraction"]
    /// The number of each gap's interaction, for a `gaps` item: `{1}` is shown in its place.
    var gapNumbers: [ObjectIdentifier: Int] = [:]
    static let leftOut: Set<String> = [
        "feedbackBlock", "feedbackInline", "modalFeedback", "templateBlock", "templateInline", "stylesheet",
        "apipAccessibility", "accessibilityInfo", "catalogInfo", "companionMaterialsInfo", "responseProcessing",
    ]

    mutating func render(_ element: XElement) {
        for child in element.children {
            switch child {
            case let .text(t): if preformatted { builder.addPreformatted(t) } else { builder.add(t) }
            case let .element(e): renderElement(e)
            }
        }
    }

    mutating func renderElement(_ e: XElement) {
        if let target, e === target {
            if Self.inlineInteractions.contains(e.name) {
                builder.add("_____")
            } else if let prompt = e.first("prompt") {
                builder.paragraph()
                render(prompt)
                builder.paragraph()
            }
            return
        }
        if let number = gapNumbers[ObjectIdentifier(e)] {
            builder.add("{\(number)}")
            return
        }
        if Self.leftOut.contains(e.name) || e.name.hasSuffix("Interaction") { return }
        switch e.name {
        case "rubricBlock":
            let views = (e.attributes["view"] ?? "").split(separator: " ")
            if views.contains("candidate") {
                render(e)
            } else if views.contains(where: { ["proctor", "scorer", "tutor"].contains($0) }) {
                var note = QTIBody(target: nil)
                note.render(e)
                proctorNote = [proctorNote, note.builder.text].compactMap { $0 }.joined(separator: "\n\n")
            }
            return
        case "pre":
            let outer = preformatted
            builder.paragraph()
            preformatted = true
            render(e)
            preformatted = outer
            builder.paragraph()
            return
        case "math":
            // MathML, written on one line as a teacher would type it: 1/3, x^2, √(x + 1).
            builder.add(MathText.linear(e))
            return
        case "printedVariable":
            builder.add("[value]")
            return
        case "img":
            if let src = e.attributes["src"] { assets.append(src) }
            builder.add(" " + HTMLLayout.image(alt: e.attributes["alt"], source: e.attributes["src"]) + " ")
            return
        case "object":
            if let data = e.attributes["data"] { assets.append(data) }
            builder.add(" [\(e.attributes["type"].map { $0.hasPrefix("image") ? "image" : "media" } ?? "media")] ")
            // What it holds is its fallback, for whoever cannot see the object: a terminal.
            render(e)
            return
        case "audio", "video":
            if let src = e.attributes["src"] { assets.append(src) }
            for source in e.all("source") { if let src = source.attributes["src"] { assets.append(src) } }
            builder.add(" [\(e.name)] ")
            return
        default:
            layOut(e)
        }
    }

    /// An element of XHTML as it lays out on a terminal.
    mutating func layOut(_ e: XElement) {
        switch HTMLLayout.role(of: e.name) {
        case .paragraph:
            let list = HTMLLayout.localName(e.name)
            guard list == "ol" || list == "ul" else {
                builder.paragraph()
                render(e)
                builder.paragraph()
                return
            }
            builder.openList(ordered: list == "ol", start: e.attributes["start"], type: e.attributes["type"])
            render(e)
            builder.closeList()
        case .block:
            builder.block()
            render(e)
            builder.block()
        case .lineBreak: builder.lineBreak()
        case .listItem:
            builder.listItem(value: e.attributes["value"])
            render(e)
            builder.block()
        case .cell:
            builder.add(" ")
            builder.openCells += 1
            render(e)
            builder.openCells -= 1
            builder.add(" ")
        case .raised, .lowered:
            builder.beginScript(superscript: e.name == "sup")
            render(e)
            builder.endScript()
        case .image, .hidden: return
        case .inline: render(e)
        }
    }
}
