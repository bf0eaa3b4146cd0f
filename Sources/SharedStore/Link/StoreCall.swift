import Foundation
import Logging
import Synchronization
import PostgresNIO

/// One call to the store that cannot hang its caller.
enum StoreCall {
    struct StoreTimeout: Error, CustomStringConvertible {
        var description: String { "no answer in time" }
    }

    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection was closed" }
    }

    /// One statement's rows. It ends, with an error, as soon as the connection closes or the
    /// task is cancelled, whatever the server does: PostgresNIO never answers a statement
    /// written to a connection that has already closed (a restart, a stopped server, a closed
    /// deadline), so the wait races the connection's own end. Every statement Carrel sends
    /// goes through here, which is what lets `guarded` be a plain task-group deadline.
    static func rows(_ c: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        if c.isClosed { throw ConnectionClosed() }
        let answer = c.eventLoop.makePromise(of: [PostgresRow].self)
        let key = ObjectIdentifier(c)
        let (id, first) = pending.withLock { p -> (Int, Bool) in
            p.next += 1
            let first = p.waiting[key] == nil
            p.waiting[key, default: [:]][p.next] = answer
            return (p.next, first)
        }
        if first {
            // One watch per connection (not one per statement, which a connection open for
            // hours would pile up): its end fails every answer still awaited on it. On a
            // connection already closed it runs at once.
            c.closeFuture.whenComplete { _ in
                let left = pending.withLock { $0.waiting.removeValue(forKey: key) }
                for promise in (left ?? [:]).values { promise.fail(ConnectionClosed()) }
            }
        }
        answer.futureResult.whenComplete { _ in pending.withLock { _ = $0.waiting[key]?.removeValue(forKey: id) } }
        // Whichever comes first completes the answer; a later completion is ignored.
        let sent: EventLoopFuture<PostgresQueryResult> = c.query(query, logger: logger)
        sent.map(\.rows).cascade(to: answer)
        return try await withTaskCancellationHandler {
            try await answer.futureResult.get()
        } onCancel: {
            answer.fail(CancellationError())
        }
    }

    /// Answers awaited on each open connection, so that its end can fail them.
    struct Pending {
        var next = 0
        var waiting: [ObjectIdentifier: [Int: EventLoopPromise<[PostgresRow]>]] = [:]
    }

    static let pending = Mutex(Pending())

    /// One statement whose rows do not matter.
    static func run(_ c: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws {
        _ = try await rows(c, query, logger: logger)
    }

    /// The first column of the first row, decoded (nil without a row).
    static func value<T: PostgresDecodable>(_ c: PostgresConnection, _ query: PostgresQuery, as type: T.Type,
                                            logger: Logger) async throws -> T? {
        guard let row = try await rows(c, query, logger: logger).first else { return nil }
        return try row.decode(T.self)
    }

    private enum Outcome<T: Sendable>: Sendable {
        case done(T)
        case deadline
    }

    /// Runs `work` on `c` for at most `timeout` seconds: a task-group deadline. When the
    /// deadline comes first the connection is closed, which ends every statement of `work`
    /// at once (see `rows`), and the call throws `StoreTimeout`; the caller makes a new
    /// connection. A connection already closed fails at once.
    static func guarded<T: Sendable>(_ c: PostgresConnection, timeout: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        if c.isClosed { throw ConnectionClosed() }
        return try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
            group.addTask { .done(try await work()) }
            group.addTask {
                // Cancelled when the work ends first: the outcome is then not read.
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1e9))
                return .deadline
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw StoreTimeout() }
            switch first {
            case let .done(value):
                return value
            case .deadline:
                // The work's statements end with the connection; the group then waits for
                // nothing that could hang.
                c.close().whenComplete { _ in }
                throw StoreTimeout()
            }
        }
    }

    /// A connection to the store with Carrel's schema in place (made or brought up to date
    /// when this role may), within `timeout` for the schema; closed again on any failure.
    /// The server ends any of its statements that runs past `statementLimit` seconds (default:
    /// `timeout`): the longest this connection's caller waits for one.
    static func open(_ url: SharedURL, as applicationName: String, logger: Logger, timeout: Double,
                     statementLimit: Double? = nil) async throws -> PostgresConnection {
        let configuration = try url.configuration(applicationName: applicationName)
        let c = try await connect(configuration, logger: logger)
        do {
            try await guarded(c, timeout: timeout) {
                try await SharedSchema.prepare(c, logger: logger)
                // From now on the server ends any statement of this connection that runs
                // longer than its caller waits, so a statement abandoned at the client's time
                // limit does not go on holding locks in the store.
                let limit = "\(Int(((statementLimit ?? timeout) * 1000).rounded(.up)))ms"
                try await run(c, "SELECT set_config('statement_timeout', \(limit), false)", logger: logger)
            }
        } catch {
            // Closing a connection that failed has nothing left to report.
            try? await c.close()
            throw error
        }
        return c
    }

    /// Connects; a cancelled task stops waiting at once. PostgresNIO's own cancellation waits
    /// for the TCP connect to end (up to the connect timeout, on a network that drops packets),
    /// which would keep a command that is leaving; a connection that still arrives after the
    /// cancellation is closed when it does.
    static func connect(_ configuration: PostgresConnection.Configuration, logger: Logger) async throws -> PostgresConnection {
        let loop = PostgresConnection.defaultEventLoopGroup.any()
        let connecting: EventLoopFuture<PostgresConnection> = PostgresConnection.connect(on: loop, configuration: configuration, id: 1, logger: logger)
        let answer = loop.makePromise(of: PostgresConnection.self)
        connecting.cascade(to: answer)
        return try await withTaskCancellationHandler {
            try await answer.futureResult.get()
        } onCancel: {
            answer.fail(CancellationError())
            // Whichever completed the answer first decides: a connection handed over is the
            // caller's; one that arrives after the cancellation is nobody's and is closed.
            answer.futureResult.whenFailure { _ in
                connecting.whenSuccess { late in late.close().whenComplete { _ in } }
            }
        }
    }

    /// A logger that stays quiet (the store's errors are reported by Carrel, in its words).
    static var quietLogger: Logger {
        var logger = Logger(label: "carrel.shared")
        logger.logLevel = .critical
        return logger
    }
}
