import AssessmentKit
import Crypto
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
        5: "99faa4580990acc6e8db09e80299dd580f40a4106894820485e5d65bd1205e78",
        6: "b9b1c26d6690e6ca81613df956363660d10b785eca23e200312d68b1b2c1fe8b",
    ]

    @Test func versionsRunInOrderAndNoShippedVersionChanges() {
        #expect(SharedSchema.migrations.map(\.0) == Array(1...SharedSchema.version))
        for (version, sql) in SharedSchema.migrations {
            let digest = Fingerprint.hex(SHA256.hash(data: Array(sql.utf8)))
            #expect(digest == Self.shipped[version], "version \(version) changed: make the change in a new version")
        }
    }
}
