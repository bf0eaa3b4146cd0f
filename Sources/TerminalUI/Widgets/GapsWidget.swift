import AssessmentKit
import Localization
import SessionKit

/// A text with gaps: the text is shown with each gap's field in its place, wrapped with the
/// words around it. ↑ ↓ (or Enter) go from gap to gap; a typed gap takes typing, a pick gap
/// takes ← → or its option's letter.
struct GapsWidget: AnswerWidget {
    let context: WidgetContext
    /// Each gap's options as shown (the plan's order), for the pick gaps.
    var gapOptions: [[String]] { context.gapOptions }

    static let summary = KeyListing.Row(keys: "↑ ↓ or Enter, ← →",
                                        meaning: "in a text with gaps: go to the gap above or below (Enter: the next); ← → change a pick")

    var gaps: [Gap] {
        if case let .gaps(gaps) = context.item.kind { return gaps }
        return []
    }
    var focused: Int { min(context.highlight, max(0, gaps.count - 1)) }
    var entries: [[String]] { Self.entries(context.response, count: gaps.count) }

    static func entries(_ response: Response?, count: Int) -> [[String]] {
        var out = Array(repeating: [String](), count: count)
        if case let .gaps(given)? = response {
            for (i, entry) in given.enumerated() where i < count { out[i] = entry }
        }
        return out
    }

    var keyMap: KeyMap<AnswerAction> {
        typealias B = AnswerWidgets.Binding
        let moves = [
            B("↑ ↓", "go to the gap before or after", keys: [.up], .up),
            B("", "", keys: [.down], .down),
            B("Enter", "the next gap (after the last: the next question)", keys: [.enter], .next),
        ]
        guard gaps.indices.contains(focused), case let .choice(_, multiple) = gaps[focused].kind else {
            return KeyMap("gaps", "A text with gaps", moves + [
                B("a character", "type it in the gap (printable text)", keys: [], keyClass: .printableText, .edit),
                B("← → Home End", "move in the gap", keys: [.left, .right, .home, .end], .edit),
                B("Backspace / Delete", "delete before or after the cursor", keys: [.backspace, .delete], .edit),
            ])
        }
        let count = options.count
        return KeyMap("gaps", "A text with gaps", moves + [
            B("← →", multiple ? "highlight the option before or after" : "choose the option before or after",
              keys: [.left], .previousMatch),
            B("", "", keys: [.right], .nextMatch),
            B("Space", multiple ? "check or uncheck the highlighted option" : "choose the next option",
              keys: [.character(" ")], .choose),
            B("a, b, c… or 1, 2, 3…", multiple ? "check or uncheck that option" : "choose that option",
              keys: AnswerWidgets.pickKeys(count: count, digits: true), .pick),
            B("Backspace / Delete", "clear the gap", keys: [.backspace, .delete], .clear),
        ])
    }

    /// The focused gap's options as shown.
    var options: [String] { gapOptions.indices.contains(focused) ? gapOptions[focused] : [] }

    func perform(_ action: AnswerAction, key: Key) -> WidgetChange {
        let count = gaps.count
        switch action {
        case .up, .down:
            let to = action == .up ? max(0, focused - 1) : min(count - 1, focused + 1)
            if to == focused {
                return WidgetChange(say: context.say(action == .up ? "This is the first gap" : "This is the last gap"))
            }
            return WidgetChange(highlight: to, say: description(of: to, entries: entries))
        case .next:
            if focused + 1 >= count { return WidgetChange(nextQuestion: true) }
            return WidgetChange(highlight: focused + 1, say: description(of: focused + 1, entries: entries))
        case .edit:
            var e = context.editor
            let before = e.text
            guard e.apply(key) else { return .none }
            var change = WidgetChange(editor: e)
            if e.text != before {
                change.commands = [.session(.edit(context.item.id, response(setting: e.text.isEmpty ? [] : [e.text])))]
            }
            return change
        case .previousMatch, .nextMatch, .choose, .pick, .clear:
            return pick(action, key: key)
        default:
            return .none
        }
    }

