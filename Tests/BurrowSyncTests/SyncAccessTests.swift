import Burrow
import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowSync

/// Grants and row-level security decide what a client sees and may write.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncAccessTests {
    typealias Todo = SyncModels.SyncTodo

    /// A database set up by a superuser's client, with a role `device_a` that may read and
    /// write only the todos whose id starts with its name, and use sync's functions.
    private func restrictedDatabase(_ directory: TemporaryDirectory) async throws -> (admin: String, device: String) {
        let admin = try TestPostgres.newDatabase()
        let setup = try await SyncClient(
            configuration: Realm.Configuration(fileURL: directory.fileURL("admin.burrow"), objectTypes: SyncModels.types),
            server: PostgresServer(admin), classes: SyncModels.synced)
        try await setup.start()
        await setup.stop()
        let sql = try PostgresConnection(admin)
        for statement in [
            "DO $$ BEGIN CREATE ROLE device_a LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
            "GRANT USAGE ON SCHEMA burrow_sync TO device_a",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON \"SyncTodo\", \"SyncPerson\" TO device_a",
            "ALTER TABLE \"SyncTodo\" ENABLE ROW LEVEL SECURITY",
            "CREATE POLICY own_todos ON \"SyncTodo\" USING (id LIKE current_user || '%') WITH CHECK (id LIKE current_user || '%')",
            "INSERT INTO \"SyncTodo\" (id, title) VALUES ('device_a-1', 'mine'), ('device_b-1', 'not mine')",
        ] {
            try sql.execute(statement)
        }
        return (admin, admin.replacingOccurrences(of: "user=postgres", with: "user=device_a"))
    }

    @Test func aClientSeesOnlyTheRowsItsRoleMaySelect() async throws {
        let directory = try TemporaryDirectory()
        let (_, device) = try await restrictedDatabase(directory)
        let config = Realm.Configuration(fileURL: directory.fileURL("device.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(device), classes: SyncModels.synced)
        defer { stopLater(client) }
        try await client.start()
        let realm = try Realm(configuration: config)
        #expect(realm.objects(Todo.self).map(\.id) == ["device_a-1"])
    }

    @Test func aRefusedWriteIsReportedTakenOutAndUndone() async throws {
        let directory = try TemporaryDirectory()
        let (admin, device) = try await restrictedDatabase(directory)
        let config = Realm.Configuration(fileURL: directory.fileURL("device.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(device), classes: SyncModels.synced)
        defer { stopLater(client) }
        try await client.start()
        let realm = try Realm(configuration: config)
        try realm.write {
            try realm.add(Todo(id: "device_b-2", title: "not allowed"))
            try realm.add(Todo(id: "device_a-2", title: "allowed"))
        }
        try await client.waitForUpload()
        try await client.waitForDownload()
        let rejected = await client.rejectedUploads
        #expect(rejected.map(\.primaryKey) == ["device_b-2"])
        #expect(rejected.first?.error.description.contains("row-level security") == true)
        #expect(await client.pendingUploads == 0)
        _ = realm.refresh()
        // The refused object is gone again (the server does not hold it); the allowed one stays.
        #expect(Set(realm.objects(Todo.self).map(\.id)) == ["device_a-1", "device_a-2"])
        let sql = try PostgresConnection(admin)
        #expect(try sql.execute("SELECT id FROM \"SyncTodo\" ORDER BY id").rows == [["device_a-1"], ["device_a-2"], ["device_b-1"]])
    }

    @Test func aRoleThatMayNotCreateTablesIsToldWhatIsMissing() async throws {
        let directory = try TemporaryDirectory()
        let admin = try TestPostgres.newDatabase()
        let sql = try PostgresConnection(admin)
        try sql.execute("DO $$ BEGIN CREATE ROLE device_plain LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
        try sql.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        let device = admin.replacingOccurrences(of: "user=postgres", with: "user=device_plain")
        let config = Realm.Configuration(fileURL: directory.fileURL("plain.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(device), classes: SyncModels.synced)
        defer { stopLater(client) }
        let error = await #expect(throws: RealmError.self) { try await client.start() }
        #expect(error?.description.contains("burrow_sync") == true)
        #expect(error?.description.contains("permission denied") == true, "\(String(describing: error))")
    }
}

/// Values PostgreSQL cannot hold are refused and reported, never cut short.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncUnrepresentableValueTests {
    typealias Todo = SyncModels.SyncTodo

    @Test func aStringWithANulCharacterIsRefusedNotTruncated() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let config = Realm.Configuration(fileURL: directory.fileURL("nul.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(database), classes: SyncModels.synced)
        defer { stopLater(client) }
        try await client.start()
        let realm = try Realm(configuration: config)
        try realm.write {
            try realm.add(Todo(id: "nul", title: "before\u{0}after"))
            try realm.add(Todo(id: "plain", title: "fine"))
        }
        try await client.waitForUpload()
        let rejected = await client.rejectedUploads
        #expect(rejected.map(\.primaryKey) == ["nul"])
        #expect(rejected.first?.error.description.contains("NUL") == true)
        let sql = try PostgresConnection(database)
        #expect(try sql.execute("SELECT id, title FROM \"SyncTodo\" ORDER BY id").rows == [["plain", "fine"]])
    }
}
