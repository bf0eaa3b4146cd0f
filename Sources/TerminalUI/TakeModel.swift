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
    public var session: SessionState?
    public var showHelp = false
    /// The start screen's and the proctor prompt's masked field.
    public var secret = TextEditor()
    public var startMessage: String?
    public var editors: [String: TextEditor] = [:]
    public var highlight: [String: Int] = [:]
    public var reviewHighlight = 0
    public var scroll = 0
    public var notice: String?
    public var noticeUntil = 0.0
    /// Ring the terminal bell at the next paint (a time warning).
    public var bell = false

    public init(assessment: Assessment, candidate: String?, timeAllowed: Int?, theme: Theme, screenReader: Bool) {
        self.assessment = assessment
        self.candidate = candidate
        self.timeAllowed = timeAllowed
        self.theme = theme
        self.screenReader = screenReader
    }

    public var needsLaunchPassphrase: Bool { assessment.proctor.passphrase != nil }

    public var currentItem: Item? {
        guard let id = session?.currentItemID else { return nil }
        return assessment.items.first { $0.id == id }
    }

    public mutating func show(_ text: String, now: Double, seconds: Double = 4) {
        notice = text
        noticeUntil = now + seconds
    }

    /// Clears an expired notice; true when the screen changed.
    public mutating func expireNotice(now: Double) -> Bool {
        guard notice != nil, now >= noticeUntil else { return false }
        notice = nil
        return true
    }

    // MARK: keys

    public mutating func handle(_ key: Key, now: Double) -> [Command] {
        if showHelp {
            if key == .escape || key == .enter || key == .function(1) || key == .character("q") || key == .control("g") {
                showHelp = false
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
        switch key {
        case .control("c"): return "Ctrl-C"
        case .control("z"): return "Ctrl-Z"
        case .control("\\"): return "Ctrl-\\"
        case .control("q"): return "quit key"
        default: return nil
        }
    }

    mutating func sessionKey(_ key: Key, now: Double) -> [Command] {
        guard let session else { return [] }
        // Typed text is session state: the session saves it after a pause, while typing
        // goes on, and before every move or way out.
        var out: [Command] = []
        if let prompt = session.prompt {
            return out + promptKey(key, prompt: prompt)
        }
        if let exit = Self.isExitKey(key) {
            return out + [.session(.exitAttempt(exit))]
        }
        switch key {
        case .function(1), .control("g"):
            showHelp = true
            return out
        case .tab, .control("n"):
            scroll = 0
            return out + [.session(.next)]
        case .backTab, .control("p"):
            scroll = 0
            return out + [.session(.previous)]
        case .function(2), .control("f"):
            if let id = session.currentItemID { out.append(.session(.toggleFlag(id))) }
            return out
        case .function(3), .control("r"):
            reviewHighlight = session.position
            return out + [.session(phase == .review ? .closeReview : .openReview)]
        case .function(10), .control("s"):
            return out + [.session(.submitRequested)]
        case .function(4), .control("t"):
            show(timeText(session), now: now)
            return out
        case .pageDown:
            scroll += 5
            return out
        case .pageUp:
            scroll = max(0, scroll - 5)
            return out
        default:
            break
        }
        if phase == .review { return out + reviewKey(key, session) }
        return out + widgetKey(key, session: session, now: now)
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
        switch item.kind {
        case .choice:
            switch key {
            case .up: h = max(0, h - 1)
            case .down: h = min(opts.count - 1, h + 1)
            case .enter, .character(" "): return [.session(.answer(id, .choice(opts[h])))]
            case let .character(c):
                if let i = letterIndex(c) {
                    h = i
                    return [.session(.answer(id, .choice(opts[i])))]
                }
            default: break
            }
        case .multiple:
            var picks: [String] = []
            if case let .multiple(p)? = session.answer(id) { picks = p }
            func toggled(_ i: Int) -> Command {
                let choice = opts[i]
                let set = picks.contains(choice) ? picks.filter { $0 != choice } : picks + [choice]
                return .session(.answer(id, .multiple(opts.filter { set.contains($0) })))
            }
            switch key {
            case .up: h = max(0, h - 1)
            case .down: h = min(opts.count - 1, h + 1)
            case .enter, .character(" "): return [toggled(h)]
            case let .character(c):
                if let i = letterIndex(c) {
                    h = i
                    return [toggled(i)]
                }
            default: break
            }
        case .trueFalse:
            switch key {
            case .up, .down: h = 1 - h
            case .enter, .character(" "): return [.session(.answer(id, .trueFalse(h == 0)))]
            case .character("t"), .character("T"), .character("a"), .character("1"):
                h = 0
                return [.session(.answer(id, .trueFalse(true)))]
            case .character("f"), .character("F"), .character("b"), .character("2"):
                h = 1
                return [.session(.answer(id, .trueFalse(false)))]
            default: break
            }
        case .text, .numeric, .essay:
            var e = editor(for: item)
            let before = e.text
            if e.apply(key) {
                editors[id] = e
                if e.text != before { return [.session(.edit(id, Self.response(for: item, text: e.text)))] }
            } else if key == .enter {
                return [.session(.next)]
            }
        case .order:
            switch key {
            case .up: h = max(0, h - 1)
            case .down: h = min(opts.count - 1, h + 1)
            case .shiftUp, .character("u"), .character("U"), .character("-"):
                guard h > 0 else { return [] }
                var arranged = opts
                arranged.swapAt(h, h - 1)
                h -= 1
                return [.session(.answer(id, .order(arranged)))]
            case .shiftDown, .character("d"), .character("D"), .character("+"):
                guard h + 1 < opts.count else { return [] }
                var arranged = opts
                arranged.swapAt(h, h + 1)
                h += 1
                return [.session(.answer(id, .order(arranged)))]
            case .enter, .character(" "):
                return [.session(.answer(id, .order(opts)))]
            default: break
            }
        case .match:
            let rights = displayOrder(item)
            var picks: [String: String] = [:]
            if case let .match(p)? = session.answer(id) { picks = p }
            let left = opts[h]
            func pick(_ right: String?) -> Command {
                var next = picks
                next[left] = right
                return .session(.answer(id, .match(next)))
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
                return [pick(next == rights.count ? nil : rights[next])]
            case .backspace, .delete:
                return [pick(nil)]
            case let .character(c):
                guard let a = c.lowercased().unicodeScalars.first, c.isASCII, c.isLetter else { break }
                let i = Int(a.value) - 97
                if i >= 0 && i < rights.count { return [pick(rights[i])] }
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
        session = state
        if phase == .question || phase == .review {
            phase = state.status == .review ? .review : .question
        }
        if let last = reaction.notices.last { show(last, now: now) }
        if reaction.bell { bell = true }
    }
}

/// `9:05`, `1:02:03`.
public enum Clock {
    public static func text(_ seconds: Int) -> String {
        let s = max(0, seconds)
        let h = s / 3600, m = (s % 3600) / 60, sec = s % 60
        let mm = m < 10 && h > 0 ? "0\(m)" : "\(m)"
        let ss = sec < 10 ? "0\(sec)" : "\(sec)"
        return h > 0 ? "\(h):\(mm):\(ss)" : "\(mm):\(ss)"
    }
}
