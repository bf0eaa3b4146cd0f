#if canImport(Glibc)
import Glibc
#endif
import AssessmentKit
import Foundation
import PostgresNIO

/// Where a lab's shared store is: a PostgreSQL URL as libpq reads it
/// (`postgresql://[user[:password]@][host][:port][/dbname][?param=value&…]`). The password
/// comes from the URL, `PGPASSWORD`, or the password file (`PGPASSFILE`, else `~/.pgpass`),
/// as libpq finds it; it is never printed (`description` leaves it out).
public struct SharedURL: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    /// A Unix socket folder when the host is a path (`host=/var/run/postgresql`).
    public var socketFolder: String?
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    public var connectTimeout: Double

    /// "postgresql://carrel@db.lab:5432/exams" — never with the password.
    public var description: String {
        let place = socketFolder.map { "?host=\($0)" } ?? ""
        let name = socketFolder == nil ? host : ""
        return "postgresql://\(Self.escaped(user))@\(name):\(port)/\(Self.escaped(database))\(place)"
    }

    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads `text` with the environment's defaults (`PGUSER`, `PGHOST`, `PGPORT`,
    /// `PGDATABASE`, `PGPASSWORD`, `PGPASSFILE`, `PGSSLMODE`, `PGCONNECT_TIMEOUT`).
    /// No message quotes any part of the URL: it may hold a password, wherever a typo put it.
    public static func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment,
                             home: String? = nil) throws(Problem) -> SharedURL {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { throw Problem(description: "the shared store's URL is empty: give postgresql://USER@HOST:PORT/DATABASE") }
        let schemes = ["postgresql://", "postgres://"]
        guard let scheme = schemes.first(where: { trimmed.lowercased().hasPrefix($0) }) else {
            throw Problem(description: "the shared store must be a PostgreSQL URL: postgresql://USER@HOST:PORT/DATABASE (with the password in ~/.pgpass)")
        }
        let written = try Written(Substring(trimmed.dropFirst(scheme.count)))
        let (params, user, password, database) = (written.params, written.user, written.password, written.database)
        let (hostText, portText) = (written.host, written.port)
        let env = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let host = hostText.flatMap { $0.isEmpty ? nil : $0 } ?? env("PGHOST") ?? "localhost"
        let portString = portText.flatMap { $0.isEmpty ? nil : $0 } ?? env("PGPORT") ?? "5432"
        guard let port = Int(portString), (1...65535).contains(port) else {
            throw Problem(description: "the shared store's port must be a number from 1 to 65535 (a password in the URL goes after USER: and before @; better, in ~/.pgpass)")
        }
        let resolvedUser = user.flatMap { $0.isEmpty ? nil : $0 } ?? env("PGUSER") ?? Self.loginName()
        let resolvedDatabase = database.flatMap { $0.isEmpty ? nil : $0 } ?? env("PGDATABASE") ?? resolvedUser
        let modeText = params["sslmode"] ?? env("PGSSLMODE") ?? "prefer"
        guard let mode = TLSMode(rawValue: modeText) else {
            throw Problem(description: "sslmode must be disable, allow, prefer, require, verify-ca or verify-full")
        }
        let timeoutText = params["connect_timeout"] ?? env("PGCONNECT_TIMEOUT") ?? "5"
        guard let timeout = Double(timeoutText), timeout > 0, timeout <= 600 else {
            throw Problem(description: "connect_timeout must be a number of seconds from 1 to 600")
        }
        var url = SharedURL(host: host, socketFolder: nil, port: port, user: resolvedUser, password: password,
                            database: resolvedDatabase, tls: mode, connectTimeout: timeout)
        if host.hasPrefix("/") {
            url.socketFolder = host
            url.host = "localhost"
        }
        if url.password == nil {
            url.password = env("PGPASSWORD")
        }
        if url.password == nil {
            let file = params["passfile"] ?? env("PGPASSFILE") ?? (home ?? env("HOME")).map { $0 + "/.pgpass" }
            if let file {
                url.password = PasswordFile.lookup(path: file, host: url.socketFolder == nil ? url.host : "localhost",
                                                   port: port, database: resolvedDatabase, user: resolvedUser)
            }
        }
        return url
    }

    /// What a URL's text says, before the environment's defaults: user, password, host, port,
    /// database and the other parameters, each %-decoded.
    struct Written {
        var user: String?
        var password: String?
        var host: String?
        var port: String?
        var database: String?
        var params: [String: String] = [:]

        /// `rest`: the URL after its scheme.
        init(_ text: Substring) throws(Problem) {
            var rest = text
            // The user and password end at the last @ before the first / or ?. An @ after them
            // means a password (or user name) holding / or ? unescaped: read as it stands, part
            // of it would become the host or the database name, which messages print.
            if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }), rest[end...].contains("@") {
                throw Problem(description: "the shared store's URL has an @ after its host: in a password or user name, "
                    + "write / ? and @ as %2F, %3F and %40 (better, keep the password in ~/.pgpass)")
            }
            var query = Substring("")
            if let q = rest.firstIndex(of: "?") {
                query = rest[rest.index(after: q)...]
                rest = rest[..<q]
            }
            if let slash = rest.firstIndex(of: "/") {
                let path = rest[rest.index(after: slash)...]
                database = path.isEmpty ? nil : try decode(path, "database name")
                rest = rest[..<slash]
            }
            if let at = rest.lastIndex(of: "@") {
                let userInfo = rest[..<at]
                rest = rest[rest.index(after: at)...]
                if let colon = userInfo.firstIndex(of: ":") {
                    user = try decode(userInfo[..<colon], "user name")
                    password = try decode(userInfo[userInfo.index(after: colon)...], "password")
                } else {
                    user = try decode(userInfo, "user name")
                }
            }
            (host, port) = try Self.address(rest)
            try read(query)
        }

        /// `HOST:PORT`, `[::1]:PORT`, `HOST` or nothing.
        static func address(_ rest: Substring) throws(Problem) -> (host: String?, port: String?) {
            var host: String?
            var port: String?
            if rest.hasPrefix("[") {
                // [::1]:5432
                guard let close = rest.firstIndex(of: "]") else { throw Problem(description: "the shared store's host has an unclosed [") }
                host = String(rest[rest.index(after: rest.startIndex)..<close])
                let after = rest[rest.index(after: close)...]
                if after.hasPrefix(":") { port = String(after.dropFirst()) } else if !after.isEmpty {
                    throw Problem(description: "the shared store's address has text after its host's closing ]")
                }
            } else if let colon = rest.lastIndex(of: ":") {
                host = try decode(rest[..<colon], "host")
                port = String(rest[rest.index(after: colon)...])
            } else if !rest.isEmpty {
                host = try decode(rest, "host")
            }
            if host?.contains(",") == true {
                throw Problem(description: "the shared store takes one host; several hosts in one URL are not supported")
            }
            return (host, port)
        }

        /// The parameters after `?`, which override what the URL said before them.
        mutating func read(_ query: Substring) throws(Problem) {
            let pairs = query.split(separator: "&")
            // A password holding & would be read as more parameters, which messages may print.
            if let given = pairs.firstIndex(where: { $0.hasPrefix("password=") }), given != pairs.indices.last {
                throw Problem(description: "a password in the shared store's URL must be its last parameter, with & written as %26 "
                    + "(better, keep it in ~/.pgpass)")
            }
            for pair in pairs where !pair.isEmpty {
                guard let eq = pair.firstIndex(of: "=") else { throw Problem(description: "the shared store's URL has a parameter without a value (after ?, write name=value)") }
                params[try decode(pair[..<eq], "parameter")] = try decode(pair[pair.index(after: eq)...], "parameter value")
            }
            for (key, value) in params {
                switch key {
                case "host": host = value
                case "port": port = value
                case "user": user = value
                case "password": password = value
                case "dbname": database = value
                case "sslmode", "connect_timeout", "application_name", "passfile": break
                default:
                    throw Problem(description: "the shared store's URL has a parameter Carrel does not use (known: host, port, user, password, dbname, sslmode, connect_timeout, passfile)")
                }
            }
        }
    }

    /// `text` (a message about this store) with every occurrence of the password, as typed
    /// or %-escaped, replaced by "…": no message prints it, whatever a server or library put
    /// in theirs. (A password under four characters is not looked for: it would blank out
    /// ordinary words, and messages never quote the URL's text anyway.)
    public func redacting(_ text: String) -> String {
        guard let password, password.count >= 4 else { return text }
        var out = text
        let forms = [password, Self.escaped(password), password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password]
        for form in Set(forms) where out.contains(form) {
            out = out.replacingOccurrences(of: form, with: "…")
        }
        return out
    }

    static func decode(_ part: Substring, _ what: String) throws(Problem) -> String {
        guard let text = String(part).removingPercentEncoding else {
            throw Problem(description: "the shared store's \(what) has a broken %-escape")
        }
        return text
    }

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@/?#"))) ?? text
    }

    static func loginName() -> String {
        if let pw = getpwuid(geteuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return "carrel"
    }

    /// The connection settings PostgresNIO needs.
    public func configuration(applicationName: String) throws -> PostgresConnection.Configuration {
        let tlsSetting: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable, .allow:
            tlsSetting = .disable
        case .prefer, .require, .verifyCA, .verifyFull:
            var settings = TLSConfiguration.makeClientConfiguration()
            // libpq checks the server's certificate only in the verify modes.
            if tls != .verifyFull { settings.certificateVerification = tls == .verifyCA ? .noHostnameVerification : .none }
            let context = try NIOSSLContext(configuration: settings)
            tlsSetting = tls == .prefer ? .prefer(context) : .require(context)
        }
        var config: PostgresConnection.Configuration
        if let socketFolder {
            config = .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            config = .init(host: host, port: port, username: user, password: password, database: database, tls: tlsSetting)
        }
        config.options.connectTimeout = .milliseconds(Int64(connectTimeout * 1000))
        config.options.additionalStartupParameters = [("application_name", applicationName)]
        return config
    }
}

/// libpq's password file: `host:port:database:user:password` lines, `*` matching anything,
/// `\:` and `\\` escaped; ignored (as libpq does) when others can read it.
enum PasswordFile {
    static func lookup(path: String, host: String, port: Int, database: String, user: String) -> String? {
        var info = stat()
        // A file that is missing, not a regular file, or open to the group or others is not used.
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_mode & 0o077 == 0,
              let data = FileManager.default.contents(atPath: path) else { return nil }
        let wanted = [host, String(port), database, user]
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#") { continue }
            let fields = split(line)
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    static func split(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for ch in line {
            if escaped {
                current.append(ch)
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        fields.append(current)
        return fields
    }
}
