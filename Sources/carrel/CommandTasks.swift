import ArgumentParser
import Foundation
import SessionKit
import SharedStore

/// How an async command runs the parts that block: the app loop waits on the terminal with
/// `poll`, so it runs on a thread of its own, and the command awaits it. The cooperative
/// threads (two on a two-core machine) stay free for the store's tasks.
enum TerminalThread {
    /// What the thread's body came to. Not a `Result`: `Result<T, any Error>` costs a launch a
    /// search of the program's conformances before the first frame (Benchmarks/README.md).
    enum Outcome<T: Sendable>: Sendable {
        case value(T)
        case error(any Error)
    }

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let result: Outcome<T> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do {
                    continuation.resume(returning: .value(try body()))
                } catch {
                    continuation.resume(returning: .error(error))
                }
            }
            // ncurses and the views recurse little, but a test's text can be long.
            thread.stackSize = 16 << 20
            thread.start()
        }
        switch result {
        case let .value(value): return value
        case let .error(error): throw error
        }
    }
}

/// A seat's publisher beside the work of a command, as a child task of one task group: the
/// publisher's loop runs while `body` runs; afterwards the last records get up to `within`
/// seconds to reach the store, then the loop stops and closes its connection. Nothing
/// outlives the command.
enum Publishing {
    static func beside<T: Sendable>(_ publisher: SeatPublisher?, within seconds: Double = 3,
                                    _ body: () async throws -> T) async throws -> (value: T, everythingSent: Bool) {
        guard let publisher else { return (try await body(), true) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await publisher.run() }
            do {
                let value = try await body()
                let sent = await publisher.finish(within: seconds)
                group.cancelAll()
                return (value, sent)
            } catch {
                // The command failed: nothing more is sent now; what waits stays in the outbox.
                group.cancelAll()
                throw error
            }
        }
    }

    /// Only the publisher: what waits in the outbox gets up to `within` seconds to reach the
    /// store (`unlock`, `results mark`); true when nothing was left waiting.
    static func drain(_ publisher: SeatPublisher, within seconds: Double) async -> Bool {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await publisher.run() }
            let sent = await publisher.finish(within: seconds)
            group.cancelAll()
            return sent
        }
    }

    /// `beside` for a session: says on stderr when records were left waiting.
    static func session<T: Sendable>(_ publisher: SeatPublisher?, _ body: () async throws -> T) async throws -> T {
        let (value, sent) = try await beside(publisher, body)
        if !sent {
            Console.error("some records have not reached the shared store yet; they stay in this seat's journal and are sent by its next session (`carrel status` counts them)")
        }
        return value
    }
}

extension ParsableCommand {
    /// `reportingFailures` for an async command.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as CarrelFailure {
            Console.error(failure.message)
            throw ExitCode(failure.status.rawValue)
        }
    }
}
