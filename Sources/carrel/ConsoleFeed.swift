import Localization
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore
import Synchronization
import TerminalUI

/// Reads the store for the console as a task of its own, so that keys are answered at once
/// even while the store is slow or gone: the loop takes the latest reading when there is one.
final class ConsoleFeed: ConsoleSource, Sendable {
    typealias Reading = ConsoleReading

    private struct Shared {
        var latest: Reading?
        var urgent = false
        var report: ConsoleSeatReport?
        var reportWanted: String?
        /// Commands waiting to be sent, and what the last one sent did.
        var outgoing: [(ProctorAction, [SeatView])] = []
        /// Moves (a seat and its spare) and lost seats (no spare) waiting to be sent.
        var seatWork: [(SeatView, SeatView?)] = []
        var sent: String?
        var plans: [String: RoomPlan] = [:]
        var plansAt = Date.distantPast
        /// Each session's room, from the last reading (for its report's check).
        var rooms: [String: String] = [:]
        /// Each finished session's result as last read, and when (for its score).
        var results: [String: (found: FinishedResult, at: Date)] = [:]
        /// The proctor's marks in the store, as last read.
        var marks: [StoreMark] = []
        /// The console's loop, woken when something is ready for it.
        var loop: LoopBell?
    }

    let url: SharedURL
    let room: String?
    let signer: ProctorSigner
    /// The sealed tests given with `--test`, opened with the passphrase: they score the
    /// results of seats that had no answer key.
    let scoring: ResultScoring?
    private let shared = Mutex(Shared())
    private let bell = Doorbell()
    /// Each keyed seat's verified records, folded between readings.
    private let chains = SeatChains()

    /// The sealed tests given with `--test`: a lost seat's result is made with its room's.
    let lostTests: [String]

    init(url: SharedURL, room: String?, signer: ProctorSigner, scoring: ResultScoring? = nil, lostTests: [String] = []) {
        self.lostTests = lostTests
        self.url = url
        self.room = room
        self.signer = signer
        self.scoring = scoring
    }

    func takeReading() -> Reading? {
        shared.withLock { state in
            defer { state.latest = nil }
            return state.latest
        }
    }

    func takeReport() -> ConsoleSeatReport? {
        shared.withLock { state in
            defer { state.report = nil }
            return state.report
        }
    }

    func refreshNow() {
        shared.withLock { $0.urgent = true }
        bell.ring()
    }

    func wantReport(_ session: String) {
        shared.withLock { $0.reportWanted = session }
        bell.ring()
    }

    func send(_ action: ProctorAction, to seats: [SeatView]) {
        shared.withLock { $0.outgoing.append((action, seats)) }
        bell.ring()
    }

    func move(from: SeatView, to: SeatView) {
        shared.withLock { $0.seatWork.append((from, to)) }
        bell.ring()
    }

    func endLost(_ seat: SeatView) {
        shared.withLock { $0.seatWork.append((seat, nil)) }
        bell.ring()
    }

    /// Sends the moves and lost seats asked for; says what happened.
    func sendSeatWork(_ reader: SharedReader) async {
        let work = shared.withLock { state in
            defer { state.seatWork = [] }
            return state.seatWork
        }
        for (seat, spare) in work {
            let note: String
            do {
                guard let plan = try await reader.room(seat.room) else { throw CarrelFailure(status: .usage, message: "the room has no open plan") }
                if let spare {
                    let (key, fingerprint) = try signer.key(room: seat.room, plan: plan)
                    // As `carrel proctor move` checks: the console's selection names the sessions,
                    // the checks still hold (a spare a start would hold back, another candidate's).
                    // A seat still connected is not moved from the console (it did not die): only
                    // `carrel proctor move --while-connected` moves one, on purpose.
                    try SeatMoves.check(moving: seat, spare: spare, machines: try await reader.machineRoom(seat.room), whileConnected: false)
                    let target = try SeatMoves.target(moving: seat, spare: spare, plan: plan,
                                                      package: try signer.packageKey(room: seat.room, plan: plan), key: key)
                    let ids = try await reader.issue(room: seat.room, targets: [target], action: .start, key: key, fingerprint: fingerprint)
                    // As the console says a command's sending, in its language.
                    note = "move sent to seat \(spare.seat) (command \(ids.map(String.init).joined(separator: ", ")))"
                } else {
                    note = try await SeatMoves.endLost(room: seat.room, seat: seat.seat, reader: reader, signer: signer, console: true,
                                                       test: lostTests.first { (try? SeatMoves.roomTest($0, plan: plan, signer: signer)) != nil },
                                                       confirm: { _ in true })
                }
            } catch let failure as CarrelFailure {
                note = "\(spare == nil ? "lost" : "move") not sent: \(failure.message)"
            } catch {
                note = "\(spare == nil ? "lost" : "move") not sent: \(SeatPublisher.describe(error))"
            }
            shared.withLock { $0.sent = note }
            wakeLoop()
        }
    }