    /// A pick gap's keys: the new entry, said in words.
    func pick(_ action: AnswerAction, key: Key) -> WidgetChange {
        guard gaps.indices.contains(focused), case let .choice(_, multiple) = gaps[focused].kind else { return .none }
        let opts = options
        guard !opts.isEmpty else { return .none }
        let current = entries[focused]
        var entry = current
        var optionHighlight = context.optionHighlight
        switch action {
        case .clear:
            entry = []
        case .previousMatch, .nextMatch:
            let step = action == .nextMatch ? 1 : -1
            if multiple {
                optionHighlight = (optionHighlight + step + opts.count) % opts.count
                return WidgetChange(optionHighlight: optionHighlight, say: optionWords(opts[optionHighlight], entry: entry))
            }
            let at = current.first.flatMap { opts.firstIndex(of: $0) } ?? (step > 0 ? -1 : opts.count)
            entry = [opts[(at + step + opts.count) % opts.count]]
        case .choose:
            if multiple {
                entry = toggled(opts[min(optionHighlight, opts.count - 1)], in: entry, order: opts)
            } else {
                let at = current.first.flatMap { opts.firstIndex(of: $0) } ?? -1
                entry = [opts[(at + 1) % opts.count]]
            }
        case .pick:
            guard let i = AnswerWidgets.pickIndex(key, count: opts.count) else { return .none }
            optionHighlight = i
            entry = multiple ? toggled(opts[i], in: entry, order: opts) : [opts[i]]
        default:
            return .none
        }
        var all = entries
        all[focused] = entry
        let said = entry.isEmpty ? context.say("Gap {0} cleared", .n(focused + 1)) : state(of: focused, entries: all)
        return WidgetChange(optionHighlight: optionHighlight, say: said,
                            commands: [.session(.answer(context.item.id, response(setting: entry)))])
    }

    func toggled(_ option: String, in entry: [String], order: [String]) -> [String] {
        var picked = Set(entry)
        if picked.contains(option) { picked.remove(option) } else { picked.insert(option) }
        return order.filter { picked.contains($0) }
    }

    func optionWords(_ option: String, entry: [String]) -> String {
        context.say(entry.contains(option) ? "{0}: checked" : "{0}: not checked", .s(option))
    }

    /// The whole response with the focused gap's entry replaced; nil when every gap is open.
    func response(setting entry: [String]) -> Response? {
        var all = entries
        all[focused] = entry
        return all.allSatisfy(\.isEmpty) ? nil : .gaps(all)
    }

    // MARK: words

    /// What the screen reader hears on arriving at a gap: its number, the words before it and
    /// its state.
    func description(of index: Int, entries: [[String]]) -> String {
        let say = context.say
        let before = Self.wordsBefore(index, in: context.item.prompt)
        let words = before.isEmpty ? say("Gap {0} of {1}", .n(index + 1), .n(gaps.count))
            : say("Gap {0} of {1}, after “{2}”", .n(index + 1), .n(gaps.count), .s(before))
        return say("⟨gap, then its state⟩{0}: {1}", .s(words), .s(state(of: index, entries: entries)))
    }

    /// A gap's state in words.
    func state(of index: Int, entries: [[String]]) -> String {
        let entry = entries[index]
        let say = context.say
        switch gaps[index].kind {
        case .text, .number:
            return entry.first.map { say("typed {0}", .s($0)) } ?? say("empty, type your answer")
        case let .choice(_, multiple):
            if entry.isEmpty {
                return multiple ? say("nothing checked; ← → and Space, or a letter, check options")
                    : say("nothing chosen; ← → or a letter choose")
            }
            return multiple ? say("{0} checked", .s(entry.joined(separator: say("⟨between checked options⟩, "))))
                : say("{0} chosen", .s(entry[0]))
        }
    }

    /// Up to five words of the text just before gap `index` (on its line of the prompt).
    static func wordsBefore(_ index: Int, in prompt: String) -> String {
        let markers = Item.gapMarkers(in: prompt)
        guard index < markers.count else { return "" }
        let scalars = Array(prompt.unicodeScalars)
        let start = index > 0 ? markers[index - 1].range.upperBound : 0
        var view = String.UnicodeScalarView()
        view.appendEach(scalars[start..<markers[index].range.lowerBound])
        let line = String(view).split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
        return line.split(separator: " ").suffix(5).joined(separator: " ")
    }

