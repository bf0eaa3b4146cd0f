import Foundation
import SessionTestSupport
import Testing
@testable import SharedStore

/// The store's migrations on a real PostgreSQL: a store left at any older version by an older
/// Carrel ends, once opened by this one, with the schema a new store is created with.
@Suite("The shared store's schema on a real PostgreSQL", .enabled(if: TestEnvironment.runs(whenInstalled: PrivatePostgres.unavailable == nil), "needs PostgreSQL (scripts/install-deps)"))
struct SharedSchemaTests {
    /// Every column, constraint, index, function (its whole definition and its grants) and
    /// trigger of the store's schema, one per line, in a stable order.
    static let catalog = """
        SELECT 'column ' || table_name || '.' || column_name || ' #' || ordinal_position || ' ' || data_type || ' '
               || coalesce(column_default, '-') || ' ' || is_nullable
          FROM information_schema.columns WHERE table_schema = current_schema()
        UNION ALL SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
          FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
        UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
        UNION ALL SELECT 'function ' || pg_get_functiondef(oid) || ' ' || coalesce(proacl::text, '-')
          FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
        UNION ALL SELECT 'trigger ' || pg_get_triggerdef(t.oid)
          FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
          WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
        ORDER BY 1
        """

    /// The store's schema as `catalog` lists it.
    static func schema(_ pg: PrivatePostgres, _ url: String) throws -> String {
        let database = String(url.split(separator: "/").last ?? "")
        let out = pg.psql(catalog, database: database)
        try #require(out.status == 0, "\(out.output)")
        return out.output
    }

    /// Migrates the store at `url` up to `version` (this build's, by default), as opening it does.
    static func migrate(_ pg: PrivatePostgres, _ url: String, upTo version: Int = SharedSchema.version) async throws {
        let shared = try SharedURL.parse(url, environment: ["PGPASSFILE": pg.passwordFile])
        let logger = StoreCall.quietLogger
        let c = try await StoreCall.connect(try shared.configuration(applicationName: "carrel schema test"), logger: logger)
        try await StoreCall.run(c, "BEGIN", logger: logger)
        try await SharedSchema.migrate(c, upTo: version, logger: logger)
        try await StoreCall.run(c, "COMMIT", logger: logger)
        try await c.close()
    }

    @Test(arguments: 1..<SharedSchema.version)
    func aStoreAtAnOlderVersionEndsWithTheSchemaOfANewOne(older: Int) async throws {
        let pg = try PrivatePostgres.shared()
        let new = try pg.database()
        try await Self.migrate(pg, new)
        let old = try pg.database()
        try await Self.migrate(pg, old, upTo: older)
        #expect(try Self.schema(pg, old) != Self.schema(pg, new))
        // Opened by this build, as a seat or a console opens it.
        let shared = try SharedURL.parse(old, environment: ["PGPASSFILE": pg.passwordFile])
        let c = try await StoreCall.open(shared, as: "carrel schema test", logger: StoreCall.quietLogger, timeout: 30)
        try await c.close()
        let expected = try Self.schema(pg, new)
        #expect(try Self.schema(pg, old) == expected)
        #expect(expected.contains("function CREATE OR REPLACE FUNCTION public.carrel_hello"))
    }

    /// Version 13's procedure is granted to each role that could publish before it.
    @Test func aRoleThatPublishedAtVersion12MayPublishCommittedAt13() async throws {
        let pg = try PrivatePostgres.shared()
        let url = try pg.database()
        let database = String(url.split(separator: "/").last ?? "")
        try await Self.migrate(pg, url, upTo: 12)
        let role = "seat_" + database
        let publish = "carrel_publish(text[], text[], text[], int8[], text[], timestamptz[], text[], text[])"
        let granted = pg.psql("CREATE ROLE \(role); GRANT EXECUTE ON FUNCTION \(publish) TO \(role)", database: database)
        try #require(granted.status == 0, "\(granted.output)")
        try await Self.migrate(pg, url)
        let may = pg.psql("""
            SELECT has_function_privilege('\(role)', '\(SharedSchema.seatProcedures)', 'EXECUTE'),
                   has_function_privilege('public', '\(SharedSchema.seatProcedures)', 'EXECUTE')
            """, database: database)
        #expect(may.output.trimmingCharacters(in: .whitespacesAndNewlines) == "t|f", "\(may.output)")
    }
}
