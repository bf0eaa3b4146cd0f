/// MathML (QTI items carry it) written on one line, as a teacher would type it on a terminal:
/// `<mfrac>1 3</mfrac>` is 1/3, `<msup>x 2</msup>` x^2, `<msqrt>` √(…). Reading only the text
/// inside would make 1/3 and 13 the same choice.
enum MathText {
    static func linear(_ e: XElement) -> String {
        collapse(render(e))
    }

    static func render(_ e: XElement) -> String {
        let parts = e.elements
        switch e.name {
        case "mi", "mn", "mtext", "ms":
            return e.text
        case "mo":
            let op = collapse(e.text)
            return binaryOperators.contains(op) ? " \(op) " : op
        case "mspace":
            return " "
        case let name where marks[name]?.count == parts.count - 1:
            // A fraction or a base with its scripts: each part an operand, the marks between.
            return zip([""] + (marks[name] ?? []), parts).map { $0 + term($1) }.joined()
        case "msqrt":
            return "√" + wrapped(row(parts))
        case "mroot" where parts.count == 2:
            switch collapse(render(parts[1])) {
            case "3": return "∛" + term(parts[0])
            case "4": return "∜" + term(parts[0])
            default: return term(parts[0]) + "^(1/" + collapse(render(parts[1])) + ")"
            }
        case "mfenced":
            let open = e.attributes["open"] ?? "(", close = e.attributes["close"] ?? ")"
            let separator = (e.attributes["separators"].map(collapse)?.first).map(String.init) ?? ","
            return open + parts.map { collapse(render($0)) }.joined(separator: separator + " ") + close
        case "mtable":
            return "[" + parts.map { collapse(render($0)) }.joined(separator: "; ") + "]"
        case "mtr", "mlabeledtr":
            return parts.map { collapse(render($0)) }.joined(separator: ", ")
        case "semantics":
            return parts.first.map(render) ?? ""
        case "annotation", "annotation-xml", "mphantom", "none", "mprescripts":
            return ""
        default:
            // math, mrow, mstyle, mpadded, menclose, merror, mtd and anything unknown: a row.
            return parts.isEmpty ? e.text : row(parts)
        }
    }

    /// What stands between the parts of a fraction and of a base with scripts.
    static let marks: [String: [String]] = [
        "mfrac": ["/"], "msup": ["^"], "mover": ["^"], "msub": ["_"], "munder": ["_"],
        "msubsup": ["_", "^"], "munderover": ["_", "^"],
    ]

    static let binaryOperators: Set<String> = ["+", "-", "−", "=", "≠", "<", ">", "≤", "≥", "±", "×", "÷", "·", "≈", "→", "⇒"]

    static func row(_ parts: [XElement]) -> String {
        parts.map(render).joined()
    }

    /// An operand: as it is when it is one number or name, else in parentheses.
    static func term(_ e: XElement) -> String {
        wrapped(collapse(render(e)))
    }

    static func wrapped(_ text: String) -> String {
        let t = collapse(text)
        if isAtom(t) || (t.hasPrefix("(") && t.hasSuffix(")") && balanced(t.dropFirst().dropLast())) { return t }
        return "(" + t + ")"
    }

    /// One character, or a number or name with scripts of its own (x, 2.5, c_2, x^2).
    static func isAtom(_ t: String) -> Bool {
        guard t.count > 1 else { return !t.isEmpty }
        return t.split(whereSeparator: { $0 == "_" || $0 == "^" }).allSatisfy { TextBuilder.isOneTerm(String($0)) }
            && !t.hasPrefix("_") && !t.hasPrefix("^") && !t.hasSuffix("_") && !t.hasSuffix("^")
    }

    /// Whether the parentheses inside close in order (so "(a)(b)" is not taken as one group).
    static func balanced(_ s: Substring) -> Bool {
        var depth = 0
        for c in s {
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1 }
            if depth < 0 { return false }
        }
        return depth == 0
    }

    /// White space as one space, none at either end.
    static func collapse(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