    // MARK: lines

    /// One gap's field as shown in the text: `[2: typed]`, `[2: ______]`, `[3: about ▾]`.
    func field(_ index: Int, entries: [[String]], maxWidth: Int) -> String {
        let entry = entries[index]
        let sr = context.screenReader
        let say = context.say
        let number = sr ? say("gap {0}", .n(index + 1)) : "\(index + 1)"
        var content: String
        switch gaps[index].kind {
        case .text, .number:
            if index == focused {
                content = context.editor.text.isEmpty ? (sr ? say("⟨gap⟩empty") : "______") : context.editor.text
            } else {
                content = entry.first ?? (sr ? say("⟨gap⟩empty") : "______")
            }
        case .choice:
            content = entry.isEmpty ? (sr ? say("⟨gap⟩not chosen") : say("⟨gap⟩choose ▾"))
                : entry.joined(separator: say("⟨between checked options⟩, ")) + (sr ? "" : " ▾")
        }
        // Measured as it will be drawn (a tab in a stored answer is four spaces on screen).
        content = TextWidth.sanitise(content)
        let room = max(4, maxWidth - TextWidth.of(number) - 4)
        if TextWidth.of(content) > room {
            if index == focused, !gaps[index].kind.isChoice {
                content = Widgets.window(content, cursorColumn: context.editor.cursorColumn, width: room).0
            } else {
                content = TextWidth.clip(content, to: room)
            }
        }
        return "[\(number): \(content)]"
    }

    func lines(width: Int) -> Widgets.Output {
        var out = Widgets.Output()
        let textWidth = max(8, width - 4)
        let layout = GapsLayout.make(prompt: context.item.prompt, count: gaps.count, width: textWidth) { i in
            field(i, entries: entries, maxWidth: textWidth)
        }
        for (row, line) in layout.lines.enumerated() {
            var body = BodyLine(text: line, role: .plain, indent: 2)
            if let place = layout.places.first(where: { $0.gap == focused && $0.row == row }) {
                body.highlight = place.columns
            }
            out.lines.append(body)
        }
        if let place = layout.places.first(where: { $0.gap == focused }) {
            let number = context.screenReader ? context.say("gap {0}", .n(focused + 1)) : "\(focused + 1)"
            var column = place.columns.lowerBound + TextWidth.of(number) + 3
            if !gaps[focused].kind.isChoice {
                let shown = field(focused, entries: entries, maxWidth: textWidth)
                let text = context.editor.text
                let fits = TextWidth.of(shown) - TextWidth.of(number) - 4 >= TextWidth.of(text)
                column += fits ? context.editor.cursorColumn
                    : Widgets.window(text, cursorColumn: context.editor.cursorColumn,
                                     width: max(4, textWidth - TextWidth.of(number) - 4)).1
            }
            out.focus = (place.row, 2 + column)
        }
        out.add("", indent: 2)
        out.paragraph("› " + description(of: focused, entries: entries), .plain, indent: 2, width: width)
        if case let .choice(_, multiple) = gaps[focused].kind {
            let entry = entries[focused]
            for (i, option) in options.enumerated() {
                let on = entry.contains(option)
                let box = multiple ? (on ? "[x] " : "[ ] ") : (on ? "(•) " : "( ) ")
                let marker = multiple && i == context.optionHighlight ? "› " : "  "
                out.entry(prefix: marker + box + Widgets.letter(i) + ") ",
                          Widgets.stated(option, on ? context.say(multiple ? "⟨state⟩checked" : "⟨state⟩chosen") : nil,
                                         screenReader: context.screenReader, say: context.say),
                          role: on ? .selected : .plain, indent: 4, width: width)
            }
        }
        let filled = entries.filter { !$0.isEmpty }.count
        out.add("", indent: 2)
        out.paragraph(context.say("{0} of {1, plural, one {# gap} other {# gaps}} filled. ↑ ↓ or Enter: another gap; Tab: the next question.",
                                  .n(filled), .n(gaps.count)), width: width)
        return out
    }
}

