import ArgumentParser
import AssessmentKit
import Foundation
import Lockdown
import SessionKit
import SharedStore

/// `--shared`, `--room` and `--seat`: a lab's shared store (PostgreSQL) and how this seat is
/// labelled in it. Shared by take, resume, demo, results and proctor.
struct SharedOptions: ParsableArguments {
    @OptionGroup var store: StoreOption
    @Option(help: ArgumentHelp("The room this seat belongs to (also CARREL_ROOM).", valueName: "name"))
    var room: String?
    @Option(help: ArgumentHelp("This seat's name in the room (default: host and terminal).", valueName: "name"))
    var seat: String?

    var environment: [String: String] { ProcessEnvironment.current }

    var roomName: String? {
        if let room { return room }
        if let env = environment["CARREL_ROOM"], !env.isEmpty { return env }
        return nil
    }

    func validate() throws {
        for (name, value) in [("--room", roomName), ("--seat", seat)] {
            guard let value else { continue }
            if let problem = Self.labelProblem(value) { throw ValidationError("\(name): \(problem)") }
        }
    }

    /// Room and seat names: printable text of a sensible length.
    static func labelProblem(_ text: String) -> String? {
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return "give a name" }
        if text.count > 64 { return "use at most 64 characters" }
        if let finding = TerminalSafety.firstUnsafe(in: text) { return "\(finding)" }
        return nil
    }

    /// The parsed URL, or nil without one.
    func url() throws(CarrelFailure) -> SharedURL? { try store.url() }

    /// This seat's label: the room (default "default") and seat (default: host and terminal).
    func label() -> SharedLabel {
        let host = SessionContext.hostName()
        let terminal = SessionContext.terminalName().map { $0.hasPrefix("/dev/") ? String($0.dropFirst(5)) : $0 }
        let defaultSeat = terminal.map { "\(host) \($0)" } ?? host
        return SharedLabel(room: roomName ?? "default", seat: seat ?? TerminalSafety.visible(defaultSeat, keepLineBreaks: false))
    }

    /// For `take`, `resume` and `demo`: a publisher for this seat, when a store is named.
    func publisher() throws(CarrelFailure) -> SeatPublisher? {
        guard let url = try url() else { return nil }
        return SeatPublisher(url: url)
    }
}

extension SharedOptions {
    /// With a store named: sends what this seat's journal has waiting (a session `unlock`
    /// ended, a mark), for up to 5 s; what is left waits for the next publishing session.
    /// Without --shared, the store the journal names for the sessions just handled (`remembered`,
    /// URLs without a password) is used, so `unlock` of a publishing seat reaches its store.
    func publishWaiting(_ journal: Journal?, remembered: [String] = []) async throws(CarrelFailure) {
        let named = try url()
        let fallback = Set(remembered).count == 1 ? remembered.first.flatMap(SharedOptions.rememberedStore) : nil
        guard let url = named ?? fallback, let journal else { return }
        if named == nil { Console.error("sending to the store the journal names: \(SharedOptions.remembered(url)) (--shared URL chooses another)") }
        // A count that cannot be read is taken as something to send (the publisher reads the
        // outbox itself and reports what it could not send).
        guard ((try? journal.outboxWaiting().records) ?? 1) > 0 else { return }
        let publisher = SeatPublisher(url: url)
        publisher.start(journal: journal)
        if await Publishing.drain(publisher, within: 5) {
            FileOutput.standardOutput.write("Sent to the shared store.\n")
        } else {
            Console.error("the shared store has not received everything yet (\(publisher.storeState.words)); the records wait in this seat's journal for its next session with --shared")
        }
    }

    /// Opens the store for reading, as one clear failure when it cannot.
    static func reader(_ url: SharedURL) async throws(CarrelFailure) -> SharedReader {
        do {
            return try await SharedReader.open(url)
        } catch {
            throw CarrelFailure(status: .cannotOpenInput, message: "cannot reach the shared store \(url): \(url.redacting(SeatPublisher.describe(error))); check that PostgreSQL runs and the URL and ~/.pgpass are right")
        }
    }
}

extension SharedOptions {
    /// This seat's label for a session that publishes through `publisher`: the store is kept
    /// with it (without its password) so that `resume` and `unlock` publish to it too.
    func label(publishingTo publisher: SeatPublisher) -> SharedLabel {
        var label = label()
        label.store = SharedOptions.remembered(publisher.url)
        // The token this seat's session is proven with to the store (schema version 5).
        label.storeToken = SessionMAC.randomToken()
        return label
    }

    /// The store's URL as the journal keeps it: no password, and the TLS mode when it is not
    /// the default.
    static func remembered(_ url: SharedURL) -> String {
        let base = url.description
        guard url.tls != .prefer else { return base }
        return base + (base.contains("?") ? "&" : "?") + "sslmode=\(url.tls.rawValue)"
    }

    /// For `resume` and `unlock` of `record`: the publisher of the store named here, else of
    /// the store the session published to. A session that published and whose store is not
    /// known (a journal from before the store was kept) is refused with the command to run,
    /// rather than continued without its store.
    func publisher(continuing record: SessionRecord, command: String) throws(CarrelFailure) -> SeatPublisher? {
        if let given = try publisher() { return given }
        guard let label = record.options.shared else { return nil }
        guard let store = label.store else {
            throw CarrelFailure(status: .usage, message: "session \(record.id) published to a lab's shared store (room \(label.room), seat \(label.seat)) that its journal does not name; run `carrel \(command) \(record.id) --shared URL` with that store's URL")
        }
        guard let url = Self.rememberedStore(store) else {
            throw CarrelFailure(status: .invalidAssessment, message: "session \(record.id): the store its journal names is not in the form Carrel writes (edited by hand?); run `carrel \(command) \(record.id) --shared URL` with that store's URL")
        }
        Console.error("session \(record.id) publishes again to the store its journal names: \(Self.remembered(url)) (--shared URL chooses another)")
        return SeatPublisher(url: url)
    }

    /// The store a journal names, read back only in the very form Carrel writes it: user, host,
    /// port, database and TLS mode, no password and no password file (the password comes from
    /// ~/.pgpass or PGPASSWORD as for any --shared URL). Anything else — a journal edited to
    /// send a password file's contents elsewhere — gives nil.
    static func rememberedStore(_ text: String) -> SharedURL? {
        guard let url = try? SharedURL.parse(text, environment: ProcessEnvironment.current),
              remembered(url) == text else { return nil }
        return url
    }
}
