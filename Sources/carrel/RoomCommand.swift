#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore
import TerminalUI

/// `carrel room open|show|close`: the proctor's plan of a room in the lab's shared store.
struct RoomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room",
        abstract: "Open, show or close a room's plan in the lab's shared store (proctor).",
        discussion: """
            A room's plan names the test every seat must run (by its fingerprint: a seat with \
            another file is refused), how seats start (`--start proctor`: each seat waits, \
            with nothing locked and no time running, until `carrel proctor start`), and the \
            roster (candidate numbers, names and accommodations). The plan keeps the test's \
            fingerprint, title, item count and time limit, never its content. Only the \
            proctor's role may write plans.
            """,
        subcommands: [RoomOpen.self, RoomShow.self, RoomClose.self]
    )
}

/// What `carrel` itself is: its version and the SHA-256 of its executable.
enum SelfAttestation {
    static var version: String { Carrel.configuration.version }

    /// The digest of the running executable (`/proc/self/exe`); "unknown" when it cannot be read.
    static let digest: String = {
        let fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "unknown" }
        defer { close(fd) }
        return Fingerprint.ofFile(descriptor: fd) ?? "unknown"
    }()
}

struct RoomOpen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a room for a test: its plan, roster and way of starting.",
        discussion: """
            The roster is a CSV file with a header: candidate (required), name (required), \
            seat, extra_time (1.5, +15m, unlimited), screen_reader (yes/no), theme \
            (default, mono, contrast) and language. Every bad line is reported as \
            ROSTER.csv:LINE: error: … in one run (exit 65), and nothing is stored.
            """
    )

    @Argument(help: "The room's name.") var room: String
    @Argument(help: "The assessment every seat runs (.yaml, or sealed .carrel).") var file: String
    @Option(help: ArgumentHelp("The room's roster (CSV with a header).", valueName: "roster.csv")) var roster: String?
    @Option(help: ArgumentHelp("Who starts the seats: proctor (seats wait) or candidate.", valueName: "who"))
    var start: RoomStartMode = .candidate
    @OptionGroup var store: StoreOption
    @Option(help: ArgumentHelp(
        "The machines whose waiting seats a start sends keys to without a look: all, NAME,NAME or any.",
        discussion: "all (the default): every machine enrolled with `carrel seat enroll` (of --lab's lab when given); NAME,NAME: those machines; any: no enrolment asked, the proctor compares each seat key. Any other seat is held back until `carrel proctor admit`.",
        valueName: "all|NAME,NAME|any"))
    var machines = "all"
    @Option(help: ArgumentHelp("With --machines all: only the machines enrolled in this lab.", valueName: "name")) var lab: String?

    func validate() throws {
        if let problem = SharedOptions.labelProblem(room) { throw ValidationError("room: \(problem)") }
        if let lab, let problem = SharedOptions.labelProblem(lab) { throw ValidationError("--lab: \(problem)") }
        let (rule, listed) = machineRule
        if rule == .listed {
            guard !listed.isEmpty, listed.count <= 2000 else { throw ValidationError("--machines: give all, any, or a list of machine names NAME,NAME") }
            for name in listed {
                if let problem = SharedOptions.labelProblem(name) { throw ValidationError("--machines: \(problem)") }
            }
        }
        if lab != nil && rule != .enrolled { throw ValidationError("--lab goes with --machines all") }
    }

    /// The plan's machines, as `--machines` gives them.
    var machineRule: (MachineRoom.Rule, [String]) {
        switch machines {
        case "all": return (.enrolled, [])
        case "any": return (.any, [])
        default: return (.listed, machines.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
        }
    }

    func run() async throws {
        try await reportingFailures {
            let loaded = try AssessmentFile.load(file)
            let plan: RoomPlan
            if SealedAssessment.isSealed(loaded.bytes) {
                let header = try SealedFile.header(loaded, path: file)
                let meta = header.metadata
                let c = header.cost
                plan = RoomPlan(room: room, fingerprint: meta.fingerprint, assessmentID: meta.id, assessmentTitle: meta.title,
                                items: meta.items, timeLimitSeconds: meta.timeLimit, startMode: start,
                                carrelVersion: SelfAttestation.version, carrelDigest: SelfAttestation.digest,
                                proctorKey: meta.key?.description,
                                package: "ln=\(c.logRounds),r=\(c.blockSize),p=\(c.parallelism)$\(Data(header.salt).base64EncodedString())")
            } else {
                let a = try AssessmentFile.validated(file, loaded: loaded)
                plan = RoomPlan(room: room, fingerprint: Fingerprint.of(a), assessmentID: a.id, assessmentTitle: a.title,
                                items: a.itemCount, timeLimitSeconds: a.timeLimit, startMode: start,
                                carrelVersion: SelfAttestation.version, carrelDigest: SelfAttestation.digest,
                                proctorKey: a.proctor.key?.description)
            }
            if plan.proctorKey == nil && start == .proctor {
                throw CarrelFailure(status: .invalidAssessment, message: "\(file) has no proctor key (`proctor: key:`), so its seats could never be started: a seat obeys only commands signed with its test's key. Run `carrel passphrase` and put the `key:` line it prints under `proctor:`")
            }
            let entries = try roster.map(Self.readRoster)
            let url = try store.required(by: "room open")
            let (rule, listed, lab) = (machineRule.0, machineRule.1, self.lab)
            try await ProctorStore.using(url, doing: "open room \(room)") { reader in
                try await reader.openRoom(plan, roster: entries)
                try await reader.setMachines(room: plan.room, rule: rule, lab: lab, listed: listed)
            }
            var who = start == .proctor ? "seats wait for `carrel proctor start`" : "each candidate starts at the seat"
            if plan.proctorKey == nil {
                who += " · no proctor key: seats can be watched, not commanded"
            }
            if start == .proctor { who += " · " + Self.machineWords(rule, lab: lab, listed: listed) }
            let rosterWords = entries.map { entries in
                let codes = entries.contains { $0.code != nil }
                    ? ", each with a code" : " without codes: anyone who knows a candidate number can say they are that candidate (identities unchecked; add a code column)"
                return " · roster of \(entries.count) candidate\(entries.count == 1 ? "" : "s")\(codes)"
            } ?? ""
            FileOutput.standardOutput.write("Room \(TerminalSafety.visible(room, keepLineBreaks: false)) is open: \(TerminalSafety.visible(plan.assessmentTitle, keepLineBreaks: false)) (\(plan.fingerprint.prefix(19))…) · \(who)\(rosterWords)\n")
        }
    }

    /// Which machines' seats start without a look, in words.
    static func machineWords(_ rule: MachineRoom.Rule, lab: String?, listed: [String]) -> String {
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        switch rule {
        case .enrolled: return "keys to enrolled machines" + (lab.map { " of lab \(v($0))" } ?? "") + " (others held back)"
        case .listed: return "keys to machines \(listed.map(v).joined(separator: ", ")) (others held back)"
        case .any: return "any machine: check each seat key before a start"
        }
    }

    /// Reads and checks the roster: every problem printed, none stored.
    static func readRoster(_ path: String) throws(CarrelFailure) -> [RosterEntry] {
        let loaded = try AssessmentFile.load(path, limit: 5 * 1024 * 1024)
        if loaded.bytes.count > 5 * 1024 * 1024 {
            throw CarrelFailure(status: .invalidAssessment, message: "\(path): the roster is larger than 5 MB")
        }
        let (entries, problems) = Roster.read(bytes: loaded.bytes)
        guard problems.isEmpty else {
            for problem in problems { FileOutput.standardError.write(problem.described(file: path) + "\n") }
            let count = problems.count
            throw CarrelFailure(status: .invalidAssessment, message: "\(path) has \(count) problem\(count == 1 ? "" : "s"); nothing was stored")
        }
        return entries
    }
}

