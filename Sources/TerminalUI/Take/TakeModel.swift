import Localization
import AssessmentKit
import SessionKit

/// What the front end must do for the model: talk to the session, the launch, or leave (a
/// request, not a proctor's command).
public enum TakeRequest: Sendable, Equatable {
    case session(SessionMessage)
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
        /// The test itself: a question or the review, as the session's status says
        /// (`reviewing`); the model keeps no status of its own.
        case test
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
        /// The seat had no answer key: the score is the proctor's to give.
        public var unscored: Bool
        /// A room's session: the score is shown once the store holds the result (a seat cut off
        /// from the store must not show a score it could then take elsewhere with a move).
        public var heldScore: ScoreSummary?
        public init(status: EndReason, session: String, timeUsed: Int, answered: Int, total: Int,
                    score: ScoreSummary?, resultPath: String?, problem: String?, unscored: Bool = false) {
            self.unscored = unscored
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
    /// The student's language: every sentence on screen and every status is said in it.
    public var say = Localizer.english
    public var phase: Phase = .start
    /// The session as the runtime last left it: a snapshot replaced whole after every call to
    /// the runtime (`apply`), never changed here.
    public internal(set) var session: SessionState? {
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
    /// A room whose proctor starts every seat (`--start proctor`): the start screen waits.
    public var waitingForProctor = false
    /// The short fingerprint of the key this seat announced for the proctor's start (shown
    /// while it waits, so the proctor can match it to the console's list).
    public var seatKey: String?
    /// The start screen's passphrase opens a sealed test (it cannot be skipped).
    public var passphraseOpensTest = false
    /// The start screen's passphrase was accepted.
    public var launchCleared = false
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
    /// The status outlives a move to another question (a time warning, the proctor's word).
    var noticeStays = false
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

    /// The review is open: the session's own status, not a copy of it.
    public var reviewing: Bool { phase == .test && session?.status == .review }

    /// Shows `state` (a test's golden frames and behaviour tests build a model from a state).
    public mutating func show(_ state: SessionState?) { session = state }

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
        // Written again whole, so that a screen reader says all of it, not only the
        // characters that differ from what the line held ("13 minutes 35" → "30").
        if notice != nil || noticeBeforeKey != nil { repeatNotice = true }
        notice = text
        noticeStays = false
        noticeUntil = sticky || screenReader ? .infinity : now + seconds
    }

    /// Clears an expired notice; true when the screen changed.
    public mutating func expireNotice(now: Double) -> Bool {
        guard notice != nil, now >= noticeUntil else { return false }
        notice = nil
        return true
    }

    public func timeText(_ session: SessionState) -> String {
        guard let left = session.remaining else { return say("No time limit") }
        return say("⟨clock⟩{0} left", .s(Clock.text(Int(left.rounded(.up)))))
    }

    /// The time left in words, never as a time of day: "13 minutes 35 seconds left".
    public func timeWords(_ session: SessionState) -> String {
        guard let left = session.remaining else { return say("No time limit") }
        let words = say("⟨time in words⟩{0} left", .time(Int(left.rounded(.up))))
        return session.room.paused ? words + "; " + say.say(SessionState.pausedWords) : words
    }

    // MARK: widgets

    /// The order entries are shown in for an item (the plan's shuffle).
    public func displayOrder(_ item: Item) -> [String] {
        session?.plan.displayOrders[item.id] ?? []
    }

    /// The key of `item`'s editor: a text with gaps has one per gap, the focused gap's in use.
    func editorKey(_ item: Item) -> String {
        guard case let .gaps(gaps) = item.kind else { return item.id }
        return "\(item.id)#\(min(highlight[item.id] ?? 0, max(0, gaps.count - 1)))"
    }

    /// A pick gap's options as shown: the plan's order, else as written.
    public func gapDisplayOrder(_ item: Item, gap: Int) -> [String] {
        guard case let .gaps(gaps) = item.kind, gaps.indices.contains(gap) else { return [] }
        return session?.plan.displayOrders["\(item.id)#\(gap + 1)"] ?? gaps[gap].kind.options
    }

    public func editor(for item: Item) -> TextEditor {
        if let e = editors[editorKey(item)] { return e }
        let existing: String
        switch session?.answer(item.id) {
        case let .text(s)?, let .numeric(s)?, let .essay(s)?: existing = s
        case let .gaps(entries)?:
            let h = highlight[item.id] ?? 0
            existing = entries.indices.contains(h) ? entries[h].first ?? "" : ""
        default: existing = ""
        }
        if case .essay = item.kind { return TextEditor(text: existing, multiline: true) }
        return TextEditor(text: existing)
    }

    /// Choices as shown, with true/false as two choices.
    public func options(_ item: Item) -> [String] {
        switch item.kind {
        case .choice, .multiple: return displayOrder(item)
        case .trueFalse: return [say("True"), say("False")]
        case let .match(pairs, _): return pairs.map(\.left)
        case .order:
            if case let .order(current)? = session?.answer(item.id) { return current }
            return displayOrder(item)
        default: return []
        }
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
        if session?.position != state.position || session?.status != state.status {
            // A new question opens at its first line.
            scroll = 0
            followFocus = false
            // A status belongs to the question it was said on ("False selected", "Question
            // flagged"): it goes with it. A time warning or the proctor's word stays.
            if !noticeStays { notice = nil }
        }
        session = state
        if let last = reaction.notices.last {
            // A notice that rings the bell is a time warning or the proctor's: it stays
            // until a key is pressed, and Ctrl-T repeats a warning.
            let text = say.say(last)
            if reaction.bell { lastWarning = text }
            show(text, now: now, sticky: reaction.bell)
            noticeStays = reaction.bell
        }
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
