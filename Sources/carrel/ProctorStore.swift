#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import AssessmentKit
import Foundation
import SessionKit
import SharedStore

/// The store as the proctor's commands reach it.
enum ProctorStore {
    /// Opens the store, runs `body` on it, and closes it on every path (PostgresNIO stops the
    /// process when a connection is dropped unclosed); a failure is one line, said once.
    static func using<T: Sendable>(_ url: SharedURL, doing what: String,
                                   _ body: (SharedReader) async throws -> T) async throws(CarrelFailure) -> T {
        let reader = try await SharedOptions.reader(url)
        do {
            let value = try await body(reader)
            await reader.close()
            return value
        } catch {
            await reader.close()
            if let failure = error as? CarrelFailure { throw failure }
            throw failure(error, url: url, doing: what)
        }
    }

    /// A store error as one line; a role without the right to write is said so.
    static func failure(_ error: any Error, url: SharedURL, doing what: String) -> CarrelFailure {
        if let problem = error as? RoomProblem {
            return CarrelFailure(status: .refused, message: problem.description)
        }
        let why = url.redacting(SeatPublisher.describe(error))
        if why.contains("permission denied") {
            return CarrelFailure(status: .refused, message: "cannot \(what): this role may not (\(why)); use the proctor's role (docs/deployment.md)")
        }
        return CarrelFailure(status: .cannotOpenInput, message: "cannot \(what) in the shared store \(url): \(why)")
    }
}
