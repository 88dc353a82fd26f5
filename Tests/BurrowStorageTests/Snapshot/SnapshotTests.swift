// Snapshots: each keeps exactly its version however much is written after it, pins that
// version's pages against reuse until it is released, and stays readable after the file grows
// past its first mapping.
//
// Replay with BURROW_SEED=<seed printed by the test>.

import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private typealias Contents = [String: [[UInt8]: [UInt8]]]

/// A storage on a memory device or on a file in the test's temporary directory (the suite's
/// `.temporaryDirectory` trait).
private func makeStorage(_ backing: ModelTestBacking, pageSize: Int = 4096) throws -> Storage {
    switch backing {
    case .memory: return try Storage(device: MemoryDevice(name: "snapshot-test"), options: StorageOptions(pageSize: pageSize))
    case .file:
        let directory = try #require(TemporaryDirectory.current, "the suite has no .temporaryDirectory trait")
        return try Storage.open(path: directory.file("snapshots.burrow"), options: StorageOptions(pageSize: pageSize))
    }
}

/// Applies one transaction to the storage and to `model`, returning the new version.
@discardableResult
private func write(
    _ storage: Storage, _ model: inout Contents, _ body: (WriteTransaction, inout Contents) throws -> Void
) throws -> UInt64 {
    let txn = try storage.beginWriteBlocking()
    try body(txn, &model)
    return try txn.commit(durability: .normal)
}

private func put(_ txn: WriteTransaction, _ model: inout Contents, _ tree: String, _ key: [UInt8], _ value: [UInt8]) throws {
    try txn.put(key, value, in: try txn.openTree(named: tree))
    model[tree, default: [:]][key] = value
}

private func delete(_ txn: WriteTransaction, _ model: inout Contents, _ tree: String, _ key: [UInt8]) throws {
    guard let id = try txn.tree(named: tree) else { return }
    let removed = try txn.delete(key, from: id)
    #expect(removed == (model[tree]?.removeValue(forKey: key) != nil))
}

/// Random churn over a fixed key space: rewrites, deletes and inserts, with some values long
/// enough for overflow pages.
private func churn(_ txn: WriteTransaction, _ model: inout Contents, _ rng: inout TestRandom, operations: Int) throws {
    for _ in 0..<operations {
        let tree = rng.element(["main", "side"])
        let key = Array("k\(rng.int(0..<600))".utf8)
        if rng.chance(25) {
            try delete(txn, &model, tree, key)
        } else {
            let length = rng.chance(10) ? rng.int(2000...12000) : rng.int(0...200)
            try put(txn, &model, tree, key, rng.bytes(length))
        }
    }
}

/// Commits one transaction of `operations` random changes (`churn`) to the storage and to
/// `model`; returns the new version.
@discardableResult
private func commitChurn(_ storage: Storage, _ model: inout Contents, _ rng: inout TestRandom, operations: Int) throws -> UInt64 {
    try write(storage, &model) { txn, model in try churn(txn, &model, &rng, operations: operations) }
}

/// Compares a snapshot with a model byte for byte, and runs a full verify of its version.
private func expectSnapshot(_ snapshot: Snapshot, equals model: Contents, _ what: String) throws {
    let contents = try modelTestContents(snapshot)
    #expect(contents.keys.sorted() == model.keys.sorted(), "\(what): tree names")
    for (name, entries) in model {
        let actual = contents[name] ?? [:]
        #expect(actual.count == entries.count, "\(what): count of \(name)")
        let mismatched = entries.filter { actual[$0.key] != $0.value }.count
        #expect(mismatched == 0, "\(what): \(mismatched) entries of \(name) differ")
    }
    let report = try snapshot.verify()
    #expect(report.version == snapshot.version, "\(what)")
    #expect(report.entries == UInt64(model.values.reduce(0) { $0 + $1.count }), "\(what): verify entries")
}

@Suite("Snapshot", .temporaryDirectory)
struct SnapshotTests {
    @Test("a snapshot keeps its version while many commits follow", arguments: ModelTestBacking.allCases)
    func keepsItsVersion(backing: ModelTestBacking) throws {
        let seed = TestSeed.make("Snapshot keeps its version, \(backing)")
        var rng = TestRandom(seed: seed)
        let storage = try makeStorage(backing)
        var model: Contents = [:]
        try commitChurn(storage, &model, &rng, operations: 800)

        var kept: [(snapshot: Snapshot, model: Contents)] = [(try storage.snapshot(), model)]
        for round in 1...150 {
            let version = try write(storage, &model) { txn, model in
                try churn(txn, &model, &rng, operations: rng.int(1...40))
                try put(txn, &model, "main", Array("round".utf8), Array("\(round)".utf8))
                if round % 50 == 0 {
                    // Drop and re-create a whole tree now and then.
                    try txn.dropTree(named: "side")
                    model["side"] = nil
                    try put(txn, &model, "side", [0], [1, 2, 3])
                }
            }
            #expect(version == UInt64(round) + 1, "seed \(seed)")
            if round % 30 == 0 { kept.append((try storage.snapshot(), model)) }
        }
        for (index, entry) in kept.enumerated() {
            #expect(entry.snapshot.version == UInt64(1 + 30 * index), "seed \(seed)")
            try expectSnapshot(entry.snapshot, equals: entry.model, "seed \(seed), snapshot v\(entry.snapshot.version)")
        }
        try expectSnapshot(try storage.snapshot(), equals: model, "seed \(seed), latest")
    }

