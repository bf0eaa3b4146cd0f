/// What a document's markup holds, counted before the parser builds anything: its start tags
/// (with the line each begins on, in document order), and its comments and processing
/// instructions. CDATA sections are passed over whole, so a `<` inside one counts for nothing.
///
/// The lines are the elements' own: libxml2 keeps an element's line in 16 bits, so past line
/// 65 535 it could only say where a neighbour was.
struct XMLMarkup {
    private(set) var elements = 0
    private(set) var others = 0
    /// The most attributes one start tag has (libxml2 appends each to a list it walks whole).
    private(set) var mostAttributes = 0
    /// The line of each start tag's `<`, in document order (line 1 first).
    private(set) var lines: [Int] = []

    init(_ text: String) {
        var text = text
        text.withUTF8 { scan($0) }
    }

    private mutating func scan(_ s: UnsafeBufferPointer<UInt8>) {
        let lt = UInt8(ascii: "<"), bang = UInt8(ascii: "!"), question = UInt8(ascii: "?"), slash = UInt8(ascii: "/")
        var line = 1
        var i = 0
        /// Moves past `close`, counting the lines on the way; to the end when it never comes.
        func skip(to close: StaticString) {
            let count = close.utf8CodeUnitCount
            let close = UnsafeBufferPointer(start: close.utf8Start, count: count)
            while i < s.count {
                if s[i] == close[0], i + count <= s.count, (0..<count).allSatisfy({ s[i + $0] == close[$0] }) {
                    i += count
                    return
                }
                step()
            }
        }
        func step() {
            if s[i] == 0x0A || (s[i] == 0x0D && (i + 1 == s.count || s[i + 1] != 0x0A)) { line += 1 }
            i += 1
        }
        func starts(_ prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard i + count <= s.count else { return false }
            return (0..<count).allSatisfy { s[i + $0] == prefix.utf8Start[$0] }
        }
        /// Moves to the end of a start tag, counting its attributes by their `=` outside quotes;
        /// stops at a `<` (a tag not closed: the parser names it).
        func startTag() {
            var quote: UInt8 = 0
            var attributes = 0
            while i < s.count {
                let c = s[i]
                if quote != 0 {
                    if c == quote { quote = 0 }
                } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                } else if c == UInt8(ascii: "=") {
                    attributes += 1
                } else if c == UInt8(ascii: ">") {
                    i += 1
                    break
                } else if c == lt {
                    break
                }
                step()
            }
            mostAttributes = max(mostAttributes, attributes)
        }
        while i < s.count {
            guard s[i] == lt, i + 1 < s.count else { step(); continue }
            let next = s[i + 1]
            if next == bang {
                if starts("<!--") {
                    others += 1
                    skip(to: "-->")
                } else if starts("<![CDATA[") {
                    skip(to: "]]>")
                } else {
                    skip(to: ">")
                }
            } else if next == question {
                others += 1
                skip(to: "?>")
            } else if next == slash {
                i += 2
            } else {
                elements += 1
                lines.append(line)
                i += 1
                startTag()
            }
        }
    }
}
