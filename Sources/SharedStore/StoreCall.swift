import Foundation
import PostgresNIO

/// One call to the store that cannot hang its caller.
enum StoreCall {
    struct StoreTimeout: Error, CustomStringConvertible {
        var description: String { "no answer in time" }
    }

    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection was closed" }
    }

    /// Runs `work` on `c`, for at most `timeout` seconds, as a task group with a deadline:
    /// PostgresNIO never completes a query written to a connection the server has already
    /// closed (a restart, a stopped server), and a stopped or overloaded server may never
    /// answer. When the deadline comes first the connection is closed, which fails the query
    /// still waiting on it, so the group ends with its children and nothing is left running
    /// (the caller makes a new connection). A closed connection fails at once.
    static func guarded<T: Sendable>(_ c: PostgresConnection, timeout: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        if c.isClosed { throw ConnectionClosed() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0.001, timeout) * 1e9))
                return nil
            }
            defer { group.cancelAll() }
            do {
                // The first to finish decides: the work's value, or nil from the deadline.
                if let first = try await group.next(), let value = first { return value }
            } catch {
                // The work's own failure (the server's answer, a closed connection) is the
                // caller's to judge; the connection is left as it is.
                if !(error is CancellationError) { throw error }
            }
            // The deadline came first (or the caller was cancelled): closing the connection
            // fails the query that still waits on it, so the group can end.
            close(c)
            throw StoreTimeout()
        }
    }

    /// Closes `c` without waiting for the server, which may be the one not answering.
    static func close(_ c: PostgresConnection) {
        c.close().whenComplete { _ in }
    }

    /// A connection to the store with Carrel's schema in place (made or brought up to date
    /// when this role may), within `timeout` for the schema; closed again on any failure.
    /// The server ends any of its statements that runs past `statementLimit` seconds (default:
    /// `timeout`): the longest this connection's caller waits for one.
    static func open(_ url: SharedURL, as applicationName: String, logger: Logger, timeout: Double,
                     statementLimit: Double? = nil) async throws -> PostgresConnection {
        let configuration = try url.configuration(applicationName: applicationName)
        let c = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await guarded(c, timeout: timeout) {
                // The server ends any statement of this connection that runs longer than the
                // client waits for it, so a statement abandoned here never holds locks on.
                let limit = "\(Int(((statementLimit ?? timeout) * 1000).rounded(.up)))ms"
                _ = try await c.query("SELECT set_config('statement_timeout', \(limit), false)", logger: logger)
                try await SharedSchema.prepare(c, logger: logger)
            }
        } catch {
            // Closing a connection that failed has nothing left to report.
            try? await c.close()
            throw error
        }
        return c
    }

    /// A logger that stays quiet (the store's errors are reported by Carrel, in its words).
    static var quietLogger: Logger {
        var logger = Logger(label: "carrel.shared")
        logger.logLevel = .critical
        return logger
    }
}
