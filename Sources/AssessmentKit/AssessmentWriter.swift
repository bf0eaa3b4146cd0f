/// Writes an assessment as a `carrel: 1` YAML file that `AssessmentReader` reads back to the
/// same model. Every text is quoted (or a literal block), so no value can be read as another
/// type, a key, a comment or an alias; numbers are written so they read back exactly.
public enum AssessmentWriter {
    public static func yaml(_ a: Assessment, header: [String] = []) -> String {
        var w = Lines()
        for line in header { w.add(0, "# " + line.clippedForMessage(limit: 200)) }
        w.add(0, "carrel: \(a.formatVersion)")
        w.add(0, "id: \(quoted(a.id))")
        w.text(0, "title", a.title)
        if let d = a.description { w.text(0, "description", d) }
        if let language = a.language { w.add(0, "language: \(quoted(language))") }
        if let t = a.timeLimit { w.add(0, "time_limit: \(DurationText.format(t))") }
        if a.navigation != .free { w.add(0, "navigation: \(a.navigation.rawValue)") }
        if a.shuffle != Shuffle() {
            w.add(0, "shuffle: {items: \(a.shuffle.items), choices: \(a.shuffle.choices)}")
        }
        if a.results != ResultOptions() { w.add(0, "results: {show_score: \(a.results.showScore)}") }
        if a.proctor.passphrase != nil || a.proctor.key != nil {
            w.add(0, "proctor:")
            if let hash = a.proctor.passphrase { w.add(1, "passphrase: \(quoted(hash.description))") }
            if let key = a.proctor.key { w.add(1, "key: \(quoted(key.description))") }
        }
        let policy = policyEntries(a.policy)
        if !policy.isEmpty { w.add(0, "policy: {\(policy.joined(separator: ", "))}") }
        w.add(0, "sections:")
        for section in a.sections {
            w.entry(1)
            if let t = section.title { w.text(2, "title", t) }
            if let i = section.instructions { w.text(2, "instructions", i) }
            if let n = section.proctorNote { w.text(2, "proctor_note", n) }
            if let d = section.draw { w.add(2, "draw: \(d)") }
            w.add(2, "items:")
            for item in section.items { write(item, &w) }
        }
        return w.out
    }

    static func policyEntries(_ p: RestrictionPolicy) -> [String] {
        let d = RestrictionPolicy()
        var out: [String] = []
        if p.paste != d.paste { out.append("paste: \(p.paste.rawValue)") }
        if p.pasteboards != d.pasteboards { out.append("pasteboards: \(p.pasteboards.rawValue)") }
        if p.multiplexer != d.multiplexer { out.append("multiplexer: \(p.multiplexer.rawValue)") }
        if p.extensions != d.extensions { out.append("extensions: \(p.extensions.rawValue)") }
        if p.suspend != d.suspend { out.append("suspend: \(p.suspend.rawValue)") }
        if p.focus != d.focus { out.append("focus: \(p.focus.rawValue)") }
        if p.remote != d.remote { out.append("remote: \(p.remote.rawValue)") }
        if p.maxDuration != d.maxDuration { out.append("max_duration: \(DurationText.format(p.maxDuration))") }
        if p.sharedStore != d.sharedStore { out.append("shared: \(p.sharedStore.rawValue)") }
        if let m = p.machine {
            let values: [(String, String?)] = [
                ("machine", m.machine?.rawValue), ("network", m.network?.rawValue), ("logins", m.logins?.rawValue),
                ("sessions", m.sessions?.rawValue), ("consoles", m.consoles?.rawValue), ("devices", m.devices?.rawValue),
                ("processes", m.processes?.rawValue),
            ]
            for case let (key, value?) in values { out.append("\(key): \(value)") }
        }
        return out
    }

