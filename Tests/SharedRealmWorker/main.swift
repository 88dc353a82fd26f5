// A program that shares a realm file with the test process (`SharedFileRealmTests`):
//
//   SharedRealmWorker increment <file> <n>   n write transactions, each adding 1 to the counter
//   SharedRealmWorker add <file> <n> <tag>   n write transactions, each adding one item tagged <tag>
//   SharedRealmWorker watch <file> <n>       prints "ready" once its change stream on the items
//                                            has started, then "saw <count>" for each change it
//                                            is told of, and ends once it saw n items
//   SharedRealmWorker hold <file>            opens the file with exclusiveAccess, prints "holding",
//                                            and keeps it until its standard input closes
//   SharedRealmWorker share <file>           opens the file shared (the default), prints
//                                            "sharing", and keeps it until its standard input closes
//
// Every line goes straight to standard output (`say`).
import Burrow
import Foundation

/// The worker's models, stored under the names `SharedFileRealmTests` declares them by.
enum SharedRealmModels {
    final class Counter: Object {
        override class func _realmObjectName() -> String? { "SharedCounter" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = 0
    }

    final class Item: Object {
        override class func _realmObjectName() -> String? { "SharedItem" }
        @Persisted var tag = ""
        @Persisted var index = 0
    }
}

/// Writes `line` to standard output at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: SharedRealmWorker increment|add|watch|hold|share <file> [n] [tag]\n".utf8))
    exit(2)
}
var configuration = Realm.Configuration(
    fileURL: URL(fileURLWithPath: arguments[2]), objectTypes: [SharedRealmModels.Counter.self, SharedRealmModels.Item.self])
let count = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0

do {
    switch arguments[1] {
    case "increment":
        let realm = try Realm(configuration: configuration)
        for _ in 0..<count {
            try realm.write {
                let counter =
                    try realm.object(ofType: SharedRealmModels.Counter.self, forPrimaryKey: 1)
                    ?? realm.create(SharedRealmModels.Counter.self, value: ["id": 1])
                counter.value += 1
            }
        }
        say("done")
    case "add":
        let realm = try Realm(configuration: configuration)
        let tag = arguments.count > 4 ? arguments[4] : "child"
        for index in 0..<count {
            try realm.write { try realm.add(SharedRealmModels.Item(value: ["tag": tag, "index": index])) }
        }
        say("done")
    case "watch":
        let task = Task { @MainActor in
            let realm = try Realm(configuration: configuration)
            for await change in realm.objects(SharedRealmModels.Item.self).changes() {
                switch change {
                case .initial(let items):
                    say("ready \(items.count)")
                    if items.count >= count { return }
                case .update(let items, _, _, _):
                    say("saw \(items.count)")
                    if items.count >= count { return }
                case .error(let error):
                    say("error \(error)")
                    exit(1)
                }
            }
        }
        _ = await task.result
    case "hold":
        configuration.exclusiveAccess = true
        let realm = try Realm(configuration: configuration)
        say("holding \(realm.objects(SharedRealmModels.Item.self).count)")
        _ = FileHandle.standardInput.readDataToEndOfFile()
    case "share":
        let realm = try Realm(configuration: configuration)
        say("sharing \(realm.objects(SharedRealmModels.Item.self).count)")
        _ = FileHandle.standardInput.readDataToEndOfFile()
    default:
        FileHandle.standardError.write(Data("SharedRealmWorker: unknown role \(arguments[1])\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("SharedRealmWorker: \(error)\n".utf8))
    exit(1)
}
