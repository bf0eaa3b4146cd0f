import AssessmentKit
import Foundation
import Localization
import SessionKit

/// Every screen a student, proctor or trainer can see, drawn in one language at one size
/// with no terminal: the start screens, each question empty, answered, through a screen reader
/// and part done, the review and every box, the notices, the room's states, the receipts, a
/// terminal too small, the help, the demo and the console. The golden frames of every
/// language are this tour of a test fixture; `carrel demo --screens FILE` is this tour of the
/// workshop test, for a translator to read their words in place.
public struct ScreenTour {
    /// What the screens show: the test, a candidate and what they answered, a room.
    public struct Cast: Sendable {
        public var assessment: Assessment
        public var candidate: String
        /// A response to every question, and to some only in part.
        public var answered: [String: Response]
        public var partDone: [String: Response]
        public var proctorMessage: String
        /// A room of a few seats, and one of thirty mid-exam.
        public var seats: [SeatView]
        public var room: [SeatView]

        public init(assessment: Assessment, candidate: String, answered: [String: Response], partDone: [String: Response],
                    proctorMessage: String, seats: [SeatView], room: [SeatView]) {
            self.assessment = assessment
            self.candidate = candidate
            self.answered = answered
            self.partDone = partDone
            self.proctorMessage = proctorMessage
            self.seats = seats
            self.room = room
        }
    }

    public let cast: Cast
    public let language: Language
    let say: Localizer

    public init(cast: Cast, language: Language) {
        self.cast = cast
        self.language = language
        say = Localizer(language)
    }

    /// Every screen, named, at `width` × `height`.
    public func frames(width: Int, height: Int) -> [(String, Screen)] {
        var f = Frames(width: width, height: height)
        addStartScreens(&f)
        addQuestions(&f)
        addReviewAndBoxes(&f)
        addNotices(&f)
        addRoomStates(&f)
        addReceipts(&f)
        addTooSmallAndHelp(&f)
        addDemoAndConsole(&f)
        return f.out
    }

    /// The tour as text: each screen under its name, with where the cursor is.
    public func text(width: Int, height: Int) -> String {
        frames(width: width, height: height).map {
            "=== \($0.0) (\(width)×\(height)) ===\n" + $0.1.text + "\n--- cursor \($0.1.cursor.row),\($0.1.cursor.column) ---\n"
        }.joined()
    }

    func model(screenReader: Bool = false, at index: Int = 0, responses: [String: Response] = [:], flags: Set<String> = [],
               elapsed: Double = 75, linear: Bool = false) -> TakeModel {
        var a = cast.assessment
        if linear { a.navigation = .linear }
        let plan = SessionPlan.make(assessment: a, sessionID: "golden", seed: 3, extraTime: .none)
        var m = TakeModel(assessment: a, candidate: cast.candidate, timeAllowed: 900, theme: .mono, screenReader: screenReader)
        m.say = say
        m.session = SessionState(plan: plan, status: .active, position: index, responses: responses, flags: flags, elapsed: elapsed)
        m.phase = .test
        return m
    }

    /// Frames named in order, each rendered at one size when it is added.
    struct Frames {
        let width: Int
        let height: Int
        var out: [(String, Screen)] = []

        mutating func add(_ name: String, _ m: TakeModel) { out.append((name, Views.render(m, width: width, height: height))) }
    }

    /// The screens before the first question.
    func addStartScreens(_ f: inout Frames) {
        var m = model()
        m.session = nil
        m.phase = .start
        f.add("start", m)
        var p = m
        p.startMessage = say("{0, plural, one {That passphrase is not right (attempt {1}, # try left).} other {That passphrase is not right (attempt {1}, # tries left).}}", .n(2), .n(1))
        f.add("start-message", p)
        m.waitingForProctor = true
        m.seatKey = "1234 5678"
        f.add("start-waiting", m)
        m.waitingForProctor = false
        m.phase = .confirmLock
        f.add("confirm-lock", m)
        m.phase = .lockedBanner
        f.add("banner", m)
    }

    /// Every question empty, answered, through a screen reader and part done.
    func addQuestions(_ f: inout Frames) {
        let order = SessionPlan.make(assessment: cast.assessment, sessionID: "golden", seed: 3, extraTime: .none).itemOrder
        for (index, id) in order.enumerated() {
            f.add("empty-\(index + 1)-\(id)", model(at: index))
            var a = model(at: index, responses: cast.answered, flags: ["primes"])
            if let item = a.item(id), [ItemType.text, .numeric, .essay].contains(item.type) { a.editors[id] = a.editor(for: item) }
            f.add("answered-\(index + 1)-\(id)", a)
            var r = model(screenReader: true, at: index, responses: cast.answered, flags: ["primes"])
            if let item = r.item(id), [ItemType.text, .numeric, .essay].contains(item.type) { r.editors[id] = r.editor(for: item) }
            f.add("reader-\(index + 1)-\(id)", r)
            if cast.partDone[id] != nil, index > 0 {
                f.add("part-done-\(index + 1)-\(id)", model(at: index, responses: cast.partDone))
            }
        }
    }

