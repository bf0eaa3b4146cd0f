#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore

struct ProctorMove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move a candidate's session to a spare seat, where it continues with every answer.",
        discussion: """
            Start `carrel take` for the room on the spare machine; the candidate identifies and \
            asks to move there (the console shows "1005 asks to move from A5 to S1"). Then \
            `carrel proctor move --room lab1 --from A5 --to S1`. The spare continues the same \
            session: answers, flags, position, order, language, accommodations, and the time \
            used and added; the minutes between the old seat's last record and the move are \
            not counted. The old seat can write nothing more: if it comes back it says where \
            the session went. Works without the candidate's request when the old seat is dead.
            """)
    @OptionGroup var store: StoreOption
    @OptionGroup var roomOption: RoomOption
    @Option(help: ArgumentHelp("The seat the session leaves.", valueName: "seat")) var from: String
    @Option(help: ArgumentHelp("The spare seat, waiting for the room, that continues it.", valueName: "seat")) var to: String
    @Option(help: ArgumentHelp("Seconds to wait for the store and for the spare to continue the session.", valueName: "seconds"))
    var wait: Double = 60
    @Option(name: .customLong("seat-key"), help: ArgumentHelp(
        "The seat key the spare shows on its screen (needed when several sessions wait at --to).", valueName: "key"))
    var seatKey: String?
    @Flag(name: .customLong("while-connected"), help: "Move a session whose seat is still connected (that seat stops and says where the session went).")
    var whileConnected = false
    @Flag(help: "Send the session's keys to the spare without asking (check its seat key first).") var yes = false
    @Flag(name: .customLong("passphrase-stdin"), help: "Read the proctor passphrase from the first line of standard input.")
    var passphraseStdin = false

    func validate() throws {
        for (flag, seat) in [("--from", from), ("--to", to)] {
            if let problem = SharedOptions.labelProblem(seat) { throw ValidationError("\(flag): \(problem)") }
        }
        guard wait >= 0, wait <= 3600 else { throw ValidationError("--wait: give seconds from 0 to 3600") }
    }

    func run() async throws {
        try await reportingFailures {
            let url = try store.required(by: "proctor")
            let room = roomOption.name ?? ""
            let signer = try ProctorSigner.reading(fromStandardInput: passphraseStdin, signs: "the move")
            // A store that cannot be reached now (restarting, a network cut) is asked again until
            // --wait runs out: the move goes once it answers (a move is applied once whatever happens).
            let deadline = ProcessInfo.processInfo.systemUptime + wait
            var said = false
            while true {
                do {
                    let line = try await ProctorStore.using(url, doing: "move a session in room \(room)") { store in
                        try await move(room: room, reader: store, signer: signer)
                    }
                    FileOutput.standardOutput.write(line + "\n")
                    return
                } catch let failure as CarrelFailure where failure.status == .cannotOpenInput && ProcessInfo.processInfo.systemUptime < deadline {
                    if !said {
                        Console.error("\(failure.message); asking again every second until it answers (--wait \(Int(wait)) s)")
                        said = true
                    }
                    try? await Task.sleep(nanoseconds: 1_000_000_000)
                }
            }
        }
    }

    func move(room: String, reader: SharedReader, signer: ProctorSigner) async throws -> String {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        guard let plan = try await reader.room(room) else {
            throw CarrelFailure(status: .usage, message: "room \(v(room)) has no open plan")
        }
        let (key, fingerprint) = try signer.key(room: room, plan: plan)
        let keyed = try SeatMoves.keyed(plan: plan, key: key)
        let (moving, spare) = try SeatMoves.pick(try await reader.seats(room: room), from: from, to: to, room: room, seatKey: seatKey,
                                                 keyed: keyed, machines: try await reader.machineRoom(room), whileConnected: whileConnected)
        let target = try SeatMoves.target(moving: moving, spare: spare, plan: plan, package: try signer.packageKey(room: room, plan: plan),
                                          key: key)
        FileOutput.standardError.write(SeatMoves.summary(moving: moving, spare: spare).joined(separator: "\n") + "\n")
        if !yes {
            guard isatty(0) == 1, !passphraseStdin else {
                throw CarrelFailure(status: .usage, message: "a session's keys go only to a seat the proctor checked: compare the seat key above with the one on the spare's screen, then add --yes")
            }
            FileOutput.standardError.write("Move it? y/N ")
            guard RoomJoin.confirmed(.english) else { throw CarrelFailure(status: .refused, message: "nothing was sent") }
        }
        let ids = try await reader.issue(room: room, targets: [target], action: .start, key: key, fingerprint: fingerprint)
        let deadline = ProcessInfo.processInfo.systemUptime + wait
        let keys = signer.roomKeys([room: plan])
        let chains = SeatChains()
        while true {
            var seats = try await reader.seats(room: room)
            try await chains.apply(&seats, reader: reader, keys: keys)
            signer.check(&seats, plans: [room: plan])
            if let now = seats.first(where: { $0.session == moving.session }), now.seat == to, now.status == "active", now.connected {
                return "moved (command \(ids.map(String.init).joined(separator: ", "))): session \(moving.session.prefix(8)) continues at \(v(to)), from \(v(from))"
            }
            if ProcessInfo.processInfo.systemUptime >= deadline {
                throw CarrelFailure(status: .refused, message: "the move was sent (command \(ids.map(String.init).joined(separator: ", "))) and \(v(from)) is fenced, but \(v(to)) has not continued the session yet; it does when it reads the store (look at the console)")
            }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
    }
}

