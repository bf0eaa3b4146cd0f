import Crypto
import _CryptoExtras
import Foundation
import Logging
import PostgresNIO

/// `carrel store init`: run once by the database's owner. Creates or updates Carrel's schema,
/// the seat and proctor roles (with new passwords when they are created), their grants, a
/// small connection limit on the shared seat role (unenrolled seats and practice), and the
/// figures enrolled machines' own logins are made with (schema version 8).
public enum StoreSetup {
    public struct Report: Sendable {
        /// Roles created now, with their new passwords (shown once).
        public var created: [(role: String, password: String)]
        public var existing: [String]
        public var seatConnectionLimit: Int
        /// Enrolled machines the server takes, each with its own login, and how many it has.
        public var machineCapacity: Capacity
        public var host: String
        public var port: Int
        public var database: String
        public var schemaVersion: Int
        /// What the owner must still do by hand (said by `carrel store init`).
        public var warnings: [String] = []
    }

    /// The server's connections as enrolled machines share them (`carrel_login_capacity`).
    public struct Capacity: Sendable, Equatable {
        public var machines: Int
        public var enrolled: Int
        public var maxConnections: Int
        public var superuserReserved: Int
        public var proctorReserve: Int
        public var sharedConnections: Int
        public var perMachine: Int

        public init(machines: Int, enrolled: Int, maxConnections: Int, superuserReserved: Int, proctorReserve: Int,
                    sharedConnections: Int, perMachine: Int) {
            self.machines = machines
            self.enrolled = enrolled
            self.maxConnections = maxConnections
            self.superuserReserved = superuserReserved
            self.proctorReserve = proctorReserve
            self.sharedConnections = sharedConnections
            self.perMachine = perMachine
        }

        /// The sum, in words: how the figure is made.
        public var reckoning: String {
            "max_connections \(maxConnections) - \(superuserReserved) for superusers - \(proctorReserve) for proctors - \(sharedConnections) for the shared seat role, \(perMachine) each"
        }

        /// The max_connections that would take `machines` enrolled machines.
        public func maxConnections(for machines: Int) -> Int {
            superuserReserved + proctorReserve + sharedConnections + machines * perMachine
        }
    }

    /// The default connection limit of the shared seat role: enough for the few seats that are
    /// not enrolled (a spare machine admitted by hand, practice tests with --shared), few
    /// enough that a student who holds them all takes nothing from an enrolled machine.
    public static let defaultSharedConnections = 20

    public static func initialise(_ url: SharedURL, seatRole: String, proctorRole: String, proctorReserve: Int,
                                  sharedConnections: Int = defaultSharedConnections) async throws -> Report {
        let logger = StoreCall.quietLogger
        // Opening migrates the schema (this role owns it).
        let c = try await StoreCall.open(url, as: "carrel store init", logger: logger, timeout: 10, statementLimit: 120)
        do {
            let report = try await StoreCall.guarded(c, timeout: 120) {
                try await setUp(c, url: url, seatRole: seatRole, proctorRole: proctorRole, reserve: proctorReserve,
                                shared: sharedConnections, logger: logger)
            }
            try? await c.close()
            return report
        } catch {
            // The setup's error is the one to report; a close that fails adds nothing.
            try? await c.close()
            throw error
        }
    }

