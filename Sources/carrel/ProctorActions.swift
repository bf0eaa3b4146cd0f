#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore

/// The options every proctor action shares: the store, the room, the seats, how long to wait.
struct ActionTarget: ParsableArguments {
    @OptionGroup var store: StoreOption
    @OptionGroup var roomOption: RoomOption
    @Option(name: .customLong("seat"), help: ArgumentHelp("A seat to act on (repeat for several; none: the whole room).", valueName: "seat"))
    var seats: [String] = []
    @Option(help: ArgumentHelp("Seconds to wait for the seats to apply it.", valueName: "seconds")) var wait: Double = 10
    @Flag(help: "Send the keys to the seats listed without asking (start only; check the list first).") var yes = false
    @Flag(name: .customLong("passphrase-stdin"), help: "Read the proctor passphrase, which signs the command, from the first line of standard input (asked without echo at a terminal otherwise).")
    var passphraseStdin = false

    var roomName: String? { roomOption.name }

    func validate() throws {
        for seat in seats {
            if let problem = SharedOptions.labelProblem(seat) { throw ValidationError("--seat: \(problem)") }
        }
        guard wait >= 0, wait <= 3600 else { throw ValidationError("--wait: give seconds from 0 to 3600") }
    }

    /// The proctor passphrase, once: from standard input's first line, or asked without echo.
    func readPassphrase() throws(CarrelFailure) -> String {
        let reader = SecretReader(prompting: !passphraseStdin)
        defer { reader.finish() }
        return try reader.read(prompt: "Proctor passphrase (signs the command): ")
    }

    /// Issues `action`, signed with the key the proctor passphrase derives for the room's
    /// test, and waits for the seats it targets to apply it. Prints which applied it, which
    /// refused it and which still wait; exits 0 only when every targeted seat applied it.
    func act(_ action: ProctorAction) async throws(CarrelFailure) {
        let url = try store.required(by: "proctor")
        let room = roomName ?? ""
        let signer = ProctorSigner(passphrase: try readPassphrase())
        let (targets, applied, refused, ids, held) = try await ProctorStore.using(url, doing: "send \(action.name) to room \(room)") {
            try await perform(action, room: room, reader: $0, signer: signer)
        }
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        var lines: [String] = []
        for seat in targets.sorted(by: { ($0.seat, $0.session) < ($1.seat, $1.session) }) {
            let names = [seat.candidate, seat.candidateNumber].compactMap { $0 }.map(v)
            let who = v(seat.seat) + (names.isEmpty ? "" : " (\(names.joined(separator: ", ")))")
            if applied.contains(seat.session) {
                lines.append("applied  \(who)")
            } else if let why = refused[seat.session] {
                lines.append("refused  \(who): \(v(why))")
            } else {
                lines.append("waiting  \(who)")
            }
        }
        lines += HeldSeats.lines(held, room: room)
        let waiting = targets.filter { !applied.contains($0.session) && refused[$0.session] == nil }.count
        let summary = "\(action.name) (command \(ids.map(String.init).joined(separator: ", "))): "
            + "\(targets.count - waiting - refused.count) of \(targets.count) seat\(targets.count == 1 ? "" : "s") applied it"
        FileOutput.standardOutput.write((lines + [summary, ""]).joined(separator: "\n"))
        if !held.isEmpty { throw HeldSeats.failure(held, startedAny: !targets.isEmpty) }
        if targets.isEmpty {
            throw CarrelFailure(status: .refused, message: "no seat of room \(v(room)) \(Self.targetWords(action)); nothing applied it (a seat that begins later does not apply a command sent before it began)")
        }
        if !refused.isEmpty {
            throw CarrelFailure(status: .refused, message: "\(refused.count) seat\(refused.count == 1 ? "" : "s") refused it (the reason is on each seat's line and in its journal)")
        }
        if waiting > 0 {
            throw CarrelFailure(status: .refused, message: "\(waiting) seat\(waiting == 1 ? " has" : "s have") not applied it yet; it stays queued and applies when the seat reads the store")
        }
    }

