import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Whom a seat logs in to the store as. An enrolled machine's seat (started by its signing
/// helper) logs in as the machine's own role with the password the helper derived from the
/// machine key: host, port and database stay its URL's, the URL's user and password are not
/// used. Its connections and its daily places in a room are then its own, out of reach of a
/// student who holds every connection of the shared seat role or uses up its places. A seat
/// without a helper logs in as its URL says, as before.
///
/// The choice belongs to the process, as the helper's socket does: every connection of the
/// room flow (the plan, the roster, refusals, the publisher) opens through `open`.
public enum SeatLogin {
    struct State: Sendable {
        var machine: (role: String, password: String)?
        var warn: (@Sendable (String) -> Void)?
    }

    static let state = Mutex(State())

    /// From now on seat connections log in as `role` with `password`. `warn` is told, once,
    /// when the store does not know that login (a machine enrolled before its store had
    /// machine roles) and the seat goes on as the shared role.
    public static func useMachine(role: String, password: String, warn: @escaping @Sendable (String) -> Void) {
        state.withLock { $0 = State(machine: (role, password), warn: warn) }
    }

    /// The URL a seat's connection logs in with, for the store `given` names.
    public static func url(for given: SharedURL) -> SharedURL {
        guard let machine = state.withLock({ $0.machine }) else { return given }
        var url = given
        url.user = machine.role
        url.password = machine.password
        return url
    }

    /// A seat's connection to `given`'s store, with Carrel's schema checked (`StoreCall.open`).
    /// A machine login the store refuses as unknown (no such role, or another password) is
    /// given up for the rest of this process, said once, and the connection made as the URL's
    /// own user; any other failure is the caller's to report and retry.
    static func open(_ given: SharedURL, logger: Logger, timeout: Double) async throws -> PostgresConnection {
        let url = url(for: given)
        do {
            return try await StoreCall.open(url, as: "carrel seat", logger: logger, timeout: timeout)
        } catch where url.user != given.user && isUnknownLogin(error) {
            let warn = state.withLock { s -> (@Sendable (String) -> Void)? in
                // Only the first connection to find it out says so.
                guard s.machine?.role == url.user else { return nil }
                s.machine = nil
                return s.warn
            }
            warn?("the store refused this machine's own login (\(url.user)): the machine was enrolled before its store had machine "
                + "logins or with another key (enrol it again: `sudo carrel seat enroll`), or pg_hba.conf does not let the role in "
                + "(write +\(given.user) for the lab's addresses). This seat uses the shared seat role \(given.user), whose "
                + "connections and places in the room every unenrolled seat shares.")
            return try await StoreCall.open(given, as: "carrel seat", logger: logger, timeout: timeout)
        }
    }

    /// PostgreSQL's answer to a login it does not accept: a password that is not the role's
    /// (also what a role that does not exist gets under password authentication, 28P01), or
    /// no such role or no pg_hba line for it (28000).
    static func isUnknownLogin(_ error: any Error) -> Bool {
        guard let state = (error as? PSQLError)?.serverInfo?[.sqlState] else { return false }
        return state == "28P01" || state == "28000"
    }
}
