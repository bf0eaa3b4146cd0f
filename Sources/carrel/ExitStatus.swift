import ArgumentParser
import SessionKit

/// The sysexits codes, defined once in SessionKit; every file of the tool sees them here.
typealias ExitStatus = SessionKit.ExitStatus

/// A failure that ends the command with one clear line and a sysexits code.
struct CarrelFailure: Error {
    var status: ExitStatus
    /// What happened and what to do next, in one line.
    var message: String
}

enum Console {
    static func error(_ line: String) {
        FileOutput.standardError.write("carrel: \(line)\n")
    }
}

extension ParsableCommand {
    /// Runs `body`, turning a `CarrelFailure` into its line on stderr and its exit code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CarrelFailure {
            Console.error(failure.message)
            throw ExitCode(failure.status.rawValue)
        }
    }
}
