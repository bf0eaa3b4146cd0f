import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore
import Synchronization
import TerminalUI

extension SeatLaunch {
    /// The proctor moved a candidate's session to this seat (`MoveOrder`): its records are read
    /// from the store with the key the move gave this seat, each verified with one of the
    /// session's keys; the session is rebuilt in this seat's journal (answers, flags, position,
    /// order and draw, accommodations, time used, the proctor's commands applied) and resumed
    /// here. The time between the old seat's last record and now is not counted: the clock
    /// goes on from the time used the records hold. Records the store never received are
    /// named in the session's own record of the move, never filled in.
    func continueMoved(_ app: TakeApp, command: ProctorCommand, move: MoveOrder) throws(SessionError) -> SessionRuntime? {
        guard let context, let publisher, let room, let label = options.shared, let key = startSecrets?.sessionKey else {
            throw .state("the proctor's move came to a seat that is not ready for it")
        }
        let session = move.session
        let token = SessionMAC.storeToken(key: key, session: session)
        let records: [StoreRecord]
        do {
            records = try Blocking.run { try await SeatRoom.records(publisher.url, session: session, token: token) }
        } catch {
            throw .state("the records of the session moved here cannot be read from the store (\(publisher.url.redacting(SeatPublisher.describe(error)))); ask the proctor to move it again")
        }
        var moved: MovedSession
        do throws(MovedSession.Failure) {
            moved = try MovedSession.rebuild(session: session, records: records, keys: [key] + moveKeys, label: label,
                                             fingerprint: room.fingerprint, path: take.file, host: context.host, pid: context.pid)
        } catch {
            throw .state("the session moved here cannot continue: \(error.description)")
        }
        if moved.ended { throw .state("the session moved here has ended at its seat; nothing continues") }
        // The time used as the old seat last reported it, when its records saved less.
        if let reported = move.elapsed, reported.isFinite, reported > moved.record.elapsed {
            moved.record.elapsed = min(reported, 315_360_000)
        }
        let source = StoredAssessment(bytes: Data(launch.loaded.bytes), path: take.file, format: launch.header == nil ? .yaml : .sealed)
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        var detail = "from \(v(move.from)) to \(v(label.seat)) by the proctor's command #\(command.id)"
        if !moved.holes.isEmpty { detail += "; records the store never received: \(moved.holes)" }
        if !moved.outside.isEmpty { detail += "; \(moved.outside.count) record(s) left out (not written by its seats, or unreadable)" }
        do {
            guard let writer = try context.storage.openJournal(create: true) else { throw SessionError.nothingToResume }
            let journal = try Journal(writer: writer)
            try journal.adopt(moved, source: source, seatKey: box.publicKey, event: detail, at: Date())
        } catch let error as SessionError {
            throw error
        } catch {
            throw .state("the session moved here cannot be kept in this seat's journal: \(error)")
        }
        // This seat now speaks for the moved session: a new connection, its lock, its key.
        publisher.leave()
        publisher.authenticate(session: session, key: key)
        let control = RoomControl.replay(moved.events, watched: true)
        publisher.follow(room: label.room, seat: label.seat, after: max(control.lastCommand, command.id))
        let runtime = try SessionRuntime.resume(
            sessionID: session, context: context, open: { _ in app.model.assessment },
            enterUI: { app.terminal.setReports(true) }, leaveUI: { app.terminal.setReports(false) })
        app.model.show(app.model.say("Session resumed: your answers, flags and time are restored"), now: SessionClock.system.monotonic())
        return runtime
    }
}

/// Runs async work to its end from a thread that may block (the session's own thread, never
/// one of the concurrency pool's).
enum Blocking {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task.detached {
            do {
                let value = try await body()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
        return try result.get()
    }
}