    static func setUp(_ c: PostgresConnection, url: SharedURL, seatRole: String, proctorRole: String, reserve: Int,
                      shared: Int, logger: Logger) async throws -> Report {
        func run(_ sql: String) async throws { try await StoreCall.run(c, PostgresQuery(unsafeSQL: sql), logger: logger) }
        func ident(_ name: String) async throws -> String {
            try await StoreCall.value(c, "SELECT quote_ident(\(name))", as: String.self, logger: logger) ?? "\"\""
        }
        let schema = try await StoreCall.value(c, "SELECT quote_ident(current_schema())", as: String.self, logger: logger) ?? "public"
        let database = try await StoreCall.value(c, "SELECT quote_ident(current_database())", as: String.self, logger: logger) ?? ""
        let limit = max(1, shared)
        var created: [(String, String)] = []
        var existing: [String] = []
        for role in [seatRole, proctorRole] {
            let quoted = try await ident(role)
            let exists = try await StoreCall.value(c, "SELECT count(*)::int FROM pg_roles WHERE rolname = \(role)", as: Int.self, logger: logger) ?? 0
            if exists == 0 {
                let password = randomPassword()
                // The server is sent the password's SCRAM verifier, made here, never the password:
                // a server that logs its statements logs only what it stores anyway. (quote_literal
                // keeps it one literal; it holds base64 and `$:` only.)
                let verifier = try scramVerifier(password)
                let literal = try await StoreCall.value(c, "SELECT quote_literal(\(verifier))", as: String.self, logger: logger) ?? "''"
                try await run("CREATE ROLE \(quoted) LOGIN PASSWORD \(literal)")
                created.append((role, password))
            } else {
                existing.append(role)
            }
        }
        let seat = try await ident(seatRole)
        let proctor = try await ident(proctorRole)
        // The shared role's connections are few: every student knows its password. Enrolled
        // machines log in as their own roles, each with its own limit (version 8).
        try await run("ALTER ROLE \(seat) CONNECTION LIMIT \(limit)")
        // What one of the seat role's connections may hold: no statement, lock wait or idle
        // transaction outlives these (a seat's own calls take milliseconds). They are the
        // role's defaults, which a connection may change; what protects the room whatever a
        // connection sets is that nothing it can lock is another session's (version 5).
        for setting in seatRoleSettings { try await run("ALTER ROLE \(seat) SET \(setting)") }
        let statements = [
            "REVOKE ALL ON ALL TABLES IN SCHEMA \(schema) FROM PUBLIC",
            "REVOKE ALL ON ALL FUNCTIONS IN SCHEMA \(schema) FROM PUBLIC",
            "GRANT CONNECT ON DATABASE \(database) TO \(seat), \(proctor)",
            "GRANT USAGE ON SCHEMA \(schema) TO \(seat), \(proctor)",
            "GRANT EXECUTE ON FUNCTION \(SharedSchema.seatFunctions) TO \(seat)",
            "GRANT EXECUTE ON PROCEDURE \(SharedSchema.seatProcedures) TO \(seat)",
            "GRANT SELECT ON ALL TABLES IN SCHEMA \(schema) TO \(proctor)",
            "GRANT INSERT, UPDATE ON carrel_rooms TO \(proctor)",
            "GRANT INSERT ON carrel_commands TO \(proctor)",
            "GRANT USAGE ON SEQUENCE carrel_commands_id_seq TO \(proctor)",
            "GRANT INSERT ON carrel_marks TO \(proctor)",
            "GRANT INSERT ON carrel_candidate_releases TO \(proctor)",
            "REVOKE ALL ON carrel_records FROM \(seat)",
            "GRANT USAGE ON SEQUENCE carrel_marks_id_seq TO \(proctor)",
            "GRANT EXECUTE ON FUNCTION carrel_schema_version() TO \(proctor)",
        ] + SharedSchema.proctorMachineGrants.map { "GRANT SELECT, INSERT, UPDATE ON \($0) TO \(proctor)" }
            + SharedSchema.proctorLoginGrants.map { "\($0) \(proctor)" }
            + SharedSchema.proctorSweepGrants.map { "\($0) \(proctor)" }
            + SharedSchema.proctorLostGrants.map { "\($0) \(proctor)" }
            // As the upgrade to version 13 grants it: every role that may publish may publish committed.
            + ["GRANT EXECUTE ON PROCEDURE \(SharedSchema.seatProcedures) TO \(proctor)"]
        for sql in statements { try await run(sql) }
        try await StoreCall.run(c, "UPDATE carrel_logins SET seat_role = \(seatRole), shared_connections = \(limit), proctor_reserve = \(reserve)",
                                logger: logger)
        try await refreshMachineLogins(c, seatRole: seatRole, logger: logger)
        let capacity = try await machineCapacity(c, logger: logger)
        let warnings = try await sharedResources(c, seatRole: seatRole, logger: logger)
        let version = try await StoreCall.value(c, "SELECT carrel_schema_version()", as: Int.self, logger: logger) ?? 0
        return Report(created: created, existing: existing, seatConnectionLimit: limit, machineCapacity: capacity, host: url.host,
                      port: url.port, database: url.database, schemaVersion: version, warnings: warnings)
    }

