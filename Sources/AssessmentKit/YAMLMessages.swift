/// The YAML parser's complaints that teachers meet most, said in plain words at the place to fix.
enum PlainWords {
    struct Explanation {
        var line: Int
        var column: Int
        var message: String
    }

    static func explain(problem: String, at mark: (line: Int, column: Int), context: (line: Int, column: Int)?,
                        in text: String) -> Explanation? {
        if problem.contains("cannot start any token") || problem.contains("tab character") {
            return tab(at: mark, in: text)
        }
        if problem.contains("could not find expected ':'"), let context, let missing = missingColon(at: context, in: text) {
            return missing
        }
        if let misaligned = YAMLIndentation.explanation(in: text, breakingAt: mark.line) {
            return misaligned
        }
        if problem.contains("mapping values are not allowed") {
            return colonInValue(at: mark, in: text)
        }
        return nil
    }

    /// 1-based line `n` of `text` as Unicode scalars (lines end at `\n`; a `\r` before it is dropped).
    static func line(_ n: Int, of text: String) -> [Unicode.Scalar]? {
        var current = 1
        var out: [Unicode.Scalar] = []
        for s in text.unicodeScalars {
            if s == "\n" {
                if current == n { break }
                current += 1
                continue
            }
            if current == n { out.append(s) }
        }
        guard current == n else { return nil }
        if out.last == "\r" { out.removeLast() }
        return out
    }

    static func string(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    static func tab(at mark: (line: Int, column: Int), in text: String) -> Explanation? {
        guard let scalars = line(mark.line, of: text) else { return nil }
        let index = mark.column - 1
        guard let tab = scalars.firstIndex(of: "\t") else { return nil }
        let leading = scalars.prefix { $0 == " " || $0 == "\t" }.count
        if tab < leading {
            return Explanation(line: mark.line, column: tab + 1,
                               message: "tabs are not allowed for indentation; use spaces")
        }
        guard index >= 0, index < scalars.count, scalars[index] == "\t" else { return nil }
        return Explanation(line: mark.line, column: mark.column,
                           message: "a tab cannot start a value here; use spaces")
    }

    static func missingColon(at key: (line: Int, column: Int), in text: String) -> Explanation? {
        guard let scalars = line(key.line, of: text), key.column >= 1, key.column <= scalars.count else { return nil }
        let rest = string(scalars[(key.column - 1)...]).trimmingSpaces()
        guard !rest.isEmpty, !rest.contains(":") else { return nil }
        let words = rest.split(separator: " ", maxSplits: 1)
        let name = String(words[0])
        let fix = words.count > 1 ? "\(name): \(words[1])" : "\(name):"
        return Explanation(line: key.line, column: key.column,
                           message: "missing `:` after `\(name.clippedForMessage)`; write `\(fix.clippedForMessage(limit: 60))`")
    }

    static func colonInValue(at mark: (line: Int, column: Int), in text: String) -> Explanation? {
        guard let scalars = line(mark.line, of: text) else { return nil }
        var start = scalars.prefix { $0 == " " }.count
        if start + 1 < scalars.count, scalars[start] == "-", scalars[start + 1] == " " {
            start += 2
            while start < scalars.count, scalars[start] == " " { start += 1 }
        }
        // The first `: ` on the line separates a key from its value.
        var separator: Int? = nil
        var i = start
        while i < scalars.count {
            if scalars[i] == ":" && (i + 1 == scalars.count || scalars[i + 1] == " ") { separator = i; break }
            i += 1
        }
        guard let separator, mark.column - 1 > separator else {
            return Explanation(line: mark.line, column: mark.column, message:
                "this key is not lined up with the keys above it, or the line above is missing a `:`; indent it like its neighbours")
        }
        let key = string(scalars[start..<separator])
        let value = string(scalars[(separator + 1)...]).trimmingSpaces()
        let fix = "\(key): \(AssessmentWriter.quoted(String(value)))"
        return Explanation(line: mark.line, column: mark.column, message:
            "text that contains `: ` must be in quotes: write `\(fix.clippedForMessage(limit: 70))`")
    }
}
