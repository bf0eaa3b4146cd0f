import ArgumentParser

/// sysexits codes, as the README and the man page promise them to scripts.
enum ExitStatus: Int32 {
    case ok = 0
    case usage = 64
    case invalidAssessment = 65
    case cannotOpenInput = 66
    case refused = 69
    case internalError = 70
    case cannotCreate = 73
    case lockActive = 75
    case wrongPassphrase = 77
}

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
