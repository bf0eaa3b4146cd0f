/// A forgiving reader of the HTML found in question banks: tags lay text out, entities become
/// characters, scripts and styles vanish, and anything that is not a tag stays text. Linear in
/// the input; an unclosed tag or comment is read as text.
enum HTMLText {
    /// Tags longer than this are read as text (no real tag is).
    static let longestTag = 4096

    static func render(_ html: String, into out: inout TextBuilder) {
        let s = Array(html.unicodeScalars)
        var search = Search(s)
        var i = 0
        // Text waiting to be laid out: `pending`, then the run of `html` from `run` on, copied
        // whole when it ends (an entity, a tag, a comment) rather than scalar by scalar.
        var pending = ""
        var run: Int? = nil
        let view = html.unicodeScalars
        var cursor = (offset: 0, index: view.startIndex)
        func index(_ offset: Int) -> String.Index {
            // Runs end in order, so the cursor only moves forward: linear in all.
            cursor.index = view.index(cursor.index, offsetBy: offset - cursor.offset)
            cursor.offset = offset
            return cursor.index
        }
        func take(upTo end: Int) {
            guard let start = run else { return }
            run = nil
            let from = index(start)
            pending += Substring(view[from..<index(end)])
        }
        var preformatted = 0
        func emit(_ out: inout TextBuilder) {
            take(upTo: i)
            guard !pending.isEmpty else { return }
            if preformatted > 0 { out.addPreformatted(pending) } else { out.add(pending) }
            pending = ""
        }
        while i < s.count {
            let c = s[i]
            if c == "&", let (decoded, next) = Entities.decode(s, at: i) {
                take(upTo: i)
                pending += decoded
                i = next
                continue
            }
            guard c == "<", i + 1 < s.count else {
                if run == nil { run = i }
                i += 1
                continue
            }
            if s[i + 1] == "!" || s[i + 1] == "?" {
                let comment = s[i...].starts(with: "<!--".unicodeScalars)
                guard let end = comment ? search.end(of: "-->", from: i + 4) : search.end(of: ">", from: i) else {
                    if run == nil { run = i }
                    i += 1
                    continue
                }
                take(upTo: i)
                i = end
                continue
            }
            guard s[i + 1] == "/" || s[i + 1].properties.isAlphabetic,
                  let close = search.end(of: ">", from: i + 1), close - i <= longestTag
            else {
                if run == nil { run = i }
                i += 1
                continue
            }
            let tag = Tag(Array(s[(i + 1)..<(close - 1)]))
            emit(&out)
            i = close
            if tag.name == "pre" && !tag.selfClosing { preformatted = max(0, preformatted + (tag.closing ? -1 : 1)) }
            i = layOut(tag, into: &out, search: &search, from: i)
        }
        emit(&out)
    }

    /// Lays out what `tag` means; returns where reading goes on from `i`, just past the tag.
    static func layOut(_ tag: Tag, into out: inout TextBuilder, search: inout Search, from i: Int) -> Int {
        // HTML lets a cell go unclosed: a row or a table's edge closes whatever cell is open.
        if ["tr", "table", "thead", "tbody", "tfoot"].contains(tag.name.lowercased()) { out.openCells = 0 }
        switch HTMLLayout.role(of: tag.name) {
        case .paragraph:
            let list = HTMLLayout.localName(tag.name)
            if list != "ol" && list != "ul" || tag.selfClosing {
                out.paragraph()
            } else if tag.closing {
                out.closeList()
            } else {
                out.openList(ordered: list == "ol", start: tag.attribute("start"), type: tag.attribute("type"))
            }
        case .block: out.block()
        case .lineBreak: if !tag.closing { out.lineBreak() }
        case .listItem: if !tag.closing { out.listItem(value: tag.attribute("value")) }
        case .cell:
            out.add(" ")
            if !tag.selfClosing { out.openCells = max(0, out.openCells + (tag.closing ? -1 : 1)) }
        case .image:
            let alt = tag.attribute("alt").map(decodeEntities), source = tag.attribute("src").map(decodeEntities)
            if !tag.closing { out.images.append(source ?? "") }
            out.add(" " + HTMLLayout.image(alt: alt, source: source) + " ")
        case .hidden:
            // Scripts, styles and the like: nothing inside is text.
            if !tag.closing && !tag.selfClosing, let end = search.endOfClosingTag(tag.name, from: i) { return end }
        case .raised, .lowered:
            if tag.selfClosing { break }
            if tag.closing { out.endScript() } else { out.beginScript(superscript: HTMLLayout.role(of: tag.name) == .raised) }
        case .inline: break
        }
        return i
    }

