import Burrow
import BurrowTestSupport
import Foundation
import Synchronization
import Testing

@testable import BurrowSync

/// What an upload costs PostgreSQL, and when a wait for it returns.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncUploadTests {
    typealias Todo = SyncModels.SyncTodo

    private func client(_ directory: TemporaryDirectory, database: String) async throws -> (SyncClient, Realm.Configuration) {
        let configuration = Realm.Configuration(fileURL: directory.fileURL("upload.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: SyncModels.synced)
        return (client, configuration)
    }

    @Test func aStatementRecordsItsChangedKeysInRowsOfAtMostTenThousand() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (client, configuration) = try await client(directory, database: database)
        defer { stopLater(client) }
        try await client.start()
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for index in 0..<50 { try realm.add(Todo(id: "todo \(index)", title: "number \(index)")) }
        }
        try await client.waitForUpload()

        // The batch's upsert is one statement: one row names its 50 keys.
        let sql = try PostgresConnection(database)
        let recorded = "SELECT count(*), sum(cardinality(primary_keys)) FROM burrow_sync.changes WHERE table_name = 'SyncTodo'"
        #expect(try sql.execute(recorded).rows == [["1", "50"]])
        // An update that changes a key records the old key and the new one.
        try sql.execute("UPDATE \"SyncTodo\" SET id = 'renamed' WHERE id = 'todo 7'")
        let keys = try sql.execute(
            "SELECT k FROM burrow_sync.changes, unnest(primary_keys) AS k WHERE id = (SELECT max(id) FROM burrow_sync.changes) ORDER BY k"
        ).rows
        #expect(keys == [["renamed"], ["todo 7"]])
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "todo 7") == nil)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "renamed")?.title == "number 7")
        #expect(realm.objects(Todo.self).count == 50)

        // A statement that changes 20,001 rows records them in three rows.
        try sql.execute("INSERT INTO \"SyncTodo\" (id, title) SELECT 'bulk ' || g, 'bulk' FROM generate_series(1, 20001) g")
        let bulk = try sql.execute(
            "SELECT count(*), sum(cardinality(primary_keys)), max(cardinality(primary_keys)) <= 10000 FROM burrow_sync.changes WHERE EXISTS (SELECT FROM unnest(primary_keys) AS k WHERE k LIKE 'bulk %')"
        ).rows
        #expect(bulk == [["3", "20001", "t"]])
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(try realm.objects(Todo.self).filter("title == 'bulk'").count == 20001)
    }

    @Test func aWaitForUploadReturnsWithoutWaitingForTheNextDownload() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (client, configuration) = try await client(directory, database: database)
        defer { stopLater(client) }
        try await client.start()

        // Every download reads burrow_sync.info first, and no upload does: while another
        // transaction holds it locked, a round uploads, then waits in its download.
        await client.pause()
        let locker = try PostgresConnection(database)
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE burrow_sync.info IN ACCESS EXCLUSIVE MODE")
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(Todo(id: "while locked", title: "goes up")) }
        let returned = Atomic(false)
        let wait = Task {
            try await client.waitForUpload()
            returned.store(true, ordering: .sequentiallyConsistent)
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while await client.uploadWaiterCount == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        await client.resume()
        while !returned.load(ordering: .sequentiallyConsistent) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let returnedWhileLocked = returned.load(ordering: .sequentiallyConsistent)
        let sql = try PostgresConnection(database)
        let uploaded = try sql.execute("SELECT title FROM \"SyncTodo\" WHERE id = 'while locked'").rows
        try locker.execute("ROLLBACK")
        try await wait.value
        #expect(returnedWhileLocked)
        #expect(uploaded == [["goes up"]])
        try await client.waitForDownload()
    }

    @Test func refusalsInLaterBatchesTakeOutOnlyTheRefusedObjects() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (client, configuration) = try await client(directory, database: database)
        defer { stopLater(client) }
        try await client.start()
        let sql = try PostgresConnection(database)
        try sql.execute("ALTER TABLE \"SyncTodo\" ADD CONSTRAINT no_refused_titles CHECK (title <> 'refused')")

        // Three batches: the second is read while the first runs, and holds an object the
        // server refuses; the third holds one the client refuses before sending.
        let count = SyncSession.uploadBatchSize * 2 + 1000
        let refused = "todo \(SyncSession.uploadBatchSize + 500)"
        let unsendable = "todo \(SyncSession.uploadBatchSize * 2 + 500)"
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for index in 0..<count {
                let todo = Todo(id: "todo \(index)", title: "number \(index)")
                if todo.id == refused { todo.title = "refused" }
                if todo.id == unsendable { todo.title = "nul \u{0} inside" }
                try realm.add(todo)
            }
        }
        try await client.waitForUpload()
        try await client.waitForDownload()

        #expect(Set(await client.rejectedUploads.map(\.primaryKey)) == [refused, unsendable])
        #expect(try sql.execute("SELECT count(*), count(DISTINCT id) FROM \"SyncTodo\"").rows == [["\(count - 2)", "\(count - 2)"]])
        #expect(try sql.execute("SELECT count(*) FROM \"SyncTodo\" WHERE id IN ($1, $2)", [refused, unsendable]).rows == [["0"]])
        _ = realm.refresh()
        // The refused objects are undone: the server does not hold them.
        #expect(realm.objects(Todo.self).count == count - 2)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: refused) == nil)
        #expect(await client.pendingUploads == 0)
    }
}
