import Foundation
import Logging
import PostgresNIO

/// Enrolled machines in the store: registered by `carrel seat enroll`, permitted by a room's
/// plan, checked by the console and `proctor start`, and seats admitted one by one
/// (`carrel proctor admit`). The proctor's role (or the owner's); a seat's role reads none of it.
extension SharedReader {
    /// Registers (or registers again, with a new key or lab) the machine `name`, and makes or
    /// changes its own login (schema version 8), whose password only its key gives: the
    /// server is sent `loginPassword`'s SCRAM verifier, never the password. The owner's and a
    /// proctor's role alike go through `carrel_enroll_login`, which makes the login of an
    /// enrolled machine and nothing else, with the store's figures. One transaction: a login
    /// the server cannot take (its connections) leaves the machine as it was. Returns the
    /// role, and the enrolled machines the server takes and has.
    public func enroll(machine name: String, lab: String, publicKey: String,
                       loginPassword: String) async throws -> (role: String, capacity: Int, enrolled: Int) {
        let c = connection
        let logger = self.logger
        let verifier = try StoreSetup.scramVerifier(loginPassword)
        let rows = try await StoreCall.guarded(c, timeout: 20) {
            try await StoreCall.run(c, "BEGIN", logger: logger)
            do {
                try await StoreCall.run(c, """
                    INSERT INTO carrel_machines (name, lab, public_key) VALUES (\(name), \(lab), \(publicKey))
                    ON CONFLICT (name) DO UPDATE SET lab = excluded.lab, public_key = excluded.public_key,
                      enrolled_at = now(), enrolled_by = current_user, retired_at = NULL
                    """, logger: logger)
                let rows = try await StoreCall.rows(c, """
                    SELECT login, capacity::text, enrolled::text FROM carrel_enroll_login(\(name), \(verifier))
                    """, logger: logger)
                try await StoreCall.run(c, "COMMIT", logger: logger)
                return rows
            } catch {
                // The statement's error is the one to report; a connection that closed has rolled back.
                if !c.isClosed { try? await StoreCall.run(c, "ROLLBACK", logger: logger) }
                throw error
            }
        }
        guard let t = rows.first.flatMap(StoreRows.texts), t.count == 3, let role = t[0] else {
            throw SharedSchema.Problem(description: "the store made no login for machine \(name)")
        }
        return (role, t[1].flatMap { Int($0) } ?? 0, t[2].flatMap { Int($0) } ?? 0)
    }

