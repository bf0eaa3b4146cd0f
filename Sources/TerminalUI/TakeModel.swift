import AssessmentKit
import SessionKit

/// What the front end must do for the model: talk to the session or leave.
public enum Command: Sendable, Equatable {
    case session(SessionEvent)
    /// Start the session (after the lock confirmation), with the launch passphrase if asked.
    case begin
    /// Check the launch passphrase typed on the start screen.
    case checkLaunchPassphrase(String)
    /// Check a proctor passphrase typed at the "ask your proctor" prompt.
    case proctorPassphrase(String)
    /// Leave before anything was locked, or after the receipt.
    case quit
}

/// Everything the screen shows that is not the session itself.
public struct TakeModel: Sendable {
    public enum Phase: Sendable, Equatable {
        case start
        case confirmLock
        case lockedBanner
        case question
        case review
        case receipt(Receipt)
    }

    public struct Receipt: Sendable, Equatable {
        public var status: EndReason
        public var session: String
        public var timeUsed: Int
        public var answered: Int
        public var total: Int
        public var score: ScoreSummary?
        public var resultPath: String?
        public var problem: String?
        public init(status: EndReason, session: String, timeUsed: Int, answered: Int, total: Int,
                    score: ScoreSummary?, resultPath: String?, problem: String?) {
            self.status = status
            self.session = session
            self.timeUsed = timeUsed
            self.answered = answered
            self.total = total
            self.score = score
            self.resultPath = resultPath
            self.problem = problem
        }
    }

    public let assessment: Assessment
    public let candidate: String?
    public let timeAllowed: Int?
    public var theme: Theme
    public var screenReader: Bool
    public var phase: Phase = .start
    public var session: SessionState? {
        didSet {
            if sectionStarts == nil, let plan = session?.plan { sectionStarts = Self.sectionStarts(plan.itemOrder, index) }
        }
    }
    /// Where each item is, built once: nothing per key or per frame walks the whole test.
    let index: [String: (section: Int, item: Int)]
    /// The items that open their section in this session's order (their section's
    /// instructions are shown above them).
    var sectionStarts: Set<String>?
    public var showHelp = false
    /// The start screen's and the proctor prompt's masked field.
    public var secret = TextEditor()
    public var startMessage: String?
    public var editors: [String: TextEditor] = [:]
    public var highlight: [String: Int] = [:]
    public var reviewHighlight = 0
    /// The first line of the question area that is shown.
    public var scroll = 0
    /// True while the view follows the focused element; PgUp/PgDn let the student read away
    /// from it, and the next answer key brings it back.
    public var followFocus = false
    /// The first line of the help list that is shown.
    public var helpScroll = 0
    /// The terminal's size, as last drawn: paging and line movement in an essay need it.
    public var viewSize = (width: 80, height: 24)
    public var notice: String?
    public var noticeUntil = 0.0
    /// The last time warning, repeated by Ctrl-T.
    public var lastWarning: String?
    /// The clock is hidden (Ctrl-K); warnings still come.
    public var clockHidden = false
    /// A linear test asks before leaving an unanswered question for good.
    public var confirmSkip = false
    /// Ring the terminal bell at the next paint (a time warning).
    public var bell = false
    /// Repaint the whole screen at the next paint, so a screen reader reads it from the top
    /// (screen-reader mode: a new question, a closed box, the review).
    public var repaintWhole = false
    /// Write the notice line again even when it did not change (a repeated Ctrl-T).
    public var repeatNotice = false
    /// The status shown when the last key arrived.
    var noticeBeforeKey: String?

    public init(assessment: Assessment, candidate: String?, timeAllowed: Int?, theme: Theme, screenReader: Bool) {
        self.assessment = assessment
        self.candidate = candidate
        self.timeAllowed = timeAllowed
        self.theme = theme
        self.screenReader = screenReader
        var index: [String: (section: Int, item: Int)] = [:]
        for (s, section) in assessment.sections.enumerated() {
            for (i, item) in section.items.enumerated() { index[item.id] = (s, i) }
        }
        self.index = index
    }

    static func sectionStarts(_ order: [String], _ index: [String: (section: Int, item: Int)]) -> Set<String> {
        var seen = Set<Int>(), starts = Set<String>()
        for id in order {
            guard let place = index[id], seen.insert(place.section).inserted else { continue }
            starts.insert(id)
        }
        return starts
    }

    public func item(_ id: String) -> Item? {
        guard let place = index[id] else { return nil }
        return assessment.sections[place.section].items[place.item]
    }

