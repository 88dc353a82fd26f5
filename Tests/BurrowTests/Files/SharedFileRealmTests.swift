import Burrow
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

/// `SharedRealmWorker`'s models, as this program declares them, stored under the worker's names.
enum SharedFileRealmModels {
    /// `SharedRealmWorker`'s counter, as this program declares it.
    final class Counter: Object {
        override class func _realmObjectName() -> String? { "SharedCounter" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = 0
    }

    /// `SharedRealmWorker`'s item, as this program declares it.
    final class Item: Object {
        override class func _realmObjectName() -> String? { "SharedItem" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted var tag = ""
        @Persisted var index = 0
    }
}

/// `SharedRealmWorker` (see its `main.swift` for the roles) started with `arguments`, its
/// output in `<directory>/<label>.out`.
func sharedRealmWorker(_ arguments: [String], in directory: String, label: String) throws -> ChildProcess {
    try ChildProcess(
        ChildProcess.executable("SharedRealmWorker", overriddenBy: "BURROW_SHARED_REALM_WORKER"), arguments: arguments,
        directory: directory, label: label)
}

/// Several processes on one realm file (the default, `exclusiveAccess` false), as RealmSwift
/// allows: each sees the others' commits, their writes take turns and lose nothing, and
/// change streams hear of other processes' commits.
@Suite(.temporaryDirectory, .ownThread) struct SharedFileRealmTests {
    private static var iterations: Int {
        TestEnvironment.count("BURROW_SHARED_ITERATIONS", default: 100)
    }

    /// A configuration of a new file, and the directory for the workers' output.
    private func configuration() -> (Realm.Configuration, String) {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [SharedFileRealmModels.Counter.self, SharedFileRealmModels.Item.self]
        let url = configuration.fileURL!
        return (configuration, url.deletingLastPathComponent().path)
    }

    @Test func processesIncrementingOneCounterLoseNoUpdate() throws {
        let (configuration, directory) = configuration()
        let path = configuration.fileURL!.path
        let n = Self.iterations
        let workers = try (0..<2).map { try sharedRealmWorker(["increment", path, "\(n)"], in: directory, label: "increment\($0)") }
        let realm = try Realm(configuration: configuration)
        for _ in 0..<n {
            try realm.write {
                let counter =
                    try realm.object(ofType: SharedFileRealmModels.Counter.self, forPrimaryKey: 1)
                    ?? realm.create(SharedFileRealmModels.Counter.self, value: ["id": 1])
                counter.value += 1
            }
        }
        for worker in workers { try worker.expectSuccess() }
        realm.refresh()
        #expect(realm.object(ofType: SharedFileRealmModels.Counter.self, forPrimaryKey: 1)?.value == 3 * n)
    }

    @Test func refreshReadsAnotherProcesssCommits() throws {
        let (configuration, directory) = configuration()
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(SharedFileRealmModels.Item.self).isEmpty)
        let worker = try sharedRealmWorker(["add", configuration.fileURL!.path, "3", "child"], in: directory, label: "add")
        try worker.expectSuccess()
        #expect(realm.objects(SharedFileRealmModels.Item.self).isEmpty, "a realm reads one version until it refreshes")
        #expect(realm.refresh())
        #expect(realm.objects(SharedFileRealmModels.Item.self).map { $0.index }.sorted() == [0, 1, 2])
    }

    @Test func aChangeStreamHearsOfAnotherProcesssCommits() async throws {
        let (configuration, directory) = configuration()
        let path = configuration.fileURL!.path
        let expected = 5
        let seen = try await Task { @MainActor () -> Int in
            let realm = try Realm(configuration: configuration)
            var worker: ChildProcess?
            for await change in realm.objects(SharedFileRealmModels.Item.self).changes() {
                switch change {
                case .initial:
                    worker = try sharedRealmWorker(["add", path, "\(expected)", "child"], in: directory, label: "add")
                case .update(let items, _, _, _):
                    if items.count >= expected {
                        try #require(worker).expectSuccess()
                        return items.count
                    }
                case .error(let error):
                    Issue.record("\(error)")
                    return -1
                }
            }
            return -1
        }.value
        #expect(seen == expected)
    }

    @Test func anotherProcesssChangeStreamHearsOfThisProcesssCommits() throws {
        let (configuration, directory) = configuration()
        let expected = 5
        let realm = try Realm(configuration: configuration)
        let watcher = try sharedRealmWorker(["watch", configuration.fileURL!.path, "\(expected)"], in: directory, label: "watch")
        try watcher.expectLine("ready")
        for index in 0..<expected {
            try realm.write { try realm.add(SharedFileRealmModels.Item(value: ["tag": "parent", "index": index])) }
        }
        try watcher.expectSuccess()
        #expect(watcher.lines.last == "saw \(expected)", "\(watcher.lines)")
    }

    @Test func exclusiveAccessKeepsOtherProcessesOut() throws {
        let (configuration, directory) = configuration()
        let path = configuration.fileURL!.path
        do {
            let holder = try sharedRealmWorker(["hold", path], in: directory, label: "hold")
            try holder.expectLine("holding")
            expectRealmError(.fileLocked, mentioning: ["another process"]) { _ = try Realm(configuration: configuration) }
            try holder.expectSuccess()
        }
        var exclusive = configuration
        exclusive.exclusiveAccess = true
        let realm = try Realm(configuration: exclusive)
        try realm.write { try realm.add(SharedFileRealmModels.Item(value: ["tag": "parent"])) }
        let adder = try sharedRealmWorker(["add", path, "1", "child"], in: directory, label: "add")
        adder.closeInput()
        #expect(adder.waitForExit(timeout: 120) == 1, "\(adder.summary)")
        #expect(realm.objects(SharedFileRealmModels.Item.self).count == 1)
    }

    @Test func deleteFilesRemovesTheLockFileAndTheFIFOs() throws {
        let (configuration, _) = configuration()
        let path = configuration.fileURL!.path
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { try realm.add(SharedFileRealmModels.Item(value: ["tag": "parent"])) }
            #expect(FileManager.default.fileExists(atPath: path + ".lock"))
        }
        #expect(try Realm.deleteFiles(for: configuration))
        for name in [path, path + ".lock", path + ".lock.0"] {
            #expect(!FileManager.default.fileExists(atPath: name), "\(name) is left")
        }
    }
}