    /// The review, and the boxes asked over a question.
    func addReviewAndBoxes(_ f: inout Frames) {
        var review = model(responses: cast.partDone, flags: ["primes"])
        review.session?.status = .review
        review.reviewHighlight = 2
        f.add("review", review)
        var reviewReader = model(screenReader: true, responses: cast.partDone, flags: ["primes"])
        reviewReader.session?.status = .review
        f.add("review-reader", reviewReader)
        review.session?.prompt = .confirmSubmit
        f.add("submit-confirm", review)
        var proctor = model(responses: cast.answered)
        proctor.session?.prompt = .proctor
        proctor.secret = TextEditor(text: "abc")
        f.add("proctor-prompt", proctor)
        proctor.session?.prompt = .confirmEnd
        f.add("confirm-end", proctor)
        var skip = model(linear: true)
        skip.confirmSkip = true
        f.add("confirm-skip", skip)
    }

    /// The time's notices and a hidden clock.
    func addNotices(_ f: inout Frames) {
        var notice = model(elapsed: 845)
        notice.notice = say.say(SessionState.warningWords(60))
        f.add("time-warning", notice)
        var time = model()
        time.notice = time.timeWords(time.session ?? SessionState(plan: SessionPlan.make(assessment: cast.assessment, sessionID: "x", seed: 1, extraTime: .none)))
        f.add("ctrl-t", time)
        var hidden = model()
        hidden.clockHidden = true
        f.add("clock-hidden", hidden)
    }

    /// What the proctor does to a seat in a room.
    func addRoomStates(_ f: inout Frames) {
        var room = model(responses: cast.answered)
        room.session?.room = RoomControl(watched: true)
        room.session?.room.paused = true
        f.add("room-paused", room)
        room.session?.room.paused = false
        room.session?.room.message = cast.proctorMessage
        f.add("room-message", room)
        room.session?.room.message = nil
        room.session?.room.hand = .raised
        f.add("room-hand-raised", room)
        room.session?.room.hand = .acknowledged
        f.add("room-hand-coming", room)
    }

    /// The receipt of every way a test ends.
    func addReceipts(_ f: inout Frames) {
        for status in [EndReason.submitted, .timedOut, .endedByProctor, .endedByCandidate] {
            var r = model(responses: cast.answered)
            r.phase = .receipt(TakeModel.Receipt(status: status, session: "01234567-0000-1111-2222-333344445555", timeUsed: 815,
                                                 answered: 8, total: 9, score: ScoreSummary(points: 7.5, max: 17, pending: 3),
                                                 resultPath: "/state/results/x.json", problem: nil))
            f.add("receipt-\(status.rawValue)", r)
        }
        // A seat the proctor started had no answer key: what was answered, and who scores it.
        var keyless = model(responses: cast.answered)
        keyless.phase = .receipt(TakeModel.Receipt(status: .submitted, session: "01234567-0000-1111-2222-333344445555", timeUsed: 815,
                                                   answered: 8, total: 9, score: nil, resultPath: "/state/results/x.json",
                                                   problem: nil, unscored: true))
        f.add("receipt-keyless", keyless)
    }

    /// A terminal too small, and F1's help.
    func addTooSmallAndHelp(_ f: inout Frames) {
        // Too small: the sentence, the clock, and what still answers a box (at 60×20).
        var small = model(responses: cast.answered)
        f.out.append(("too-small", Views.render(small, width: 60, height: 20)))
        small.session?.prompt = .confirmSubmit
        f.out.append(("too-small-submit", Views.render(small, width: 60, height: 20)))
        small.session?.prompt = .proctor
        f.out.append(("too-small-proctor", Views.render(small, width: 60, height: 20)))
        small.session?.prompt = .confirmEnd
        f.out.append(("too-small-end", Views.render(small, width: 60, height: 20)))
        var help = model()
        help.showHelp = true
        f.add("help", help)
        help.helpScroll = 100
        f.add("help-end", help)
    }

    /// The workshop demo and the proctor console.
    func addDemoAndConsole(_ f: inout Frames) {
        var demo = DemoModel(policy: RestrictionPolicy(), workshopAvailable: true, theme: .mono)
        demo.say = say
        f.out.append(("demo", DemoView.render(demo, width: f.width, height: f.height)))
        demo.confirmQuit = true
        demo.sessionActive = true
        f.out.append(("demo-confirm-quit", DemoView.render(demo, width: f.width, height: f.height)))

        var console = ProctorModel(room: "101", screenReader: false)
        console.say = say
        f.out.append(("console-empty", ProctorView.render(console, width: f.width, height: f.height)))
        console.update(cast.seats)
        f.out.append(("console-seats", ProctorView.render(console, width: f.width, height: f.height)))
        var consoleReader = ProctorModel(room: "101", screenReader: true)
        consoleReader.say = say
        consoleReader.update(cast.seats)
        f.out.append(("console-reader", ProctorView.render(consoleReader, width: f.width, height: f.height)))
        // A room of thirty: paused seats, a raised hand, seats held back, keys and hosts; the
        // confirmation of a message to the marked seats names them.
        var room = ProctorModel(room: "101", screenReader: false)
        room.say = say
        room.update(cast.room)
        f.out.append(("console-thirty", ProctorView.render(room, width: f.width, height: f.height)))
        _ = room.handle(.character("*"), pageSize: 10)
        _ = room.handle(.character("m"), pageSize: 10)
        for ch in "Q3" { _ = room.handle(.character(ch), pageSize: 10) }
        _ = room.handle(.enter, pageSize: 10)
        f.out.append(("console-thirty-confirm", ProctorView.render(room, width: f.width, height: f.height)))
    }

}