    public func section(of id: String) -> Section? {
        index[id].map { assessment.sections[$0.section] }
    }

    /// True when `id` is the first of its section in this session's order.
    public func opensSection(_ id: String) -> Bool { sectionStarts?.contains(id) ?? false }

    public var needsLaunchPassphrase: Bool { assessment.proctor.passphrase != nil }

    public var currentItem: Item? {
        guard let id = session?.currentItemID else { return nil }
        return item(id)
    }

    /// Shows a one-line status. In screen-reader mode, and for warnings, it stays until the
    /// next key: a timed redraw would be read out as noise, and a warning must not be missed.
    public mutating func show(_ text: String, now: Double, seconds: Double = 4, sticky: Bool = false) {
        if notice == text || noticeBeforeKey == text { repeatNotice = true }
        notice = text
        noticeUntil = sticky || screenReader ? .infinity : now + seconds
    }

    /// Clears an expired notice; true when the screen changed.
    public mutating func expireNotice(now: Double) -> Bool {
        guard notice != nil, now >= noticeUntil else { return false }
        notice = nil
        return true
    }

    // MARK: keys

    public mutating func handle(_ key: Key, now: Double) -> [Command] {
        // A status stays until the next key; the key itself may bring a new one (and the same
        // words again must be written again, so they are said again).
        noticeBeforeKey = notice
        if noticeUntil == .infinity { notice = nil }
        if showHelp {
            switch key {
            case .escape, .enter, .function(1), .character("q"), .control("g"):
                showHelp = false
                helpScroll = 0
                if screenReader { repaintWhole = true }
            case .down: helpScroll += 1
            case .up: helpScroll = max(0, helpScroll - 1)
            case .pageDown, .character(" "): helpScroll += max(1, viewSize.height - 5)
            case .pageUp: helpScroll = max(0, helpScroll - max(1, viewSize.height - 5))
            default: break
            }
            return []
        }
        switch phase {
        case .start: return startKey(key)
        case .confirmLock: return confirmKey(key)
        case .lockedBanner:
            phase = .question
            return []
        case .receipt:
            return key == .enter || key == .escape || key == .character("q") ? [.quit] : []
        case .question, .review:
            return sessionKey(key, now: now)
        }
    }

    mutating func startKey(_ key: Key) -> [Command] {
        switch key {
        case .escape, .control("c"), .control("q"):
            return [.quit]
        case .function(1):
            showHelp = true
            return []
        case .enter:
            if needsLaunchPassphrase {
                let typed = secret.text
                secret = TextEditor()
                return [.checkLaunchPassphrase(typed)]
            }
            phase = .confirmLock
            return []
        default:
            if needsLaunchPassphrase { _ = secret.apply(key) }
            return []
        }
    }

    /// Called when the launch passphrase was right (or not needed).
    public mutating func launchAccepted() {
        startMessage = nil
        phase = .confirmLock
    }

    mutating func confirmKey(_ key: Key) -> [Command] {
        switch key {
        case .character("y"), .character("Y"):
            return [.begin]
        case .character("n"), .character("N"), .escape, .enter:
            phase = .start
            return []
        default:
            return []
        }
    }

    /// Keys that try to leave the test, in every running screen.
    static func isExitKey(_ key: Key) -> String? {
        guard KeyTable.action(for: key) == .proctor else { return nil }
        switch key {
        case .control("c"): return "Ctrl-C"
        case .control("z"): return "Ctrl-Z"
        case .control("\\"): return "Ctrl-\\"
        default: return "quit key"
        }
    }

    mutating func sessionKey(_ key: Key, now: Double) -> [Command] {
        guard let session else { return [] }
        if let prompt = session.prompt {
            return promptKey(key, prompt: prompt)
        }
        if confirmSkip { return skipKey(key) }
        if let exit = Self.isExitKey(key) {
            return [.session(.exitAttempt(exit))]
        }
        switch KeyTable.action(for: key) {
        case .help?:
            showHelp = true
            return []
        case .next?:
            return next(session)
        case .previous?:
            return [.session(.previous)]
        case .flag?:
            guard let id = session.currentItemID else { return [] }
            return [.session(.toggleFlag(id))]
        case .review?:
            reviewHighlight = session.position
            return [.session(phase == .review ? .closeReview : .openReview)]
        case .submit?:
            return [.session(.submitRequested)]
        case .time?:
            let time = timeWords(session)
            show(lastWarning.map { "Time warning: \($0). \(time)" } ?? time, now: now)
            return []
        case .clock?:
            clockHidden.toggle()
            show(clockHidden ? "Clock hidden; Ctrl-K shows it. Ctrl-T says the time left." : "Clock shown", now: now)
            return []
        case .scrollDown?, .scrollUp?:
            if phase == .review { return reviewKey(key, session) }
            page(key == .pageDown ? 1 : -1)
            return []
        case .proctor?, nil:
            break
        }
        if phase == .review { return reviewKey(key, session) }
        // An answer key brings the focused element back into view.
        if !followFocus {
            scroll = Views.questionOffset(self, width: viewSize.width, height: viewSize.height)
            followFocus = true
        }
        return widgetKey(key, session: session, now: now)
    }

