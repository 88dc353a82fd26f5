import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// Bounded transaction memory (WriteTransaction+Spill.swift): a transaction past its memory
/// limit writes its least recently changed pages to free space in the file and reads them back
/// when it needs them. Checked against models: what the transaction reads of itself, what it
/// commits, what an abort leaves, what a pinned snapshot keeps reading, and the memory it holds.
@Suite("Spilling a transaction's pages", .temporaryDirectory)
struct SpillTests {
    /// The pages one operation may add to a transaction's memory after the spill that runs
    /// before it: the paths it copies (trees here are at most four levels deep), the pages a
    /// split adds, an overflow run of a few pages and the free list's pages refilling the pool.
    static let pagesOneOperationAdds = 24

    /// A file in the test's temporary directory.
    static func file(_ name: String) throws -> String {
        try #require(TemporaryDirectory.current, "the suite has no .temporaryDirectory trait").file(name)
    }

    /// A random workload of puts (some with values that need overflow runs), overwrites and
    /// deletes over two trees, applied to `txn` and to `model` alike.
    static func change(
        _ txn: WriteTransaction, _ model: inout [String: [[UInt8]: [UInt8]]], count: Int, random: inout TestRandom,
        afterEach: (_ step: Int, _ model: [String: [[UInt8]: [UInt8]]]) throws -> Void = { _, _ in }
    ) throws {
        for step in 0..<count {
            let name = random.chance(70) ? "a" : "b"
            let tree = try txn.openTree(named: name)
            let key = Array("key \(random.int(0..<(count / 2)))".utf8)
            if random.chance(15), model[name]?[key] != nil {
                try txn.delete(key, from: tree)
                model[name]![key] = nil
            } else {
                let value = random.bytes(random.chance(3) ? random.int(4_000...9_000) : random.int(20...300))
                try txn.put(key, value, in: tree)
                model[name, default: [:]][key] = value
            }
            try afterEach(step, model)
        }
    }

