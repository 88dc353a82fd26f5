// Two clients of one PostgreSQL database converging: the Sync article's walk-through.
//
//   swift run burrow-sync-demo ["<libpq connection string>"] [directory]
//
// The connection string defaults to "host=/var/run/postgresql dbname=todos"; the two files
// (laptop.burrow, phone.burrow) go in the directory (a new temporary one by default).
import Burrow
import BurrowSync
import Foundation

final class Todo: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted var tags: List<String>
}

let arguments = CommandLine.arguments
let server = PostgresServer(arguments.count > 1 ? arguments[1] : "host=/var/run/postgresql dbname=todos")
let directory =
    arguments.count > 2
    ? URL(fileURLWithPath: arguments[2]) : FileManager.default.temporaryDirectory.appendingPathComponent("burrow-sync-demo-\(UUID())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

func client(_ file: String) async throws -> (SyncClient, Realm.Configuration) {
    let configuration = Realm.Configuration(fileURL: directory.appendingPathComponent(file), objectTypes: [Todo.self])
    let client = try await SyncClient(configuration: configuration, server: server, classes: [Todo.self])
    try await client.start()
    return (client, configuration)
}

do {
    let (laptop, laptopFile) = try await client("laptop.burrow")
    let (phone, phoneFile) = try await client("phone.burrow")

    let realm = try await Realm.open(configuration: laptopFile)
    try await realm.asyncWrite {
        let todo = Todo()
        todo.title = "Walk Rex"
        todo.tags.append("dogs")
        try realm.add(todo)
    }
    try await laptop.waitForUpload()  // the change is in PostgreSQL
    try await phone.waitForDownload()  // and in the phone's file

    let phoneRealm = try await Realm.open(configuration: phoneFile)
    print("The phone has:", phoneRealm.objects(Todo.self).map(\.title))

    // The phone ticks it off; the laptop sees it.
    try await phoneRealm.asyncWrite { phoneRealm.objects(Todo.self).first?.done = true }
    try await phone.waitForUpload()
    try await laptop.waitForDownload()
    _ = realm.refresh()
    print("The laptop sees it done:", realm.objects(Todo.self).map(\.done))

    await laptop.stop()
    await phone.stop()
} catch {
    FileHandle.standardError.write(Data("burrow-sync-demo: \(error)\n".utf8))
    exit(1)
}