    /// The enrolled machines' logins made before this run get the limits they are made with
    /// now (a connection limit of their own, the seat role's settings).
    static func refreshMachineLogins(_ c: PostgresConnection, seatRole: String, logger: Logger) async throws {
        let perMachine = try await StoreCall.value(c, "SELECT machine_connections FROM carrel_logins", as: Int.self, logger: logger) ?? 3
        let rows = try await StoreCall.rows(c, """
            SELECT DISTINCT quote_ident(m.rolname) FROM pg_auth_members a JOIN pg_roles m ON m.oid = a.member JOIN pg_roles s ON s.oid = a.roleid
            WHERE s.rolname = \(seatRole) AND m.rolname ~ '^carrel_m_[0-9a-f]{16}$'
            """, logger: logger)
        for row in rows {
            guard let t = StoreRows.texts(row), let quoted = t.first ?? nil else { continue }
            try await StoreCall.run(c, PostgresQuery(unsafeSQL: "ALTER ROLE \(quoted) CONNECTION LIMIT \(perMachine)"), logger: logger)
            for setting in seatRoleSettings {
                try await StoreCall.run(c, PostgresQuery(unsafeSQL: "ALTER ROLE \(quoted) SET \(setting)"), logger: logger)
            }
        }
    }

    /// What `carrel_login_capacity` says now.
    static func machineCapacity(_ c: PostgresConnection, logger: Logger) async throws -> Capacity {
        let rows = try await StoreCall.rows(c, """
            SELECT capacity::text, enrolled::text, max_connections::text, superuser_reserved::text, proctor_reserve::text,
              shared_connections::text, machine_connections::text FROM carrel_login_capacity()
            """, logger: logger)
        let n = (rows.first.flatMap(StoreRows.texts) ?? []).map { $0.flatMap { Int($0) } ?? 0 }
        guard n.count == 7 else { throw SharedSchema.Problem(description: "the store did not say how many machines it takes") }
        return Capacity(machines: n[0], enrolled: n[1], maxConnections: n[2], superuserReserved: n[3], proctorReserve: n[4],
                        sharedConnections: n[5], perMachine: n[6])
    }

    /// What a role reaches on the whole server, beyond any Carrel quota, and only the cluster's
    /// superuser can take from PUBLIC (PostgreSQL's own functions, in this database): ending or
    /// cancelling its own role's connections (every seat shares one), advisory locks (the
    /// server's one lock table), `pg_notify` (its one NOTIFY queue), large objects (stored for
    /// good, counted by no quota), and temporary files without a limit. The owner keeps what
    /// its own functions use (the seat's lock, the migration's, the command notice, the
    /// janitor's `pg_terminate_backend`) and the janitor's right to see and end seat
    /// connections. Run as the superuser, `carrel store init` does it all; another owner is
    /// told exactly what is still to run.
    static func sharedResources(_ c: PostgresConnection, seatRole: String, logger: Logger) async throws -> [String] {
        func ident(_ name: String) async throws -> String {
            try await StoreCall.value(c, "SELECT quote_ident(\(name))", as: String.self, logger: logger) ?? "\"\""
        }
        let owner = try await StoreCall.value(c, "SELECT current_user::text", as: String.self, logger: logger) ?? ""
        let database = try await StoreCall.value(c, "SELECT current_database()::text", as: String.self, logger: logger) ?? ""
        let superuser = try await StoreCall.value(c, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user", as: Bool.self,
                                                  logger: logger) ?? false
        let steps = superuserSteps(seat: try await ident(seatRole), owner: try await ident(owner), database: try await ident(database),
                                   names: (seatRole, owner, database), ownerIsSuperuser: superuser)
        var still: [String] = []
        for step in steps {
            let needed = try await StoreCall.value(c, PostgresQuery(unsafeSQL: step.needed),
                                                   as: Bool.self, logger: logger) ?? true
            guard needed else { continue }
            if superuser || step.ownerMay {
                do {
                    try await StoreCall.run(c, PostgresQuery(unsafeSQL: step.sql), logger: logger)
                    continue
                } catch where !superuser {
                    // An owner that may not (the database is another role's): said below.
                }
            }
            still.append(step.sql + ";")
        }
        if superuser {
            // Enrolled machines' logins: a role's settings are not inherited from the seat role,
            // and the owner's enrolment cannot set a superuser's one.
            let logins = try await StoreCall.rows(c, """
                SELECT DISTINCT quote_ident(m.rolname) FROM pg_auth_members a JOIN pg_roles m ON m.oid = a.member
                  JOIN pg_roles s ON s.oid = a.roleid
                WHERE s.rolname = \(seatRole) AND m.rolname ~ '^carrel_m_[0-9a-f]{16}$'
                """, logger: logger)
            for row in logins {
                guard let t = StoreRows.texts(row), let quoted = t.first ?? nil else { continue }
                try await StoreCall.run(c, PostgresQuery(unsafeSQL: "ALTER ROLE \(quoted) SET temp_file_limit = '\(seatTempFileLimit)'"),
                                        logger: logger)
            }
        }
        guard !still.isEmpty else { return [] }
        return ["a seat can still reach what the whole server shares (other seats' connections, the lock table, the NOTIFY queue, large objects, temporary space), or the janitor cannot see and end seat connections: as the cluster's superuser, in database \(database), run: " + still.joined(separator: " ")]
    }

