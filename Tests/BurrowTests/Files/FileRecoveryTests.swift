import BurrowStorage
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import Burrow

/// Opening a file whose newest commit is damaged: a reported fallback of that one commit
/// (`Realm.recovery`), or `.corruptFile`; never a silent older version.
@Suite(.temporaryDirectory) struct FileRecoveryTests {
    /// A realm file whose newest commit added 300 people; returns its URL, the file's length and
    /// the version of that commit.
    static func fileWithNewestCommitOf300People() throws -> (URL, Int, UInt64) {
        let configuration = temporaryConfiguration()
        let version: UInt64 = try {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                for i in 0..<300 { try realm.add(CommonModels.Person(value: ["id": i, "name": "Person \(i)"])) }
            }
            return realm.version
        }()
        let url = configuration.fileURL!
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        return (url, size, version)
    }

    @Test func testNewestCommitCutByOneByteIsReportedFromOpenOn() async throws {
        let (url, size, version) = try Self.fileWithNewestCommitOf300People()
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size - 1))
        try handle.close()

        let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
        let recovery = try #require(realm.recovery, "a file cut short of its newest commit opened without a report")
        #expect(recovery.droppedVersion == version)
        #expect(recovery.openedVersion == realm.version && realm.version < version)
        #expect(recovery.reason == .truncated(expectedBytes: size, actualBytes: size - 1))
        #expect(recovery.description.contains("truncated to \(size - 1) bytes"))
        #expect(realm.objects(CommonModels.Person.self).count == 0)
        // The actor of the same file says the same.
        let actor = try await RealmActor(configuration: realm.configuration)
        #expect(await actor.recovery == recovery)
        // The next commit is allowed (the app has been told); the report stays.
        try realm.write { try realm.add(CommonModels.Person(value: ["id": 1, "name": "After"])) }
        #expect(realm.recovery == recovery)
    }

    @Test func testFlippedByteInNewestCommitIsReported() throws {
        let (url, size, version) = try Self.fileWithNewestCommitOf300People()
        // The newest commit's pages are the last ones of the file.
        var bytes = try Data(contentsOf: url)
        bytes[size - 100] ^= 0x20
        try bytes.write(to: url)

        let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
        let recovery = try #require(realm.recovery, "a damaged newest commit opened without a report")
        #expect(recovery.droppedVersion == version)
        let pageSize = 4096
        #expect(recovery.reason == .damagedPage(page: UInt32((size - 100) / pageSize), offset: (size - 100) / pageSize * pageSize))
    }

    @Test func testRealmOpenedWholeHasNoRecovery() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write { try realm.add(CommonModels.Person(value: ["id": 1, "name": "One"])) }
        #expect(realm.recovery == nil)
    }

    /// Every tree and entry of `snapshot`, through throwing reads.
    static func entries(_ snapshot: Snapshot) throws -> [String: [[UInt8]]] {
        var trees: [String: [[UInt8]]] = [:]
        for name in try snapshot.treeNames() {
            guard let tree = try snapshot.tree(named: name) else { continue }
            var cursor = tree.makeCursor()
            var more = try cursor.first()
            var list: [[UInt8]] = []
            while more {
                list.append(Array(cursor.key))
                list.append(Array(try cursor.value()))
                more = try cursor.next()
            }
            trees[name] = list
        }
        return trees
    }

    @Test func testDamagedWriteCopyIsAnErrorOrTheDataAsWritten() throws {
        let realm = try Realm(configuration: temporaryConfiguration())
        try realm.write {
            for i in 0..<400 { try realm.add(CommonModels.Person(value: ["id": i, "name": "Person \(i)", "dogs": [["name": "Dog \(i)"]]])) }
        }
        let copyURL = temporaryConfiguration().fileURL!
        try realm.writeCopy(toFile: copyURL)
        let pristine = try Data(contentsOf: copyURL)
        let original = try Storage.open(path: copyURL.path, options: StorageOptions(readOnly: true, create: false))
        let version = original.version
        let expected = try Self.entries(original.snapshot())
        original.close()

        let seed = TestSeed.make("FileRecovery writeCopy damage")
        let total = TestEnvironment.count("BURROW_DAMAGE_ITERATIONS", default: 2000)
        var generator = TestRandom(seed: seed)
        var outcomes: [String: Int] = [:]
        let damagedURL = copyURL.deletingLastPathComponent().appendingPathComponent("damaged.burrow")
        for iteration in 0..<max(1, total / 16) {
            var bytes = pristine
            let flips = Int.random(in: 1...4, using: &generator)
            for _ in 0..<flips { bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator) }
            try? FileManager.default.removeItem(at: damagedURL)
            try bytes.write(to: damagedURL)
            let context = "iteration \(iteration), seed \(seed)"
            let storage: Storage
            do {
                storage = try Storage.open(path: damagedURL.path, options: StorageOptions(readOnly: true, create: false))
            } catch {
                outcomes["open threw", default: 0] += 1
                continue
            }
            defer { storage.close() }
            // A copy has no older version: at most a damaged meta page is reported, at the same version.
            #expect(storage.version == version, "\(context): opened version \(storage.version)")
            if let recovery = storage.recovery {
                guard case .damagedMeta = recovery.reason else {
                    Issue.record("\(context): a copy fell back: \(recovery)")
                    continue
                }
            }
            do {
                let snapshot = try storage.snapshot()
                #expect(try Self.entries(snapshot) == expected, "\(context): the copy read back other data")
                outcomes["read back whole", default: 0] += 1
            } catch is StorageError {
                outcomes["reading threw", default: 0] += 1
            }
        }
        print("FileRecovery writeCopy damage: \(outcomes)")
    }
}
