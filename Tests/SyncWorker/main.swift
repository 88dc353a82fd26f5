// A program that syncs a file with PostgreSQL while the sync tests kill it (`SyncKillTests`):
//
//   SyncWorker written <file> <connection> <first> <count>
//       records KillTodo as synced, writes objects first..<first+count (one transaction), prints
//       "written", waits for its standard input to close, starts a sync client, prints
//       "started", and waits for the upload; prints "uploaded" and keeps running until killed
//   SyncWorker stream <file> <connection> <first> <count>
//       starts a sync client, then writes objects first..<first+count one transaction each,
//       printing "wrote <id>" after each; waits for the upload and prints "uploaded"
//
// Every line goes straight to standard output (`say`).
import Burrow
import BurrowSync
import Foundation

/// The class both the worker and `SyncKillTests` sync, stored as `KillTodo`.
final class KillTodo: Object {
    override class func _realmObjectName() -> String? { "KillTodo" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

@MainActor
func main() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count == 6, let first = Int(arguments[4]), let count = Int(arguments[5]) else {
        FileHandle.standardError.write(Data("usage: SyncWorker written|stream <file> <connection> <first> <count>\n".utf8))
        exit(2)
    }
    let configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: arguments[2]), objectTypes: [KillTodo.self])
    let client = try await SyncClient(configuration: configuration, server: PostgresServer(arguments[3]), classes: [KillTodo.self])
    let realm = try Realm(configuration: configuration)
    func add(_ id: Int) throws {
        let todo = KillTodo()
        todo.id = id
        todo.title = "todo \(id)"
        try realm.add(todo)
    }
    switch arguments[1] {
    case "written":
        try realm.write { for id in first..<first + count { try add(id) } }
        say("written")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try await client.start()
        say("started")
        try await client.waitForUpload()
        say("uploaded")
        while true { try await Task.sleep(for: .seconds(60)) }
    case "stream":
        try await client.start()
        for id in first..<first + count {
            try realm.write { try add(id) }
            say("wrote \(id)")
            try await Task.sleep(for: .milliseconds(2))
        }
        try await client.waitForUpload()
        say("uploaded")
        await client.stop()
    default:
        FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
        exit(2)
    }
}

do {
    try await main()
} catch {
    FileHandle.standardError.write(Data("SyncWorker failed: \(error)\n".utf8))
    exit(1)
}