    /// One statement of the superuser's part, and the query that says whether it is still needed.
    struct SuperuserStep: Sendable {
        var sql: String
        /// Whether the store's owner may run it itself (the database's owner may take TEMP).
        var ownerMay = false
        var needed: String
    }

    /// PostgreSQL's advisory-lock functions, every form.
    static let advisoryFunctions = [
        "pg_advisory_lock(bigint)", "pg_advisory_lock(integer, integer)", "pg_advisory_lock_shared(bigint)",
        "pg_advisory_lock_shared(integer, integer)", "pg_try_advisory_lock(bigint)", "pg_try_advisory_lock(integer, integer)",
        "pg_try_advisory_lock_shared(bigint)", "pg_try_advisory_lock_shared(integer, integer)", "pg_advisory_xact_lock(bigint)",
        "pg_advisory_xact_lock(integer, integer)", "pg_advisory_xact_lock_shared(bigint)", "pg_advisory_xact_lock_shared(integer, integer)",
        "pg_try_advisory_xact_lock(bigint)", "pg_try_advisory_xact_lock(integer, integer)", "pg_try_advisory_xact_lock_shared(bigint)",
        "pg_try_advisory_xact_lock_shared(integer, integer)", "pg_advisory_unlock(bigint)", "pg_advisory_unlock(integer, integer)",
        "pg_advisory_unlock_shared(bigint)", "pg_advisory_unlock_shared(integer, integer)", "pg_advisory_unlock_all()",
    ].map { "pg_catalog." + $0 }

    /// PostgreSQL's large-object functions that a client may call (psql's \\lo_import uses them too).
    static let largeObjectFunctions = [
        "lo_creat(integer)", "lo_create(oid)", "lo_from_bytea(oid, bytea)", "lo_open(oid, integer)", "lowrite(integer, bytea)",
        "lo_put(oid, bigint, bytea)", "loread(integer, integer)", "lo_get(oid)", "lo_get(oid, bigint, integer)",
        "lo_truncate(integer, integer)", "lo_truncate64(integer, bigint)", "lo_unlink(oid)", "lo_import(text)", "lo_import(text, oid)",
        "lo_export(oid, text)",
    ].map { "pg_catalog." + $0 }

    /// What the owner's own functions call of those: the seat's lock (`carrel_seat_lock`), the
    /// migrations' lock, the command notice (`carrel_commands_notify`) and the janitor. Granted
    /// to the owner by name (what PUBLIC has now, the REVOKE takes away).
    static let ownerFunctions = [
        "pg_catalog.pg_try_advisory_lock(bigint)", "pg_catalog.pg_advisory_unlock(bigint)", "pg_catalog.pg_advisory_xact_lock(bigint)",
        "pg_catalog.pg_notify(text, text)", "pg_catalog.pg_terminate_backend(integer, bigint)",
    ]

    /// The most temporary file space one seat connection may use (sorts and hashes of its calls).
    static let seatTempFileLimit = "64MB"