    /// Finds needles in one text, remembering the last answer per needle: the reader only moves
    /// forward, so a text full of unclosed `<` or `<!--` is still read in linear time.
    struct Search {
        let s: [Unicode.Scalar]
        private var memo: [String: (from: Int, end: Int?)] = [:]

        init(_ s: [Unicode.Scalar]) { self.s = s }

        /// Index just past the first `needle` starting at or after `from`.
        mutating func end(of needle: String, from: Int, caseInsensitive: Bool = false) -> Int? {
            let n = Array(needle.unicodeScalars)
            if let m = memo[needle], m.from <= from, m.end.map({ $0 - n.count >= from }) ?? true { return m.end }
            var i = from
            var found: Int? = nil
            while i + n.count <= s.count {
                var match = true
                for k in 0..<n.count where (caseInsensitive ? HTMLText.lowered(s[i + k]) : s[i + k]) != n[k] {
                    match = false
                    break
                }
                if match { found = i + n.count; break }
                i += 1
            }
            memo[needle] = (from, found)
            return found
        }

        /// Index just past `</name …>`, case-insensitively.
        mutating func endOfClosingTag(_ name: String, from: Int) -> Int? {
            guard let start = end(of: "</" + name.lowercased(), from: from, caseInsensitive: true) else { return nil }
            return end(of: ">", from: start) ?? s.count
        }
    }

    static func decodeEntities(_ text: String) -> String {
        let s = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            if s[i] == "&", let (decoded, next) = Entities.decode(s, at: i) {
                out.appendEach(decoded.unicodeScalars)
                i = next
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(out)
    }

    static func lowered(_ c: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 32) ?? c : c
    }

    /// The inside of `<…>`: name, whether it closes, and its attributes on demand.
    struct Tag {
        var name: String
        var closing: Bool
        var selfClosing: Bool
        let body: [Unicode.Scalar]

        init(_ body: [Unicode.Scalar]) {
            self.body = body
            closing = body.first == "/"
            selfClosing = body.last == "/"
            let start = closing ? 1 : 0
            var end = start
            while end < body.count, body[end].properties.isAlphabetic || ("0"..."9").contains(body[end]) || body[end] == ":" || body[end] == "-" { end += 1 }
            name = String(String.UnicodeScalarView(body[start..<end])).lowercased()
        }

        /// The value of `name="…"`, `name='…'` or `name=word`.
        func attribute(_ wanted: String) -> String? {
            var i = 0
            while i < body.count {
                while i < body.count, !body[i].properties.isAlphabetic { i += 1 }
                let start = i
                while i < body.count, body[i] != "=", body[i] != " ", body[i] != "/", body[i] != ">" { i += 1 }
                let key = String(String.UnicodeScalarView(body[start..<i])).lowercased()
                while i < body.count, body[i] == " " { i += 1 }
                guard i < body.count, body[i] == "=" else { continue }
                i += 1
                while i < body.count, body[i] == " " { i += 1 }
                var value = String.UnicodeScalarView()
                if i < body.count, body[i] == "\"" || body[i] == "'" {
                    let quote = body[i]
                    i += 1
                    while i < body.count, body[i] != quote { value.append(body[i]); i += 1 }
                    i += 1
                } else {
                    while i < body.count, body[i] != " " { value.append(body[i]); i += 1 }
                }
                if key == wanted { return String(value) }
            }
            return nil
        }
    }
}
