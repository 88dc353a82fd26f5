import BurrowStorage
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Synchronization
import Testing

@testable import Burrow

/// The models of the compaction tests.
enum Compaction {
    final class Note: Object {
        override class func _realmObjectName() -> String? { "CompactionNote" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var text = ""
    }

    /// A configuration of a new file of `Note`s.
    static func configuration(_ name: String = #function) -> Realm.Configuration {
        var configuration = temporaryConfiguration(name)
        configuration.objectTypes = [Note.self]
        return configuration
    }

    /// Fills the file of `configuration` with `count` notes of about 300 bytes, then deletes
    /// all but every `keepEvery`th, in another commit; every realm of it is released when this
    /// returns. Returns the ids kept.
    @discardableResult
    static func fileAfterALargeDelete(_ configuration: Realm.Configuration, count: Int = 3000, keepEvery: Int = 30) throws -> [Int] {
        let realm = try Realm(configuration: configuration)
        try realm.write {
            for id in 0..<count { try realm.add(Note(value: ["id": id, "text": text(id)])) }
        }
        try realm.write {
            try realm.delete(Array(realm.objects(Note.self)).filter { $0.id % keepEvery != 0 })
        }
        return Array(stride(from: 0, to: count, by: keepEvery))
    }

    static func text(_ id: Int) -> String { "note \(id) " + String(repeating: "abcdefghij", count: 30) }

    /// The ids and texts of the notes in the file of `configuration`, by id.
    static func notes(_ configuration: Realm.Configuration) throws -> [Int: String] {
        let realm = try Realm(configuration: configuration)
        return Dictionary(uniqueKeysWithValues: realm.objects(Note.self).map { ($0.id, $0.text) })
    }

    static func size(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
    }

    /// The file's inode number: a compaction that renamed its copy over the file changed it.
    static func inode(_ url: URL) throws -> UInt64 {
        var status = stat()
        guard stat(url.path, &status) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return UInt64(status.st_ino)
    }
}

/// `Realm.compact(configuration:)` and `Configuration.shouldCompactOnLaunch`: a file compacted
/// keeps every object and shrinks; compaction is refused (or, on launch, skipped) while the file
/// is open anywhere else, did not open whole, or has a `.compacting` file in the way; a
/// symbolic link stays a link; a compaction killed at any moment leaves the file whole. The
/// on-launch rules are RealmSwift's (its `CompactionTests` and `InterprocessTests`).
@Suite(.temporaryDirectory, .ownThread) struct CompactionTests {
    @Test func compactingAfterALargeDeleteShrinksTheFileAndKeepsEveryObject() throws {
        let configuration = Compaction.configuration()
        let url = try #require(configuration.fileURL)
        let kept = try Compaction.fileAfterALargeDelete(configuration)
        let sizeBefore = try Compaction.size(url)

        let result = try Realm.compact(configuration: configuration)

        #expect(result.fileURL == url)
        #expect(result.fileSizeBefore == sizeBefore)
        #expect(result.usedBytesBefore <= result.fileSizeBefore)
        #expect(result.fileSizeAfter == (try Compaction.size(url)))
        #expect(result.fileSizeAfter < sizeBefore / 4, "from \(sizeBefore) to \(result.fileSizeAfter) bytes")
        let notes = try Compaction.notes(configuration)
        #expect(notes == Dictionary(uniqueKeysWithValues: kept.map { ($0, Compaction.text($0)) }))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".compacting"))
        // The compacted file is an ordinary one: it takes new writes.
        let realm = try Realm(configuration: configuration)
        try realm.write { try realm.add(Compaction.Note(value: ["id": -1, "text": "after"])) }
        #expect(realm.objects(Compaction.Note.self).count == kept.count + 1)
    }