    /// Sets the machines a room's seats may run on (`carrel room open --machines`).
    public func setMachines(room: String, rule: MachineRoom.Rule, lab: String?, listed: [String]) async throws {
        let c = connection
        let logger = self.logger
        let names = rule == .listed ? listed : nil
        try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.run(c, """
                UPDATE carrel_rooms SET machine_rule = \(rule.rawValue), lab = \(lab), machines = \(names)
                WHERE room = \(room) AND closed_at IS NULL
                """, logger: logger)
        }
    }

    /// Admits the waiting session `session` of `room` with the seat key it announced.
    public func admit(room: String, session: String, seatKey: String) async throws {
        let c = connection
        let logger = self.logger
        try await StoreCall.guarded(c, timeout: 10) {
            try await StoreCall.run(c, """
                INSERT INTO carrel_admissions (room, session, seat_key) VALUES (\(room), \(session), \(seatKey))
                ON CONFLICT (room, session) DO UPDATE SET seat_key = excluded.seat_key, admitted_at = now(),
                  admitted_by = current_user
                """, logger: logger)
        }
    }

    /// What the store says of `room`'s machines now; nil without an open plan.
    public func machineRoom(_ room: String) async throws -> MachineRoom? {
        let c = connection
        let logger = self.logger
        let (plan, machines, seals, admitted, identified, proven) = try await StoreCall.guarded(c, timeout: 10) {
            let plan = try await StoreCall.rows(c, """
                SELECT machine_rule, lab, array_to_string(machines, E'\\n'), carrel_digest, floor(extract(epoch FROM now()))::bigint::text,
                       (code_salt IS NOT NULL)::text
                FROM carrel_rooms WHERE room = \(room) AND closed_at IS NULL
                """, logger: logger)
            let machines = try await StoreCall.rows(c, """
                SELECT name, lab, public_key FROM carrel_machines WHERE retired_at IS NULL
                """, logger: logger)
            let seals = try await StoreCall.rows(c, """
                SELECT session, left(attestation->>'machine_statement', 3000), left(attestation->>'machine_signature', 200)
                FROM carrel_sessions WHERE room = \(room) AND status = 'not_started' AND attestation ? 'machine_statement'
                """, logger: logger)
            let admitted = try await StoreCall.rows(c, """
                SELECT session, seat_key FROM carrel_admissions WHERE room = \(room)
                """, logger: logger)
            // Waiting sessions whose own lookup found their candidate (with the code, in a room
            // whose roster has codes) under the token they announced themselves with.
            let identified = try await StoreCall.rows(c, """
                SELECT s.session, e->>'name', e->>'seat' FROM carrel_sessions s
                JOIN carrel_candidate_claims cl ON cl.session = s.session AND cl.room = s.room AND cl.token_hash = s.hello_hash
                  AND lower(cl.candidate) = lower(s.candidate_number)
                JOIN carrel_rooms r ON r.room = s.room AND r.closed_at IS NULL
                CROSS JOIN LATERAL jsonb_array_elements(coalesce(r.roster, '[]'::jsonb)) e
                WHERE s.room = \(room) AND s.status = 'not_started' AND lower(e->>'candidate') = lower(cl.candidate)
                """, logger: logger)
            // Every session of the room that proved its candidate's code (for the console's flag
            // on a running seat a proctor admitted without one).
            let proven = try await StoreCall.rows(c, """
                SELECT s.session FROM carrel_sessions s
                JOIN carrel_candidate_claims cl ON cl.session = s.session AND cl.room = s.room AND cl.token_hash = s.hello_hash
                  AND lower(cl.candidate) = lower(s.candidate_number)
                WHERE s.room = \(room) AND s.status <> 'not_started'
                """, logger: logger)
            return (plan, machines, seals, admitted, identified, proven)
        }
        guard let p = plan.first.flatMap(StoreRows.texts), p.count == 6 else { return nil }
        var room = MachineRoom(rule: MachineRoom.Rule(rawValue: p[0] ?? "") ?? .enrolled, lab: p[1],
                               listed: (p[2] ?? "").split(separator: "\n").map(String.init), carrelDigest: p[3] ?? "",
                               machines: [:], seals: [:], admissions: [:], storeTime: (p[4]).flatMap { Int64($0) })
        for row in machines {
            guard let t = StoreRows.texts(row), t.count == 3, let name = t[0], let lab = t[1], let key = t[2] else { continue }
            room.machines[name] = MachineRoom.Machine(lab: lab, publicKey: key)
        }
        for row in seals {
            guard let t = StoreRows.texts(row), t.count == 3, let session = t[0], let text = t[1], let signature = t[2] else { continue }
            room.seals[session] = MachineRoom.Seal(statement: text, signature: signature)
        }
        room.codes = p[5] == "true"
        for row in identified {
            guard let t = StoreRows.texts(row), t.count == 3, let session = t[0] else { continue }
            room.identified[session] = MachineRoom.RosterName(name: t[1] ?? "", seat: t[2].flatMap { $0.isEmpty ? nil : $0 })
        }
        for row in proven {
            if let session = StoreRows.texts(row)?.first.flatMap({ $0 }) { room.proven.insert(session) }
        }
        for row in admitted {
            guard let t = StoreRows.texts(row), t.count == 2, let session = t[0], let key = t[1] else { continue }
            room.admissions[session] = key
        }
        return room
    }
}
