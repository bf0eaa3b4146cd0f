import AssessmentKit
import Foundation

/// One `<question>` of a Moodle XML export as a Carrel item: `multichoice` (one answer or
/// several, by fraction), `truefalse`, `shortanswer`, `numerical`, `matching`, `essay`,
/// `gapselect` and `ddwtos` (a `gaps` item of picks), and the question text of a
/// `description`. Every other type throws `.unsupported` with the reason.
struct MoodleQuestion {
    let element: XElement
    /// `multichoice`, `matching` … as written, `match` read as `matching` and `multianswer` as `cloze`.
    let type: String
    /// The question's `<name>`, cleaned; nil when it has none.
    let name: String?
    /// The question text's format, also the default of its other texts (feedback, answers).
    let format: TextFormat
    /// Whether Moodle shuffles its choices, for a question that has choices.
    var shuffles: Bool?
    var warnings: [String] = []
    /// Problems found at a line of their own (inside a cloze text), reported there.
    var placedWarnings: [(line: Int, message: String)] = []
    var placedErrors: [(line: Int, message: String)] = []
    /// The points when the type decides them (a cloze question: its gaps' weights).
    var pointsOverride: Double?
    /// Files the question shows or links to (images, sounds), by name, in order.
    var files: [String] = []
    private var named: Set<String> = []
    /// Every text of the question (name, text, answers, feedback) passes through it.
    let cleaner: TextCleaner

    init(_ element: XElement) {
        self.element = element
        let cleaner = TextCleaner()
        self.cleaner = cleaner
        let written = (element.attributes["type"] ?? "").trimmedPHP()
        switch written {
        case "match": type = "matching"
        case "multianswer": type = "cloze"
        default: type = written
        }
        // Moodle keeps a name as plain text, tags stripped (`clean_question_name`).
        name = Self.rawText(element.first("name")).map { cleaner.fromHTML($0, multiLine: false) }.flatMap(\.nonEmpty)
        format = TextFormat(moodleXML: element.first("questiontext")?.attributes["format"], default: .html)
    }

    /// `“Greeting”` for messages, or the type when the question has no name.
    var label: String {
        if let name { return "“\(name.clippedForMessage(limit: 60))”" }
        return "a \(type.isEmpty ? "question" : type.clippedForMessage) question without a name"
    }

    /// The `<text>` inside an element, trimmed as Moodle trims it; nil when there is none.
    /// A `<text>` holding XHTML elements (not escaped, not in CDATA) gives them as markup.
    static func rawText(_ element: XElement?) -> String? {
        guard let text = element?.first("text") else { return nil }
        return (text.elements.isEmpty ? text.text : text.innerMarkup).trimmedPHP()
    }

    /// Moodle's reading of a yes/no field (`trans_single`): `false`, `0` and nothing are no.
    static func flag(_ element: XElement?, default fallback: Bool) -> Bool {
        guard let element else { return fallback }
        let value = element.text.trimmedPHP()
        return !(value == "false" || value.isEmpty || value == "0")
    }

    /// A finite number written in an element.
    static func number(_ element: XElement?) -> Double? {
        guard let value = element.flatMap({ Double($0.text.trimmedPHP()) }), value.isFinite else { return nil }
        return value
    }

    /// A whole number of a reasonable size written in an element (`3`, `-1`, `1.0`).
    static func integer(_ element: XElement?) -> Int? {
        guard let value = number(element), abs(value) < 1e9 else { return nil }
        return Int(value)
    }

    // MARK: - Texts and the files they need

    /// A text element (`<questiontext>`, `<feedback>`, an `<answer>` …) as the student reads
    /// it, in its own format or `fallback`; the files it shows or carries are noted.
    mutating func rich(_ element: XElement?, default fallback: TextFormat? = nil, multiLine: Bool) -> String {
        guard let element else { return "" }
        let raw = Self.rawText(element) ?? ""
        noteFiles(of: element, in: raw)
        var images: [String] = []
        let text = cleaner.render(raw, TextFormat(moodleXML: element.attributes["format"], default: fallback ?? format),
                                  multiLine: multiLine, images: &images)
        for source in images { need(Self.fileName(source)) }
        return text
    }

