import ArgumentParser
import Foundation
import SharedStore

/// `--shared URL`: the lab's shared store, declared once for every command that reaches it
/// (take, resume, demo, results, proctor, room, store); the URL is resolved in `url()`.
struct StoreOption: ParsableArguments {
    @Option(name: .customLong("shared"), help: ArgumentHelp(
        "The lab's shared store: a PostgreSQL URL (also CARREL_SHARED).",
        discussion: "postgresql://USER@HOST:PORT/DATABASE; the password comes from ~/.pgpass (or PGPASSFILE, PGPASSWORD) as for psql, and is never printed.",
        valueName: "url"))
    var shared: String?

    /// The URL given here or in CARREL_SHARED; nil when neither is set.
    var text: String? {
        // An empty --shared is a mistake to report, not a way to read the local journal.
        if let shared { return shared }
        if let env = ProcessEnvironment.current["CARREL_SHARED"], !env.isEmpty { return env }
        return nil
    }

    func validate() throws {
        guard let text else { return }
        do throws(SharedURL.Problem) {
            _ = try SharedURL.parse(text, environment: ProcessEnvironment.current)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The parsed URL, or nil without one.
    func url() throws(CarrelFailure) -> SharedURL? {
        guard let text else { return nil }
        do throws(SharedURL.Problem) {
            return try SharedURL.parse(text, environment: ProcessEnvironment.current)
        } catch {
            throw CarrelFailure(status: .usage, message: error.description)
        }
    }

    /// The URL, which `command` cannot do without.
    func required(by command: String) throws(CarrelFailure) -> SharedURL {
        guard let url = try url() else {
            throw CarrelFailure(status: .usage, message: "`carrel \(command)` needs the lab's shared store: give --shared URL (or set CARREL_SHARED)")
        }
        return url
    }
}