    static func superuserSteps(seat: String, owner: String, database: String, names: (seat: String, owner: String, database: String),
                               ownerIsSuperuser: Bool) -> [SuperuserStep] {
        let seatRole = literal(names.seat), ownerRole = literal(names.owner), databaseName = literal(names.database)
        let signals = ["pg_catalog.pg_terminate_backend(integer, bigint)", "pg_catalog.pg_cancel_backend(integer)"]
        let shared = advisoryFunctions + largeObjectFunctions + ["pg_catalog.pg_notify(text, text)"]
        func anyOf(_ functions: [String], _ role: String) -> String {
            functions.map { "has_function_privilege(\(role), \(literal($0)), 'EXECUTE')" }.joined(separator: " OR ")
        }
        var steps = [
            SuperuserStep(sql: "REVOKE EXECUTE ON FUNCTION \(signals.joined(separator: ", ")) FROM PUBLIC",
                          needed: "SELECT \(anyOf(signals, seatRole))"),
            SuperuserStep(sql: "REVOKE EXECUTE ON FUNCTION \(shared.joined(separator: ", ")) FROM PUBLIC",
                          needed: "SELECT \(anyOf(shared, seatRole))"),
        ]
        if !ownerIsSuperuser {
            steps.append(SuperuserStep(sql: "GRANT EXECUTE ON FUNCTION \(ownerFunctions.joined(separator: ", ")) TO \(owner)",
                                       needed: """
                                           SELECT NOT bool_and(EXISTS (SELECT 1 FROM aclexplode(p.proacl) x JOIN pg_roles r ON r.oid = x.grantee
                                                                       WHERE r.rolname = \(ownerRole) AND x.privilege_type = 'EXECUTE'))
                                           FROM pg_proc p WHERE p.oid IN (\(ownerFunctions.map { "\(literal($0))::regprocedure" }.joined(separator: ", ")))
                                           """))
            steps.append(SuperuserStep(sql: "GRANT pg_signal_backend, pg_read_all_stats TO \(owner)",
                                       needed: "SELECT NOT (pg_has_role(\(ownerRole), 'pg_signal_backend', 'MEMBER') AND pg_has_role(\(ownerRole), 'pg_read_all_stats', 'MEMBER'))"))
        }
        steps.append(SuperuserStep(sql: "REVOKE TEMPORARY ON DATABASE \(database) FROM PUBLIC", ownerMay: true,
                                   needed: "SELECT has_database_privilege(\(seatRole), \(databaseName), 'TEMP')"))
        steps.append(SuperuserStep(sql: "ALTER ROLE \(seat) SET temp_file_limit = '\(seatTempFileLimit)'",
                                   needed: """
                                       SELECT NOT EXISTS (SELECT 1 FROM pg_db_role_setting d JOIN pg_roles r ON r.oid = d.setrole
                                         WHERE r.rolname = \(seatRole) AND d.setdatabase = 0
                                           AND 'temp_file_limit=\(seatTempFileLimit)' = ANY(d.setconfig))
                                       """))
        return steps
    }

    /// `text` as an SQL literal (names of roles and databases: quotes doubled).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// The seat role's limits (`ALTER ROLE … SET`).
    static let seatRoleSettings = [
        "statement_timeout = '10s'", "lock_timeout = '2s'", "idle_in_transaction_session_timeout = '10s'",
    ]

    /// PostgreSQL's SCRAM-SHA-256 verifier of `password` (RFC 5802 and 7677, as
    /// `password_encryption = scram-sha-256` stores it): `SCRAM-SHA-256$ITERATIONS:SALT$STOREDKEY:SERVERKEY`.
    /// A password in this form is stored as it is; the server never sees the password.
    static func scramVerifier(_ password: String, iterations: Int = 4096, salt: [UInt8]? = nil) throws -> String {
        let salt = salt ?? (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        // Letters and digits only (`randomPassword`): SASLprep leaves them as they are.
        let salted = try KDF.Insecure.PBKDF2.deriveKey(from: Array(password.utf8), salt: salt, using: .sha256,
                                                       outputByteCount: 32, unsafeUncheckedRounds: iterations)
        let clientKey = HMAC<SHA256>.authenticationCode(for: Array("Client Key".utf8), using: salted)
        let storedKey = SHA256.hash(data: Array(clientKey))
        let serverKey = HMAC<SHA256>.authenticationCode(for: Array("Server Key".utf8), using: salted)
        func base64<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 { Data(bytes).base64EncodedString() }
        return "SCRAM-SHA-256$\(iterations):\(base64(salt))$\(base64(storedKey)):\(base64(serverKey))"
    }

    /// 24 letters and digits from the system's random source.
    static func randomPassword() -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }
}