    @Test("pinnedVersions counts the distinct versions live snapshots hold")
    func pinnedVersions() throws {
        let storage = try Storage(device: MemoryDevice(name: "pins"))
        func stats() throws -> StorageStatistics { try storage.statistics() }
        func commit(_ value: UInt8) throws -> UInt64 {
            let txn = try storage.beginWriteBlocking()
            try txn.put([1], [value], in: try txn.openTree(named: "t"))
            return try txn.commit(durability: .normal)
        }
        #expect(try stats().pinnedVersions == 0)
        #expect(try stats().oldestPinnedVersion == nil)
        let v1 = try commit(1)

        var a: Snapshot? = try storage.snapshot()
        var b: Snapshot? = try storage.snapshot()
        #expect(try stats().pinnedVersions == 1, "two snapshots of one version pin it once")
        #expect(try stats().oldestPinnedVersion == v1)

        let v2 = try commit(2)
        var c: Snapshot? = try storage.snapshot()
        #expect(c?.version == v2)
        #expect(try stats().pinnedVersions == 2)
        #expect(try stats().oldestPinnedVersion == v1)

        // A tree keeps its snapshot (and so its version) alive.
        var tree: Tree? = try a!.tree(named: "t")
        a = nil
        #expect(try stats().pinnedVersions == 2)
        b = nil
        #expect(try stats().pinnedVersions == 2, "the tree still pins v\(v1)")
        #expect(try tree?.value(forKey: [1]) == [1])
        tree = nil
        #expect(try stats().pinnedVersions == 1)
        #expect(try stats().oldestPinnedVersion == v2)

        // A cursor does too.
        var cursor: Cursor<Snapshot>? = try c!.tree(named: "t")!.makeCursor()
        c = nil
        #expect(try stats().pinnedVersions == 1)
        #expect(try cursor!.first())
        #expect(Array(cursor!.key) == [1])
        cursor = nil
        #expect(try stats().pinnedVersions == 0)
        #expect(try stats().oldestPinnedVersion == nil)

        // A write transaction pins its base version until it ends (not until the object goes),
        // and its cursors refuse to move afterwards.
        do {
            let txn = try storage.beginWriteBlocking()
            #expect(try stats().pinnedVersions == 1)
            #expect(try stats().oldestPinnedVersion == v2)
            txn.abort()
            #expect(try stats().pinnedVersions == 0, "an aborted transaction still pins its base")

            let writer = try storage.beginWriteBlocking()
            let id = try writer.openTree(named: "pins")
            try writer.put([1], [1], in: id)
            try writer.put([2], [2], in: id)
            var cursor = try writer.makeCursor(for: id)
            #expect(try cursor.first())
            try writer.commit(durability: .normal)
            #expect(try stats().pinnedVersions == 0, "a committed transaction still pins its base")
            #expect(throws: StorageError.cursorInvalidated) { try cursor.next() }
        }
        #expect(try stats().pinnedVersions == 0)
        _ = b
        _ = tree
    }

