import AssessmentKit
import Foundation
import Lockdown

/// The proctor's way out of an interrupted session: with the holder gone, take the lock,
/// clear pasteboards, end the session as `ended_by_proctor` (its committed answers become a
/// result), and release the lock.
public enum Unlock {
    public struct Ended: Sendable {
        public var result: ResultDocument
        public var resultPath: String?
        public var writeError: String?
    }

    public static func run(sessionID: String?, context: SessionContext) throws(SessionError) -> [Ended] {
        if case let .held(holder) = SessionLock.inspect(path: context.location.lockPath) {
            throw .lockHeld(holder)
        }
        let journal = try Launch.openJournal(context.location)
        let holder = LockHolder(session: "unlock", pid: context.pid, host: context.host, tty: context.tty,
                                candidate: nil, assessment: "-", started: Timestamp.iso(context.clock.now()))
        let lock: HeldLock
        do {
            lock = try SessionLock.acquire(path: context.location.lockPath, holder: holder)
        } catch {
            switch error {
            case let .held(h): throw .lockHeld(h)
            case let .fileSystem(fs): throw .state(fs.description)
            }
        }
        defer { lock.release() }
        let waiting: [SessionRecord]
        do {
            waiting = try journal.sessions(status: [.active, .interrupted])
        } catch {
            throw .state("\(error)")
        }
        let chosen: [SessionRecord]
        if let sessionID {
            chosen = [try SessionController.pick(sessionID, from: waiting)]
        } else {
            chosen = waiting
        }
        var ended: [Ended] = []
        for record in chosen {
            ended.append(try end(record, journal: journal, context: context))
        }
        return ended
    }

    static func end(_ record: SessionRecord, journal: Journal, context: SessionContext) throws(SessionError) -> Ended {
        let assessment = try SessionController.storedAssessment(record)
        let now = context.clock.now()
        PasteboardClearing.run(policy: assessment.policy, pasteboards: context.pasteboards, when: "on unlock") {
            try? journal.log(session: record.id, kind: .pasteboardCleared, detail: $0, at: now)
        }
        try? journal.log(session: record.id, kind: .unlocked, detail: "ended by the proctor after an interruption", at: now)
        try? journal.log(session: record.id, kind: .ended, detail: EndReason.endedByProctor.rawValue, at: now)
        let responses = (try? journal.answers(session: record.id)) ?? [:]
        let flags = (try? journal.flags(session: record.id)) ?? []
        let events = (try? journal.events(session: record.id)) ?? []
        var counted = record
        if record.status == .active { counted.interruptions += 1 }
        let result = ResultDocument.make(
            assessment: assessment, record: counted, reason: .endedByProctor, endedAt: now, elapsed: record.elapsed,
            responses: responses, flags: flags, events: events)
        let (path, error) = ResultWriter.write(result, location: context.location, journal: journal)
        try? journal.setStatus(session: record.id, status: .ended, endReason: .endedByProctor, endedAt: now)
        return Ended(result: result, resultPath: path, writeError: error)
    }
}
