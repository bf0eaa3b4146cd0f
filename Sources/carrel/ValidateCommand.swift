import ArgumentParser
import AssessmentKit

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check assessment files and list every problem.",
        discussion: """
            Each problem is printed as FILE:LINE:COL: error: MESSAGE (warnings likewise), all \
            problems of all files in one run. Exits 0 when every file is valid, 65 when any is \
            invalid, 66 when any cannot be opened.
            """
    )

    @Argument(help: "Assessment files (.yaml).")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one assessment file") }
    }

    func run() throws {
        var worst = ExitStatus.ok
        for path in files {
            do {
                let assessment = try AssessmentFile.validated(path)
                let n = assessment.items.count
                FileOutput.standardOutput.write("\(path): ok — \(assessment.title), \(n) item\(n == 1 ? "" : "s")\n")
            } catch {
                Console.error(error.message)
                if error.status == .cannotOpenInput || worst == .ok { worst = error.status }
            }
        }
        if worst != .ok { throw ExitCode(worst.rawValue) }
    }
}
