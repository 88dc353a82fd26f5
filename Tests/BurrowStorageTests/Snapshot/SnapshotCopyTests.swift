import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

@Suite struct SnapshotCopyTests {
    @Test func testCopyHoldsEveryTreeAndEntryAndReclaimsFreePages() throws {
        let seed = TestSeed.make("SnapshotCopyTests.testCopyHoldsEveryTreeAndEntryAndReclaimsFreePages")
        var random = TestRandom(seed: seed)
        let directory = try TemporaryDirectory("copy")
        let storage = try Storage.open(path: directory.file("source.burrow"))
        defer { storage.close() }
        // Fill three trees, then delete most entries so the source has many free pages.
        var keys: [String: [[UInt8]]] = [:]
        let write = try storage.beginWriteBlocking()
        for name in ["a", "b", "c"] {
            let tree = try write.createTree(named: name)
            for _ in 0..<3_000 {
                let key = random.bytes(random.int(1..<40))
                try write.put(key, random.bytes(random.int(0..<300)), in: tree)
                keys[name, default: []].append(key)
            }
        }
        try write.commit()
        let deleting = try storage.beginWriteBlocking()
        for name in ["a", "b", "c"] {
            let tree = try deleting.tree(named: name)!
            for key in keys[name]! where random.chance(80) { try deleting.delete(key, from: tree) }
        }
        try deleting.commit()

        let source = try storage.snapshot()
        let copyPath = directory.file("copy.burrow")
        try source.copy(toPath: copyPath)
        #expect(throws: StorageError.self, "copying onto an existing file is refused") { try source.copy(toPath: copyPath) }

        let copy = try Storage.open(path: copyPath, options: StorageOptions(readOnly: true, create: false))
        defer { copy.close() }
        let copied = try copy.snapshot()
        #expect(try modelTestContents(copied) == modelTestContents(source), "seed \(seed)")
        let report = try copied.verify()
        #expect(report.freePages == 0)
        #expect(try copy.statistics().pageCount < storage.statistics().pageCount, "the copy drops the free pages")
    }
}