    /// The screen as it will be once `keys` are let through: typed characters that the input
    /// decoder still holds while it judges typing from a paste. They are shown at once, so
    /// typing echoes without delay, and enter the answer only when judged typing (a paste
    /// takes them away again). Nil where they would do more than edit the focused text.
    public func typingPreview(_ keys: [Key], now: Double) -> TakeModel? {
        guard !keys.isEmpty, phase == .question, !showHelp, !confirmSkip, let session, session.prompt == nil,
              let id = session.currentItemID, let item = item(id) else { return nil }
        switch item.kind {
        case .text, .numeric, .essay: break
        default: return nil
        }
        for key in keys {
            guard case .character = key, KeyTable.action(for: key) == nil else { return nil }
        }
        var preview = self
        for key in keys { _ = preview.handle(key, now: now) }
        return preview
    }

    /// Tab: in a linear test, leaving an unanswered question for good is asked first.
    mutating func next(_ session: SessionState) -> [Command] {
        if session.plan.navigation == .linear, phase == .question, let id = session.currentItemID,
           !(session.answer(id).map { !$0.isEmpty } ?? false), session.position + 1 < session.plan.itemOrder.count {
            confirmSkip = true
            return []
        }
        return [.session(.next)]
    }

    mutating func skipKey(_ key: Key) -> [Command] {
        switch key {
        case .character("y"), .character("Y"):
            confirmSkip = false
            return [.session(.next)]
        case .character("n"), .character("N"), .escape:
            confirmSkip = false
            if screenReader { repaintWhole = true }
            return []
        default:
            if let exit = Self.isExitKey(key) {
                confirmSkip = false
                return [.session(.exitAttempt(exit))]
            }
            return []
        }
    }

    /// PgUp/PgDn: a page of the question area, leaving the focused element behind.
    mutating func page(_ direction: Int) {
        let viewport = Views.questionViewport(self, width: viewSize.width, height: viewSize.height)
        let step = max(1, viewport.rows - 1)
        let top = max(0, viewport.lines - viewport.rows)
        scroll = min(top, max(0, viewport.offset + direction * step))
        followFocus = false
    }

    mutating func promptKey(_ key: Key, prompt: SessionPrompt) -> [Command] {
        switch prompt {
        case .confirmSubmit:
            switch key {
            case .character("y"), .character("Y"): return [.session(.submitConfirmed)]
            case .character("n"), .character("N"), .escape: return [.session(.cancelPrompt)]
            default: return []
            }
        case .confirmEnd:
            switch key {
            case .character("y"), .character("Y"): return [.session(.endConfirmed)]
            case .character("n"), .character("N"), .escape: return [.session(.cancelPrompt)]
            default: return []
            }
        case .proctor:
            switch key {
            case .escape:
                secret = TextEditor()
                return [.session(.cancelPrompt)]
            case .enter:
                let typed = secret.text
                secret = TextEditor()
                return [.proctorPassphrase(typed)]
            default:
                _ = secret.apply(key)
                return []
            }
        }
    }

    mutating func reviewKey(_ key: Key, _ session: SessionState) -> [Command] {
        let count = session.plan.itemOrder.count
        switch key {
        case .up: reviewHighlight = max(0, reviewHighlight - 1)
        case .down: reviewHighlight = min(count - 1, reviewHighlight + 1)
        case .pageUp: reviewHighlight = max(0, reviewHighlight - max(1, viewSize.height - 8))
        case .pageDown: reviewHighlight = min(count - 1, reviewHighlight + max(1, viewSize.height - 8))
        case .home: reviewHighlight = 0
        case .end: reviewHighlight = count - 1
        case .enter: return [.session(.jump(reviewHighlight))]
        case .escape: return [.session(.closeReview)]
        case .character("s"), .character("S"): return [.session(.submitRequested)]
        default: break
        }
        return []
    }

