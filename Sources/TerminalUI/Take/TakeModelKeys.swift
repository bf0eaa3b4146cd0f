import Localization
import AssessmentKit
import SessionKit

/// Keys: each screen reacts to a key only through its binding in the screen's key map.
extension TakeModel {
    /// The screens of `carrel take`, as the keys see them.
    public enum KeyScreen: Sendable, Equatable {
        case help, start, confirmLock, banner, question, review, receipt
        /// A linear test's "leave it unanswered?".
        case skip
        case prompt(SessionPrompt)
    }

    public var keyScreen: KeyScreen {
        if showHelp { return .help }
        switch phase {
        case .start: return .start
        case .confirmLock: return .confirmLock
        case .lockedBanner: return .banner
        case .receipt: return .receipt
        case .test:
            if let prompt = session?.prompt { return .prompt(prompt) }
            if confirmSkip { return .skip }
            return reviewing ? .review : .question
        }
    }

    var linear: Bool { session?.plan.navigation == .linear }

    /// The map the screen shown now reacts by.
    public var keyMap: KeyMap<TakeAction> {
        switch keyScreen {
        case .help: return TakeKeys.help
        case .start: return TakeKeys.start(passphrase: needsLaunchPassphrase)
        case .confirmLock: return TakeKeys.confirmLock.adding(TakeKeys.yesKeys(say), to: .yes)
        case .banner: return TakeKeys.banner
        case .receipt: return TakeKeys.receipt
        case .skip: return TakeKeys.confirmSkip.adding(TakeKeys.yesKeys(say), to: .yes)
        case .prompt(.confirmSubmit):
            return TakeKeys.confirmSubmit.adding(TakeKeys.yesKeys(say, opener: TakeKeys.submitLetter), to: .yes)
        case .prompt(.confirmEnd): return TakeKeys.confirmEnd.adding(TakeKeys.yesKeys(say), to: .yes)
        case .prompt(.proctor): return TakeKeys.proctorPrompt
        case .review:
            return session == nil ? KeyMap("review", "The review screen", []) : TakeKeys.review(linear: linear)
        case .question:
            guard session != nil else { return KeyMap("question", "The question screen", []) }
            let answer = currentItem.map { widget(for: $0).keyMap } ?? KeyMap("answer", "No question", [])
            return TakeKeys.question(linear: linear, answer: answer)
        }
    }

    /// The key list F1 shows: the review's keys over the review, the test's keys elsewhere.
    public var helpListing: KeyListing {
        reviewing ? TakeKeys.review(linear: linear).listing : TakeKeys.question(linear: linear).listing
    }

    public mutating func handle(_ key: Key, now: Double) -> [TakeRequest] {
        // A status stays until the next key, whichever it is; the key itself may bring a new
        // one (and the same words again must be written again, so they are said again).
        noticeBeforeKey = notice
        if noticeUntil == .infinity { notice = nil }
        // The proctor's message stays until a key is pressed: that key closes it, and only that.
        if phase == .test, let session, session.room.message != nil, !showHelp {
            return [.session(.dismissMessage)]
        }
        guard let action = keyMap.action(for: key) else { return [] }
        if phase == .test, let session, session.room.paused, !showHelp, session.prompt == nil,
           !Self.worksWhilePaused(action) {
            show(say.say(SessionState.pausedWords), now: now)
            return []
        }
        switch keyScreen {
        case .help:
            helpAction(action)
            return []
        case .start: return startAction(action, key: key)
        case .confirmLock:
            if action == .yes { return [.begin] }
            phase = .start
            return []
        case .banner:
            phase = .test
            return []
        case .receipt: return [.quit]
        case .skip: return skipAction(action, key: key)
        case let .prompt(prompt): return promptAction(action, prompt: prompt, key: key)
        case .question, .review: return sessionAction(action, key: key, now: now)
        }
    }

    /// While the proctor has paused the session: the time, the clock, help, calling the
    /// proctor and the keys that ask to leave still work; answers and moves wait.
    static func worksWhilePaused(_ action: TakeAction) -> Bool {
        switch action {
        case .time, .clock, .help, .hand, .leave: return true
        default: return false
        }
    }