    func takeSent() -> String? {
        shared.withLock { state in
            defer { state.sent = nil }
            return state.sent
        }
    }

    /// Sends the commands asked for, each seat's in its own room; says what happened.
    func sendCommands(_ reader: SharedReader) async {
        let outgoing = shared.withLock { state in
            defer { state.outgoing = [] }
            return state.outgoing
        }
        for (action, seats) in outgoing {
            let rooms = Dictionary(grouping: seats, by: \.room)
            var ids: [Int64] = []
            var held: [HeldSeats.Seat] = []
            // Seats a command other than the start was not sent to: not running.
            var idle: [String] = []
            do {
                for (room, inRoom) in rooms.sorted(by: { $0.key < $1.key }) {
                    let plan = try await reader.room(room)
                    let (key, fingerprint) = try signer.key(room: room, plan: plan)
                    if action == .start, let plan {
                        // Each waiting seat's own start, its session's secrets wrapped to its key.
                        let waiting = inRoom.filter { $0.status == "not_started" && $0.connected }
                        // Held back: not an enrolled, permitted machine running the room's Carrel.
                        let (startable, heldHere) = try await HeldSeats.split(waiting, room: room, reader: reader)
                        held += heldHere
                        let (starts, _) = try signer.starts(room: room, plan: plan, seats: startable, key: key)
                        if !starts.isEmpty {
                            ids += try await reader.issue(room: room, targets: starts, action: action, key: key, fingerprint: fingerprint)
                        }
                    } else {
                        // Each bound to the session at the seat now: never replayable to another. Only
                        // to seats running (as the console read them: with the passphrase, a session
                        // the proctor's start did not key is not running, whatever it claims).
                        let running = inRoom.filter { ["active", "interrupted"].contains($0.status) }
                        idle += inRoom.filter { seat in !running.contains { $0.session == seat.session } }.map(\.session)
                        let targets = running.map { CommandTarget(seat: $0.seat, session: $0.session) }
                        if targets.isEmpty { continue }
                        ids += try await reader.issue(room: room, targets: targets, action: action, key: key, fingerprint: fingerprint)
                    }
                }
                let sent = seats.filter { !idle.contains($0.session) }
                let note = sent.isEmpty && held.isEmpty ? "\(action.name) not sent: no seat marked is running"
                    : HeldSeats.note(action, seats: sent, held: held, ids: ids)
                shared.withLock { $0.sent = note }
                wakeLoop()
            } catch let failure as CarrelFailure {
                let note = "\(action.name) not sent: \(failure.message)"
                shared.withLock { $0.sent = note }
                wakeLoop()
            } catch {
                let note = "\(action.name) not sent: \(SeatPublisher.describe(error))"
                shared.withLock { $0.sent = note }
                wakeLoop()
            }
        }
    }

    /// Each finished seat's score, from its result read once it is there (verified, with the
    /// passphrase: read again every few seconds until then), and the proctor's marks read each
    /// time. A result that cannot be read now leaves the scores as last read: the seats are
    /// still shown. At most `resultsPerRound` results are read in one round, so a store flooded
    /// with finished sessions keeps the console answering.
    func score(_ seats: inout [SeatView], reader: SharedReader, plans: [String: RoomPlan]) async {
        let finished = seats.filter { SeatScore.finished($0.status) }
        let now = Date()
        var known = shared.withLock { $0.results }
        let stale = finished.filter { seat in
            guard let (found, at) = known[seat.session] else { return true }
            // A seat sends a new result only after taking a mark, and marks are read apart.
            return !found.settled && now.timeIntervalSince(at) > 5
        }.prefix(Self.resultsPerRound)
        do {
            if !stale.isEmpty {
                let keys = signer.hasPassphrase ? signer.roomKeys(plans) : nil
                for (session, found) in try await reader.finishedResults(stale.map { ($0.session, $0.room) }, keys: keys) {
                    known[session] = (found, now)
                }
            }
            let inView = Set(finished.map(\.session))
            known = known.filter { inView.contains($0.key) }
            let fresh = known
            shared.withLock { $0.results = fresh }
            let marks = finished.isEmpty ? [] : try await reader.storeMarks(sessions: finished.map(\.session))
            shared.withLock { $0.marks = marks }
            Self.apply(known.mapValues(\.found), marks: marks, scoring: scoring, to: &seats)
        } catch {
            let marks = shared.withLock { $0.marks }
            Self.apply(known.mapValues(\.found), marks: marks, scoring: scoring, to: &seats)
        }
    }

    static let resultsPerRound = 100

    /// Each finished seat's score from its result (`SeatScore.of`).
    static func apply(_ results: [String: FinishedResult], marks: [StoreMark], scoring: ResultScoring?, to seats: inout [SeatView]) {
        let bySession = Dictionary(grouping: marks, by: \.session)
        for i in seats.indices where SeatScore.finished(seats[i].status) {
            guard let found = results[seats[i].session] else { continue }
            seats[i].score = SeatScore.of(found, marks: bySession[seats[i].session] ?? [], scoring: scoring)
        }
    }