    public func timeText(_ session: SessionState) -> String {
        guard let left = session.remaining else { return "No time limit" }
        return "\(Clock.text(Int(left.rounded(.up)))) left"
    }

    /// The time left in words, never as a time of day: "13 minutes 35 seconds left".
    public func timeWords(_ session: SessionState) -> String {
        guard let left = session.remaining else { return "No time limit" }
        return Clock.words(Int(left.rounded(.up))) + " left"
    }

    // MARK: widgets

    /// The order entries are shown in for an item (the plan's shuffle).
    public func displayOrder(_ item: Item) -> [String] {
        session?.plan.displayOrders[item.id] ?? []
    }

    public func editor(for item: Item) -> TextEditor {
        if let e = editors[item.id] { return e }
        let existing: String
        switch session?.answer(item.id) {
        case let .text(s)?, let .numeric(s)?, let .essay(s)?: existing = s
        default: existing = ""
        }
        if case .essay = item.kind { return TextEditor(text: existing, multiline: true) }
        return TextEditor(text: existing)
    }

    /// Choices as shown, with true/false as two choices.
    public func options(_ item: Item) -> [String] {
        switch item.kind {
        case .choice, .multiple: return displayOrder(item)
        case .trueFalse: return ["True", "False"]
        case let .match(pairs, _): return pairs.map(\.left)
        case .order:
            if case let .order(current)? = session?.answer(item.id) { return current }
            return displayOrder(item)
        default: return []
        }
    }

    mutating func widgetKey(_ key: Key, session: SessionState, now: Double) -> [Command] {
        guard let item = currentItem else { return [] }
        let id = item.id
        let opts = options(item)
        var h = min(highlight[id] ?? 0, max(0, opts.count - 1))
        defer { highlight[id] = h }
        func letterIndex(_ c: Character) -> Int? {
            if let d = c.wholeNumberValue, c.isASCII, d >= 1, d <= opts.count { return d - 1 }
            guard let a = c.lowercased().unicodeScalars.first, c.isLetter, c.isASCII else { return nil }
            let i = Int(a.value) - 97
            return i >= 0 && i < opts.count ? i : nil
        }
        func say(_ text: String) { show(text, now: now) }
        switch item.kind {
        case .choice:
            func choose(_ i: Int) -> [Command] {
                h = i
                say("\(opts[i]) selected")
                return [.session(.answer(id, .choice(opts[i])))]
            }
            switch key {
            case .up: h = max(0, h - 1)
            case .down: h = min(opts.count - 1, h + 1)
            case .home: h = 0
            case .end: h = max(0, opts.count - 1)
            case .enter, .character(" "): return opts.isEmpty ? [] : choose(h)
            case let .character(c):
                if let i = letterIndex(c) { return choose(i) }
            default: break
            }
        case .multiple:
            var picks: [String] = []
            if case let .multiple(p)? = session.answer(id) { picks = p }
            func toggled(_ i: Int) -> [Command] {
                h = i
                let choice = opts[i]
                let on = !picks.contains(choice)
                let set = on ? picks + [choice] : picks.filter { $0 != choice }
                say("\(choice) \(on ? "checked" : "unchecked"); \(set.count) checked")
                return [.session(.answer(id, .multiple(opts.filter { set.contains($0) })))]
            }
            switch key {
            case .up: h = max(0, h - 1)
            case .down: h = min(opts.count - 1, h + 1)
            case .home: h = 0
            case .end: h = max(0, opts.count - 1)
            case .enter, .character(" "): return opts.isEmpty ? [] : toggled(h)
            case let .character(c):
                if let i = letterIndex(c) { return toggled(i) }
            default: break
            }
        case .trueFalse:
            func choose(_ value: Bool) -> [Command] {
                h = value ? 0 : 1
                say("\(value ? "True" : "False") selected")
                return [.session(.answer(id, .trueFalse(value)))]
            }
            switch key {
            case .up, .down: h = 1 - h
            case .enter, .character(" "): return choose(h == 0)
            case .character("t"), .character("T"), .character("a"), .character("1"): return choose(true)
            case .character("f"), .character("F"), .character("b"), .character("2"): return choose(false)
            default: break
            }
        case .text, .numeric, .essay:
            var e = editor(for: item)
            let before = e.text
            let wrap: Int? = {
                if case .essay = item.kind { return Views.essayWidth(viewSize.width) }
                return nil
            }()
            if e.apply(key, wrapWidth: wrap) {
                editors[id] = e
                if e.text != before { return [.session(.edit(id, Self.response(for: item, text: e.text)))] }
            } else if key == .enter {
                return next(session)
            }
        case .order:
            func move(_ from: Int, _ to: Int) -> [Command] {
                var arranged = opts
                arranged.swapAt(from, to)
                h = to
                say("\(arranged[to]) moved to position \(to + 1) of \(opts.count)")
                return [.session(.answer(id, .order(arranged)))]
            }
            switch key {
            case .up: h = max(0, h - 1)
            case .down: h = min(opts.count - 1, h + 1)
            case .shiftUp, .character("u"), .character("U"), .character("-"):
                guard h > 0 else {
                    say("\(opts.first ?? "") is already first")
                    return []
                }
                return move(h, h - 1)
            case .shiftDown, .character("d"), .character("D"), .character("+"):
                guard h + 1 < opts.count else {
                    say("\(opts.last ?? "") is already last")
                    return []
                }
                return move(h, h + 1)
            case .enter, .character(" "):
                say("This order is your answer")
                return [.session(.answer(id, .order(opts)))]
            default: break
            }
        case .match:
            guard !opts.isEmpty else { return [] }
            let rights = displayOrder(item)
            var picks: [String: String] = [:]
            if case let .match(p)? = session.answer(id) { picks = p }
            let left = opts[h]
            func pick(_ right: String?) -> [Command] {
                var next = picks
                next[left] = right
                say(right.map { "\(left) → \($0)" } ?? "\(left): no match")
                return [.session(.answer(id, .match(next)))]
            }
            switch key {
            case .up: h = max(0, h - 1)
            case .down: h = min(opts.count - 1, h + 1)
            case .right, .left:
                let current = picks[left].flatMap { rights.firstIndex(of: $0) }
                let step = key == .right ? 1 : -1
                // Cycles through every right-hand entry and "no answer".
                let slots = rights.count + 1
                let next = ((current ?? rights.count) + step + slots) % slots
                return pick(next == rights.count ? nil : rights[next])
            case .backspace, .delete:
                return pick(nil)
            case let .character(c):
                guard let a = c.lowercased().unicodeScalars.first, c.isASCII, c.isLetter else { break }
                let i = Int(a.value) - 97
                if i >= 0 && i < rights.count { return pick(rights[i]) }
            default: break
            }
        }
        return []
    }

