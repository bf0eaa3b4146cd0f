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
            if !json && (isatty(0) != 1 || isatty(1) != 1) {
                throw CarrelFailure(status: .refused, message: "`carrel proctor` needs a terminal; use --json for one snapshot")
            }
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
            let chosen = Theme.named(theme?.rawValue, environment: ProcessInfo.processInfo.environment) ?? .standard
            ProctorConsole.run(url: url, reader: reader, room: room, screenReader: screenReader, theme: chosen)
        }
    }
}

/// Reads the store for the console on a thread of its own, so that keys are answered at once
/// even while the store is slow or gone: the loop takes the latest reading when there is one.
final class ConsoleFeed: ConsoleSource, @unchecked Sendable {
    typealias Reading = ConsoleReading

    let url: SharedURL
    let room: String?
    private let lock = NSLock()
    private var latest: Reading?
    private var stopping = false
    private var urgent = false
    private var report: ConsoleSeatReport?
    private var reportWanted: String?
    private let bell = Doorbell()

    init(url: SharedURL, room: String?) {
        self.url = url
        self.room = room
    }

    func takeReading() -> Reading? {
        lock.withLock {
            defer { latest = nil }
            return latest
        }
    }

    func takeReport() -> ConsoleSeatReport? {
        lock.withLock {
            defer { report = nil }
            return report
        }
    }

    func refreshNow() {
        lock.withLock { urgent = true }
        bell.ring()
    }

    func wantReport(_ session: String) {
        lock.withLock { reportWanted = session }
        bell.ring()
    }

    func stop() {
        lock.withLock { stopping = true }
        bell.ring()
    }

    var isStopping: Bool { lock.withLock { stopping } }

    func takeRequests() -> (report: String?, hurry: Bool) {
        lock.withLock {
            defer { reportWanted = nil; urgent = false }
            return (reportWanted, urgent)
        }
    }

    func setReport(_ r: ConsoleSeatReport) {
        lock.withLock { report = r }
    }

    func publish(_ r: Reading) {
        lock.withLock { latest = r }
    }

    /// Reads once a second, and within 0.1 s of a change notice; reconnects every 2 s when
    /// the store is gone.
    func run(first: SharedReader) async {
        var reader: SharedReader? = first
        var listener: Task<Void, Never>?
        var lastAttempt = Date.distantPast
        var lastRead = Date.distantPast
        while !isStopping {
            if reader == nil, Date().timeIntervalSince(lastAttempt) >= 2 {
                lastAttempt = Date()
                do {
                    reader = try await SharedReader.open(url)
                } catch {
                    publish(Reading(seats: nil, problem: SeatPublisher.describe(error), at: Date()))
                }
            }
            if let current = reader, listener == nil {
                let bell = self.bell
                listener = Task.detached {
                    // A listener that stops (the store went away) leaves the once-a-second reads.
                    try? await current.listen { notices in
                        for try await _ in notices { bell.ring() }
                    }
                }
            }
            let (wanted, hurry) = takeRequests()
            if let current = reader, let wanted {
                do {
                    let events = try await current.events(session: wanted)
                    setReport(ConsoleSeatReport(session: wanted, events: events, problem: nil))
                } catch {
                    setReport(ConsoleSeatReport(session: wanted, events: nil, problem: SeatPublisher.describe(error)))
                }
            }
            if let current = reader, hurry || Date().timeIntervalSince(lastRead) >= 0.1 {
                lastRead = Date()
                do {
                    publish(Reading(seats: try await current.seats(room: room), problem: nil, at: Date()))
                } catch {
                    publish(Reading(seats: nil, problem: SeatPublisher.describe(error), at: Date()))
                    listener?.cancel()
                    listener = nil
                    await current.close()
                    reader = nil
                }
            }
            await bell.wait(seconds: 1)
        }
        listener?.cancel()
        if let reader { await reader.close() }
    }
}

/// The console on the real terminal, its readings from the store on a task of their own.
enum ProctorConsole {
    static func run(url: SharedURL, reader: SharedReader, room: String?, screenReader: Bool, theme: Theme) {
        let feed = ConsoleFeed(url: url, room: room)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await feed.run(first: reader)
            done.signal()
        }
        defer {
            feed.stop()
            // The feed closes its connection; the process may end first, which closes it too.
            _ = done.wait(timeout: .now() + 1)
        }
        ConsoleApp(source: feed, room: room, screenReader: screenReader).run(on: Canvas(theme: theme))
    }
}
