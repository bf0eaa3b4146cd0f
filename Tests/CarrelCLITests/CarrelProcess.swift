import Foundation

/// Runs the real `carrel` binary built next to the test bundle, capturing its output in files
/// (pipes can fill and stall a child that writes a lot).
struct CarrelProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binary: URL {
        if let override = ProcessInfo.processInfo.environment["CARREL_BINARY"] {
            return URL(fileURLWithPath: override)
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        // The runner may sit inside a bundle (…/X.xctest/Contents/MacOS) on some platforms.
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("carrel").path),
              folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("carrel")
    }

    static func run(_ arguments: [String], stdin: String? = nil, in directory: URL = packageRoot) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("carrel-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        let input = scratch.appendingPathComponent("in")
        try Data((stdin ?? "").utf8).write(to: input)
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)

        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    static func temporaryFile(_ contents: String, name: String = "a.yaml") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("carrel-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(contents.utf8).write(to: file)
        return file
    }
}