    mutating func helpAction(_ action: TakeAction) {
        let page = max(1, viewSize.height - 5)
        switch action {
        case .move(.down): helpScroll += 1
        case .move(.up): helpScroll = max(0, helpScroll - 1)
        case .move(.pageDown): helpScroll += page
        case .move(.pageUp): helpScroll = max(0, helpScroll - page)
        default:
            showHelp = false
            helpScroll = 0
            if screenReader { repaintWhole = true }
        }
    }

    mutating func startAction(_ action: TakeAction, key: Key) -> [TakeRequest] {
        switch action {
        case .quit: return [.quit]
        case .help: showHelp = true
        case _ where waitsForProctor:
            // The proctor's start begins this seat; no key at the seat does.
            startMessage = say("Waiting for the proctor to start")
        case .edit: _ = secret.apply(key)
        default:
            guard needsLaunchPassphrase else {
                phase = .confirmLock
                return []
            }
            let typed = secret.text
            secret = TextEditor()
            return [.checkLaunchPassphrase(typed)]
        }
        return []
    }

    /// Called when the launch passphrase was right (or not needed).
    public mutating func launchAccepted() {
        startMessage = nil
        launchCleared = true
        // A seat the proctor starts waits on the start screen.
        if !waitingForProctor { phase = .confirmLock }
    }

    /// The start screen waits for the proctor's start. The proctor's start stands for the
    /// passphrase a plain test asks at its start screen; a sealed test still asks it here
    /// first (it opens the test).
    public var waitsForProctor: Bool {
        waitingForProctor && (!passphraseOpensTest || launchCleared)
    }

    mutating func skipAction(_ action: TakeAction, key: Key) -> [TakeRequest] {
        confirmSkip = false
        switch action {
        case .yes: return [.session(.next)]
        case .leave: return [.session(.exitAttempt(TakeKeys.leaveName(key)))]
        default:
            if screenReader { repaintWhole = true }
            return []
        }
    }

    mutating func promptAction(_ action: TakeAction, prompt: SessionPrompt, key: Key) -> [TakeRequest] {
        switch (prompt, action) {
        case (.confirmSubmit, .yes): return [.session(.submitConfirmed)]
        case (.confirmEnd, .yes): return [.session(.endConfirmed)]
        case (.proctor, .edit):
            _ = secret.apply(key)
            return []
        case (.proctor, .confirm):
            let typed = secret.text
            secret = TextEditor()
            return [.proctorPassphrase(typed)]
        default:
            secret = TextEditor()
            return [.session(.cancelPrompt)]
        }
    }

    mutating func sessionAction(_ action: TakeAction, key: Key, now: Double) -> [TakeRequest] {
        guard let session else { return [] }
        switch action {
        case .leave: return [.session(.exitAttempt(TakeKeys.leaveName(key)))]
        case .help: showHelp = true
        case .next: return next(session)
        case .previous: return [.session(.previous)]
        case .flag:
            guard let id = session.currentItemID else { return [] }
            return [.session(.toggleFlag(id))]
        case .review:
            reviewHighlight = session.position
            return [.session(reviewing ? .closeReview : .openReview)]
        case .submit: return [.session(.submitRequested)]
        case .hand: return [.session(.raiseHand)]
        case .time:
            let time = timeWords(session)
            show(lastWarning.map { say("Time warning: {0}. {1}", .s($0), .s(time)) } ?? time, now: now)
        case .clock:
            clockHidden.toggle()
            show(clockHidden ? say("Clock hidden; Ctrl-K shows it. Ctrl-T says the time left.") : say("Clock shown"), now: now)
        case .scrollUp, .scrollDown: page(action == .scrollDown ? 1 : -1)
        case let .move(move): moveReview(move, count: session.plan.itemOrder.count)
        case .open: return [.session(.jump(reviewHighlight))]
        case .back: return [.session(.closeReview)]
        case let .answer(answer): return answerAction(answer, key: key, session: session, now: now)
        default: break
        }
        return []
    }

    mutating func moveReview(_ move: TakeAction.Move, count: Int) {
        let page = max(1, viewSize.height - 8)
        switch move {
        case .up: reviewHighlight = max(0, reviewHighlight - 1)
        case .down: reviewHighlight = min(count - 1, reviewHighlight + 1)
        case .pageUp: reviewHighlight = max(0, reviewHighlight - page)
        case .pageDown: reviewHighlight = min(count - 1, reviewHighlight + page)
        case .first: reviewHighlight = 0
        case .last: reviewHighlight = count - 1
        }
    }

