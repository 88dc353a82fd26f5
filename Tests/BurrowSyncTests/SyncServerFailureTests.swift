import Burrow
import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowSync

/// The server stopped and started again under a running client.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncServerFailureTests {
    typealias Todo = SyncModels.SyncTodo

    @Test func localWritesGoOnWhileTheServerIsDownAndGoUpWhenItIsBack() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestPostgres()
        defer { server.stop() }
        let config = Realm.Configuration(fileURL: directory.fileURL("offline.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(server.connectionString), classes: SyncModels.synced)
        defer { Task { await client.stop() } }
        try await client.start()
        let realm = try Realm(configuration: config)
        try realm.write { try realm.add(Todo(id: "before", title: "t")) }
        try await client.waitForUpload()

        var states = client.states.makeAsyncIterator()
        try server.kill()
        try realm.write { try realm.add(Todo(id: "while-down", title: "t")) }
        var sawOffline = false
        while let state = await states.next() {
            if case .offline(let error) = state {
                sawOffline = true
                #expect(!error.description.isEmpty)
                break
            }
        }
        #expect(sawOffline)
        #expect(try await client.pendingUploads == 1)

        try server.start()
        try await client.waitForUpload()
        let sql = try PostgresConnection(server.connectionString)
        #expect(try sql.execute("SELECT id FROM \"SyncTodo\" ORDER BY id").rows == [["before"], ["while-down"]])
        // Downloads resume too: the listener reconnected.
        try sql.execute("INSERT INTO \"SyncTodo\" (id, title) VALUES ('after', 'from SQL')")
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "after") != nil)
    }

    @Test func aSecondClientForTheSameFileIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let config = Realm.Configuration(fileURL: directory.fileURL("one.burrow"), objectTypes: SyncModels.types)
        let first = try await SyncClient(configuration: config, server: PostgresServer(database), classes: SyncModels.synced)
        defer { Task { await first.stop() } }
        try await first.start()
        let second = try await SyncClient(configuration: config, server: PostgresServer(database), classes: SyncModels.synced)
        defer { Task { await second.stop() } }
        let error = await #expect(throws: RealmError.self) { try await second.start() }
        #expect(error?.description.contains("Another sync client") == true)
    }
}
