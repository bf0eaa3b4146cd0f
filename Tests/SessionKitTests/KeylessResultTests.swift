import AssessmentKit
import Foundation
import Testing
@testable import SessionKit

/// A seat without the answer key records what was answered; the whole test, where the
/// passphrase is, scores it exactly as a seat with the key would have.
@Suite("Results of keyless seats")
struct KeylessResultTests {
    static func quiz() throws -> Assessment {
        let outcome = AssessmentReader.read(text: """
            carrel: 1
            id: keyless
            title: Keyless
            shuffle: {items: true, choices: true}
            sections:
              - draw: 5
                items:
                  - {id: c, type: choice, prompt: Pick, choices: [Alpha, Beta, Gamma], answer: Gamma}
                  - {id: m, type: multiple, prompt: Several, choices: [One, Two, Three], answer: [Three, One], scoring: partial, points: 2}
                  - {id: t, type: true_false, prompt: True?, answer: true}
                  - {id: w, type: text, prompt: Word, accept: [bonjour]}
                  - {id: n, type: numeric, prompt: Number, answer: 42.5, tolerance: 0.25}
                  - {id: e, type: essay, prompt: Write, points: 4}
                  - {id: o, type: order, prompt: Order, items: [Zebra, Apple, Mango]}
                  - {id: p, type: match, prompt: Match, pairs: {Kenya: Nairobi, Chad: Ndjamena}, distractors: [Accra]}
                  - id: g
                    type: gaps
                    prompt: A {1} and {2}.
                    gaps:
                      - accept: [cat]
                      - {choices: [dog, bird], answer: bird, points: 3}
            """, file: "keyless.yaml")
        return try #require(outcome.assessment, "\(outcome.diagnostics)")
    }

    static let responses: [String: Response] = [
        "c": .choice("Gamma"), "m": .multiple(["One", "Two"]), "t": .trueFalse(true), "w": .text("Bonjour"),
        "n": .numeric("42,6"), "e": .essay("words words"), "o": .order(["Zebra", "Mango", "Apple"]),
        "p": .match(["Kenya": "Nairobi", "Chad": "Accra"]), "g": .gaps([["cat"], ["bird"]]),
    ]

    static func result(_ a: Assessment, seed: UInt64) -> ResultDocument {
        let record = SessionRecord(id: "s", assessmentID: a.id, assessmentTitle: a.title, fingerprint: "sealed:x",
                                   assessmentPath: "k.carrel", candidate: nil, status: .ended, seed: seed, extraTime: .none,
                                   startedAt: Date(timeIntervalSince1970: 0), pid: 1, host: "h", tty: nil)
        return ResultDocument.make(assessment: a, record: record, reason: .submitted, endedAt: Date(timeIntervalSince1970: 60),
                                   elapsed: 60, responses: responses, flags: ["c"], events: [])
    }

    @Test(arguments: [UInt64(1), 7, 99])
    func aKeylessResultSaysWhatWasAnsweredAndTheWholeTestScoresIt(seed: UInt64) throws {
        let full = try Self.quiz()
        let keyless = full.withoutKey
        // The seat draws the same items as the whole test would have.
        #expect(SessionPlan.drawn(keyless, seed: seed) == SessionPlan.drawn(full, seed: seed))
        let seat = Self.result(keyless, seed: seed)
        #expect(seat.unscored == true)
        #expect(seat.score == ScoreSummary(points: 0, max: 0, pending: 0))
        #expect(seat.items.allSatisfy { [.pending, .notDrawn].contains($0.outcome) && $0.points == 0 && $0.gaps == nil })
        #expect(seat.answered == 5 && seat.given == 5)
        let scored = try #require(seat.scored(with: full))
        let reference = Self.result(full, seed: seed)
        #expect(scored == reference, "the same score as a seat with the key")
        #expect(scored.unscored == nil && scored.items.first { $0.id == "c" }?.flagged == reference.items.first { $0.id == "c" }?.flagged)
        #expect(reference.scored(with: full) == reference, "a scored result stays as it is")
    }

    @Test func marksGivenBeforeScoringFollowIt() throws {
        let full = try Self.quiz()
        var seat = Self.result(full.withoutKey, seed: 1)
        let i = try #require(seat.items.firstIndex { $0.id == "e" })
        seat.items[i].outcome = .pending
        seat.items[i].mark = ResultDocument.Mark(points: 3, comment: "good", at: "2026-01-01T00:00:00Z")
        let scored = try #require(seat.scored(with: full))
        if scored.items[i].outcome != .notDrawn {
            #expect(scored.items[i].points == 3 && scored.items[i].max == 4)
        }
    }

    /// A mark needs the item's points, which only the whole test has.
    @Test func anUnscoredResultIsNotMarkedAgainstNothing() throws {
        let seat = Self.result(try Self.quiz().withoutKey, seed: 1)
        let given = try #require(seat.items.first { $0.outcome != .notDrawn })
        #expect(throws: MarkRefusal.unscored(session: "s")) {
            try seat.marking(given.id, points: 0, comment: nil, at: Date())
        }
    }

    @Test func anotherTestDoesNotScoreIt() throws {
        let full = try Self.quiz()
        let seat = Self.result(full.withoutKey, seed: 1)
        var other = full
        other.id = "other"
        #expect(seat.scored(with: other) == nil)
        #expect(seat.scored(with: full.withoutKey) == nil, "a keyless test scores nothing")
    }

    @Test func responsesReadBackFromTheirJSON() throws {
        let types = Dictionary(uniqueKeysWithValues: try Self.quiz().items.map { ($0.id, $0.type) })
        for (id, response) in Self.responses {
            #expect(Response(JSONValue(response), type: try #require(types[id])) == response, "\(id)")
        }
        #expect(Response(.null, type: .choice) == nil)
        #expect(Response(.bool(true), type: .choice) == nil)
    }
}