    @Test func shouldCompactOnLaunchIsGivenTheFileSizeAndTheBytesUsedAndCompacts() throws {
        let base = Compaction.configuration()
        let url = try #require(base.fileURL)
        let kept = try Compaction.fileAfterALargeDelete(base)
        let sizeBefore = try Compaction.size(url)
        let calls = Mutex<[(total: Int, used: Int)]>([])
        var configuration = base
        configuration.shouldCompactOnLaunch = { total, used in
            calls.withLock { $0.append((total, used)) }
            return true
        }

        let realm = try Realm(configuration: configuration)

        let seen = calls.withLock { $0 }
        try #require(seen.count == 1)
        #expect(seen[0].total == sizeBefore)
        #expect(seen[0].used > 0 && seen[0].used <= seen[0].total, "total \(seen[0].total), used \(seen[0].used)")
        #expect(try Compaction.size(url) < sizeBefore / 4)
        #expect(realm.objects(Compaction.Note.self).count == kept.count)
        #expect(realm.objects(Compaction.Note.self).sorted(byKeyPath: "id").last?.text == Compaction.text(kept.last!))
    }

    @Test func shouldCompactOnLaunchIsNotCalledWhileTheFileIsOpenInThisProcess() async throws {
        let base = Compaction.configuration()
        let url = try #require(base.fileURL)
        try Compaction.fileAfterALargeDelete(base)
        let calls = Atomic<Int>(0)
        var configuration = base
        configuration.shouldCompactOnLaunch = { _, _ in
            calls.add(1, ordering: .relaxed)
            return true
        }
        let first = try Realm(configuration: base)
        let bytes = try Data(contentsOf: url)

        // The same domain, and another one (a detached task's), while `first` holds the file.
        let again = try Realm(configuration: configuration)
        let elsewhere = try await Task.detached { try Realm(configuration: configuration).objects(Compaction.Note.self).count }.value

        #expect(calls.load(ordering: .relaxed) == 0)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(again.objects(Compaction.Note.self).count == elsewhere)
        _ = first
    }

    @Test func shouldCompactOnLaunchReturningFalseLeavesTheFileByteForByte() throws {
        let base = Compaction.configuration()
        let url = try #require(base.fileURL)
        let kept = try Compaction.fileAfterALargeDelete(base)
        let bytes = try Data(contentsOf: url)
        let calls = Atomic<Int>(0)
        var configuration = base
        configuration.shouldCompactOnLaunch = { total, used in
            calls.add(1, ordering: .relaxed)
            return false
        }

        let realm = try Realm(configuration: configuration)

        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(realm.objects(Compaction.Note.self).count == kept.count)
    }

    @Test func shouldCompactOnLaunchIsNotCalledForANewFile() throws {
        let calls = Atomic<Int>(0)
        var configuration = Compaction.configuration()
        configuration.shouldCompactOnLaunch = { _, _ in
            calls.add(1, ordering: .relaxed)
            return true
        }
        let realm = try Realm(configuration: configuration)
        #expect(realm.isEmpty)
        #expect(calls.load(ordering: .relaxed) == 0)
    }

