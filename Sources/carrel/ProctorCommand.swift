#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore
import TerminalUI

struct ProctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proctor",
        abstract: "A live console of every seat in a room (reads the lab's shared store).",
        discussion: """
            Shows each seat that publishes with --shared: candidate, status (not started, \
            active, interrupted, submitted, timed out, ended), answered of total, time left, \
            paste attempts, focus losses, exit attempts and when it was last heard from; \
            interrupted seats and seats with incidents first. It refreshes within a second of \
            any change (PostgreSQL LISTEN/NOTIFY) and once a second by itself. A seat whose \
            process is gone shows as interrupted at once (its connection's lock is released). \
            Enter opens the seat's integrity report. --json prints one snapshot for scripts:
            {"seats": [{"session", "candidate", "seat", "room", "assessment", "status", \
            "answered", "total", "time_left_seconds", "paste_attempts", "focus_losses", \
            "exit_attempts", "last_seen", …}]}.
            """
    )

    @OptionGroup var lab: SharedOptions
    @Flag(help: "Print one snapshot of the seats as JSON and exit.") var json = false
    @Flag(name: .customLong("screen-reader"), help: "Keep the cursor on the focused seat; times in whole minutes, so the screen changes only when something happens.")
    var screenReader = false
    @Option(help: "default, mono (also chosen by a non-empty NO_COLOR) or contrast.") var theme: ThemeName?

    func run() throws {
        try reportingFailures {
            let url = try lab.requiredURL(for: "proctor")
            let room = lab.roomName
            let reader = try SharedOptions.reader(url)
            if json {
                struct Snapshot: Encodable { var seats: [SeatView] }
                let seats: [SeatView]
                do {
                    seats = try Blocking.run { try await reader.seats(room: room) }
                } catch {
                    // Closed on every path: PostgresNIO stops the process when a connection is
                    // dropped without being closed.
                    _ = try? Blocking.run { await reader.close() }
                    throw CarrelFailure(status: .cannotOpenInput, message: "cannot read the shared store \(url): \(SeatPublisher.describe(error))")
                }
                FileOutput.standardOutput.write(try JSONText.pretty(Snapshot(seats: seats)))
                _ = try? Blocking.run { await reader.close() }
                return
            }
            guard isatty(0) == 1, isatty(1) == 1 else {
                throw CarrelFailure(status: .refused, message: "`carrel proctor` needs a terminal; use --json for one snapshot")
            }
            let chosen = Theme.named(theme?.rawValue, environment: ProcessInfo.processInfo.environment) ?? .standard
            ProctorApp(url: url, reader: reader, room: room, screenReader: screenReader, theme: chosen).run()
        }
    }
}

/// Set from the listener's task, taken by the console's loop.
final class ChangeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    func raise() { lock.lock(); set = true; lock.unlock() }
    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let was = set
        set = false
        return was
    }
}

/// The console's loop: the store read on a change notice (at most every 0.1 s) and once a
/// second, keys between reads, a frame painted only when it differs.
final class ProctorApp {
    let url: SharedURL
    var reader: SharedReader?
    let canvas: Canvas
    var model: ProctorModel
    let changes = ChangeFlag()
    var listener: Task<Void, Never>?
    let monotonic = SessionClock.system.monotonic

    init(url: SharedURL, reader: SharedReader, room: String?, screenReader: Bool, theme: Theme) {
        self.url = url
        self.reader = reader
        self.canvas = Canvas(theme: theme)
        self.model = ProctorModel(room: room, screenReader: screenReader)
    }

    func listen(_ reader: SharedReader) {
        let changes = self.changes
        listener?.cancel()
        listener = Task.detached {
            // A listener that stops (the store went away) leaves the once-a-second reads.
            try? await reader.listen { notices in
                for try await _ in notices { changes.raise() }
            }
        }
    }

    func run() {
        guard canvas.start() else { return }
        defer {
            listener?.cancel()
            canvas.stop()
            if let reader { _ = try? Blocking.run { await reader.close() } }
        }
        if let reader { listen(reader) }
        let input = InputReader(canvas: canvas)
        var lastRead = -10.0
        var lastAttempt = -10.0
        while !model.quit {
            let now = monotonic()
            let due = now - lastRead >= 1 || (changes.take() && now - lastRead >= 0.1)
            if due {
                lastRead = now
                refresh(now: now, lastAttempt: &lastAttempt)
            }
            let (w, h) = canvas.size
            canvas.paint(ProctorView.render(model, width: w, height: h))
            for event in input.next(waitingAtMost: 0.1) {
                switch event {
                case let .keys(keys):
                    for key in keys {
                        switch model.handle(key, pageSize: max(1, h - 7)) {
                        case .openReport: openReport()
                        case .refresh: lastRead = -10
                        case .none: break
                        }
                    }
                case .resize:
                    _ = canvas.refreshSize()
                case .lost:
                    model.quit = true
                case .paste, .focus:
                    break
                }
            }
        }
    }

    func refresh(now: Double, lastAttempt: inout Double) {
        if reader == nil {
            guard now - lastAttempt >= 2 else { return }
            lastAttempt = now
            let url = self.url
            do {
                let opened = try Blocking.run { try await SharedReader.open(url) }
                reader = opened
                listen(opened)
            } catch {
                model.storeLine = "store not reachable: \(SeatPublisher.describe(error)); retrying"
                return
            }
        }
        guard let reader else { return }
        let room = model.room
        do {
            let seats = try Blocking.run { try await reader.seats(room: room) }
            model.update(seats)
            model.storeLine = model.screenReader ? "store connected" : "updated \(Self.clock())"
        } catch {
            model.storeLine = "store not reachable: \(SeatPublisher.describe(error)); retrying"
            listener?.cancel()
            _ = try? Blocking.run { await reader.close() }
            self.reader = nil
        }
    }

    static func clock() -> String {
        Date().formatted(Date.ISO8601FormatStyle(timeZone: TimeZone.current).time(includingFractionalSeconds: false).timeSeparator(.colon))
    }

    func openReport() {
        guard let seat = model.selectedSeat else { return }
        var lines = ["Integrity report — seat \(seat.seat)" + (seat.candidate.map { ", \($0)" } ?? ""),
                     "Session \(seat.session) · \(seat.assessment) — \(seat.assessmentTitle)",
                     ProctorView.sentence(seat, coarse: model.screenReader), ""]
        guard let reader else {
            model.report = lines + ["The store cannot be read now; try again in a moment."]
            return
        }
        let session = seat.session
        do {
            let events = try Blocking.run { try await reader.events(session: session) }
            let integrity = IntegrityReport(events: events, interruptions: seat.interruptions)
            lines += [
                "paste attempts      \(integrity.pasteAttempts)",
                "focus losses        \(integrity.focusLosses)",
                "exit attempts       \(integrity.exitAttempts)",
                "wrong passphrases   \(integrity.wrongPassphrases)",
                "interruptions       \(integrity.interruptions)",
                "pasteboards",
            ]
            for backend in integrity.pasteboards.keys.sorted() {
                for line in integrity.pasteboards[backend] ?? [] { lines.append("  \(line)") }
            }
            lines += ["", "Timeline"]
            for e in events { lines.append("\(Timestamp.iso(e.at))  \(e.kind)  \(e.detail)") }
        } catch {
            lines.append("The events cannot be read: \(SeatPublisher.describe(error))")
        }
        model.report = lines
        model.reportScroll = 0
    }
}