    /// The rooms' plans, read again every few seconds (for their keys).
    func plans(_ reader: SharedReader, rooms: Set<String>) async throws -> [String: RoomPlan] {
        let now = Date()
        var (known, at) = shared.withLock { ($0.plans, $0.plansAt) }
        if now.timeIntervalSince(at) > 5 || !rooms.isSubset(of: Set(known.keys)) {
            known = [:]
            for room in rooms { known[room] = try await reader.room(room) }
            let fresh = known
            shared.withLock {
                $0.plans = fresh
                $0.plansAt = now
            }
        }
        return known
    }

    func takeRequests() -> (report: String?, hurry: Bool) {
        shared.withLock { state in
            defer {
                state.reportWanted = nil
                state.urgent = false
            }
            return (state.reportWanted, state.urgent)
        }
    }

    func ring(_ bell: LoopBell) {
        // Something read before the console was there to hear it is taken at once.
        let waiting = shared.withLock { state in
            state.loop = bell
            return state.latest != nil || state.report != nil || state.sent != nil
        }
        if waiting { bell.ring() }
    }

    /// Something is ready for the console: its loop takes it at once.
    func wakeLoop() { shared.withLock { $0.loop }?.ring() }

    func setReport(_ r: ConsoleSeatReport) {
        shared.withLock { $0.report = r }
        wakeLoop()
    }

    func publish(_ r: Reading) {
        shared.withLock { $0.latest = r }
        wakeLoop()
    }

    /// Reads once a second, and at once when the proctor asks (a key, a command); reconnects
    /// every 2 s when the store is gone. Runs until cancelled, then closes its connection.
    /// (The store sends no notice per record: with a room of seats that would keep the store,
    /// and this loop, busy without pause.)
    func run(first: SharedReader) async {
        var reader: SharedReader? = first
        var lastAttempt = Date.distantPast
        while !Task.isCancelled {
            if reader == nil, Date().timeIntervalSince(lastAttempt) >= 2 {
                lastAttempt = Date()
                do {
                    reader = try await SharedReader.open(url)
                } catch {
                    publish(Reading(seats: nil, problem: SeatPublisher.describe(error), at: Date()))
                }
            }
            if let current = reader, !(await read(current, requests: takeRequests())) {
                await current.close()
                reader = nil
            }
            await bell.wait(seconds: 1)
        }
        if let reader { await reader.close() }
    }

    /// One round: the report asked for, then the seats; false when the seats could not be read
    /// (the connection is then made again).
    func read(_ reader: SharedReader, requests: (report: String?, hurry: Bool)) async -> Bool {
        await sendCommands(reader)
        await sendSeatWork(reader)
        if let wanted = requests.report {
            do {
                var check: [String]?
                if signer.hasPassphrase, let room = shared.withLock({ $0.rooms[wanted] }) {
                    // The records checked with the proctor's key, each that fails named.
                    let plans = try await plans(reader, rooms: [room])
                    let keys = signer.roomKeys(plans)
                    if let found = try await reader.check(session: wanted, room: room, keys: keys) {
                        if found.verified {
                            check = ["Records: verified — every record and the result were written by this seat"]
                        } else if found.problems.isEmpty {
                            check = ["Records: every record so far was written by this seat (no result yet)"]
                        } else {
                            check = ["Records: NOT verified"] + found.problems.map { "  \($0)" }
                        }
                        // Records someone else stored under the session: named, not counted.
                        check? += found.outside.map { "  \($0)" }
                    }
                }
                setReport(ConsoleSeatReport(session: wanted, events: try await reader.events(session: wanted), problem: nil,
                                            check: check))
            } catch {
                setReport(ConsoleSeatReport(session: wanted, events: nil, problem: SeatPublisher.describe(error)))
            }
        }
        // The room kept clean on every reading too (seats sweep from their pulses): a proctor
        // role without the call (a store set up by hand before version 9) reads as before.
        _ = try? await reader.sweep()
        do {
            var seats = try await reader.seats(room: room)
            try await HeldSeats.flag(&seats, reader: reader)
            var plans: [String: RoomPlan] = [:]
            if signer.hasPassphrase {
                plans = try await self.plans(reader, rooms: Set(seats.map(\.room)))
                // State, answers, hands and commands from each seat's verified records; then its
                // liveness from its MAC'd claim.
                try await chains.apply(&seats, reader: reader, keys: signer.roomKeys(plans),
                                       proctorStarts: Set(plans.filter { $0.value.startMode == .proctor }.keys))
                signer.check(&seats, plans: plans)
            }
            await score(&seats, reader: reader, plans: plans)
            let rooms = Dictionary(seats.map { ($0.session, $0.room) }, uniquingKeysWith: { first, _ in first })
            shared.withLock { $0.rooms = rooms }
            publish(Reading(seats: seats, problem: nil, at: Date()))
            return true
        } catch {
            publish(Reading(seats: nil, problem: SeatPublisher.describe(error), at: Date()))
            return false
        }
    }
}
