import AssessmentKit
import Foundation
import SessionKit

extension ScreenTour.Cast {
    /// A cast for any test: every question answered (and a few in part), a candidate, a
    /// proctor's message and two rooms — what `carrel demo --screens` shows of the workshop test.
    public static func sample(for assessment: Assessment) -> ScreenTour.Cast {
        var answered: [String: Response] = [:]
        var partDone: [String: Response] = [:]
        for item in assessment.items {
            answered[item.id] = whole(item.kind)
            if let part = part(item.kind) { partDone[item.id] = part }
        }
        return ScreenTour.Cast(assessment: assessment, candidate: "Ada Lovelace", answered: answered, partDone: partDone,
                               proctorMessage: "Question 3: read 12 as 21.", seats: seats(), room: room())
    }

    static func whole(_ kind: Item.Kind) -> Response {
        switch kind {
        case let .choice(choices, _): return .choice(choices.dropFirst().first ?? choices.first ?? "")
        case let .multiple(choices, _, _): return .multiple(Array(choices.prefix(2)))
        case .trueFalse: return .trueFalse(true)
        case let .text(accept, _): return .text(accept.first ?? "…")
        case .numeric: return .numeric("42")
        case .essay: return .essay(String(repeating: "Lorem ipsum dolor sit amet. ", count: 4))
        case let .order(items): return .order(items)
        case let .match(pairs, _): return .match(Dictionary(pairs.map { ($0.left, $0.right) }, uniquingKeysWith: { a, _ in a }))
        case let .gaps(gaps): return .gaps(gaps.map { _ in ["…"] })
        }
    }

    /// Part of an answer where a question can be answered in part.
    static func part(_ kind: Item.Kind) -> Response? {
        switch kind {
        case .essay: return .essay("Lorem ipsum.")
        case let .match(pairs, _): return pairs.first.map { .match([$0.left: $0.right]) }
        case let .gaps(gaps) where gaps.count > 1: return .gaps([["…"]] + gaps.dropFirst().map { _ in [] })
        default: return nil
        }
    }

    /// How a sample room names its candidates, its test and its machines.
    public struct Naming: Sendable {
        public var candidate: String
        public var assessment: String
        public var title: String
        public var host: String

        public init(candidate: String, assessment: String, title: String, host: String) {
            self.candidate = candidate
            self.assessment = assessment
            self.title = title
            self.host = host
        }

        public static let workshop = Naming(candidate: "Candidate", assessment: "workshop", title: "Workshop", host: "lab")
    }

    static func seat(_ name: String, status: String, answered: Int = 3, paste: Int = 0, heard: Int = 0,
                     connected: Bool = true, naming: Naming) -> SeatView {
        SeatView(session: "s-\(name)", candidate: "\(naming.candidate) \(name)", seat: name, room: "101",
                 assessment: naming.assessment, assessmentTitle: naming.title, status: status, answered: answered, total: 12,
                 timeLeftSeconds: ["active", "interrupted"].contains(status) ? 754 : nil,
                 pasteAttempts: paste, focusLosses: 0, exitAttempts: 0, interruptions: 0,
                 lastSeen: "2026-11-24T10:00:00Z", lastHeardSeconds: heard, connected: connected)
    }

    /// Six seats, one of each state, trouble first.
    public static func seats(_ naming: Naming = .workshop) -> [SeatView] {
        [
            seat("1", status: "submitted", answered: 12, naming: naming), seat("2", status: "active", naming: naming),
            seat("3", status: "interrupted", heard: 14, connected: false, naming: naming),
            seat("4", status: "active", paste: 2, naming: naming),
            seat("5", status: "not_started", answered: 0, naming: naming), seat("6", status: "timed_out", answered: 7, naming: naming),
        ].sorted(by: SeatView.troubleFirst)
    }

    /// Thirty seats as a room has them mid-exam, trouble first: paused seats, a raised hand,
    /// seats held back, keys and hosts.
    public static func room(_ naming: Naming = .workshop) -> [SeatView] {
        (1...30).map { n -> SeatView in
            let name = "A\(n)"
            var s: SeatView
            switch n {
            case 1...3: s = seat(name, status: "not_started", answered: 0, naming: naming)
            case 4: s = seat(name, status: "interrupted", heard: 40, connected: false, naming: naming)
            case 5...8: s = seat(name, status: "submitted", answered: 12, naming: naming)
            default: s = seat(name, status: "active", answered: n % 12, naming: naming)
            }
            if (9...14).contains(n) { s.paused = true }
            if n == 20 { s.hand = "raised" }
            if n == 2 { s.warnings = ["unknown machine, held back"] }
            if n == 3 { s.warnings = ["other Carrel, held back"] }
            s.seatKey = Data((0..<32).map { UInt8(($0 * 7 + n) % 256) }).base64EncodedString()
            s.host = "\(naming.host)-\(n < 10 ? "0" : "")\(n)"
            return s
        }.sorted(by: SeatView.troubleFirst)
    }
}
