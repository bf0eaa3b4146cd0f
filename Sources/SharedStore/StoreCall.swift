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

    /// Runs `work` on `c`, for at most the query timeout. PostgresNIO never completes a query
    /// written to a connection the server has already closed (a restart, a stopped server),
    /// and a stopped or overloaded server may never answer: the work runs in a task of its own
    /// and is abandoned after the timeout (the connection is closed, so the publisher makes a
    /// new one). A closed connection fails at once.
    static func guarded<T: Sendable>(_ c: PostgresConnection, timeout: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        if c.isClosed { throw ConnectionClosed() }
        let once = Once<T>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            once.set(continuation)
            Task.detached {
                do {
                    once.resume(.success(try await work()))
                } catch {
                    once.resume(.failure(error))
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if once.resume(.failure(StoreTimeout())) { c.close().whenComplete { _ in } }
            }
        }
    }

    /// A continuation resumed by whichever comes first.
    final class Once<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, any Error>?
        private var early: Result<T, any Error>?

        func set(_ c: CheckedContinuation<T, any Error>) {
            lock.lock()
            if let early {
                lock.unlock()
                c.resume(with: early)
                return
            }
            continuation = c
            lock.unlock()
        }

        /// True when this call was the one that resumed.
        @discardableResult
        func resume(_ result: Result<T, any Error>) -> Bool {
            lock.lock()
            guard let c = continuation else {
                let first = early == nil
                if first { early = result }
                lock.unlock()
                return first
            }
            continuation = nil
            early = result
            lock.unlock()
            c.resume(with: result)
            return true
        }
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
                try await SharedSchema.prepare(c, logger: logger)
                // From now on the server ends any statement of this connection that runs
                // longer than its caller waits, so a statement abandoned at the client's time
                // limit does not go on holding locks in the store.
                let limit = "\(Int(((statementLimit ?? timeout) * 1000).rounded(.up)))ms"
                _ = try await c.query("SELECT set_config('statement_timeout', \(limit), false)", logger: logger)
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