    /// Before a sealed test's key leaves the console: every seat it goes to, with its
    /// candidate, host, seat and executable digest, so that no seat the proctor did not expect
    /// gets it. Asked at a terminal; from a script, `--yes` says the list was checked.
    func confirmKeys(_ starts: [CommandTarget], seats: [SeatView], left: [SeatView], plan: RoomPlan) throws(CarrelFailure) {
        let v = { (t: String?) in TerminalSafety.visible(t ?? "-", keepLineBreaks: false) }
        let what = plan.package != nil ? "The test's key and each session's key go" : "Each session's key goes"
        var lines = ["\(what) to \(starts.count) seat\(starts.count == 1 ? "" : "s") (each shows its seat key while it waits):"]
        for target in starts {
            guard let seat = seats.first(where: { $0.session == target.session }) else { continue }
            let digest = seat.executableDigest.map { $0 == plan.carrelDigest ? "same Carrel as the room's" : "OTHER Carrel \(v($0))" }
                ?? "Carrel not said"
            let key = seat.seatKey.flatMap(SeatBox.fingerprint) ?? "no key"
            lines.append("  \(v(seat.seat))  \(v(seat.candidateNumber ?? seat.candidate))  seat key \(key)  host \(v(seat.host))  \(digest)")
        }
        for seat in left { lines.append("  not sent: \(v(seat.seat)) announced no key, or its session was started with keys before") }
        FileOutput.standardError.write(lines.joined(separator: "\n") + "\n")
        if yes || starts.isEmpty { return }
        guard isatty(0) == 1, !passphraseStdin else {
            throw CarrelFailure(status: .usage, message: "keys are sent only to seats the proctor checked: compare the list above with the seat keys on the seats' screens, then add --yes")
        }
        FileOutput.standardError.write("Send the key to these seats? y/N ")
        guard RoomJoin.confirmed(.english) else {
            throw CarrelFailure(status: .refused, message: "nothing was sent")
        }
    }

    static func targetWords(_ action: ProctorAction) -> String {
        action == .start ? "is waiting to start" : "is running a session"
    }

    func perform(_ action: ProctorAction, room: String, reader: SharedReader, signer: ProctorSigner) async throws
        -> (targets: [SeatView], applied: Set<String>, refused: [String: String], ids: [Int64], held: [HeldSeats.Seat]) {
        let plan = try await reader.room(room)
        let (key, fingerprint) = try signer.key(room: room, plan: plan)
        var before = try await reader.seats(room: room)
        // Held-back seats flagged, and seats found with their code named as the roster names them.
        try await HeldSeats.flag(&before, reader: reader)
        let chains = SeatChains()
        var open = plan
        open?.closedAt = nil
        let keys = signer.roomKeys(open.map { [room: $0] } ?? [:])
        let proctorStarts: Set<String> = plan?.startMode == .proctor ? [room] : []
        if let open {
            // The seats as their verified records say: a session no start of this proctor's keyed
            // (one announced under a real seat's name) is not running, and is sent nothing but a start.
            try await chains.apply(&before, reader: reader, keys: keys, proctorStarts: proctorStarts)
            signer.check(&before, plans: [room: open])
        }
        for seat in seats where !before.contains(where: { $0.seat == seat }) {
            throw CarrelFailure(status: .usage, message: "room \(TerminalSafety.visible(room, keepLineBreaks: false)) has no seat \(TerminalSafety.visible(seat, keepLineBreaks: false))")
        }
        let chosen = before.filter { seat in
            guard seats.isEmpty || seats.contains(seat.seat), seat.room == room else { return false }
            switch action {
            case .start: return seat.status == "not_started" && seat.connected
            case .acknowledge: return seat.status == "active" && seat.hand == "raised"
            // A seat named is sent the command even while it is cut off: it applies it when it
            // comes back (an interrupted session resumes under the same id).
            default: return seat.status == "active" || (!seats.isEmpty && seat.status == "interrupted")
            }
        }
        // Keys go without a look only to enrolled, permitted machines running the room's Carrel
        // (and seats a proctor admitted); the others are held back and named.
        let (targets, held) = action == .start ? try await HeldSeats.split(chosen, room: room, reader: reader) : (chosen, [])
        let ids: [Int64]
        if action == .start, let plan {
            // Each waiting seat's own start, with its session's secrets wrapped to its key.
            let (starts, left) = try signer.starts(room: room, plan: plan, seats: targets, key: key)
            // Keys leave the console only for seats the proctor has seen listed (any start with keys).
            if starts.contains(where: { $0.keys != nil }) || !left.isEmpty {
                try confirmKeys(starts, seats: targets, left: left, plan: plan)
            }
            ids = starts.isEmpty ? [] : try await reader.issue(room: room, targets: starts, action: action, key: key,
                                                               fingerprint: fingerprint)
        } else if seats.isEmpty {
            ids = try await reader.issue(room: room, seats: [], action: action, key: key, fingerprint: fingerprint)
        } else {
            // Seats named: each command is bound to the session there now, so that it can never
            // be replayed to another session at that seat.
            ids = try await reader.issue(room: room, targets: targets.map { CommandTarget(seat: $0.seat, session: $0.session) },
                                         action: action, key: key, fingerprint: fingerprint)
        }
        var (applied, refused) = try await answers(action, room: room, targets: targets, ids: ids, reader: reader,
                                                   chains: chains, keys: keys, proctorStarts: proctorStarts)
        for session in applied { refused[session] = nil }
        return (targets, applied, refused, ids, held)
    }
    /// Waits up to `wait` seconds for `targets` to apply or refuse the commands `ids`.
    func answers(_ action: ProctorAction, room: String, targets: [SeatView], ids: [Int64], reader: SharedReader,
                 chains: SeatChains, keys: RoomKeys, proctorStarts: Set<String>) async throws
        -> (applied: Set<String>, refused: [String: String]) {
        let deadline = ProcessInfo.processInfo.systemUptime + wait
        var applied: Set<String> = []
        var refused: [String: String] = [:]
        let answered = { targets.allSatisfy { applied.contains($0.session) || refused[$0.session] != nil } }
        while true {
            applied = try await reader.applied(ids)
            if action == .start {
                // A waiting seat begins under the session it announced: its start is applied when
                // that session's own first record (one that verifies with the key the start gave
                // it) is in the store — never on what a record anyone could send says of it.
                var now = try await reader.seats(room: room)
                try await chains.apply(&now, reader: reader, keys: keys, proctorStarts: proctorStarts)
                for seat in now where seat.keyed && seat.status != "not_started" && targets.contains(where: { $0.session == seat.session }) {
                    applied.insert(seat.session)
                }
            }
            if answered() { break }
            let unanswered = targets.map(\.session).filter { !applied.contains($0) }
            for seat in try await reader.standing(unanswered) {
                // A seat that refused one of these commands says so (`#ID refused: REASON`).
                if let last = seat.lastRefusal, ids.contains(where: { last.hasPrefix("#\($0) refused: ") }) {
                    refused[seat.session] = String(last.drop(while: { $0 != ":" }).dropFirst(2))
                }
            }
            if answered() { break }
            if ProcessInfo.processInfo.systemUptime >= deadline { break }
            try await Task.sleep(nanoseconds: action == .start ? 200_000_000 : 50_000_000)
        }
        return (applied, refused)
    }
}

