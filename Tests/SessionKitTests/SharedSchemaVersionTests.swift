import AssessmentKit
import Crypto
import Foundation
import Testing
@testable import SharedStore

/// The store's migrations as GRDB's migrator keeps its own: in version order, and each version,
/// once stores have run it, never changed (a store that applied it would never see the change;
/// the next version makes it instead).
@Suite("The shared store's schema versions")
struct SharedSchemaVersionTests {
    /// SHA-256 of each version's SQL as it shipped.
    static let shipped = [
        1: "068d2763539761b0a0bfe1f105f87de286ac68777964ed65f3c1226ef8ae83cb",
        2: "121acee7507f7f7c12dfaa59e5a0099f918d6dece9b8f5df5a84acd9242b65a2",
        3: "8e6a2a1c50bade85b178a4accff96e06f5c6bd8655a7af8aea9caa0905b1538d",
        4: "99bdcb2c0219790e7dc8a6014d588a9583d17a9956d8e9ca8353184d08aba609",
        5: "04749fbbb616029134e9bba9eafbc3b65b72d2c9565b4857bf2fd3755917bd79",
        6: "f140beaa99c3a352982a92a1561f765046b6715c338556df410c7de9d1b8c2c0",
        7: "b9b1c26d6690e6ca81613df956363660d10b785eca23e200312d68b1b2c1fe8b",
        8: "94161335a101508b40b091ca8ffa8be3647539e14628d41a1b434f59a3214513",
        9: "5e941fd3bbca9a068996a745da6473db07520692ae457b28e455532b5d765da4",
        10: "dc041184d561e148e835cd508da248dd3089e017de94cd9650203e209f176db0",
        11: "757a1c7ea911dd8aaa8cacee1d70e2852401ca8245c69e505517d3a3903f77d2",
        12: "5e079aa0e077144852264f587f302841dca8f4252f2e6908a66e4d9402a237b0",
        13: "2cfdc6043e135692d7a4af785f9080843b13a6b04555c4da235a7c7ebba0dca2",
        14: "667b5c330f0e1e0018504e2f32a99a66b2f736dc91320c04f7efd88fa6507446",
    ]

    @Test func versionsRunInOrderAndNoShippedVersionChanges() {
        #expect(SharedSchema.migrations.map(\.0) == Array(1...SharedSchema.version))
        for (version, sql) in SharedSchema.migrations {
            let digest = Fingerprint.hex(SHA256.hash(data: Array(sql.utf8)))
            #expect(digest == Self.shipped[version], "version \(version) changed (its digest is now \(digest)): make the change in a new version")
        }
    }

    /// The grants docs/deployment.md tells an owner to run by hand are the ones `store init`
    /// makes: a seat's role gets exactly the functions that ask for proof, none that trusted
    /// a session id it named.
    @Test func theDeploymentGuidesSeatGrantsAreTheStoresOwn() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/deployment.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let grant = try #require(text.range(of: "GRANT EXECUTE ON FUNCTION carrel_schema_version(), carrel_room_plan"))
        let end = try #require(text.range(of: "TO carrel_seat;", range: grant.lowerBound..<text.endIndex))
        func signatures(_ s: Substring) -> Set<String> {
            let compact = s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            var out: Set<String> = []
            var rest = compact[...]
            while let name = rest.range(of: "carrel_"), let close = rest.range(of: ")", range: name.lowerBound..<rest.endIndex) {
                out.insert(String(rest[name.lowerBound..<close.upperBound]))
                rest = rest[close.upperBound...]
            }
            return out
        }
        let documented = signatures(text[grant.lowerBound..<end.lowerBound])
        let granted = signatures(SharedSchema.seatFunctions[...])
        #expect(granted.count >= 10, "the list is read, not empty")
        #expect(documented == granted)
        #expect(!text.contains("GRANT INSERT ON carrel_records"))
        // And the procedure a seat publishes with (a procedure is granted as one).
        let procedure = try #require(text.range(of: "GRANT EXECUTE ON PROCEDURE carrel_publish_committed"))
        let procedureEnd = try #require(text.range(of: "TO carrel_seat;", range: procedure.lowerBound..<text.endIndex))
        #expect(signatures(text[procedure.lowerBound..<procedureEnd.lowerBound]) == signatures(SharedSchema.seatProcedures[...]))
    }
}

/// A session's records as a chain: each MAC names the record's place, and the check finds the
/// places missing.
@Suite("The chain of a session's records")
struct RecordChainTests {
    @Test func aMACNamesItsPlaceAndOnlyTheKeyMakesIt() {
        let key = Array(repeating: UInt8(3), count: 32)
        let mac = SessionMAC.record(key: key, session: "s", seq: 9, link: 4, kind: "answer", body: "{}")
        #expect(mac.hasPrefix("2.4."))
        #expect(SessionMAC.link(of: mac) == 4)
        #expect(mac != SessionMAC.record(key: key, session: "s", seq: 9, link: 5, kind: "answer", body: "{}"), "the place is in the MAC")
        #expect(SessionMAC.link(of: "2.x.abc") == nil && SessionMAC.link(of: "2.-1.abc") == nil && SessionMAC.link(of: nil) == nil)
        #expect(SessionMAC.link(of: SessionMAC.record(key: key, session: "s", seq: 9, kind: "answer", body: "{}")) == nil)
    }

    @Test func theHolesOfAChainAreSaidInRuns() {
        #expect(SharedReader.holes([]) == "")
        #expect(SharedReader.holes([1, 2, 3]) == "")
        #expect(SharedReader.holes([1, 2, 4, 8]) == "3, 5–7")
        #expect(SharedReader.holes([2]) == "1")
    }
}