    /// Every tree as `txn` sees it now, read with a cursor in key order, keys checked to ascend.
    static func contents(of txn: WriteTransaction) throws -> [String: [[UInt8]: [UInt8]]] {
        var result: [String: [[UInt8]: [UInt8]]] = [:]
        for name in try txn.treeNames() {
            guard let tree = try txn.tree(named: name) else { continue }
            var cursor = try txn.makeCursor(for: tree)
            var entries: [[UInt8]: [UInt8]] = [:]
            var previous: [UInt8]?
            var more = try cursor.first()
            while more {
                let key = Array(cursor.key)
                if let previous { #expect(modelTestKeyLess(previous, key), "keys out of order in \(name)") }
                previous = key
                entries[key] = Array(try cursor.value())
                more = try cursor.next()
            }
            let counted = try txn.count(of: tree)
            #expect(entries.count == counted, "tree \(name) counts differ from its entries")
            result[name] = entries
        }
        return result
    }

    @Test func aTransactionPastItsLimitKeepsItsMemoryWithinItAndReadsWhatItSpilled() throws {
        let seed = TestSeed.make("SpillTests.memoryWithinTheLimit")
        var random = TestRandom(seed: seed)
        let path = try Self.file("spill.burrow")
        var model: [String: [[UInt8]: [UInt8]]] = [:]
        let limit = 16
        do {
            let storage = try Storage.open(path: path)
            defer { storage.close() }
            let txn = try storage.beginWriteBlocking()
            txn.memoryLimit = limit * storage.pageSize
            #expect(txn.memoryLimit == limit * storage.pageSize)
            var most = 0
            try Self.change(txn, &model, count: 4_000, random: &random) { step, model in
                most = max(most, txn.dirtyPageCounts.inMemory)
                if step % 400 == 399 {
                    #expect(try Self.contents(of: txn) == model, "seed \(seed), step \(step): the transaction's own view")
                    for (name, entries) in model {
                        let tree = try #require(try txn.tree(named: name))
                        for (key, value) in entries.prefix(50) {
                            #expect(try txn.value(forKey: key, in: tree) == value, "seed \(seed), step \(step)")
                        }
                    }
                }
            }
            #expect(most <= limit + Self.pagesOneOperationAdds, "seed \(seed): \(most) pages in memory against a limit of \(limit)")
            let spilled = txn.dirtyPageCounts.spilled
            #expect(spilled > 100, "seed \(seed): only \(spilled) pages spilled")
            try txn.commit()
        }
        // A new handle reads the commit from the file alone.
        let reopened = try Storage.open(path: path)
        defer { reopened.close() }
        let snapshot = try reopened.snapshot()
        _ = try snapshot.verify()
        #expect(try modelTestContents(snapshot) == model, "seed \(seed)")
    }

    @Test func anAbortedTransactionThatSpilledLeavesTheLastCommitAndItsSpaceIsReused() throws {
        let seed = TestSeed.make("SpillTests.abort")
        var random = TestRandom(seed: seed)
        let path = try Self.file("abort.burrow")
        let storage = try Storage.open(path: path)
        defer { storage.close() }
        var model: [String: [[UInt8]: [UInt8]]] = [:]
        try modelTestCommit(storage) { txn in try Self.change(txn, &model, count: 200, random: &random) }
        let committed = try storage.statistics()

        let txn = try storage.beginWriteBlocking()
        txn.memoryLimit = 8 * storage.pageSize
        var discarded = model
        try Self.change(txn, &discarded, count: 3_000, random: &random)
        #expect(txn.dirtyPageCounts.spilled > 0, "seed \(seed)")
        txn.abort()
        // The pages it spilled lie past the last version's end: the file is longer, the
        // version the same.
        let aborted = try storage.statistics()
        #expect(aborted.version == committed.version && aborted.pageCount == committed.pageCount, "seed \(seed)")
        #expect(aborted.fileSize > committed.pageCount * committed.pageSize, "seed \(seed)")
        #expect(try modelTestContents(try storage.snapshot()) == model, "seed \(seed)")

        // The next transaction grows the file over them.
        try modelTestCommit(storage) { txn in try Self.change(txn, &model, count: 3_000, random: &random) }
        let after = try storage.statistics()
        #expect(after.fileSize <= max(aborted.fileSize, after.pageCount * after.pageSize), "seed \(seed): the file grew past the spilled pages")
        let reopened = try Storage.open(path: path, options: StorageOptions())
        #expect(reopened === storage)
        let snapshot = try storage.snapshot()
        _ = try snapshot.verify()
        #expect(try modelTestContents(snapshot) == model, "seed \(seed)")
    }

    @Test func aSnapshotPinnedBeforeASpillingTransactionKeepsReadingItsVersion() throws {
        let seed = TestSeed.make("SpillTests.pinned")
        var random = TestRandom(seed: seed)
        let storage = try Storage.open(path: try Self.file("pinned.burrow"))
        defer { storage.close() }
        var first: [String: [[UInt8]: [UInt8]]] = [:]
        try modelTestCommit(storage) { txn in try Self.change(txn, &first, count: 2_000, random: &random) }
        let pinned = try storage.snapshot()
        // The next version frees every page of the first; the pinned snapshot keeps them.
        try modelTestCommit(storage) { txn in
            try txn.dropTree(named: "a")
            try txn.dropTree(named: "b")
        }
        var third: [String: [[UInt8]: [UInt8]]] = [:]
        let txn = try storage.beginWriteBlocking()
        txn.memoryLimit = 8 * storage.pageSize
        try Self.change(txn, &third, count: 3_000, random: &random) { step, _ in
            if step % 1_000 == 999 {
                let read = try modelTestContents(pinned)
                #expect(read == first, "seed \(seed), step \(step)")
            }
        }
        #expect(txn.dirtyPageCounts.spilled > 0, "seed \(seed)")
        try txn.commit()
        #expect(try modelTestContents(pinned) == first, "seed \(seed)")
        _ = try pinned.verify()
        #expect(try modelTestContents(try storage.snapshot()) == third, "seed \(seed)")
    }

    /// A value larger than the whole limit is held while it is written, spilled as one run
    /// before the next operation, read in place, and released when replaced.
    @Test func aValueLargerThanTheLimitIsSpilledWholeAndReadBack() throws {
        let seed = TestSeed.make("SpillTests.largeValue")
        var random = TestRandom(seed: seed)
        let storage = try Storage.open(path: try Self.file("large.burrow"))
        defer { storage.close() }
        let large = random.bytes(300_000)
        let replacement = random.bytes(200_000)
        let txn = try storage.beginWriteBlocking()
        txn.memoryLimit = 8 * storage.pageSize
        let tree = try txn.openTree(named: "blobs")
        try txn.put([1], large, in: tree)
        #expect(txn.dirtyPageCounts.inMemory > 8, "seed \(seed): the run is held while it is written")
        try txn.put([2], [7], in: tree)
        #expect(txn.dirtyPageCounts.spilled > 0 && txn.dirtyPageCounts.inMemory <= 8 + Self.pagesOneOperationAdds, "seed \(seed)")
        #expect(try txn.value(forKey: [1], in: tree) == large, "seed \(seed)")
        try txn.put([1], replacement, in: tree)
        try txn.put([3], [8], in: tree)
        #expect(try txn.value(forKey: [1], in: tree) == replacement, "seed \(seed)")
        try txn.commit()
        let snapshot = try storage.snapshot()
        _ = try snapshot.verify()
        #expect(try snapshot.tree(named: "blobs")?.value(forKey: [1]) == replacement, "seed \(seed)")
        #expect(try snapshot.tree(named: "blobs")?.count == 3, "seed \(seed)")
    }

    /// An in-memory database's pages are memory wherever they are: it never spills.
    @Test func anInMemoryDatabaseKeepsItsPagesInMemoryWhateverTheLimit() throws {
        let seed = TestSeed.make("SpillTests.inMemory")
        var random = TestRandom(seed: seed)
        let storage = try Storage.inMemory(identifier: "spill \(seed)")
        defer { storage.close() }
        var model: [String: [[UInt8]: [UInt8]]] = [:]
        let txn = try storage.beginWriteBlocking()
        txn.memoryLimit = 4 * storage.pageSize
        try Self.change(txn, &model, count: 3_000, random: &random)
        #expect(txn.dirtyPageCounts.spilled == 0 && txn.dirtyPageCounts.inMemory > 100, "seed \(seed)")
        try txn.commit()
        let snapshot = try storage.snapshot()
        _ = try snapshot.verify()
        #expect(try modelTestContents(snapshot) == model, "seed \(seed)")
    }

    /// `rewriteValues` and `rewriteAllValues` change a whole tree in one call; they spill
    /// between leaves, so a bulk update of a large tree stays within the limit too.
    @Test func aBulkRewriteOfALargeTreeStaysWithinTheLimit() throws {
        let seed = TestSeed.make("SpillTests.rewrite")
        var random = TestRandom(seed: seed)
        let storage = try Storage.open(path: try Self.file("rewrite.burrow"))
        defer { storage.close() }
        var model: [[UInt8]: [UInt8]] = [:]
        try modelTestCommit(storage) { txn in
            let tree = try txn.openTree(named: "rows")
            for n in 0..<6_000 {
                let key = withUnsafeBytes(of: UInt64(n).bigEndian) { Array($0) }
                let value = random.bytes(random.int(20...120))
                try txn.put(key, value, in: tree)
                model[key] = value
            }
        }
        let limit = 8
        let txn = try storage.beginWriteBlocking()
        txn.memoryLimit = limit * storage.pageSize
        let tree = try txn.openTree(named: "rows")
        var most = 0
        // Every value grows by a few bytes: leaves are rebuilt, carry entries on and split.
        try txn.rewriteAllValues(in: tree) { key, old, new in
            most = max(most, txn.dirtyPageCounts.inMemory)
            new.append(contentsOf: old)
            new.append(contentsOf: [1, 2, 3, 4, 5, 6])
            return true
        }
        for (key, value) in model { model[key] = value + [1, 2, 3, 4, 5, 6] }
        // Then every third key, given in order, shrinks back.
        let keys = (0..<6_000).filter { $0 % 3 == 0 }.flatMap { withUnsafeBytes(of: UInt64($0).bigEndian) { Array($0) } }
        let missing = try keys.withUnsafeBytes { keys throws(StorageError) in
            try txn.rewriteValues(in: tree, keys: keys, keySize: 8) { _, old, new in
                most = max(most, txn.dirtyPageCounts.inMemory)
                new.append(contentsOf: old.prefix(old.count - 6))
                return true
            }
        }
        #expect(missing.isEmpty, "seed \(seed)")
        for n in stride(from: 0, to: 6_000, by: 3) {
            let key = withUnsafeBytes(of: UInt64(n).bigEndian) { Array($0) }
            model[key]!.removeLast(6)
        }
        #expect(most <= limit + Self.pagesOneOperationAdds, "seed \(seed): \(most) pages in memory against a limit of \(limit)")
        #expect(txn.dirtyPageCounts.spilled > 0, "seed \(seed)")
        #expect(try Self.contents(of: txn) == ["rows": model], "seed \(seed)")
        try txn.commit()
        let snapshot = try storage.snapshot()
        _ = try snapshot.verify()
        #expect(try modelTestContents(snapshot) == ["rows": model], "seed \(seed)")
    }

    /// The crash workload with every transaction kept to one to 24 pages: trees created,
    /// emptied and dropped, overflow values replaced, transactions aborted; the file is checked
    /// after every commit, and read again by a new handle at the end.
    @Test func theCrashWorkloadWithEveryTransactionSpillingMatchesItsModel() throws {
        let seed = TestSeed.make("SpillTests.workload")
        let path = try Self.file("workload.burrow")
        var workload = CrashWorkload(seed: seed, profile: .spilling)
        var replay = CrashReplay(seed: seed, profile: .spilling)
        var checker = CrashChecker()
        var spilledCommits = 0
        let commits = TestEnvironment.count("BURROW_SPILL_COMMITS", default: 40)
        do {
            let storage = try Storage.open(path: path)
            defer { storage.close() }
            while workload.commits < commits {
                guard let (txn, _) = try workload.performNext(on: storage) else { continue }
                if txn.dirtyPageCounts.spilled > 0 { spilledCommits += 1 }
                let version = try txn.commit(durability: .normal)
                replay.advance(to: version)
                if let difference = try checker.difference(try storage.snapshot(), replay.model) {
                    Issue.record("seed \(seed), version \(version): \(difference)")
                    return
                }
            }
        }
        #expect(spilledCommits > commits / 4, "seed \(seed): \(spilledCommits) of \(commits) commits spilled")
        let reopened = try Storage.open(path: path)
        defer { reopened.close() }
        let snapshot = try reopened.snapshot()
        _ = try snapshot.verify()
        #expect(try checker.difference(snapshot, replay.model) == nil, "seed \(seed)")
    }
}