    @Test("pages an old snapshot can reach are not reused until it is released", arguments: ModelTestBacking.allCases)
    func pinnedPagesAreNotReused(backing: ModelTestBacking) throws {
        let seed = TestSeed.make("Snapshot pinned pages are not reused, \(backing)")
        var rng = TestRandom(seed: seed)
        let storage = try makeStorage(backing)
        var model: Contents = [:]
        try commitChurn(storage, &model, &rng, operations: 1200)
        // Free some pages before the snapshot is taken, so that reusable pages exist.
        for _ in 0..<5 { try commitChurn(storage, &model, &rng, operations: 100) }

        var old: Snapshot? = try storage.snapshot()
        let oldModel = model
        let oldReport = try old!.verify()

        // Heavy rewriting: every key several times over, trees dropped and rebuilt.
        for round in 0..<40 {
            try write(storage, &model) { txn, model in
                try churn(txn, &model, &rng, operations: 150)
                if round % 10 == 9 {
                    try txn.dropTree(named: "main")
                    model["main"] = nil
                }
            }
            if round % 10 == 0 {
                try expectSnapshot(old!, equals: oldModel, "seed \(seed), old snapshot after \(round + 1) rewrites")
            }
        }
        try expectSnapshot(old!, equals: oldModel, "seed \(seed), old snapshot after all rewrites")
        #expect(try old!.verify() == oldReport, "seed \(seed): the old version's pages changed")
        let pinned = try storage.statistics()
        #expect(pinned.pinnedVersions == 1)
        #expect(pinned.oldestPinnedVersion == old!.version)

        // Once released, its pages become reusable: the same workload no longer grows the file.
        old = nil
        #expect(try storage.statistics().pinnedVersions == 0)
        try commitChurn(storage, &model, &rng, operations: 150)
        let released = try storage.statistics()
        for _ in 0..<20 { try commitChurn(storage, &model, &rng, operations: 150) }
        let after = try storage.statistics()
        // Not reusing the released pages would grow the file by hundreds of pages here.
        #expect(
            after.pageCount <= released.pageCount,
            "seed \(seed): the file grew from \(released.pageCount) to \(after.pageCount) pages with no snapshot pinning old pages")
        #expect(released.freePages > 0, "seed \(seed)")
        try expectSnapshot(try storage.snapshot(), equals: model, "seed \(seed), latest")
    }

    /// Grows a file from a few pages to well past the 64 MiB the first mapping reserves while an
    /// early snapshot is held, then reads every snapshot back.
    @Test("snapshots stay readable after the file is mapped again", arguments: ModelTestBacking.allCases)
    func snapshotsSurviveRemapping(backing: ModelTestBacking) throws {
        let storage = try makeStorage(backing)
        var model: Contents = [:]
        try write(storage, &model) { txn, model in
            for i in 0..<50 { try put(txn, &model, "small", Array("early-\(i)".utf8), Array("value \(i)".utf8)) }
            try put(txn, &model, "small", [0xFF], [UInt8](repeating: 0xAB, count: 9000))
        }
        let early = try storage.snapshot()
        let earlyModel = model
        #expect(try storage.statistics().pageCount < 16)

        // 1 MiB values, each with its own bytes: 80 of them make an 80 MiB file (64 MiB for the
        // memory device, which grows its buffer by copying).
        let megabyte = 1 << 20
        let total = backing == .file ? 80 : 40
        func big(_ i: Int) -> [UInt8] {
            var value = [UInt8](repeating: UInt8(truncatingIfNeeded: i &* 37 &+ 1), count: megabyte)
            for j in 0..<8 { value[j] = UInt8(truncatingIfNeeded: i >> (8 * j)) }
            value[megabyte - 1] = UInt8(truncatingIfNeeded: i)
            return value
        }
        func key(_ i: Int) -> [UInt8] { Array("big-\(i)".utf8) }
        var middle: Snapshot?
        var bigWritten = 0
        while bigWritten < total {
            let txn = try storage.beginWriteBlocking()
            let t = try txn.openTree(named: "big")
            for i in bigWritten..<bigWritten + 8 { try txn.put(key(i), big(i), in: t) }
            // Touch the early tree too, so that its pages are copied (and the old ones pinned).
            try txn.put(Array("early-\(bigWritten % 50)".utf8), Array("rewritten".utf8), in: try txn.openTree(named: "small"))
            try txn.commit(durability: .normal)
            bigWritten += 8
            if bigWritten == 24 { middle = try storage.snapshot() }
        }
        let stats = try storage.statistics()
        #expect(stats.pageCount * stats.pageSize > (backing == .file ? 80 : 40) * megabyte)
        let latest = try storage.snapshot()
        #expect(latest.mapping !== early.mapping, "the file should have been mapped again")

        try expectSnapshot(early, equals: earlyModel, "early snapshot after growth")
        let middleTree = try #require(try middle!.tree(named: "big"))
        #expect(middleTree.count == 24)
        let latestTree = try #require(try latest.tree(named: "big"))
        #expect(latestTree.count == total)
        for i in 0..<total {
            let expected = big(i)
            for tree in i < 24 ? [middleTree, latestTree] : [latestTree] {
                let same = try key(i).withUnsafeBytes { k in
                    try tree.withValue(forKey: k) { value in
                        value.count == expected.count
                            && expected.withUnsafeBytes { memcmp($0.baseAddress!, value.baseAddress!, value.count) == 0 }
                    }
                }
                #expect(same == true, "big value \(i) in snapshot v\(tree.snapshot.version)")
            }
        }
        #expect(try middle!.verify().entries == 24 + 51)
        #expect(try latest.verify().entries == UInt64(total + 51))
        #expect(try early.verify().entries == 51)
    }
}
