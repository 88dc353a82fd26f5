import Burrow
import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowSync

/// Random offline edits on three clients and by plain SQL, seeded and replayable
/// (`BURROW_SEED`): once every client is back online and caught up, every file holds what
/// PostgreSQL holds.
@MainActor
@Suite(.enabled(if: TestPostgres.isAvailable, TestPostgres.skipNote))
struct SyncConvergenceTests {
    typealias Todo = SyncModels.SyncTodo

    /// What the comparison looks at, per object.
    struct Row: Hashable, CustomStringConvertible {
        let id: String
        let title: String
        let priority: Int
        let done: Bool
        let tags: [String]

        var description: String { "\(id): \(title), \(priority), \(done), \(tags)" }
    }

    @Test func randomOfflineEditsOnThreeClientsAndSQLConverge() async throws {
        let seed = TestSeed.make("SyncConvergenceTests")
        var random = TestRandom(seed: seed)
        let steps = TestEnvironment.count("BURROW_SYNC_MODEL_STEPS", default: 80)
        let directory = try TemporaryDirectory()
        let database = try TestPostgres.newDatabase()
        var clients: [SyncClient] = []
        var realms: [Realm] = []
        for index in 0..<3 {
            let config = Realm.Configuration(fileURL: directory.fileURL("client\(index).burrow"), objectTypes: SyncModels.types)
            let client = try await SyncClient(configuration: config, server: PostgresServer(database), classes: SyncModels.synced)
            try await client.start()
            clients.append(client)
            realms.append(try Realm(configuration: config))
        }
        defer { stopLater(clients) }
        let sql = try PostgresConnection(database)
        var online = [true, true, true]
        let ids = (0..<10).map { "k\($0)" }
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }

        for step in 0..<steps {
            let actor = Int(random.next() % 4)
            let id = pick(ids)
            let value = Int(random.next() % 100)
            let operation = random.next() % 10
            if actor == 3 {
                switch operation {
                case 0..<3:
                    try sql.execute(
                        "INSERT INTO \"SyncTodo\" (id, title, priority, done, score, tags) VALUES ($1, $2, $3, false, 0, '[]') ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title",
                        [id, "sql \(step)", String(value)])
                case 3..<7: try sql.execute("UPDATE \"SyncTodo\" SET priority = $2 WHERE id = $1", [id, String(value)])
                case 7..<9: try sql.execute("UPDATE \"SyncTodo\" SET tags = tags || to_jsonb($2::text) WHERE id = $1", [id, "s\(step)"])
                default: try sql.execute("DELETE FROM \"SyncTodo\" WHERE id = $1", [id])
                }
                continue
            }
            let realm = realms[actor]
            // Looked up inside each write: the client's downloads may delete it in between.
            func existing() -> Todo? { realm.object(ofType: Todo.self, forPrimaryKey: id) }
            switch operation {
            case 0..<2:
                if online[actor] {
                    await clients[actor].pause()
                } else {
                    await clients[actor].resume()
                }
                online[actor].toggle()
            case 2..<4:
                try realm.write {
                    let todo = Todo(id: id, title: "client \(actor) step \(step)")
                    todo.priority = value
                    try realm.add(todo, update: .modified)
                }
            case 4..<6:
                try realm.write { existing()?.title = "title \(actor).\(step)" }
            case 6:
                try realm.write { existing()?.done.toggle() }
            case 7:
                try realm.write { existing()?.tags.append("c\(actor).\(step)") }
            case 8:
                try realm.write { if let todo = existing() { try realm.delete(todo) } }
            default:
                if online[actor] { try await clients[actor].waitForUpload() }
            }
        }
        for (index, client) in clients.enumerated() where !online[index] { await client.resume() }
        for client in clients { try await client.waitForUpload() }
        for client in clients { try await client.waitForDownload() }

        let server = try Set(
            sql.execute("SELECT id, title, priority, done, tags::text FROM \"SyncTodo\"").rows.map { row in
                let tags = try JSONSerialization.jsonObject(with: Data((row[4] ?? "[]").utf8)) as? [String] ?? []
                return Row(id: row[0] ?? "", title: row[1] ?? "", priority: Int(row[2] ?? "") ?? -1, done: row[3] == "t", tags: tags)
            })
        for (index, realm) in realms.enumerated() {
            _ = realm.refresh()
            let local = Set(
                realm.objects(Todo.self).map { Row(id: $0.id, title: $0.title, priority: $0.priority, done: $0.done, tags: Array($0.tags)) })
            #expect(
                local == server,
                "client \(index) differs from PostgreSQL (seed \(seed)): \(local.symmetricDifference(server).sorted { $0.id < $1.id })")
            #expect(await clients[index].pendingUploads == 0)
        }
    }
}
