import AssessmentKit
import Foundation
import SessionKit
import SharedStore

/// What a session's test says of its size and time, read from the journal's copy of it (a
/// sealed test from its public header, without the passphrase); nil when it cannot be read.
enum TestFacts {
    static func of(_ record: SessionRecord, journal: Journal) -> (items: Int, timeLimit: Int?)? {
        guard let stored = try? SessionRuntime.stored(record, journal: journal) else { return nil }
        if stored.format == .sealed {
            return (try? SessionRuntime.publicFacts(stored)).map { ($0.items, $0.timeLimit) }
        }
        return (try? SessionRuntime.readYAML(stored)).map { ($0.questionsPerSession, $0.timeLimit) }
    }

    /// The time allowed before the proctor added any: the seat's own figure when it published
    /// one (its test's limit with the roster's extra time), else the test's limit with the
    /// record's extra time; nil without a limit.
    static func limit(_ record: SessionRecord, journal: Journal?) -> Int? {
        if let allowed = record.options.shared?.timeAllowed { return allowed }
        guard let journal, let facts = of(record, journal: journal) else { return nil }
        return record.extraTime.apply(to: facts.timeLimit)
    }
}

extension ResultsData {
    /// The session's status as `results` reports it: the store's own word where the record
    /// cannot hold it, else the end reason, interrupted or running.
    func status(_ r: SessionRecord) -> String {
        statuses[r.id] ?? ResultFilters.status(r, waiting: waiting)
    }

    func verified(_ r: SessionRecord) -> Bool { checks?[r.id]?.verified ?? false }

    /// The session's time and the proctor's commands: its result's own account when it keeps
    /// one, else read from its events; with the roster's extra time and each addition's
    /// issuer from a shared store.
    func account(_ r: SessionRecord, events: [JournalEvent], document: ResultDocument?) -> SessionAccount {
        var account = document?.account
            ?? SessionAccount(events: events, limit: TestFacts.limit(r, journal: journal), extraTime: r.extraTime)
        if let extra = extraTimes[r.id], account.extraTime.isEmpty { account.extraTime = extra }
        account.issued(issues.mapValues { (by: $0.by, at: $0.at) })
        if let moved = moves[r.id] { account.moves = moved }
        return account
    }

    /// A session's events, or why they cannot be read (that session's damage alone); exit 73
    /// only when the journal itself cannot be read.
    func sessionEvents(_ r: SessionRecord) throws(CarrelFailure) -> Result<[JournalEvent], SessionDamage> {
        do {
            return .success(try journal?.events(session: r.id) ?? [])
        } catch where !SkippedSession.isRowDamage(error) {
            throw CarrelFailure(status: .cannotCreate, message: "the journal's events of session \(r.id) cannot be read: \(error)")
        } catch {
            return .failure(SessionDamage(reason: "its events cannot be read"))
        }
    }

    /// The JSON export of `sessions`: every session once, with its result when it has one; a
    /// session whose result or events cannot be read is left out and named (`skipped`).
    mutating func exportedSessions(_ sessions: [SessionRecord]) throws(CarrelFailure) -> [ExportedSession] {
        var out: [ExportedSession] = []
        for r in sessions {
            let (result, damage) = try readResult(r.id)
            if let damage {
                skip(r.id, damage)
                continue
            }
            let events: [JournalEvent]
            switch try sessionEvents(r) {
            case let .success(found): events = found
            case let .failure(damage):
                skip(r.id, damage.reason)
                continue
            }
            let status = status(r)
            out.append(ExportedSession(document: result, record: r, status: status, events: events,
                                       standing: SessionStanding(status: status, hasResult: result != nil),
                                       account: account(r, events: events, document: result), verified: verified(r)))
        }
        return out
    }

    /// A `results list` row with its standing, time and proctor's commands.
    func listRow(_ r: SessionRecord, score: ScoreSummary?) throws(CarrelFailure) -> SessionRow {
        let status = status(r)
        var row = SessionRow(session: r.id, candidate: r.candidate, assessment: r.assessmentID, status: status,
                             points: score?.points, max: score?.max, pending: score?.pending, started: Timestamp.iso(r.startedAt),
                             ended: r.endedAt.map(Timestamp.iso), timeUsedSeconds: TimeUsed.seconds(r.elapsed))
        row.verified = verified(r)
        // Events that cannot be read leave the row without the proctor's commands; the row stays.
        let events = (try? sessionEvents(r).get()) ?? []
        row.add(SessionStanding(status: status, hasResult: score != nil), account(r, events: events, document: nil))
        return row
    }
}

/// One session of `results export --format json`: its result document (its keys as ever),
/// or for a session without one the same heading keys with no score and no items; then its
/// standing (`outcome`, `status_words`), its time and the proctor's commands, and `verified`.
struct ExportedSession: Encodable {
    var document: ResultDocument?
    var record: SessionRecord
    var status: String
    var events: [JournalEvent]
    var standing: SessionStanding
    var account: SessionAccount
    var verified: Bool

    enum Keys: String, CodingKey {
        case session, candidate, status, assessment, score, items, events, room, seat, interruptions
        case startedAt = "started_at", endedAt = "ended_at", timeUsedSeconds = "time_used_seconds"
        case candidateNumber = "candidate_number"
        case outcome, statusWords = "status_words", verified, moves, pauses
        case timeAllowedSeconds = "time_allowed_seconds", extraTime = "extra_time"
        case timeAddedSeconds = "time_added_seconds", timeAdded = "time_added"
    }

    func encode(to encoder: any Encoder) throws {
        if var document {
            // The export's account replaces the document's own (the same, with the store's issuers).
            document.timeAllowedSeconds = nil
            document.extraTime = nil
            document.timeAddedSeconds = nil
            document.timeAdded = nil
            document.pauses = nil
            try document.encode(to: encoder)
        } else {
            try encodeHeading(to: encoder)
        }
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(standing.outcome, forKey: .outcome)
        try c.encode(standing.words, forKey: .statusWords)
        try c.encode(verified, forKey: .verified)
        try c.encode(account.timeAllowedSeconds, forKey: .timeAllowedSeconds)
        try c.encode(account.extraTime, forKey: .extraTime)
        try c.encode(account.timeAddedSeconds, forKey: .timeAddedSeconds)
        try c.encode(account.timeAdded, forKey: .timeAdded)
        try c.encode(account.pauses, forKey: .pauses)
        try c.encode(account.moves, forKey: .moves)
    }

    /// A result document's heading keys, from the record of a session that has no result.
    func encodeHeading(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(record.id, forKey: .session)
        try c.encode(record.candidate, forKey: .candidate)
        try c.encode(status, forKey: .status)
        try c.encode(["id": record.assessmentID, "title": record.assessmentTitle, "fingerprint": record.fingerprint],
                     forKey: .assessment)
        try c.encode(Timestamp.iso(record.startedAt), forKey: .startedAt)
        try c.encode(record.endedAt.map(Timestamp.iso), forKey: .endedAt)
        try c.encode(TimeUsed.seconds(record.elapsed), forKey: .timeUsedSeconds)
        try c.encode(record.interruptions, forKey: .interruptions)
        try c.encodeNil(forKey: .score)
        try c.encode([ResultDocument.ItemResult](), forKey: .items)
        try c.encode(events.map { ["at": Timestamp.iso($0.at), "kind": $0.kind, "detail": $0.detail] }, forKey: .events)
        try c.encode(record.options.shared?.room, forKey: .room)
        try c.encode(record.options.shared?.seat, forKey: .seat)
        try c.encode(record.options.shared?.candidateNumber, forKey: .candidateNumber)
    }
}