    /// A typed answer as the session keeps it; empty text is no answer.
    static func response(for item: Item, text: String) -> Response? {
        guard !text.isEmpty else { return nil }
        switch item.kind {
        case .numeric: return .numeric(text)
        case .essay: return .essay(text)
        default: return .text(text)
        }
    }

    /// After the runtime reacted: the new state, notices, the bell.
    public mutating func apply(_ reaction: Reaction, state: SessionState, now: Double) {
        if session?.position != state.position {
            // A new question opens at its first line.
            scroll = 0
            followFocus = false
        }
        session = state
        if phase == .question || phase == .review {
            phase = state.status == .review ? .review : .question
        }
        if let last = reaction.notices.last {
            // A notice that rings the bell is a time warning: it stays until a key is
            // pressed, and Ctrl-T repeats it.
            if reaction.bell { lastWarning = last }
            show(last, now: now, sticky: reaction.bell)
        }
        if reaction.bell { bell = true }
    }
}

/// `9:05`, `1:02:03`.
public enum Clock {
    /// "1 hour 2 minutes 3 seconds", "13 minutes 35 seconds", "1 minute", "45 seconds".
    public static func words(_ seconds: Int) -> String {
        let s = max(0, seconds)
        let h = s / 3600, m = (s % 3600) / 60, sec = s % 60
        func unit(_ n: Int, _ name: String) -> String { "\(n) \(name)\(n == 1 ? "" : "s")" }
        var parts: [String] = []
        if h > 0 { parts.append(unit(h, "hour")) }
        if m > 0 { parts.append(unit(m, "minute")) }
        if sec > 0 || parts.isEmpty { parts.append(unit(sec, "second")) }
        return parts.joined(separator: " ")
    }

    public static func text(_ seconds: Int) -> String {
        let s = max(0, seconds)
        let h = s / 3600, m = (s % 3600) / 60, sec = s % 60
        let mm = m < 10 && h > 0 ? "0\(m)" : "\(m)"
        let ss = sec < 10 ? "0\(sec)" : "\(sec)"
        return h > 0 ? "\(h):\(mm):\(ss)" : "\(mm):\(ss)"
    }
}
