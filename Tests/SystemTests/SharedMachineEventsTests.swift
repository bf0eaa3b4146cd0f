import Foundation
import SessionTestSupport
import Testing

/// What assessment mode saw on a seat's machine reaches the console from the store: each
/// `machine_incident` event counted on the seat's row with the last one, the mode's state from
/// its `assessment_mode` events; a hostile detail is shown without its control characters.
@Suite("Machine incidents in the store")
struct SharedMachineEventsTests {
    @Test func incidentsAndTheModesStateReachTheConsoleAsTheyArrive() throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        let database = String(url.split(separator: "/").last ?? "")
        // A seat that publishes makes the store's schema.
        let honest = try #require(try SharedStoreTests.Seat(url: url, passwordFile: pg.passwordFile, room: "lab", seat: "OK"))
        #expect(honest.submit() != nil)
        #expect(honest.child.waitStatus() == 0)
        let records = [
            "INSERT INTO carrel_records VALUES ('m-1', 1, 'session', now(), '{\"room\":\"lab\",\"seat\":\"A7\",\"candidate\":\"Ada\",\"total\":3}')",
            "INSERT INTO carrel_records VALUES ('m-1', 2, 'event', now(), '{\"kind\":\"assessment_mode\",\"detail\":\"began: network: ada (uid 1001) reaches 10.0.0.5:5432 only\"}')",
            "INSERT INTO carrel_records VALUES ('m-1', 3, 'event', now(), '{\"kind\":\"machine_incident\",\"detail\":\"process: process 42 of ada: sleep 30 (reported)\"}')",
            "INSERT INTO carrel_records VALUES ('m-1', 4, 'event', now(), '{\"kind\":\"machine_incident\",\"detail\":\"process: \\u001b[2Jevil\\u0007 (reported)\"}')",
            "INSERT INTO carrel_records VALUES ('m-1', 5, 'event', now(), '{\"kind\":\"paste_blocked\",\"detail\":\"3 characters\"}')",
            "INSERT INTO carrel_records VALUES ('m-1', 6, 'event', now(), '{\"kind\":\"machine_incident\",\"detail\":[1,2]}')",
        ]
        SharedStoreTests.run(records, on: pg, database: database)
        let console = try SharedReaderHostileTests().carrel(pg, ["proctor", "--shared", url, "--json"])
        #expect(console.status == 0, "\(console.out)")
        #expect(!console.out.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "no control character reaches the proctor")
        let seats = try #require(try JSONSerialization.jsonObject(with: Data(console.out.utf8)) as? [String: Any])["seats"] as? [[String: Any]]
        let seat = try #require(seats?.first { $0["session"] as? String == "m-1" })
        #expect(seat["machine_incidents"] as? Int == 3, "every incident counted, even one whose detail is not text: \(seat)")
        #expect((seat["last_incident"] as? String)?.contains("evil") == false, "the last readable one is kept: \(seat)")
        #expect((seat["assessment_mode"] as? String)?.hasPrefix("began: network: ada") == true)
        #expect(seat["paste_attempts"] as? Int == 1, "the store's other counts are as before")
    }
}
