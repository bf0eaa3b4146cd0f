import AssessmentKit

/// Moodle's gap questions as `gaps` items: "select missing words" (`gapselect`) and "drag and
/// drop into text" (`ddwtos`), where `[[3]]` in the text is a gap whose right answer is the
/// third choice, picked among the choices of that choice's `<group>`.
extension MoodleQuestion {
    /// Stand-ins for the gaps while the text is rendered: private-use characters around the
    /// gap's number, which HTML rendering and cleaning leave alone. The source's own are removed.
    static let gapOpen: Unicode.Scalar = "\u{E000}", gapClose: Unicode.Scalar = "\u{E001}"

    mutating func gaps(choices tag: String) throws(BuildFailure) -> (String, BuiltKind) {
        shuffles = Self.flag(element.first("shuffleanswers"), default: true)
        var choices: [(text: String, group: String)] = []
        for choice in element.all(tag) {
            let group = choice.first("group")?.text.trimmedPHP() ?? ""
            choices.append((rich(choice, default: .html, multiLine: false), group.isEmpty ? "1" : group))
        }
        let (marked, places) = Self.placeholders(in: questionSource())
        guard !places.isEmpty else { throw .malformed("the question text has no gap; [[1]] marks a gap whose answer is the first choice") }
        let prompt = try gapPrompt(renderQuestion(marked), count: places.count)
        var gaps: [Gap] = []
        var notes: [String] = []
        for number in places {
            guard number >= 1, number <= choices.count else {
                throw .malformed("the gap [[\(number)]] names choice \(number), but the question has \(choices.count) choice\(choices.count == 1 ? "" : "s")")
            }
            let group = choices[number - 1].group
            let options = choices.indices.filter { choices[$0].group == group }
                .map { BankOption(choices[$0].text, credit: $0 == number - 1 ? 100 : 0) }
            var said: [String] = []
            let kept = ItemBuilder.merged(options, what: "choice", warnings: &said)
            for note in said where !notes.contains(note) { notes.append(note) }
            guard kept.contains(where: { $0.credit == 100 }) else {
                throw .malformed("the right choice of the gap [[\(number)]] is empty")
            }
            if kept.count < 2 {
                // Moodle takes it; the gap then shows its own answer as the only pick.
                let note = "the gap [[\(number)]] gives its answer away: its group \(group.clippedForMessage) holds one choice"
                if !notes.contains(note) { notes.append(note) }
            }
            let marks = kept.map { ChoiceMark(text: $0.text, credit: $0.credit == 100 ? 100 : nil) }
            gaps.append(Gap(kind: .choice(options: marks, multiple: false)))
        }
        return (prompt, BuiltKind(kind: .gaps(gaps), warnings: notes))
    }

    /// The text with each `[[N]]` replaced by a stand-in numbered in reading order, and the
    /// choice number of each gap.
    static func placeholders(in raw: String) -> (String, [Int]) {
        let s = Array(raw.unicodeScalars.filter { $0 != gapOpen && $0 != gapClose })
        var out = String.UnicodeScalarView()
        var places: [Int] = []
        var i = 0
        while i < s.count {
            if s[i] == "[", i + 1 < s.count, s[i + 1] == "[" {
                var j = i + 2
                var value = 0
                while j < s.count, j - i < 8, ("0"..."9").contains(s[j]) {
                    value = value * 10 + Int(s[j].value - 48)
                    j += 1
                }
                if j > i + 2, j + 1 < s.count, s[j] == "]", s[j + 1] == "]" {
                    places.append(value)
                    out.append(gapOpen)
                    out.appendEach(String(places.count).unicodeScalars)
                    out.append(gapClose)
                    i = j + 2
                    continue
                }
            }
            out.append(s[i])
            i += 1
        }
        return (String(out), places)
    }

    /// The rendered text with `{1}`, `{2}` … where the stand-ins are. Braces the text itself
    /// holds around a number (`{3}`) would read as gaps, so they get a space (`{ 3}`).
    mutating func gapPrompt(_ rendered: String, count: Int) throws(BuildFailure) -> String {
        var text = String.UnicodeScalarView()
        let literal = Item.gapMarkers(in: rendered).map { $0.range.lowerBound }
        var next = 0
        for (offset, scalar) in rendered.unicodeScalars.enumerated() {
            text.append(scalar)
            if next < literal.count, literal[next] == offset {
                text.append(" ")
                next += 1
            }
        }
        if !literal.isEmpty {
            warnings.append("the text writes a number in braces, which a gaps item reads as a gap; a space now follows each such `{`")
        }
        var out = String.UnicodeScalarView()
        var number: String.UnicodeScalarView? = nil
        var seen: [Int] = []
        for scalar in text {
            if scalar == Self.gapOpen {
                number = String.UnicodeScalarView()
            } else if scalar == Self.gapClose, let digits = number {
                seen.append(Int(String(digits)) ?? 0)
                out.append("{")
                out.appendEach(digits)
                out.append("}")
                number = nil
            } else if number != nil {
                number?.append(scalar)
            } else {
                out.append(scalar)
            }
        }
        guard seen == Array(1...count) else {
            throw .malformed("a gap [[N]] stands where the text is not shown (in a comment, a script or markup), so no student would see it")
        }
        return String(out)
    }

    /// Embedded answers (Moodle's cloze, `multianswer`), read by `ClozeText`: every
    /// `{N:TYPE:…}` a gap. The question is worth the sum of its gaps' weights, as in Moodle
    /// (which ignores `<defaultgrade>` here); each problem is reported at its own line.
    mutating func cloze() throws(BuildFailure) -> (String, BuiltKind) {
        let raw = questionSource()
        let text = element.first("questiontext")
        noteFiles(of: text, in: raw)
        cleaner.count(raw, markup: format.clozeMarkup)
        let read = ClozeText.read(raw, markup: format.clozeMarkup)
        // The text's lines are counted from its <text>, where Moodle writes the CDATA.
        let first = text?.first("text")?.line ?? element.line
        for problem in read.problems {
            let at = (line: first + problem.line, message: problem.message)
            if problem.isError { placedErrors.append(at) } else { placedWarnings.append(at) }
        }
        if let error = read.problems.first(where: \.isError) { throw .malformed(error.message) }
        let choices = read.gaps.indices.filter { read.gaps[$0].kind.isChoice }
        if !choices.isEmpty { shuffles = choices.allSatisfy { read.shuffled.contains($0 + 1) } }
        pointsOverride = read.points
        return (read.prompt, BuiltKind(kind: .gaps(read.gaps)))
    }
}