/// The prompt of a `gaps` item laid out in lines with each gap's field in its place: words
/// wrap at spaces, and a field stays whole with the punctuation written against it.
struct GapsLayout {
    var lines: [String] = []
    /// Where each gap's field is: its row and its columns within the row.
    var places: [(gap: Int, row: Int, columns: Range<Int>)] = []

    enum Piece {
        case text(String)
        case gap(Int)
    }

    static func make(prompt: String, count: Int, width: Int, field: (Int) -> String) -> GapsLayout {
        var layout = GapsLayout()
        var line = ""
        var lineWidth = 0
        var linePlaces: [(gap: Int, columns: Range<Int>)] = []
        func endLine() {
            for p in linePlaces { layout.places.append((p.gap, layout.lines.count, p.columns)) }
            layout.lines.append(line)
            line = ""
            lineWidth = 0
            linePlaces = []
        }
        for paragraph in paragraphs(prompt, count: count) {
            for word in words(paragraph) {
                let shown = word.map { piece -> String in
                    switch piece {
                    case let .text(t): return TextWidth.sanitise(t)
                    case let .gap(i): return field(i)
                    }
                }
                let wordWidth = shown.reduce(0) { $0 + TextWidth.of($1) }
                if lineWidth > 0 && lineWidth + 1 + wordWidth > width { endLine() }
                if lineWidth > 0 {
                    line += " "
                    lineWidth += 1
                }
                for (piece, text) in zip(word, shown) {
                    var text = text
                    // A piece wider than a whole line is broken where the line ends.
                    while lineWidth + TextWidth.of(text) > width, case .text = piece {
                        let (head, tail) = TextWidth.split(text, at: max(1, width - lineWidth))
                        line += head
                        lineWidth += TextWidth.of(head)
                        endLine()
                        text = tail
                    }
                    if case let .gap(i) = piece {
                        if lineWidth > 0 && lineWidth + TextWidth.of(text) > width { endLine() }
                        linePlaces.append((i, lineWidth..<(lineWidth + TextWidth.of(text))))
                    }
                    line += text
                    lineWidth += TextWidth.of(text)
                }
            }
            endLine()
        }
        return layout
    }

    /// The prompt's lines as pieces: text and gaps (a marker for no gap stays text).
    static func paragraphs(_ prompt: String, count: Int) -> [[Piece]] {
        let scalars = Array(prompt.unicodeScalars)
        var pieces: [Piece] = []
        var at = 0
        func text(_ range: Range<Int>) -> String {
            var view = String.UnicodeScalarView()
            view.appendEach(scalars[range])
            return String(view)
        }
        for marker in Item.gapMarkers(in: prompt) where marker.number <= count {
            pieces.append(.text(text(at..<marker.range.lowerBound)))
            pieces.append(.gap(marker.number - 1))
            at = marker.range.upperBound
        }
        pieces.append(.text(text(at..<scalars.count)))
        var out: [[Piece]] = [[]]
        for piece in pieces {
            guard case let .text(t) = piece else {
                out[out.count - 1].append(piece)
                continue
            }
            for (i, part) in t.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if i > 0 { out.append([]) }
                out[out.count - 1].append(.text(String(part)))
            }
        }
        return out
    }

    /// A paragraph's words: runs of text and fields between spaces.
    static func words(_ paragraph: [Piece]) -> [[Piece]] {
        var out: [[Piece]] = []
        var word: [Piece] = []
        for piece in paragraph {
            switch piece {
            case .gap:
                word.append(piece)
            case let .text(t):
                var current = ""
                for ch in t {
                    if ch == " " {
                        if !current.isEmpty { word.append(.text(current)); current = "" }
                        if !word.isEmpty { out.append(word); word = [] }
                    } else {
                        current.append(ch)
                    }
                }
                if !current.isEmpty { word.append(.text(current)) }
            }
        }
        if !word.isEmpty { out.append(word) }
        return out
    }
}
