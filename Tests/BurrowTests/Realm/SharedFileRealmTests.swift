import Burrow
import BurrowTestTraits
import Foundation
import Testing

/// `SharedRealmWorker`'s counter, as this program declares it.
final class TSharedCounter: Object {
    override class func _realmObjectName() -> String? { "SharedCounter" }
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
}

/// `SharedRealmWorker`'s item, as this program declares it.
final class TSharedItem: Object {
    override class func _realmObjectName() -> String? { "SharedItem" }
    override class func shouldIncludeInDefaultSchema() -> Bool { false }
    @Persisted var tag = ""
    @Persisted var index = 0
}

/// A child process running `SharedRealmWorker`, its output collected in a file.
private final class Worker {
    let process = Process()
    let output: URL
    private let input = Pipe()

    init(_ arguments: [String], in directory: URL, label: String) throws {
        process.executableURL = URL(fileURLWithPath: try BuiltExecutable.path("SharedRealmWorker", overriddenBy: "BURROW_SHARED_REALM_WORKER"))
        process.arguments = arguments
        output = directory.appendingPathComponent("\(label).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        process.standardInput = input
        try process.run()
    }

    var lines: [String] {
        (try? String(contentsOf: output, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    /// Waits (up to `seconds`) until the worker printed a line starting with `prefix`.
    func waitForLine(startingWith prefix: String, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if lines.contains(where: { $0.hasPrefix(prefix) }) { return true }
            if !process.isRunning { return lines.contains(where: { $0.hasPrefix(prefix) }) }
            usleep(5_000)
        }
        return false
    }

    /// Waits for the worker to end; returns its exit status.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

/// Several processes on one realm file (the default, `exclusiveAccess` false), as RealmSwift
/// allows: each sees the others' commits, their writes take turns and lose nothing, and
/// change streams hear of other processes' commits.
@Suite(.temporaryDirectory) struct SharedFileRealmTests {
    private static var iterations: Int {
        ProcessInfo.processInfo.environment["BURROW_SHARED_ITERATIONS"].flatMap(Int.init) ?? 100
    }

    private func configuration() -> (Realm.Configuration, URL) {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [TSharedCounter.self, TSharedItem.self]
        let url = configuration.fileURL!
        return (configuration, url.deletingLastPathComponent())
    }

    @Test func processesIncrementingOneCounterLoseNoUpdate() throws {
        let (configuration, directory) = configuration()
        let path = configuration.fileURL!.path
        let n = Self.iterations
        let workers = try (0..<2).map { try Worker(["increment", path, "\(n)"], in: directory, label: "increment\($0)") }
        let realm = try Realm(configuration: configuration)
        for _ in 0..<n {
            try realm.write {
                let counter = try realm.object(ofType: TSharedCounter.self, forPrimaryKey: 1) ?? realm.create(TSharedCounter.self, value: ["id": 1])
                counter.value += 1
            }
        }
        for worker in workers { #expect(worker.finish() == 0, "\(worker.lines)") }
        realm.refresh()
        #expect(realm.object(ofType: TSharedCounter.self, forPrimaryKey: 1)?.value == 3 * n)
    }

    @Test func refreshReadsAnotherProcesssCommits() throws {
        let (configuration, directory) = configuration()
        let realm = try Realm(configuration: configuration)
        #expect(realm.objects(TSharedItem.self).isEmpty)
        let worker = try Worker(["add", configuration.fileURL!.path, "3", "child"], in: directory, label: "add")
        #expect(worker.finish() == 0, "\(worker.lines)")
        #expect(realm.objects(TSharedItem.self).isEmpty, "a realm reads one version until it refreshes")
        #expect(realm.refresh())
        #expect(realm.objects(TSharedItem.self).map { $0.index }.sorted() == [0, 1, 2])
    }

    @Test func aChangeStreamHearsOfAnotherProcesssCommits() async throws {
        let (configuration, directory) = configuration()
        let path = configuration.fileURL!.path
        let expected = 5
        let seen = try await Task { @MainActor () -> Int in
            let realm = try Realm(configuration: configuration)
            var worker: Worker?
            for await change in realm.objects(TSharedItem.self).changes() {
                switch change {
                case .initial:
                    worker = try Worker(["add", path, "\(expected)", "child"], in: directory, label: "add")
                case .update(let items, _, _, _):
                    if items.count >= expected {
                        #expect(worker?.finish() == 0)
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
        let watcher = try Worker(["watch", configuration.fileURL!.path, "\(expected)"], in: directory, label: "watch")
        #expect(watcher.waitForLine(startingWith: "ready"))
        for index in 0..<expected {
            try realm.write { try realm.add(TSharedItem(value: ["tag": "parent", "index": index])) }
        }
        #expect(watcher.finish() == 0, "\(watcher.lines)")
        #expect(watcher.lines.last == "saw \(expected)", "\(watcher.lines)")
    }

    @Test func exclusiveAccessKeepsOtherProcessesOut() throws {
        let (configuration, directory) = configuration()
        let path = configuration.fileURL!.path
        do {
            let holder = try Worker(["hold", path], in: directory, label: "hold")
            #expect(holder.waitForLine(startingWith: "holding"), "\(holder.lines)")
            expectRealmError(.fileLocked, mentioning: ["another process"]) { _ = try Realm(configuration: configuration) }
            #expect(holder.finish() == 0)
        }
        var exclusive = configuration
        exclusive.exclusiveAccess = true
        let realm = try Realm(configuration: exclusive)
        try realm.write { try realm.add(TSharedItem(value: ["tag": "parent"])) }
        let adder = try Worker(["add", path, "1", "child"], in: directory, label: "add")
        #expect(adder.finish() == 1)
        #expect(realm.objects(TSharedItem.self).count == 1)
    }

    @Test func deleteFilesRemovesTheLockFileAndTheFIFOs() throws {
        let (configuration, _) = configuration()
        let path = configuration.fileURL!.path
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { try realm.add(TSharedItem(value: ["tag": "parent"])) }
            #expect(FileManager.default.fileExists(atPath: path + ".lock"))
        }
        #expect(try Realm.deleteFiles(for: configuration))
        for name in [path, path + ".lock", path + ".lock.0"] {
            #expect(!FileManager.default.fileExists(atPath: name), "\(name) is left")
        }
    }
}
