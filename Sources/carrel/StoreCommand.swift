import ArgumentParser
import AssessmentKit
import Foundation
import SharedStore

/// `carrel store init`: sets up a lab's shared store in one step, as the database's owner.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Set up a lab's shared store (the database's owner, once).",
        subcommands: [StoreInit.self]
    )
}

struct StoreInit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create or update the schema, the seat and proctor roles and their grants.",
        discussion: """
            Run as the database's owner (a role that may create roles: CREATEROLE). Creates \
            Carrel's tables (or brings them up to date), the seat role (add records, read its \
            own room's plan and commands; read no table) and the proctor role (read \
            everything, write room plans and commands), with a new password each when it is \
            created, and prints the ~/.pgpass lines to hand out. Students know the seat role's \
            password, so it gets a small connection limit (--shared-seat-connections): what \
            unenrolled seats and practice sessions share. Enrolled machines (`carrel seat \
            enroll`) log in as roles of their own, 3 connections each; store init prints how \
            many the server takes: max_connections, less superuser_reserved_connections, \
            --proctor-reserve and the shared role's limit, divided by 3. Running it again \
            changes nothing but the grants and the limits.
            """
    )

    @OptionGroup var store: StoreOption
    @Option(name: .customLong("seat-role"), help: "The seats' role.") var seatRole = "carrel_seat"
    @Option(name: .customLong("proctor-role"), help: "The proctors' role.") var proctorRole = "carrel_proctor"
    @Option(name: .customLong("proctor-reserve"), help: "Connections kept free of seats for proctors.") var proctorReserve = 10
    @Option(name: .customLong("shared-seat-connections"), help: ArgumentHelp(
        "Connections of the shared seat role: what unenrolled seats (a spare admitted by hand) and practice sessions share; 20 takes a few of each at once. Its password is known to students, who may hold all of them, so keep it small: enrolled machines log in as their own roles and do not use it.",
        valueName: "n"))
    var sharedSeatConnections = StoreSetup.defaultSharedConnections

    func validate() throws {
        for role in [seatRole, proctorRole] {
            guard !role.isEmpty, role.count <= 63, role.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw ValidationError("a role name is 1 to 63 ASCII letters, digits or underscores")
            }
        }
        guard proctorReserve >= 1, proctorReserve <= 1000 else { throw ValidationError("--proctor-reserve: from 1 to 1000") }
        guard sharedSeatConnections >= 1, sharedSeatConnections <= 10000 else {
            throw ValidationError("--shared-seat-connections: from 1 to 10000")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let url = try store.required(by: "store init")
            let report: StoreSetup.Report
            do {
                report = try await StoreSetup.initialise(url, seatRole: seatRole, proctorRole: proctorRole, proctorReserve: proctorReserve,
                                                         sharedConnections: sharedSeatConnections)
            } catch {
                let why = url.redacting(SeatPublisher.describe(error))
                if why.contains("permission denied") {
                    throw CarrelFailure(status: .refused, message: "cannot set up the store as \(url.user): \(why); run it as the database's owner, with CREATEROLE (docs/deployment.md)")
                }
                throw CarrelFailure(status: .cannotOpenInput, message: "cannot set up the shared store \(url): \(why)")
            }
            let capacity = report.machineCapacity
            var out = [
                "The shared store is ready: schema version \(report.schemaVersion); the shared seat role may hold \(report.seatConnectionLimit) connections (unenrolled seats and practice).",
                "This server takes \(capacity.machines) enrolled machines (\(capacity.reckoning)); \(capacity.enrolled) enrolled now.",
                "For more, raise max_connections in postgresql.conf (max_connections \(capacity.maxConnections(for: capacity.machines + 30)) takes \(capacity.machines + 30)) and restart PostgreSQL, then run `carrel store init` again.",
            ]
            for role in report.existing { out.append("Role \(role) already existed: its password is unchanged.") }
            if !report.created.isEmpty {
                out.append("")
                out.append("Hand out these ~/.pgpass lines (mode 0600); they are shown once:")
                for (role, password) in report.created {
                    out.append("\(report.host):\(report.port):\(report.database):\(role):\(password)")
                }
            }
            out.append("")
            FileOutput.standardOutput.write(out.joined(separator: "\n"))
            for warning in report.warnings { Console.error("warning: \(warning)") }
            if capacity.enrolled > capacity.machines {
                Console.error("warning: \(capacity.enrolled) machines are enrolled and the server takes \(capacity.machines): when all of them are in a room, some cannot connect; raise max_connections to \(capacity.maxConnections(for: capacity.enrolled)) or lower --shared-seat-connections or --proctor-reserve")
            }
        }
    }
}
