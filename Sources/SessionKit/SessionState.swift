import Foundation
import AssessmentKit

/// The assessment session as a value. `update` is the only way it changes.
public struct SessionState: Sendable, Equatable {
    public var plan: SessionPlan
    public var status: SessionStatus
    public var endReason: EndReason?
    public var position: Int
    public var responses: [String: Response]
    public var flags: Set<String>
    /// Active seconds used.
    public var elapsed: Double
    public var lastSavedElapsed: Double
    /// Seconds-left marks already announced (300, 60).
    public var warned: Set<Int>
    public var prompt: SessionPrompt?
    public var passphraseFailures: Int

    /// Time used is saved at least this often.
    public static let timeSaveInterval = 5.0
    public static let warningMarks = [300, 60]

    public init(plan: SessionPlan, status: SessionStatus = .beginning, position: Int = 0,
                responses: [String: Response] = [:], flags: Set<String> = [], elapsed: Double = 0) {
        self.plan = plan
        self.status = status
        self.position = position
        self.responses = responses
        self.flags = flags
        self.elapsed = elapsed
        self.lastSavedElapsed = elapsed
        self.warned = Set(Self.warningMarks.filter { mark in plan.timeAllowed.map { Double($0) - elapsed <= Double(mark) } ?? false })
        self.prompt = nil
        self.passphraseFailures = 0
    }

    public var currentItemID: String? {
        plan.itemOrder.indices.contains(position) ? plan.itemOrder[position] : nil
    }

    /// Seconds left, or nil when untimed.
    public var remaining: Double? {
        plan.timeAllowed.map { max(0, Double($0) - elapsed) }
    }

    public var isRunning: Bool { status == .active || status == .review }

    public var answeredCount: Int { plan.itemOrder.filter { responses[$0].map { !$0.isEmpty } ?? false }.count }

    public var unansweredIDs: [String] { plan.itemOrder.filter { responses[$0].map { $0.isEmpty } ?? true } }

    public var flaggedIDs: [String] { plan.itemOrder.filter { flags.contains($0) } }

    /// Applies one event and says what must happen as a result.
    public mutating func update(_ event: SessionEvent) -> [SessionEffect] {
        var effects = apply(event)
        // Every saved answer, flag or move also saves the time used, so a crash between
        // ticks never gives time back.
        let savesWork = effects.contains { effect in
            switch effect {
            case .saveAnswer, .saveFlag, .savePosition: return true
            default: return false
            }
        }
        if savesWork && elapsed > lastSavedElapsed {
            lastSavedElapsed = elapsed
            effects.append(.saveTime(elapsed))
        }
        return effects
    }

    private mutating func apply(_ event: SessionEvent) -> [SessionEffect] {
        if case .began = event {
            guard status == .beginning else { return [] }
            status = .active
            return [.log(.began, "")]
        }
        if case let .hangUp(reason) = event {
            guard isRunning || status == .beginning else { return [] }
            status = .interrupted
            prompt = nil
            return [.saveTime(elapsed), .log(.interrupted, reason), .interrupt(reason)]
        }
        guard isRunning else { return [] }
        switch event {
        case .began, .hangUp:
            return []
        case .next:
            if position + 1 < plan.itemOrder.count { return move(to: position + 1) }
            status = .review
            return []
        case .previous:
            guard position > 0 else { return [] }
            return move(to: position - 1)
        case let .jump(index):
            guard plan.itemOrder.indices.contains(index) else { return [] }
            return move(to: index)
        case let .answer(id, response):
            guard let index = plan.itemOrder.firstIndex(of: id) else { return [] }
            if plan.navigation == .linear && index != position {
                return [.notice("In this assessment you answer the question in front of you only")]
            }
            if responses[id] == response { return [] }
            responses[id] = response
            return [.saveAnswer(id, response)]
        case let .toggleFlag(id):
            guard plan.itemOrder.contains(id) else { return [] }
            let on = !flags.contains(id)
            if on { flags.insert(id) } else { flags.remove(id) }
            return [.saveFlag(id, on)]
        case .openReview:
            status = .review
            return []
        case .closeReview:
            status = .active
            return []
        case .submitRequested:
            prompt = .confirmSubmit
            return []
        case .submitConfirmed:
            guard prompt == .confirmSubmit else { return [] }
            return finish(.submitted, log: .submitted, detail: "\(answeredCount) of \(plan.itemOrder.count) answered")
        case .cancelPrompt:
            prompt = nil
            return []
        case let .tick(now):
            return tick(now)
        case let .pasteAttempt(count):
            guard plan.policy.paste == .block else { return [] }
            return [.log(.pasteBlocked, "\(count) characters"), .notice("Paste is disabled during this assessment")]
        case .focusLost:
            return plan.policy.focus == .log ? [.log(.focusLost, "")] : []
        case .focusRegained:
            return plan.policy.focus == .log ? [.log(.focusRegained, "")] : []
        case let .resized(columns, rows):
            return [.log(.resized, "\(columns)x\(rows)")]
        case let .exitAttempt(kind):
            guard plan.policy.suspend == .block else {
                status = .interrupted
                return [.saveTime(elapsed), .log(.interrupted, kind), .interrupt(kind)]
            }
            prompt = plan.practiceMode ? .confirmEnd : .proctor
            return [.log(.exitAttempt, kind)]
        case let .passphrase(correct):
            guard prompt == .proctor else { return [] }
            if correct {
                return finish(.endedByProctor, log: .ended, detail: "ended by the proctor")
            }
            passphraseFailures += 1
            let delay = min(1 << min(passphraseFailures - 1, 5), 30)
            return [.log(.passphraseFailed, "attempt \(passphraseFailures)"), .passphraseBackoff(seconds: delay),
                    .notice("That passphrase is not right")]
        case .endConfirmed:
            guard prompt == .confirmEnd else { return [] }
            return finish(.endedByProctor, log: .ended, detail: "ended early (practice mode, confirmed)")
        }
    }

    private mutating func move(to index: Int) -> [SessionEffect] {
        if plan.navigation == .linear && index < position {
            return [.notice("This assessment does not allow going back")]
        }
        guard index != position || status == .review else { return [] }
        position = index
        status = .active
        return [.savePosition(index)]
    }

    private mutating func tick(_ now: Double) -> [SessionEffect] {
        guard now >= elapsed else { return [] }
        elapsed = now
        var effects: [SessionEffect] = []
        if elapsed >= Double(plan.maxDuration) {
            return finish(.timedOut, log: .timedOut, detail: "session cap of \(DurationText.format(plan.maxDuration)) reached")
        }
        if let left = remaining {
            if left <= 0 {
                return finish(.timedOut, log: .timedOut, detail: "time limit reached")
            }
            for mark in Self.warningMarks where left <= Double(mark) && !warned.contains(mark) {
                warned.insert(mark)
                let words = mark >= 60 ? "\(mark / 60) minute\(mark == 60 ? "" : "s")" : "\(mark) seconds"
                effects.append(.log(.timeWarning, "\(words) left"))
                effects.append(.notice("\(words.prefix(1).uppercased() + words.dropFirst()) left"))
            }
        }
        if elapsed - lastSavedElapsed >= Self.timeSaveInterval {
            lastSavedElapsed = elapsed
            effects.insert(.saveTime(elapsed), at: 0)
        }
        return effects
    }

    private mutating func finish(_ reason: EndReason, log kind: EventKind, detail: String) -> [SessionEffect] {
        status = .ending
        endReason = reason
        prompt = nil
        return [.saveTime(elapsed), .log(kind, detail), .finish(reason)]
    }
}