    /// One of the question's own keys, done by its widget.
    mutating func answerAction(_ action: AnswerAction, key: Key, session: SessionState, now: Double) -> [TakeRequest] {
        guard let item = currentItem else { return [] }
        // An answer key brings the focused element back into view.
        if !followFocus {
            scroll = Views.questionOffset(self, width: viewSize.width, height: viewSize.height)
            followFocus = true
        }
        let change = widget(for: item).perform(action, key: key)
        let editorKey = self.editorKey(item)
        if let h = change.highlight, h != highlight[item.id] ?? 0 { highlight[item.id] = h }
        if let h = change.optionHighlight { highlight[item.id + "#options"] = h }
        if let e = change.editor { editors[editorKey] = e }
        if let text = change.say { show(text, now: now) }
        return change.nextQuestion ? next(session) : change.commands
    }

    /// While the screen is too small to show the test, keys change nothing except those that
    /// leave or end it, or answer what was asked: a prompt's answers, the proctor's passphrase,
    /// and leaving before anything was locked or after the receipt.
    public func reactsWhileTooSmall(_ key: Key) -> Bool {
        guard let action = keyMap.action(for: key) else { return false }
        switch keyScreen {
        case .prompt(.proctor): return true
        case .prompt(.confirmEnd): return action == .yes || action == .no
        case .prompt(.confirmSubmit): return action == .no
        case .start, .confirmLock, .receipt: return action == .quit || action == .no
        case .question, .review, .skip: return action == .leave
        case .help, .banner: return false
        }
    }

    /// The screen as it will be once `keys` are let through: typed characters that the input
    /// decoder still holds while it judges typing from a paste. They are shown at once, so
    /// typing echoes without delay, and enter the answer only when judged typing (a paste
    /// takes them away again). Nil where they would do more than edit the focused text.
    public func typingPreview(_ keys: [Key], now: Double) -> TakeModel? {
        guard !keys.isEmpty, keyScreen == .question, let item = currentItem else { return nil }
        switch item.kind {
        case .text, .numeric, .essay: break
        case let .gaps(gaps):
            // Typing in a typed gap; a pick gap's letters choose.
            let h = min(highlight[item.id] ?? 0, max(0, gaps.count - 1))
            guard gaps.indices.contains(h), !gaps[h].kind.isChoice else { return nil }
        default: return nil
        }
        let map = keyMap
        for key in keys {
            guard case .character = key, map.action(for: key) == .answer(.edit) else { return nil }
        }
        var preview = self
        for key in keys { _ = preview.handle(key, now: now) }
        return preview
    }

    /// Tab: in a linear test, leaving an unanswered question for good is asked first.
    mutating func next(_ session: SessionState) -> [TakeRequest] {
        if session.plan.navigation == .linear, phase == .test, !reviewing, let id = session.currentItemID,
           !(session.answer(id).map { !$0.isEmpty } ?? false), session.position + 1 < session.plan.itemOrder.count {
            confirmSkip = true
            return []
        }
        return [.session(.next)]
    }

    /// PgUp/PgDn: a page of the question area, leaving the focused element behind.
    mutating func page(_ direction: Int) {
        let viewport = Views.questionViewport(self, width: viewSize.width, height: viewSize.height)
        let step = max(1, viewport.rows - 1)
        let top = max(0, viewport.lines - viewport.rows)
        scroll = min(top, max(0, viewport.offset + direction * step))
        followFocus = false
    }

    /// The widget of `item`: its keys and its lines, over what the screen holds for it.
    func widget(for item: Item) -> any AnswerWidget {
        let opts = options(item)
        var count = opts.count
        var gapOptions: [[String]] = []
        if case let .gaps(gaps) = item.kind {
            count = gaps.count
            gapOptions = gaps.indices.map { gapDisplayOrder(item, gap: $0) }
        }
        var context = WidgetContext(item: item, response: session?.answer(item.id), options: opts, rights: displayOrder(item),
                                    highlight: min(highlight[item.id] ?? 0, max(0, count - 1)), editor: editor(for: item),
                                    screenReader: screenReader, viewWidth: viewSize.width)
        context.gapOptions = gapOptions
        context.optionHighlight = highlight[item.id + "#options"] ?? 0
        context.say = say
        return AnswerWidgets.make(context)
    }
}