struct RoomShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a room's plan.")

    @Argument(help: "The room's name.") var room: String
    @OptionGroup var store: StoreOption
    @Flag(help: "Print the plan as JSON.") var json = false

    func run() async throws {
        try await reportingFailures {
            let url = try store.required(by: "room show")
            let room = self.room
            let (plan, roster) = try await ProctorStore.using(url, doing: "read room \(room)") { reader in
                let plan = try await reader.room(room)
                return (plan, plan == nil ? [] : try await reader.roster(room: room))
            }
            guard let plan else {
                throw CarrelFailure(status: .cannotOpenInput, message: "no room \(TerminalSafety.visible(room, keepLineBreaks: false)) in the shared store; open it with `carrel room open`")
            }
            if json {
                FileOutput.standardOutput.write(try JSONText.pretty(ShownRoom(plan: plan, roster: roster)))
                return
            }
            let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
            var lines = [
                "Room: \(v(plan.room)) (\(plan.closedAt == nil ? "open" : "closed \(plan.closedAt ?? "")"))",
                "Test: \(v(plan.assessmentTitle)) [\(v(plan.assessmentID))], \(plan.items) questions, " +
                    (plan.timeLimitSeconds.map { "time limit \(DurationText.format($0))" } ?? "no time limit"),
                "Fingerprint: \(v(plan.fingerprint))",
                "Start: " + (plan.startMode == .proctor ? "by the proctor (seats wait)" : "by each candidate"),
                "Roster: " + (plan.candidates == 0 ? "none" : "\(plan.candidates) candidates"),
                "Commands: " + (plan.proctorKey.map { "signed with the proctor key \(v(String($0.prefix(20))))…" }
                    ?? "none (the test has no proctor key: seats can be watched, not commanded)"),
                "Opened: \(plan.openedAt) by \(v(plan.openedBy)) with Carrel \(v(plan.carrelVersion)) (\(v(plan.carrelDigest)))",
            ]
            lines += Self.rosterLines(roster)
            lines.append("")
            FileOutput.standardOutput.write(lines.joined(separator: "\n"))
        }
    }

    /// The roster, one candidate a line: number, name, accommodations, and where they sit.
    static func rosterLines(_ roster: [RosterLine]) -> [String] {
        guard !roster.isEmpty else { return [] }
        let v = { (t: String) in TerminalSafety.visible(t, keepLineBreaks: false) }
        let numberWidth = roster.map { TextWidth.of(v($0.candidate)) }.max() ?? 0
        let nameWidth = min(roster.map { TextWidth.of(v($0.name)) }.max() ?? 0, 30)
        var lines = ["", "Candidates:"]
        for line in roster {
            var facts: [String] = []
            if let seat = line.plannedSeat { facts.append("seat \(v(seat))") }
            if let extra = line.extraTime, let time = ExtraTime(parsing: extra), time != .none { facts.append("extra time \(time.description)") }
            if line.screenReader == true { facts.append("screen reader") }
            if let theme = line.theme { facts.append("theme \(v(theme))") }
            if let language = line.language { facts.append("language \(v(language))") }
            if line.hasCode { facts.append("code") }
            let sitting = line.seatedAt.map { "at \(v($0)) (\(v((line.sessionStatus ?? "").replacingOccurrences(of: "_", with: " "))))" } ?? "not seated"
            let number = v(line.candidate), name = v(line.name)
            lines.append("  " + number + String(repeating: " ", count: max(0, numberWidth - TextWidth.of(number)) + 2)
                         + name + String(repeating: " ", count: max(0, nameWidth - TextWidth.of(name)) + 2)
                         + (facts.isEmpty ? "" : facts.joined(separator: ", ") + "; ") + sitting)
        }
        return lines
    }
}

/// `room show --json`: the plan's keys, and the roster as `roster` (empty without one).
struct ShownRoom: Encodable {
    var plan: RoomPlan
    var roster: [RosterLine]

    enum Keys: String, CodingKey { case roster }

    func encode(to encoder: any Encoder) throws {
        try plan.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(roster, forKey: .roster)
    }
}

struct RoomClose: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "close", abstract: "Close a room: no seat can begin in it any more.")

    @Argument(help: "The room's name.") var room: String
    @OptionGroup var store: StoreOption

    func run() async throws {
        try await reportingFailures {
            let url = try store.required(by: "room close")
            let room = self.room
            let closed = try await ProctorStore.using(url, doing: "close room \(room)") { try await $0.closeRoom(room) }
            guard closed else {
                throw CarrelFailure(status: .cannotOpenInput, message: "no open room \(TerminalSafety.visible(room, keepLineBreaks: false)) in the shared store")
            }
            FileOutput.standardOutput.write("Room \(TerminalSafety.visible(room, keepLineBreaks: false)) is closed.\n")
        }
    }
}

extension RoomStartMode: ExpressibleByArgument {}