    static func write(_ item: Item, _ w: inout Lines) {
        w.entry(3)
        w.add(4, "id: \(quoted(item.id))")
        w.add(4, "type: \(item.type.rawValue)")
        w.text(4, "prompt", item.prompt)
        if item.points != 1 { w.add(4, "points: \(number(item.points))") }
        if let f = item.feedback { w.text(4, "feedback", f) }
        if let n = item.proctorNote { w.text(4, "proctor_note", n) }
        switch item.kind {
        case let .choice(choices, answer):
            writeChoices(choices, item.marking, &w)
            w.add(4, "answer: \(quoted(answer))")
        case let .multiple(choices, answers, scoring):
            writeChoices(choices, item.marking, &w)
            if item.marking?.scoresByChoiceCredit != true {
                w.list(4, "answer", answers)
                if scoring != .allOrNothing { w.add(4, "scoring: \(scoring.rawValue)") }
            }
        case let .trueFalse(answer):
            w.add(4, "answer: \(answer)")
            if case let .trueFalse(ifTrue, ifFalse)? = item.marking {
                if let t = ifTrue { w.text(4, "feedback_true", t) }
                if let f = ifFalse { w.text(4, "feedback_false", f) }
            }
        case let .text(accept, caseSensitive):
            if case let .texts(answers)? = item.marking {
                w.add(4, "accept:")
                for a in answers { option(a.text, credit: a.credit == 100 ? nil : a.credit, feedback: a.feedback, 5, &w) }
            } else {
                w.list(4, "accept", accept)
            }
            if caseSensitive { w.add(4, "case_sensitive: true") }
        case let .numeric(answer):
            if case let .numbers(answers)? = item.marking {
                w.add(4, "answers:")
                for a in answers {
                    w.entry(5)
                    numeric(a.answer, 6, &w)
                    if a.credit != 100 { w.add(6, "credit: \(number(a.credit))%") }
                    if let f = a.feedback { w.text(6, "feedback", f) }
                }
            } else {
                numeric(answer, 4, &w)
            }
        case let .essay(minWords, maxWords):
            if let m = minWords { w.add(4, "min_words: \(m)") }
            if let m = maxWords { w.add(4, "max_words: \(m)") }
        case let .order(entries):
            w.list(4, "items", entries)
        case let .match(pairs, distractors):
            w.add(4, "pairs:")
            for pair in pairs { w.add(5, "\(quoted(pair.left)): \(quoted(pair.right))") }
            if !distractors.isEmpty { w.list(4, "distractors", distractors) }
        case let .gaps(gaps):
            w.add(4, "gaps:")
            for gap in gaps { write(gap, &w) }
        }
    }

    /// One entry of `gaps`, at level 5, its keys at level 6 and options at level 7.
    static func write(_ gap: Gap, _ w: inout Lines) {
        w.entry(5)
        switch gap.kind {
        case let .text(answers, caseSensitive):
            w.add(6, "accept:")
            for a in answers { option(a.text, credit: a.credit == 100 ? nil : a.credit, feedback: a.feedback, 7, &w) }
            if caseSensitive { w.add(6, "case_sensitive: true") }
        case let .choice(options, multiple):
            let plainKey = options.allSatisfy { $0.feedback == nil && ($0.credit ?? 0 == 0 || $0.credit == 100) }
                && options.filter { $0.credit == 100 }.count == 1
            if !multiple && plainKey, let answer = options.first(where: { $0.credit == 100 }) {
                w.list(6, "choices", options.map(\.text))
                w.add(6, "answer: \(quoted(answer.text))")
            } else {
                if multiple { w.add(6, "multiple: true") }
                w.add(6, "choices:")
                for o in options {
                    let credit = o.credit == 0 || (!multiple && o.credit == 100) ? nil : o.credit
                    option(o.text, credit: credit, feedback: o.feedback, 7, &w)
                }
                if !multiple, let answer = options.first(where: { $0.credit == 100 }) {
                    w.add(6, "answer: \(quoted(answer.text))")
                }
            }
        case let .number(answers):
            if answers.count == 1, answers[0].credit == 100, answers[0].feedback == nil {
                numeric(answers[0].answer, 6, &w)
            } else {
                w.add(6, "answers:")
                for a in answers {
                    w.entry(7)
                    numeric(a.answer, 8, &w)
                    if a.credit != 100 { w.add(8, "credit: \(number(a.credit))%") }
                    if let f = a.feedback { w.text(8, "feedback", f) }
                }
            }
        }
        if let p = gap.points { w.add(6, "points: \(number(p))") }
    }