struct ProctorLost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lost",
        abstract: "End the session of a seat that will never come back: its verified records are its result.",
        discussion: """
            For a machine that died with its disk. The session is ended, "ended by the proctor, \
            seat lost", and appears once in every export with the answers the store holds. \
            If the seat does come back, it says the session was ended and why, and writes \
            nothing more. To let the candidate go on instead, use `carrel proctor move`.
            """)
    @OptionGroup var store: StoreOption
    @OptionGroup var roomOption: RoomOption
    @Option(help: ArgumentHelp("The seat whose session ends.", valueName: "seat")) var seat: String
    @Option(name: .customLong("test"), help: ArgumentHelp(
        "The room's test (.yaml, or sealed .carrel opened with the passphrase): the session's result is made from its verified records with it.",
        valueName: "file"))
    var test: String?
    @Flag(help: "End it without asking.") var yes = false
    @Flag(name: .customLong("passphrase-stdin"), help: "Read the proctor passphrase from the first line of standard input.")
    var passphraseStdin = false

    func validate() throws {
        if let problem = SharedOptions.labelProblem(seat) { throw ValidationError("--seat: \(problem)") }
    }

    func run() async throws {
        try await reportingFailures {
            let url = try store.required(by: "proctor")
            let room = roomOption.name ?? ""
            let signer = try ProctorSigner.reading(fromStandardInput: passphraseStdin, signs: "the end")
            let line = try await ProctorStore.using(url, doing: "end a lost seat in room \(room)") { store in
                try await SeatMoves.endLost(room: room, seat: seat, reader: store, signer: signer, test: test, confirm: {
                    if yes { return true }
                    guard isatty(0) == 1, !passphraseStdin else {
                        throw CarrelFailure(status: .usage, message: "add --yes to end it without asking")
                    }
                    FileOutput.standardError.write("\($0) y/N ")
                    return RoomJoin.confirmed(.english)
                })
            }
            FileOutput.standardOutput.write(line + "\n")
        }
    }
}

extension SeatMoves {
    /// Ends the running or interrupted session at `seat` as lost; `confirm` is asked with the
    /// question naming it.
    static func endLost(room: String, seat: String, reader: SharedReader, signer: ProctorSigner, console: Bool = false, test: String?,
                        confirm: (String) throws -> Bool) async throws -> String {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        guard let plan = try await reader.room(room) else {
            throw CarrelFailure(status: .usage, message: "room \(v(room)) has no open plan")
        }
        let (key, fingerprint) = try signer.key(room: room, plan: plan)
        let seats = try await reader.seats(room: room)
        let keyed = try SeatMoves.keyed(plan: plan, key: key)
        let running = seats.filter { $0.seat == seat && ["active", "interrupted"].contains($0.status) }
        // Only a session the proctor's start keyed: one anyone announced under the seat's name is never the one ended.
        guard let lost = running.filter(keyed).sorted(by: { $0.lastSeen > $1.lastSeen }).first else {
            if !running.isEmpty {
                throw CarrelFailure(status: .refused, message: "no session at seat \(v(seat)) was begun by the proctor's start with keys; nothing was ended (`carrel unlock` ends one at its own seat)")
            }
            throw CarrelFailure(status: .refused, message: "seat \(v(seat)) of room \(v(room)) has no running or interrupted session")
        }
        let who = [lost.candidate, lost.candidateNumber].compactMap { $0 }.map(v).joined(separator: ", ")
        guard try confirm("End session \(lost.session.prefix(8)) at \(v(seat))\(who.isEmpty ? "" : " (\(who))") as lost, \(lost.answered) of \(lost.total) answered?") else {
            throw CarrelFailure(status: .refused, message: "nothing was sent")
        }
        let made = try await closeWithResult(lost, plan: plan, key: key, signer: signer, test: test, reader: reader)
        let ids = try await reader.issueLost(room: room, seat: seat, session: lost.session, key: key, fingerprint: fingerprint)
        // The console says it as it says any command's sending, in its language.
        if console { return "lost sent to seat \(seat) (command \(ids.map(String.init).joined(separator: ", ")))" }
        return "ended (command \(ids.map(String.init).joined(separator: ", "))): the session at \(v(seat)) is ended by the proctor, seat lost; \(made)"
    }

