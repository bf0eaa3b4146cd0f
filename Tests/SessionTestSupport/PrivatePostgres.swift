#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A private PostgreSQL for the shared-store tests, started by `scripts/private-postgres`
/// (initdb in a temporary folder, a loopback port, as the `postgres` user when the tests run
/// as root). Tests that cannot have one are skipped with the reason.
public final class PrivatePostgres: @unchecked Sendable {
    public let folder: String
    public let port: Int
    /// postgresql://carrel@127.0.0.1:PORT/carrel
    public let url: String
    public var passwordFile: String { folder + "/pgpass" }

    /// The repository (this file is Tests/SessionTestSupport/PrivatePostgres.swift).
    static let repository: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    static var script: String { repository + "/scripts/private-postgres" }

    /// Why no cluster can be started here, or nil when one can.
    public static let unavailable: String? = {
        let found = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        if found.isEmpty { return "PostgreSQL is not installed (scripts/install-deps installs it)" }
        if ChildSpawn.which("psql", environment: ProcessInfo.processInfo.environment) == nil { return "psql is not installed" }
        return nil
    }()

    /// One cluster for every test that does not stop or pause its server.
    nonisolated(unsafe) static var sharedCluster: PrivatePostgres?
    static let sharedLock = NSLock()

    public static func shared() throws -> PrivatePostgres {
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let sharedCluster { return sharedCluster }
        let cluster = try PrivatePostgres()
        sharedCluster = cluster
        // Stopped and removed when the test run ends: left behind, each run's cluster kept
        // about 900 MB in the temporary folder (217 of them filled this machine's disk).
        atexit { PrivatePostgres.sharedCluster?.destroy() }
        return cluster
    }

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    public init() throws {
        folder = FileManager.default.temporaryDirectory.path + "/carrel-pg-\(UUID().uuidString.prefix(8))"
        port = Self.freePort()
        let out = ChildSpawn.run(Self.script, ["start", folder, String(port)], environment: ProcessInfo.processInfo.environment, timeout: 90)
        guard out.status == 0, let line = out.output.split(separator: "\n").last, line.hasPrefix("postgresql://") else {
            throw StartFailure(description: "private PostgreSQL did not start: \(out.output)")
        }
        url = String(line)
    }

    public func stop() {
        _ = ChildSpawn.run(Self.script, ["stop", folder], environment: ProcessInfo.processInfo.environment, timeout: 60)
    }

    public func start() throws {
        let out = ChildSpawn.run(Self.script, ["start", folder, String(port)], environment: ProcessInfo.processInfo.environment, timeout: 90)
        guard out.status == 0 else { throw StartFailure(description: "private PostgreSQL did not start again: \(out.output)") }
    }

    public func pause() { _ = ChildSpawn.run(Self.script, ["pause", folder], environment: ProcessInfo.processInfo.environment) }
    public func resume() { _ = ChildSpawn.run(Self.script, ["resume", folder], environment: ProcessInfo.processInfo.environment) }

    public func destroy() {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A new database of its own for one test; its URL.
    public func database() throws -> String {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let out = psql("CREATE DATABASE \(name)", database: "carrel")
        guard out.status == 0 else { throw StartFailure(description: "cannot create a database: \(out.output)") }
        return "postgresql://carrel@127.0.0.1:\(port)/\(name)"
    }

    /// Runs SQL with psql (unaligned, tuples only); rows as lines, fields split by `|`.
    public func psql(_ sql: String, database: String) -> ChildSpawn.Output {
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSFILE"] = passwordFile
        let psql = ChildSpawn.which("psql", environment: environment) ?? "/usr/bin/psql"
        return ChildSpawn.run(psql, ["-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port),
                                     "-U", "carrel", "-d", database, "-c", sql], environment: environment, timeout: 30)
    }

    public func rows(_ sql: String, url: String) -> [[String]] {
        let database = String(url.split(separator: "/").last ?? "carrel")
        let out = psql(sql, database: database)
        return out.output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