    /// Plain text as a student types it (short answers, numbers, the right side of a match).
    func plain(_ element: XElement?) -> String {
        cleaner.clean(Self.rawText(element) ?? "", multiLine: false)
    }

    /// The question text as a student reads it.
    mutating func questionText() -> String { renderQuestion(questionSource()) }

    /// The question text as written, with the image of Moodle 1.9's `<image>` field at its
    /// end, as Moodle puts it there.
    func questionSource() -> String {
        var raw = Self.rawText(element.first("questiontext")) ?? ""
        if let image = element.first("image")?.text.trimmedPHP(), !image.isEmpty,
           element.first("image_base64").map({ !$0.text.trimmedPHP().isEmpty }) == true {
            raw += " <img src=\"@@PLUGINFILE@@/\(image.replacingOccurrences(of: "\"", with: ""))\" />"
        }
        return raw
    }

    /// Question text (from `questionSource`, perhaps changed) rendered in its format.
    mutating func renderQuestion(_ raw: String) -> String {
        noteFiles(of: element.first("questiontext"), in: raw)
        var images: [String] = []
        let text = cleaner.render(raw, format, multiLine: true, images: &images)
        for source in images { need(Self.fileName(source)) }
        return text
    }

    /// The files attached to a text (`<file name="…">`) and those it names with `@@PLUGINFILE@@/`.
    mutating func noteFiles(of element: XElement?, in raw: String) {
        for file in element?.all("file") ?? [] {
            if let name = file.attributes["name"] { need(name) }
        }
        guard raw.utf8.contains(UInt8(ascii: "@")) else { return }
        var rest = Substring(raw)
        while let found = rest.range(of: "@@PLUGINFILE@@/") {
            let tail = rest[found.upperBound...]
            let end = tail.firstIndex { "\"'<> \n\t?#".contains($0) } ?? tail.endIndex
            need(PackagePath.percentDecoded(String(tail[..<end])))
            rest = tail[end...]
        }
    }

    mutating func need(_ file: String) {
        let name = file.clippedForMessage(limit: 80)
        guard !name.isEmpty, named.insert(name).inserted else { return }
        files.append(name)
    }

    /// `@@PLUGINFILE@@/maps/europe%20map.png` → `maps/europe map.png`; a web address as it is.
    static func fileName(_ source: String) -> String {
        if source.hasPrefix("data:") { return "an image inside the text (data:)" }
        if let plugin = source.range(of: "@@PLUGINFILE@@/") {
            return PackagePath.percentDecoded(String(source[plugin.upperBound...]))
        }
        return source.isEmpty ? "an image without a source" : source
    }

    /// What every question is told besides its conversion: the files it needs, and whether
    /// Moodle's bank hides it.
    func notes() -> [String] {
        var out: [String] = []
        if !files.isEmpty {
            let listed = files.prefix(20).joined(separator: ", ") + (files.count > 20 ? " and \(files.count - 20) more" : "")
            out.append("needs files a terminal cannot show: \(listed); an image stands in the text as [image: its description]")
        }
        if Self.flag(element.first("hidden"), default: false) {
            out.append("the question is hidden in Moodle's bank (retired, or kept only for old quizzes); it was imported like the others, so leave it out of a test if it is retired")
        }
        return out
    }

    // MARK: - Conversion

    /// Why a type Moodle exports is left out; nil for a type that is read.
    static func unsupportedReason(_ type: String) -> String? {
        switch type {
        case "multichoice", "truefalse", "shortanswer", "numerical", "matching", "essay", "gapselect", "ddwtos", "cloze", "ordering":
            return nil
        case "calculated", "calculatedsimple", "calculatedmulti":
            return "a calculated question (\(type)) draws its numbers for each student and computes the answer, which Carrel does not do"
        case "ddimageortext":
            return "drag and drop onto an image needs a picture to drop onto, which a terminal cannot show"
        case "ddmarker":
            return "drag markers needs a picture to place markers on, which a terminal cannot show"
        case "randomsamatch":
            return "random short-answer matching takes its pairs from other questions of its category when a quiz starts, which Carrel does not do"
        case "random":
            return "a random question stands for one drawn from a category when a quiz starts, which Carrel does not do"
        case "":
            return "the question has no type"
        default:
            return "the question type \(type.clippedForMessage) (a Moodle plugin) has no Carrel equivalent"
        }
    }

    /// The item: its kind, prompt, points and feedback. Warnings go to `warnings`.
    mutating func convert() throws(BuildFailure) -> Item {
        if let why = Self.unsupportedReason(type) { throw .unsupported(why) }
        let (prompt, built, note) = try content()
        guard !prompt.isEmpty else { throw .malformed("the question has no text") }
        let feedback = rich(element.first("generalfeedback"), multiLine: true).nonEmpty
        warnings += built.warnings
        let worth: Double
        if let decided = pointsOverride { worth = decided } else { worth = try points() }
        return Item(id: "q", prompt: prompt, points: worth, feedback: feedback, kind: built.kind,
                    proctorNote: note, marking: built.marking)
    }

    /// The prompt, the kind and the proctor's note of a type that is read.
    mutating func content() throws(BuildFailure) -> (String, BuiltKind, String?) {
        switch type {
        case "gapselect":
            let (prompt, built) = try gaps(choices: "selectoption")
            return (prompt, built, nil)
        case "ddwtos":
            let (prompt, built) = try gaps(choices: "dragbox")
            return (prompt, built, nil)
        case "cloze":
            let (prompt, built) = try cloze()
            return (prompt, built, nil)
        default:
            break
        }
        let prompt = questionText()
        switch type {
        case "multichoice": return (prompt, try multichoice(), nil)
        case "truefalse": return (prompt, try trueFalse(), nil)
        case "shortanswer": return (prompt, try shortAnswer(), nil)
        case "matching": return (prompt, try matching(), nil)
        case "ordering": return (prompt, try ordering(), nil)
        case "numerical":
            let built = try numerical()
            let instructions = rich(element.first("instructions"), multiLine: true)
            let parts = [prompt, instructions, unitNote ?? ""].filter { !$0.isEmpty }
            return (prompt.isEmpty ? "" : parts.joined(separator: "\n\n"), built, nil)
        default:
            let (built, note) = try essay()
            return (prompt, built, note)
        }
    }

    /// `<defaultgrade>`, 1 without one.
    func points() throws(BuildFailure) -> Double {
        guard let given = element.first("defaultgrade") else { return 1 }
        let written = given.text.trimmedPHP()
        guard let value = Double(written), value.isFinite else {
            throw .malformed("its defaultgrade “\(written.clippedForMessage)” is not a number")
        }
        guard (0...1000).contains(value) else {
            throw .malformed("its defaultgrade \(written.clippedForMessage) is outside 0 to 1000 points")
        }
        return value
    }

    /// An answer's `fraction="…"` (percent; 0 without one), or the `<fraction>` inside it
    /// that old numerical exports write (0 to 1).
    static func fraction(_ answer: XElement) throws(BuildFailure) -> Double {
        if let inner = answer.first("fraction"), !inner.text.trimmedPHP().isEmpty {
            guard let value = Double(inner.text.trimmedPHP()), value.isFinite else {
                throw .malformed("the fraction “\(inner.text.trimmedPHP().clippedForMessage)” of an answer is not a number")
            }
            return ItemBuilder.snapped(value * 100)
        }
        guard let written = answer.attributes["fraction"]?.trimmedPHP() else { return 0 }
        guard let value = Double(written), value.isFinite else {
            throw .malformed("the fraction “\(written.clippedForMessage)” of an answer is not a number")
        }
        return value
    }

    /// An answer's feedback as the student reads it; nil when empty.
    mutating func feedback(of answer: XElement) -> String? {
        rich(answer.first("feedback"), multiLine: true).nonEmpty
    }

    mutating func multichoice() throws(BuildFailure) -> BuiltKind {
        shuffles = Self.flag(element.first("shuffleanswers"), default: false)
        var options: [BankOption] = []
        for answer in element.all("answer") {
            let credit = try Self.fraction(answer)
            options.append(BankOption(rich(answer, multiLine: false), credit: credit, feedback: feedback(of: answer)))
        }
        return Self.flag(element.first("single"), default: true)
            ? try ItemBuilder.choice(options) : try ItemBuilder.multipleByCredit(options)
    }

    /// Moodle's rule: the answer named `true` is right when its fraction is 100, the one named
    /// `false` when its fraction is not; answers named otherwise (old exports) are true, then false.
    mutating func trueFalse() throws(BuildFailure) -> BuiltKind {
        let answers = element.all("answer")
        guard !answers.isEmpty else { throw .malformed("a true/false question needs its answers true and false") }
        var answer = true
        var ifTrue: String? = nil, ifFalse: String? = nil
        var guessed = false
        for (i, given) in answers.enumerated() {
            var named = Self.rawText(given) ?? ""
            if named != "true" && named != "false" {
                guessed = true
                named = i == 0 ? "true" : "false"
            }
            let full = try Self.fraction(given) == 100
            if named == "true" {
                answer = full
                ifTrue = feedback(of: given)
            } else {
                answer = !full
                ifFalse = feedback(of: given)
            }
        }
        if guessed {
            warnings.append("its answers are not named true and false; the first was read as true and the second as false, as Moodle reads old exports")
        }
        let marking: Marking? = ifTrue == nil && ifFalse == nil ? nil : .trueFalse(ifTrue: ifTrue, ifFalse: ifFalse)
        return BuiltKind(kind: .trueFalse(answer: answer), marking: marking)
    }

    mutating func shortAnswer() throws(BuildFailure) -> BuiltKind {
        var options: [BankOption] = []
        for answer in element.all("answer") {
            options.append(BankOption(plain(answer), credit: try Self.fraction(answer), feedback: feedback(of: answer)))
        }
        return try ItemBuilder.shortAnswer(options, caseSensitive: Self.flag(element.first("usecase"), default: false))
    }

    /// The unit the answer is given in, shown at the end of the prompt; set by `numerical`.
    private var unitNote: String?

    /// Values with their `<tolerance>` (±, absolute) and credit. Units are not typed in Carrel:
    /// the base unit (multiplier 1) is named at the end of the prompt and the others are left out.
    mutating func numerical() throws(BuildFailure) -> BuiltKind {
        var list: [NumberAnswer] = []
        var anyOther: (credit: Double, feedback: Bool)? = nil
        for answer in element.all("answer") {
            let written = plain(answer)
            let credit = try Self.fraction(answer)
            let said = feedback(of: answer)
            if written.isEmpty || written == "*" {
                // Any other number: its credit and feedback, which Carrel cannot give.
                if credit > 0 || said != nil { anyOther = (max(credit, anyOther?.credit ?? 0), said != nil) }
                continue
            }
            let value = try ItemBuilder.number(written)
            let tolerance = Self.number(answer.first("tolerance")).map(abs) ?? 0
            list.append(NumberAnswer(answer: .value(value, tolerance: tolerance), credit: credit, feedback: said))
        }
        if let other = anyOther, other.credit > 0, !list.contains(where: { $0.credit > 0 }) {
            throw .unsupported("its right answer is * (any number), which leaves nothing to mark")
        }
        var built = try ItemBuilder.numeric(list)
        if anyOther != nil {
            built.warnings.insert("left out the answer * (any other number) with its credit and feedback; Carrel marks only the numbers listed", at: 0)
        }
        readUnits()
        return built
    }

    mutating func readUnits() {
        var units: [(name: String, multiplier: Double)] = []
        for unit in element.first("units")?.all("unit") ?? [] {
            let name = cleaner.clean(unit.first("unit_name")?.text.trimmedPHP() ?? "", multiLine: false)
            if !name.isEmpty { units.append((name, Self.number(unit.first("multiplier")) ?? 1)) }
        }
        // showunits 3 is "no units": Moodle ignores the ones listed.
        let shown = Self.integer(element.first("showunits")) ?? (units.isEmpty ? 3 : 0)
        guard let base = units.first(where: { $0.multiplier == 1 }) ?? units.first, shown != 3 else { return }
        unitNote = "[unit: \(base.name)]"
        var warning = "units are not typed in Carrel: the answer is the number in \(base.name), which the prompt names at its end"
        let others = units.map(\.name).filter { $0 != base.name }
        if !others.isEmpty { warning += "; answers in \(others.joined(separator: ", ").clippedForMessage(limit: 120)) are not accepted" }
        if (Self.number(element.first("unitgradingtype")) ?? 0) != 0 {
            warning += "; Moodle's penalty for a missing or wrong unit does not apply"
        }
        warnings.append(warning)
    }

    /// `<subquestion>`s: the text (in its format) on the left, the answer on the right; one
    /// with no text is an extra answer.
    mutating func matching() throws(BuildFailure) -> BuiltKind {
        var pairs: [(left: String, right: String)] = []
        for sub in element.all("subquestion") {
            pairs.append((rich(sub, multiLine: false), plain(sub.first("answer"))))
        }
        return try ItemBuilder.match(pairs)
    }

    /// Moodle's ordering question (a core type since 4.4): the answers' fractions number the
    /// right order. Only one that shows every item can be a Carrel `order` item.
    mutating func ordering() throws(BuildFailure) -> BuiltKind {
        let select = element.first("selecttype")?.text.trimmedPHP().uppercased() ?? "ALL"
        guard select == "ALL" || select == "0" else {
            throw .unsupported("the ordering question shows a part of its items to each student (selecttype \(select.clippedForMessage)); a Carrel order item shows them all")
        }
        var entries: [(position: Double, text: String)] = []
        for answer in element.all("answer") {
            entries.append((try Self.fraction(answer), rich(answer, multiLine: false)))
        }
        let ordered = entries.enumerated()
            .sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }
            .map { $0.element.text }
        let grading = element.first("gradingtype")?.text.trimmedPHP().uppercased() ?? ""
        var built = try ItemBuilder.order(ordered)
        if !grading.isEmpty && grading != "RELATIVE_NEXT_EXCLUDE_LAST" {
            built.warnings.append("Moodle grades it by \(grading.clippedForMessage); Carrel gives credit for each pair of neighbours in the right order")
        }
        return built
    }

    /// An essay with its word limits; the grader information becomes the proctor's note.
    mutating func essay() throws(BuildFailure) -> (BuiltKind, String?) {
        let response = element.first("responseformat")?.text.trimmedPHP() ?? "editor"
        if response == "noinline" {
            throw .unsupported("the essay is answered with attached files only, which a locked test cannot take")
        }
        let attachments = Self.integer(element.first("attachments")) ?? 0
        if attachments != 0 {
            let how = attachments < 0 ? "any number of attached files" : "up to \(attachments) attached file\(attachments == 1 ? "" : "s")"
            warnings.append("the essay also takes \(how), which a locked test cannot take; only the typed answer is kept")
        }
        if !(Self.rawText(element.first("responsetemplate")) ?? "").isEmpty {
            warnings.append("the response template (text the answer box starts with) is left out")
        }
        func limit(_ name: String) -> Int? {
            Self.integer(element.first(name)).flatMap { (1...100_000).contains($0) ? $0 : nil }
        }
        var minWords = limit("minwordlimit"), maxWords = limit("maxwordlimit")
        if let lo = minWords, let hi = maxWords, lo > hi {
            warnings.append("its word limits (at least \(lo), at most \(hi)) contradict each other; both are left out")
            minWords = nil
            maxWords = nil
        }
        let note = rich(element.first("graderinfo"), multiLine: true).nonEmpty
        return (BuiltKind(kind: .essay(minWords: minWords, maxWords: maxWords)), note)
    }
}