struct ProctorStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "Start the waiting seats (all of the room, or those named).")
    @OptionGroup var target: ActionTarget
    func run() async throws { try await reportingFailures { try await target.act(.start) } }
}

struct ProctorPause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause seats: their clocks stop and answer keys wait.")
    @OptionGroup var target: ActionTarget
    func run() async throws { try await reportingFailures { try await target.act(.pause) } }
}

struct ProctorResume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume paused seats: their clocks run again.")
    @OptionGroup var target: ActionTarget
    func run() async throws { try await reportingFailures { try await target.act(.resume) } }
}

struct ProctorEnd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "end", abstract: "End seats' sessions: answers kept and scored, ended by the proctor.")
    @OptionGroup var target: ActionTarget
    func run() async throws { try await reportingFailures { try await target.act(.end) } }
}

struct ProctorAcknowledge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "acknowledge", abstract: "Answer raised hands: the seats show \"The proctor is coming\".")
    @OptionGroup var target: ActionTarget
    func run() async throws { try await reportingFailures { try await target.act(.acknowledge) } }
}

struct ProctorTime: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "time", abstract: "Add time to seats (within the session cap).",
        discussion: "carrel proctor time --room lab1 --seat A1 +10m")
    @OptionGroup var target: ActionTarget
    @Argument(help: ArgumentHelp("Time to add: +10m, +90s, +1h.", valueName: "+time")) var amount: String

    func validate() throws {
        guard amount.hasPrefix("+"), let seconds = DurationText.parse(String(amount.dropFirst())), seconds > 0,
              seconds <= 86_400 else {
            throw ValidationError("give the time to add as +N with a unit, such as +10m, +90s or +1h (at most a day)")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let seconds = DurationText.parse(String(amount.dropFirst())) ?? 0
            try await target.act(.addTime(seconds: seconds))
        }
    }
}

struct ProctorMessage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message", abstract: "Send one line to seats: shown in a box until the student presses a key, and spoken.")
    @OptionGroup var target: ActionTarget
    @Argument(help: "The message (one line, at most 500 characters).") var text: String

    func validate() throws {
        if text.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("give the message's text") }
        if text.count > ProctorAction.messageLimit { throw ValidationError("a message has at most \(ProctorAction.messageLimit) characters (this one has \(text.count))") }
        if text.contains(where: { $0.isNewline }) { throw ValidationError("a message is one line") }
        if let finding = TerminalSafety.firstUnsafe(in: text) { throw ValidationError("the message has \(finding)") }
    }

    func run() async throws {
        try await reportingFailures {
            guard let action = ProctorAction(name: "message", argument: text) else {
                throw CarrelFailure(status: .usage, message: "give the message's text")
            }
            try await target.act(action)
        }
    }
}
