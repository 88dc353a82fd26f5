import Burrow
import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowSync

/// Sync clients against a real PostgreSQL: uploads, downloads, conflicts, plain SQL.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncClientTests {
    typealias Todo = SyncModels.SyncTodo
    typealias Person = SyncModels.SyncPerson

    /// Two files, "first" and "second", and a client for each, on `database`.
    private func twoClients(
        _ directory: TemporaryDirectory, database: String
    ) async throws -> (SyncClient, Realm.Configuration, SyncClient, Realm.Configuration) {
        let (first, firstConfig) = try await client(directory, "first", database: database)
        let (second, secondConfig) = try await client(directory, "second", database: database)
        return (first, firstConfig, second, secondConfig)
    }

    /// A file and a client for it, on the database `database`.
    private func client(_ directory: TemporaryDirectory, _ name: String, database: String) async throws -> (SyncClient, Realm.Configuration) {
        let configuration = Realm.Configuration(fileURL: directory.fileURL(name + ".burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: configuration, server: PostgresServer(database), classes: SyncModels.synced)
        return (client, configuration)
    }

    @Test func anObjectGoesUpAndComesDownOnAnotherClient() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (first, firstConfig, second, secondConfig) = try await twoClients(directory, database: database)
        defer { stopLater(first, second) }
        try await first.start()
        try await second.start()

        let firstRealm = try Realm(configuration: firstConfig)
        let due = Date(timeIntervalSince1970: 1_700_000_000.25)
        let reference = ObjectId()
        let token = UUID()
        try firstRealm.write {
            let person = Person()
            person.id = 7
            person.name = "Ali"
            let todo = Todo(id: "t1", title: "Walk \"Rex\"; 'twice'")
            todo.priority = -3
            todo.due = due
            todo.score = 0.1
            todo.attachment = Data([0, 1, 254, 255])
            todo.reference = reference
            todo.token = token
            todo.amount = try Decimal128(string: "12.50")
            todo.assignee = person
            try firstRealm.add(todo)
        }
        try await first.waitForUpload()
        #expect(await first.pendingUploads == 0)

        let sql = try PostgresConnection(database)
        #expect(try sql.execute("SELECT title, priority, assignee FROM \"SyncTodo\"").rows == [["Walk \"Rex\"; 'twice'", "-3", "7"]])

        try await second.waitForDownload()
        let secondRealm = try Realm(configuration: secondConfig)
        let copy = try #require(secondRealm.object(ofType: Todo.self, forPrimaryKey: "t1"))
        #expect(copy.title == "Walk \"Rex\"; 'twice'")
        #expect(copy.priority == -3)
        #expect(copy.due == due)
        #expect(copy.score == 0.1)
        #expect(copy.attachment == Data([0, 1, 254, 255]))
        #expect(copy.reference == reference)
        #expect(copy.token == token)
        #expect(try copy.amount == Decimal128(string: "12.50"))
        #expect(copy.assignee?.name == "Ali")
        // What came down is not queued to go up again.
        #expect(await second.pendingUploads == 0)

        // A delete travels the same way.
        try secondRealm.write { try secondRealm.delete(copy) }
        try await second.waitForUpload()
        try await first.waitForDownload()
        _ = firstRealm.refresh()
        #expect(firstRealm.object(ofType: Todo.self, forPrimaryKey: "t1") == nil)
    }

    @Test func plainSQLReachesTheClient() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (client, configuration) = try await client(directory, "sql", database: database)
        defer { stopLater(client) }
        try await client.start()
        let sql = try PostgresConnection(database)
        try sql.execute("INSERT INTO \"SyncTodo\" (id, title, done, priority, score) VALUES ('s1', 'from SQL', true, 2, 1.5)")
        try await client.waitForDownload()
        let realm = try Realm(configuration: configuration)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "s1")?.title == "from SQL")
        try sql.execute("UPDATE \"SyncTodo\" SET title = 'changed by SQL' WHERE id = 's1'")
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "s1")?.title == "changed by SQL")
        try sql.execute("DELETE FROM \"SyncTodo\" WHERE id = 's1'")
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "s1") == nil)
        // TRUNCATE names no row: the client compares the whole table.
        try sql.execute("INSERT INTO \"SyncTodo\" (id, title) VALUES ('s2', 'two'), ('s3', 'three')")
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(realm.objects(Todo.self).count == 2)
        try sql.execute("TRUNCATE \"SyncTodo\"")
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(realm.objects(Todo.self).isEmpty)
    }

    @Test func aTransactionThatCommitsAfterALaterOneIsNotMissed() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (client, configuration) = try await client(directory, "order", database: database)
        defer { stopLater(client) }
        try await client.start()
        let early = try PostgresConnection(database)
        let late = try PostgresConnection(database)
        try early.execute("BEGIN")
        try early.execute("INSERT INTO \"SyncTodo\" (id, title) VALUES ('early', 'began first')")
        try late.execute("INSERT INTO \"SyncTodo\" (id, title) VALUES ('late', 'began second, committed first')")
        try await client.waitForDownload()
        let realm = try Realm(configuration: configuration)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "late") != nil)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "early") == nil)
        try early.execute("COMMIT")
        try await client.waitForDownload()
        _ = realm.refresh()
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "early")?.title == "began first")
    }

    @Test func eachPropertyKeepsItsLastWriter() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (first, firstConfig, second, secondConfig) = try await twoClients(directory, database: database)
        defer { stopLater(first, second) }
        try await first.start()
        let firstRealm = try Realm(configuration: firstConfig)
        try firstRealm.write { try firstRealm.add(Todo(id: "shared", title: "original")) }
        try await first.waitForUpload()
        try await second.start()
        let secondRealm = try Realm(configuration: secondConfig)
        #expect(secondRealm.object(ofType: Todo.self, forPrimaryKey: "shared") != nil)

        // Both offline: one changes the title, the other the priority.
        await first.pause()
        await second.pause()
        try firstRealm.write { firstRealm.object(ofType: Todo.self, forPrimaryKey: "shared")!.title = "first's title" }
        try secondRealm.write { secondRealm.object(ofType: Todo.self, forPrimaryKey: "shared")!.priority = 9 }
        await first.resume()
        try await first.waitForUpload()
        await second.resume()
        try await second.waitForUpload()
        try await second.waitForDownload()
        try await first.waitForDownload()
        for realm in [firstRealm, secondRealm] {
            _ = realm.refresh()
            let todo = try #require(realm.object(ofType: Todo.self, forPrimaryKey: "shared"))
            #expect(todo.title == "first's title")
            #expect(todo.priority == 9)
        }
    }

    @Test func aDeleteWinsOverAConcurrentUpdate() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (first, firstConfig, second, secondConfig) = try await twoClients(directory, database: database)
        defer { stopLater(first, second) }
        try await first.start()
        let firstRealm = try Realm(configuration: firstConfig)
        try firstRealm.write { try firstRealm.add(Todo(id: "doomed", title: "original")) }
        try await first.waitForUpload()
        try await second.start()
        await second.pause()
        let secondRealm = try Realm(configuration: secondConfig)
        try secondRealm.write { secondRealm.object(ofType: Todo.self, forPrimaryKey: "doomed")!.title = "updated offline" }
        try firstRealm.write { try firstRealm.delete(firstRealm.object(ofType: Todo.self, forPrimaryKey: "doomed")!) }
        try await first.waitForUpload()
        await second.resume()
        try await second.waitForUpload()
        try await second.waitForDownload()
        _ = secondRealm.refresh()
        #expect(secondRealm.object(ofType: Todo.self, forPrimaryKey: "doomed") == nil)
        let sql = try PostgresConnection(database)
        #expect(try sql.execute("SELECT count(*) FROM \"SyncTodo\" WHERE id = 'doomed'").rows == [["0"]])
    }

    @Test func pendingChangesStayOnTopOfWhatComesDown() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (client, configuration) = try await client(directory, "pending", database: database)
        defer { stopLater(client) }
        try await client.start()
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(Todo(id: "mine", title: "local")) }
        try await client.waitForUpload()
        await client.pause()
        try realm.write { realm.object(ofType: Todo.self, forPrimaryKey: "mine")!.title = "local, not uploaded" }
        let sql = try PostgresConnection(database)
        try sql.execute("UPDATE \"SyncTodo\" SET title = 'server', priority = 5 WHERE id = 'mine'")
        // Download alone, as a round would before this client's upload: the pending title stays.
        let session = SyncSession(
            realm: realm, connection: try PostgresConnection(database),
            tables: try SyncModels.synced.map { try SyncedTable($0.className(), in: realm.currentFileSchema) },
            clientID: try #require(try realm.syncClientID()), silenced: [])
        _ = try session.download()
        _ = realm.refresh()
        let todo = try #require(realm.object(ofType: Todo.self, forPrimaryKey: "mine"))
        #expect(todo.title == "local, not uploaded")
        #expect(todo.priority == 5)
        await client.resume()
        try await client.waitForUpload()
        #expect(try sql.execute("SELECT title, priority FROM \"SyncTodo\" WHERE id = 'mine'").rows == [["local, not uploaded", "5"]])
    }

    @Test func aBatchSentAgainAfterALostReplyIsAppliedOnce() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let (client, configuration) = try await client(directory, "retry", database: database)
        try await client.start()
        await client.stop()
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(Todo(id: "once", title: "t")) }
        let session = SyncSession(
            realm: realm, connection: try PostgresConnection(database),
            tables: try SyncModels.synced.map { try SyncedTable($0.className(), in: realm.currentFileSchema) },
            clientID: try #require(try realm.syncClientID()), silenced: [])
        // The batch reaches PostgreSQL, but the file still holds it: the process died before
        // the acknowledgement.
        _ = try session.uploadBatch(acknowledging: false)
        #expect(try realm.pendingUploadCount() == 1)
        let sql = try PostgresConnection(database)
        // A plain SQL change after that upload must not be overwritten by the batch sent again.
        try sql.execute("UPDATE \"SyncTodo\" SET title = 'changed by SQL' WHERE id = 'once'")
        _ = try session.uploadBatch()
        #expect(try sql.execute("SELECT title, priority FROM \"SyncTodo\" WHERE id = 'once'").rows == [["changed by SQL", "0"]])
        #expect(try realm.pendingUploadCount() == 0)
    }
}

