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
        let server = try PostgresCluster()
        defer { server.stop() }
        let config = Realm.Configuration(fileURL: directory.fileURL("offline.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(server.connectionString), classes: SyncModels.synced)
        defer { stopLater(client) }
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
        #expect(await client.pendingUploads == 1)

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
        defer { stopLater(first) }
        try await first.start()
        let second = try await SyncClient(configuration: config, server: PostgresServer(database), classes: SyncModels.synced)
        defer { stopLater(second) }
        let error = await #expect(throws: RealmError.self) { try await second.start() }
        #expect(error?.description.contains("Another sync client") == true)
    }
}

/// Downloaded changes in the file's change streams, told apart from local ones.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncChangeStreamTests {
    typealias Todo = SyncModels.SyncTodo

    @Test func aDownloadIsACommitTheStreamsSeeAndTheClientNames() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let config = Realm.Configuration(fileURL: directory.fileURL("streams.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(database), classes: SyncModels.synced)
        defer { stopLater(client) }
        try await client.start()
        let realm = try Realm(configuration: config)
        var downloads = client.downloads.makeAsyncIterator()
        var changes = realm.changes().makeAsyncIterator()
        guard case .initial = await changes.next() else { throw TestPostgresError("the stream did not start with .initial") }

        // A local write, uploaded: its echo from the server changes nothing, so no download.
        try realm.write { try realm.add(Todo(id: "local", title: "t")) }
        guard case .update(let localVersion, let localClasses) = await changes.next() else {
            throw TestPostgresError("no update for the local write")
        }
        #expect(localClasses == ["SyncTodo"])
        try await client.waitForUpload()
        try await client.waitForDownload()

        let sql = try PostgresConnection(database)
        try sql.execute("UPDATE \"SyncTodo\" SET title = 'remote' WHERE id = 'local'")
        try await client.waitForDownload()
        let download = try #require(await downloads.next())
        #expect(download.classNames == ["SyncTodo"])
        #expect(download.objectCount == 1)
        #expect(download.versionNumber > localVersion)
        guard case .update(let remoteVersion, let remoteClasses) = await changes.next() else {
            throw TestPostgresError("no update for the download")
        }
        // The update covers the commits after the previous one up to its version: the download
        // is among them.
        #expect(download.versionNumber <= remoteVersion)
        #expect(remoteClasses == ["SyncTodo"])
        _ = realm.refresh()
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "local")?.title == "remote")
    }
}

/// `burrow_sync.prune` keeps the change log small without a client missing a change.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncPruneTests {
    typealias Todo = SyncModels.SyncTodo

    @Test func aClientLongAwayDownloadsEverythingAfterPruning() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let activeConfig = Realm.Configuration(fileURL: directory.fileURL("active.burrow"), objectTypes: SyncModels.types)
        let awayConfig = Realm.Configuration(fileURL: directory.fileURL("away.burrow"), objectTypes: SyncModels.types)
        let active = try await SyncClient(configuration: activeConfig, server: PostgresServer(database), classes: SyncModels.synced)
        defer { stopLater(active) }
        try await active.start()
        let away = try await SyncClient(configuration: awayConfig, server: PostgresServer(database), classes: SyncModels.synced)
        try await away.start()
        await away.stop()
        let awayID = try #require(try Realm(configuration: awayConfig).syncClientID())

        let sql = try PostgresConnection(database)
        try sql.execute("INSERT INTO \"SyncTodo\" (id, title) VALUES ('while-away', 'missed?')")
        try await active.waitForDownload()
        // The away client was last seen long ago: pruning no longer keeps changes for it.
        try sql.execute("UPDATE burrow_sync.clients SET seen = now() - interval '60 days' WHERE client_id = $1::uuid", [awayID.uuidString])
        // A client's checkpoint keeps every change after the oldest transaction running in the
        // cluster when it was taken (other tests' included): prune after downloads until the
        // change is gone.
        var pruned = false
        for _ in 0..<100 where !pruned {
            try await active.waitForDownload()
            _ = try sql.execute("SELECT burrow_sync.prune()")
            pruned = try sql.execute("SELECT count(*) FROM burrow_sync.changes WHERE 'while-away' = ANY(primary_keys)").rows == [["0"]]
            if !pruned { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(pruned)

        let back = try await SyncClient(configuration: awayConfig, server: PostgresServer(database), classes: SyncModels.synced)
        defer { stopLater(back) }
        try await back.start()
        let realm = try Realm(configuration: awayConfig)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "while-away")?.title == "missed?")
    }
}