    static func writeChoices(_ choices: [String], _ marking: Marking?, _ w: inout Lines) {
        guard case let .choices(marks)? = marking, marks.map(\.text) == choices else {
            w.list(4, "choices", choices)
            return
        }
        w.add(4, "choices:")
        for mark in marks { option(mark.text, credit: mark.credit, feedback: mark.feedback, 5, &w) }
    }

    /// A plain entry, or `text:` with its credit and feedback.
    static func option(_ text: String, credit: Double?, feedback: String?, _ level: Int, _ w: inout Lines) {
        guard credit != nil || feedback != nil else {
            w.add(level, "- \(quoted(text))")
            return
        }
        w.entry(level)
        w.add(level + 1, "text: \(quoted(text))")
        if let c = credit { w.add(level + 1, "credit: \(number(c))%") }
        if let f = feedback { w.text(level + 1, "feedback", f) }
    }

    static func numeric(_ answer: NumericAnswer, _ level: Int, _ w: inout Lines) {
        switch answer {
        case let .value(v, tolerance):
            w.add(level, "answer: \(number(v))")
            if tolerance != 0 { w.add(level, "tolerance: \(number(tolerance))") }
        case let .range(lo, hi):
            w.add(level, "range: [\(number(lo)), \(number(hi))]")
        }
    }

    /// Shortest text that reads back as the same Double: `2`, `0.005`, `-33.33333`, `1e-07`.
    public static func number(_ x: Double) -> String {
        if x == x.rounded() && abs(x) < 1e15 { return String(Int(x)) }
        return x.description
    }

    /// A double-quoted YAML scalar; everything outside printable text is escaped.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for s in text.unicodeScalars {
            switch s {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if needsEscape(s) {
                    let hex = String(s.value, radix: 16, uppercase: true)
                    out += s.value <= 0xFFFF ? "\\u" + hex.leftPadded(to: 4) : "\\U" + hex.leftPadded(to: 8)
                } else {
                    out.unicodeScalars.append(s)
                }
            }
        }
        return out + "\""
    }

    /// Controls, YAML's other line breaks, the byte-order mark, and what YAML cannot carry raw.
    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        TerminalSafety.isControl(s) || TerminalSafety.isBidiControl(s)
            || s.value == 0x2028 || s.value == 0x2029 || s.value == 0xFEFF
            || (0xFFFE...0xFFFF).contains(s.value)
    }

    /// Text with line breaks reads best as a literal block; anything a block would alter is quoted.
    static func literalBlockFits(_ text: String) -> Bool {
        guard text.contains("\n"), let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else {
            return false
        }
        if first == " " || first == "\t" || first == "\n" || last == "\n" || last == " " || last == "\t" { return false }
        return !text.unicodeScalars.contains { $0 != "\n" && $0 != "\t" && needsEscape($0) || $0 == "\r" }
    }

    /// Output lines, two spaces per level.
    struct Lines {
        var out = ""
        /// Set after `entry`: the next line at `level` starts with "- " one level up.
        private var pendingDash: Int? = nil

        mutating func add(_ level: Int, _ line: String) {
            if let dash = pendingDash, dash == level - 1 {
                out += String(repeating: "  ", count: dash) + "- " + line + "\n"
                pendingDash = nil
                return
            }
            out += String(repeating: "  ", count: level) + line + "\n"
        }

        /// Starts a list entry whose first key is written at `level + 1`.
        mutating func entry(_ level: Int) { pendingDash = level }

        mutating func text(_ level: Int, _ key: String, _ value: String) {
            guard AssessmentWriter.literalBlockFits(value) else {
                add(level, "\(key): \(AssessmentWriter.quoted(value))")
                return
            }
            add(level, "\(key): |-")
            let indent = String(repeating: "  ", count: level + 1)
            for line in value.split(separator: "\n", omittingEmptySubsequences: false) {
                out += line.isEmpty ? "\n" : indent + line + "\n"
            }
        }

        mutating func list(_ level: Int, _ key: String, _ values: [String]) {
            add(level, "\(key):")
            for v in values { add(level + 1, "- " + AssessmentWriter.quoted(v)) }
        }
    }
}