/// Lists, sets, maps, embedded objects and `AnyRealmValue` as `jsonb` columns.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncCollectionTests {
    typealias Todo = SyncModels.SyncTodo
    typealias Person = SyncModels.SyncPerson
    typealias Step = SyncModels.SyncStep

    @Test func collectionsEmbeddedObjectsAndAnyValuesRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let firstConfig = Realm.Configuration(fileURL: directory.fileURL("first.burrow"), objectTypes: SyncModels.types)
        let secondConfig = Realm.Configuration(fileURL: directory.fileURL("second.burrow"), objectTypes: SyncModels.types)
        let first = try await SyncClient(configuration: firstConfig, server: PostgresServer(database), classes: SyncModels.synced)
        let second = try await SyncClient(configuration: secondConfig, server: PostgresServer(database), classes: SyncModels.synced)
        defer { stopLater(first, second) }
        try await first.start()
        try await second.start()

        let realm = try Realm(configuration: firstConfig)
        let day = Date(timeIntervalSince1970: 86_400.5)
        try realm.write {
            let ali = Person()
            ali.id = 1
            ali.name = "Ali"
            let bo = Person()
            bo.id = 2
            bo.name = "Bo"
            let todo = Todo(id: "c1", title: "collections")
            todo.tags.append(objectsIn: ["a", "quote \" and \\ backslash", "üñí\u{1}"])
            todo.ratings.insert(objectsIn: [3, 1, 2])
            todo.labels["colour"] = "red"
            todo.labels["none"] = .some(nil)
            todo.steps.append(Step("outer", substeps: [Step("inner", substeps: [Step("innermost")])]))
            todo.steps.append(Step("second"))
            todo.plan = Step("the plan")
            todo.extra = .decimal128(try Decimal128(string: "1.25"))
            todo.watchers.append(objectsIn: [ali, bo, ali])
            todo.dates.append(day)
            try realm.add(todo)
        }
        try await first.waitForUpload()
        try await second.waitForDownload()

        let other = try Realm(configuration: secondConfig)
        let copy = try #require(other.object(ofType: Todo.self, forPrimaryKey: "c1"))
        #expect(Array(copy.tags) == ["a", "quote \" and \\ backslash", "üñí\u{1}"])
        #expect(Set(copy.ratings) == [1, 2, 3])
        #expect(copy.labels["colour"] == .some("red"))
        #expect(copy.labels.keys.contains("none"))
        #expect(copy.steps.map(\.title) == ["outer", "second"])
        #expect(copy.steps.first?.substeps.first?.substeps.first?.title == "innermost")
        #expect(copy.plan?.title == "the plan")
        #expect(try copy.extra == .decimal128(Decimal128(string: "1.25")))
        #expect(copy.watchers.map(\.id) == [1, 2, 1])
        #expect(copy.dates.first == day)

        // Plain SQL sees JSON it can query.
        let sql = try PostgresConnection(database)
        #expect(
            try sql.execute("SELECT tags->>1, plan->>'title', extra->>'type' FROM \"SyncTodo\"").rows == [
                ["quote \" and \\ backslash", "the plan", "decimal128"]
            ])

        // A change inside an embedded object goes up as a change of its owner's property.
        try realm.write { realm.object(ofType: Todo.self, forPrimaryKey: "c1")!.steps[0].substeps[0].title = "inner, renamed" }
        try await first.waitForUpload()
        try await second.waitForDownload()
        _ = other.refresh()
        #expect(other.object(ofType: Todo.self, forPrimaryKey: "c1")?.steps[0].substeps[0].title == "inner, renamed")

        // An AnyRealmValue holding a dictionary that holds a list, with a link inside.
        try realm.write {
            let todo = realm.object(ofType: Todo.self, forPrimaryKey: "c1")!
            todo.extra = .fromDictionary([
                "list": .fromArray([.int(1), .string("two"), .fromDictionary([:])]),
                "who": .object(realm.object(ofType: Person.self, forPrimaryKey: 2)!),
            ])
        }
        try await first.waitForUpload()
        try await second.waitForDownload()
        _ = other.refresh()
        let extra = try #require(other.object(ofType: Todo.self, forPrimaryKey: "c1")?.extra.dictionaryValue)
        #expect(extra["list"]?.listValue.map { Array($0.prefix(2)) } == [.int(1), .string("two")])
        #expect(extra["list"]?.listValue?.last?.dictionaryValue?.count == 0)
        #expect(extra["who"]?.object(Person.self)?.name == "Bo")
        #expect(
            try sql.execute("SELECT extra->>'type', extra->'value'->'list'->'value'->1->>'value' FROM \"SyncTodo\"").rows == [["dictionary", "two"]])
    }

    @Test func aRowThatDoesNotReadAsAnObjectIsReportedNotApplied() async throws {
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        let config = Realm.Configuration(fileURL: directory.fileURL("bad.burrow"), objectTypes: SyncModels.types)
        let client = try await SyncClient(configuration: config, server: PostgresServer(database), classes: SyncModels.synced)
        defer { stopLater(client) }
        try await client.start()
        let sql = try PostgresConnection(database)
        try sql.execute("INSERT INTO \"SyncTodo\" (id, title, tags) VALUES ('bad', 'tags are not a list', '{\"not\": \"a list\"}')")
        try sql.execute("INSERT INTO \"SyncTodo\" (id, title, tags) VALUES ('good', 'fine', '[\"x\"]')")
        try await client.waitForDownload()
        let realm = try Realm(configuration: config)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "bad") == nil)
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: "good")?.tags.first == "x")
        let problems = await client.unreadableRows
        #expect(problems.map(\.primaryKey) == ["bad"])
        #expect(problems.first?.error.description.contains("tags") == true)
    }
}