    @Test func readOnlyWithShouldCompactOnLaunchIsAnError() throws {
        let base = Compaction.configuration()
        let url = try #require(base.fileURL)
        try Compaction.fileAfterALargeDelete(base, count: 100)
        let bytes = try Data(contentsOf: url)
        var configuration = base
        configuration.readOnly = true
        configuration.shouldCompactOnLaunch = { _, _ in true }

        #expect { try Realm(configuration: configuration) } throws: { error in
            let error = error as? RealmError
            return error?.code == .invalidArgument && error?.description.contains("readOnly") == true
                && error?.description.contains("shouldCompactOnLaunch") == true
        }
        configuration.shouldCompactOnLaunch = nil
        #expect { try Realm.compact(configuration: configuration) } throws: { ($0 as? RealmError)?.code == .invalidArgument }
        #expect { try Realm.compact(configuration: Realm.Configuration(inMemoryIdentifier: "compaction")) } throws: {
            ($0 as? RealmError)?.code == .invalidArgument
        }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func compactRefusesAFileOpenInThisProcess() throws {
        let configuration = Compaction.configuration()
        let url = try #require(configuration.fileURL)
        try Compaction.fileAfterALargeDelete(configuration)
        let bytes = try Data(contentsOf: url)
        let realm = try Realm(configuration: configuration)

        #expect { try Realm.compact(configuration: configuration) } throws: { error in
            let error = error as? RealmError
            return error?.code == .alreadyOpen && error?.description.contains("open in this process") == true && error?.fileURL == url
        }
        // A frozen value keeps the file open too.
        let frozen = try realm.objects(Compaction.Note.self).freeze()
        _ = consume realm
        #expect { try Realm.compact(configuration: configuration) } throws: { ($0 as? RealmError)?.code == .alreadyOpen }
        #expect(try Data(contentsOf: url) == bytes)
        #expect(frozen.count == 100)
    }

    @Test func compactRightAfterTheLastRealmIsReleasedSucceeds() throws {
        var configuration = Compaction.configuration()
        configuration.durability = .normal
        for round in 0..<20 {
            try Compaction.fileAfterALargeDelete(configuration, count: 200, keepEvery: 2)
            #expect(try Realm.compact(configuration: configuration).fileSizeAfter > 0, "round \(round)")
            #expect(try Realm.deleteFiles(for: configuration), "round \(round)")
        }
    }

    @Test func anOpenInThisProcessDuringACompactionWaitsForIt() async throws {
        let configuration = Compaction.configuration()
        let kept = try Compaction.fileAfterALargeDelete(configuration, count: 20_000, keepEvery: 2)
        let compaction = Task.detached { () -> Result<Realm.CompactionResult, RealmError> in
            Result { () throws(RealmError) in try Realm.compact(configuration: configuration) }
        }
        usleep(20_000)
        // Opened while the compaction runs (or, on a slow machine, before it begins, when the
        // compaction refuses the file in use): never `.fileLocked`.
        let count = try await Task.detached { try Realm(configuration: configuration).objects(Compaction.Note.self).count }.value
        #expect(count == kept.count)
        switch await compaction.value {
        case .success(let result):
            print("CompactionTests: the open waited for the compaction")
            #expect(result.fileSizeAfter < result.fileSizeBefore)
        case .failure(let error):
            print("CompactionTests: the open came first, and the compaction refused")
            #expect(error.code == .alreadyOpen, "\(error)")
        }
    }

    @Test(arguments: ["share", "hold"])
    func compactRefusesAFileAnotherProcessHasOpen(role: String) throws {
        var configuration = temporaryConfiguration()
        configuration.objectTypes = [SharedFileRealmModels.Counter.self, SharedFileRealmModels.Item.self]
        let url = try #require(configuration.fileURL)
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { for index in 0..<200 { try realm.add(SharedFileRealmModels.Item(value: ["tag": "t", "index": index])) } }
            try realm.write { try realm.delete(realm.objects(SharedFileRealmModels.Item.self)) }
        }
        let bytes = try Data(contentsOf: url)
        let worker = try sharedRealmWorker([role, url.path], in: url.deletingLastPathComponent().path, label: role)
        _ = try worker.expectLine(role == "share" ? "sharing" : "holding")

        #expect { try Realm.compact(configuration: configuration) } throws: { error in
            let error = error as? RealmError
            return error?.code == .alreadyOpen && error?.description.contains("another process has it open") == true
        }
        #expect(try Data(contentsOf: url) == bytes)
        if role == "share" {
            // On launch, compaction is skipped and the realm opens, as in RealmSwift.
            let calls = Atomic<Int>(0)
            var launching = configuration
            launching.shouldCompactOnLaunch = { _, _ in
                calls.add(1, ordering: .relaxed)
                return true
            }
            #expect(try Realm(configuration: launching).objects(SharedFileRealmModels.Item.self).isEmpty)
            #expect(calls.load(ordering: .relaxed) == 0)
            #expect(try Data(contentsOf: url) == bytes)
        }
        try worker.expectSuccess()
        #expect(try Realm.compact(configuration: configuration).fileSizeAfter <= bytes.count)
    }

    @Test func aCompactingFileInTheWayIsLeftUntouched() throws {
        let base = Compaction.configuration()
        let url = try #require(base.fileURL)
        try Compaction.fileAfterALargeDelete(base)
        let bytes = try Data(contentsOf: url)
        let inTheWay = URL(fileURLWithPath: url.path + ".compacting")
        try Data("mine".utf8).write(to: inTheWay)

        #expect { try Realm.compact(configuration: base) } throws: { error in
            let error = error as? RealmError
            return error?.code == .fileExists && error?.description.contains("test.burrow.compacting is in the way") == true
        }
        var configuration = base
        configuration.shouldCompactOnLaunch = { _, _ in true }
        #expect(try Realm(configuration: configuration).objects(Compaction.Note.self).count == 100, "skipped on launch")

        #expect(try Data(contentsOf: url) == bytes)
        #expect(try Data(contentsOf: inTheWay) == Data("mine".utf8))
        try FileManager.default.removeItem(at: inTheWay)
        #expect(try Realm.compact(configuration: base).fileSizeAfter < bytes.count)
    }

    @Test func aSymbolicLinkStaysALinkAndItsFileIsCompacted() throws {
        let base = Compaction.configuration()
        let url = try #require(base.fileURL)
        let kept = try Compaction.fileAfterALargeDelete(base)
        let sizeBefore = try Compaction.size(url)
        let link = url.deletingLastPathComponent().appendingPathComponent("link.burrow")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "test.burrow")
        var configuration = base
        configuration.fileURL = link

        let result = try Realm.compact(configuration: configuration)

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "test.burrow")
        #expect(result.fileURL.path == url.resolvingSymlinksInPath().path)
        #expect(try Compaction.size(url) == result.fileSizeAfter && result.fileSizeAfter < sizeBefore)
        #expect(try Compaction.notes(configuration).keys.sorted() == kept)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".compacting"))
    }

    @Test func aFileThatDidNotOpenWholeIsLeftAsItIs() throws {
        let (url, size, _) = try FileRecoveryTests.fileWithNewestCommitOf300People()
        var bytes = try Data(contentsOf: url)
        bytes[size - 100] ^= 0x20
        try bytes.write(to: url)

        #expect { try Realm.compact(configuration: Realm.Configuration(fileURL: url)) } throws: { error in
            let error = error as? RealmError
            return error?.code == .corruptFile && error?.description.contains("did not open whole") == true
                && error?.description.contains("so the file is left as it is") == true
        }
        var configuration = Realm.Configuration(fileURL: url)
        configuration.shouldCompactOnLaunch = { _, _ in true }
        #expect(try Realm(configuration: configuration).recovery != nil, "opens, with its report, uncompacted")
        #expect(try Data(contentsOf: url) == bytes)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".compacting"))
    }

    /// `burrow compact` (which calls `Realm.compact`) killed at moments spread over a whole
    /// compaction: each time the file opens whole with every object, and a copy left beside it
    /// is the only trace.
    @Test func aCompactionKilledAtAnyMomentLeavesTheFileWhole() throws {
        let tool = try CLITool()
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: tool.path("big.burrow")))
        configuration.objectTypes = [Compaction.Note.self]
        let kept = try Compaction.fileAfterALargeDelete(configuration, count: 20_000, keepEvery: 2)
        let expected = Dictionary(uniqueKeysWithValues: kept.map { ($0, Compaction.text($0)) })
        let copyPath = tool.path("big.burrow.compacting")
        // How long one compaction takes here, on a copy of the file.
        try FileManager.default.copyItem(atPath: tool.path("big.burrow"), toPath: tool.path("timing.burrow"))
        let start = Date()
        #expect(try tool.run(["compact", "timing.burrow"]).status == 0)
        let duration = Date().timeIntervalSince(start)

        var outcomes: [String: Int] = [:]
        let steps = TestEnvironment.count("BURROW_COMPACT_KILLS", default: 12)
        for step in 0..<steps {
            let fileBefore = try Compaction.inode(configuration.fileURL!)
            let child = try tool.start(["compact", "big.burrow"])
            usleep(UInt32(duration * 1.25 * Double(step) / Double(steps) * 1_000_000))
            child.kill()
            let copyLeft = FileManager.default.fileExists(atPath: copyPath)
            let storage = try Storage.open(path: tool.path("big.burrow"), options: StorageOptions(readOnly: true, create: false))
            #expect(storage.recovery == nil, "step \(step): \(String(describing: storage.recovery))")
            _ = try storage.snapshot().verify()
            storage.close()
            #expect(try Compaction.notes(configuration) == expected, "step \(step)")
            let replaced = try Compaction.inode(configuration.fileURL!) != fileBefore
            outcomes[replaced ? "replaced" : copyLeft ? "killed with its copy left" : "killed before its copy", default: 0] += 1
            // Only the killed compaction can have left it; the next one refuses while it is there.
            if copyLeft { try FileManager.default.removeItem(atPath: copyPath) }
        }
        print("CompactionTests killed compactions (one takes \(Int(duration * 1000)) ms): \(outcomes)")
    }
}
