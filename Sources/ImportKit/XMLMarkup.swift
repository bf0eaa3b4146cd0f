/// What a document's markup holds, counted before the parser builds anything: its start tags
/// (with the line each begins on, in document order), the most attributes one has, how deep
/// they nest, and its comments and processing instructions. CDATA sections, comments and
/// instructions are passed over whole, as XML reads them (`<!-->` opens a comment, it does
/// not close one), so a `<` inside one counts for nothing.
///
/// The lines are the elements' own: libxml2 keeps an element's line in 16 bits, so past line
/// 65 535 it could only say where a neighbour was.
struct XMLMarkup {
    private(set) var others = 0
    /// The line of each start tag's `<`, in document order (line 1 first).
    private(set) var lines: [Int] = []
    var elements: Int { lines.count }
    /// The most attributes one start tag has (libxml2 appends each to a list it walks whole).
    private(set) var mostAttributes = 0
    /// Attributes in all, and the most namespace declarations (`xmlns…=`) in scope at once:
    /// libxml2 looks each prefixed name up through every declaration in scope.
    private(set) var attributes = 0
    private(set) var namespaces = 0
    private var declared: [Int] = []
    private var inScope = 0
    /// How deep elements nest.
    private(set) var depth = 0
    /// The line of the first NUL, which XML allows nowhere (libxml2 would stop reading there).
    private(set) var nul: Int?

    private var i = 0
    private var line = 1
    private var open = 0

    init(_ text: String) {
        var text = text
        text.withUTF8 { scan($0) }
    }

    private static let lt = UInt8(ascii: "<")
    private static let xmlns = Array("xmlns".utf8)

    private mutating func scan(_ s: UnsafeBufferPointer<UInt8>) {
        while i < s.count {
            guard s[i] == Self.lt, i + 1 < s.count else { step(s); continue }
            switch s[i + 1] {
            case UInt8(ascii: "!"):
                if starts(s, "<!--") {
                    others += 1
                    skip(s, 4, to: "-->")
                } else if starts(s, "<![CDATA[") {
                    skip(s, 9, to: "]]>")
                } else {
                    skip(s, 2, to: ">")
                }
            case UInt8(ascii: "?"):
                others += 1
                skip(s, 2, to: "?>")
            case UInt8(ascii: "/"):
                open = max(0, open - 1)
                inScope -= declared.popLast() ?? 0
                i += 2
            default:
                lines.append(line)
                i += 1
                startTag(s)
            }
        }
    }

    /// One byte on, counting a line at LF, at CRLF's LF, and at a CR alone.
    private mutating func step(_ s: UnsafeBufferPointer<UInt8>) {
        if s[i] == 0, nul == nil { nul = line }
        if s[i] == 0x0A || (s[i] == 0x0D && (i + 1 == s.count || s[i + 1] != 0x0A)) { line += 1 }
        i += 1
    }

    private func starts(_ s: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard i + count <= s.count else { return false }
        return (0..<count).allSatisfy { s[i + $0] == prefix.utf8Start[$0] }
    }

    /// Moves past `close`, searched from `from` bytes on (after the opening), counting the
    /// lines on the way; to the end when it never comes.
    private mutating func skip(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, to close: StaticString) {
        for _ in 0..<from where i < s.count { step(s) }
        while i < s.count {
            if starts(s, close) {
                i += close.utf8CodeUnitCount
                return
            }
            step(s)
        }
    }

    /// Moves to the end of a start tag, counting its attributes by their `=` outside quotes,
    /// and the namespace declarations among them by their names (in scope until its end tag);
    /// stops at a `<` (a tag not closed: the parser names it).
    private mutating func startTag(_ s: UnsafeBufferPointer<UInt8>) {
        var quote: UInt8 = 0
        var count = 0
        var closed = false
        var previous: UInt8 = 0
        var name = i, afterSpace = false, declarations = 0
        while i < s.count {
            let c = s[i]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                quote = c
            } else if c == UInt8(ascii: "=") {
                count += 1
                if s[name...].starts(with: Self.xmlns) { declarations += 1 }
            } else if c == UInt8(ascii: ">") {
                closed = previous != UInt8(ascii: "/")
                i += 1
                break
            } else if c == Self.lt {
                break
            } else if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D {
                afterSpace = true
            } else if afterSpace {
                // The start of the next name (or of the element's own, first).
                name = i
                afterSpace = false
            }
            previous = c
            step(s)
        }
        mostAttributes = max(mostAttributes, count)
        attributes += count
        namespaces = max(namespaces, inScope + declarations)
        if closed {
            open += 1
            depth = max(depth, open)
            declared.append(declarations)
            inScope += declarations
        }
    }
}