    /// Writes the lost session's result, made from its verified records with the room's test,
    /// as the session's own closing records; says what was done.
    static func closeWithResult(_ lost: SeatView, plan: RoomPlan, key: ProctorSigningKey, signer: ProctorSigner, test: String?,
                                reader: SharedReader) async throws -> String {
        guard let test else {
            return "no result was made (give --test FILE, the room's test, to make it from the answers the store holds)"
        }
        let assessment = try roomTest(test, plan: plan, signer: signer)
        guard let text = plan.proctorKey, let publicKey = try? ProctorKey(parsing: text) else {
            throw CarrelFailure(status: .refused, message: "room \(plan.room)'s test has no proctor key: its sessions' records cannot be verified")
        }
        let start = SignedCommand(id: 0, envelope: lost.liveness.startEnvelope, signature: lost.liveness.startSignature)
        let keys = SessionKeyChain.keys(session: lost.session, room: lost.room, start: start, moves: lost.liveness.moves,
                                        publicKey: publicKey, signing: key)
        guard let current = keys.last else {
            return "no result was made: the session was not begun by the proctor's start with keys, so nothing proves its records"
        }
        let kept = try await reader.sessionRecords(lost.session)
        var moved: MovedSession
        do throws(MovedSession.Failure) {
            moved = try MovedSession.rebuild(session: lost.session, records: kept, keys: keys,
                                             label: SharedLabel(room: lost.room, seat: lost.seat), fingerprint: plan.fingerprint,
                                             path: test, host: lost.host ?? "", pid: 0)
        } catch {
            throw CarrelFailure(status: .refused, message: "the session at \(lost.seat) cannot be ended with a result: \(error.description); nothing was sent")
        }
        moved.record.elapsed = max(moved.record.elapsed, lost.timing.elapsed)
        let (result, records) = try moved.lostResult(assessment: assessment, now: Date())
        guard try await reader.publish(as: lost.session, key: current, lastSeq: moved.lastSeq, lastLink: moved.links.max() ?? 0,
                                       at: Date(), records: records) else {
            // The store takes the session's records only with the token its key derives, which a
            // seat that died before it first used its key never proved: ended without a result.
            return "no result was made: the store did not take the session's closing records (its seat may have died before it first used its key); its answers are in the store"
        }
        let holes = moved.holes.isEmpty ? "" : "; records the store never received: \(moved.holes)"
        return "its result, from the answers the store holds (\(result.answered) answered), scores \(PointsText.format(result.score.points)) of \(PointsText.format(result.score.max))\(holes)"
    }

    /// The room's test from `path`: a plain one, or a sealed one opened with the passphrase;
    /// refused when it is not the room's.
    static func roomTest(_ path: String, plan: RoomPlan, signer: ProctorSigner) throws(CarrelFailure) -> Assessment {
        let loaded = try AssessmentFile.load(path)
        let assessment: Assessment
        let fingerprint: String
        if SealedAssessment.isSealed(loaded.bytes) {
            fingerprint = try SealedFile.header(loaded, path: path).metadata.fingerprint
            assessment = try signer.openSealed(loaded, path: path)
        } else {
            assessment = try AssessmentFile.validated(path, loaded: loaded)
            fingerprint = Fingerprint.of(assessment)
        }
        guard fingerprint == plan.fingerprint else {
            throw CarrelFailure(status: .usage, message: "\(path) is not the test of room \(plan.room)")
        }
        return assessment
    }
}
