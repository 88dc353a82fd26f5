// Model-based tests: random operations on the engine, checked step by step against a plain
// in-memory model (a dictionary per tree plus its sorted keys).
//
// Replay a failure with the seed it prints:
//     BURROW_SEED=<seed> swift test --filter ModelBased
// Make a run longer with BURROW_MODEL_OPS=<operations per case>.

import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

private typealias Bytes = [UInt8]

/// One tree of the model: its entries and its keys in the engine's order.
private struct ModelTree {
    var values: [Bytes: Bytes] = [:]
    private(set) var keys: [Bytes] = []

    var count: Int { keys.count }

    /// The index of the first key not less than `key` (`count` if none).
    func lowerBound(_ key: Bytes) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if modelTestKeyLess(keys[mid], key) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index of the last key not greater than `key` (-1 if none).
    func lastAtOrBefore(_ key: Bytes) -> Int {
        let index = lowerBound(key)
        if index < keys.count && keys[index] == key { return index }
        return index - 1
    }

    /// Returns true if it replaced a value.
    @discardableResult
    mutating func put(_ key: Bytes, _ value: Bytes) -> Bool {
        if values.updateValue(value, forKey: key) != nil { return true }
        keys.insert(key, at: lowerBound(key))
        return false
    }

    /// Returns true if the key was there.
    @discardableResult
    mutating func delete(_ key: Bytes) -> Bool {
        guard values.removeValue(forKey: key) != nil else { return false }
        keys.remove(at: lowerBound(key))
        return true
    }
}

/// The whole model: the trees that exist, by name.
private struct ModelState {
    var trees: [String: ModelTree] = [:]
    var entries: Int { trees.values.reduce(0) { $0 + $1.count } }
    var sortedNames: [String] { modelTestSortedNames(trees.keys) }
}

enum ModelTestBacking: String, CustomStringConvertible, Sendable, CaseIterable {
    case memory
    case file
    var description: String { rawValue }
}

private let modelTreeNames = ["a", "b", "catalog-neighbour", "ü-tree", "z"]

/// Drives one storage through random transactions, mirroring everything in a `ModelState`.
private final class ModelRunner {
    let backing: ModelTestBacking
    let pageSize: Int
    let seed: UInt64
    var rng: TestRandom
    let directory: TemporaryDirectory?
    let path: String?
    let device: MemoryDevice?
    var storage: Storage?

    var committed = ModelState()
    var version: UInt64 = 0
    /// Old snapshots kept alive across later commits, each with the model of its version.
    var kept: [(snapshot: Snapshot, model: ModelState)] = []
    var commits = 0
    var aborts = 0
    /// Transactions that spilled pages to the file before they ended (a file's only: an
    /// in-memory database never spills).
    var spilled = 0
    var operations = 0
    var lastPageCount = 0

    init(backing: ModelTestBacking, pageSize: Int, seed: UInt64) throws {
        self.backing = backing
        self.pageSize = pageSize
        self.seed = seed
        rng = TestRandom(seed: seed)
        switch backing {
        case .memory:
            directory = nil
            path = nil
            let device = MemoryDevice(name: "model-\(seed)")
            self.device = device
            storage = try Storage(device: device, options: StorageOptions(pageSize: pageSize))
        case .file:
            let directory = try TemporaryDirectory("model")
            self.directory = directory
            let path = directory.file("model.burrow")
            self.path = path
            device = nil
            storage = try Storage.open(path: path, options: StorageOptions(pageSize: pageSize))
        }
    }

    var context: String { "seed \(seed) (\(backing), page size \(pageSize)), commit #\(commits), op #\(operations)" }

    var maxKeySize: Int { storage!.maxKeySize }
    var maxInlineEntry: Int { (pageSize - 24) / 4 - 2 }

    // MARK: Generating keys and values

    /// Mostly short keys over a four-letter alphabet (so many collide and share prefixes), some
    /// empty, some of medium length, and some at or near the longest key allowed.
    func makeKey(existing tree: ModelTree?) -> Bytes {
        if let tree, tree.count > 0, rng.chance(30) { return rng.element(tree.keys) }
        let alphabet: [UInt8] = [0x00, 0x41, 0x42, 0xFF]
        let roll = rng.int(0..<1000)
        if roll < 8 { return [] }
        if roll < 860 { return (0..<rng.int(1...6)).map { _ in rng.element(alphabet) } }
        if roll < 920 { return (0..<rng.int(7...200)).map { _ in rng.element(alphabet) } }
        // Near the limit: a short random prefix, a shared filler, a varying last byte.
        var key = (0..<rng.int(0...2)).map { _ in rng.element(alphabet) }
        let length = maxKeySize - rng.int(0...3)
        key += [UInt8](repeating: 0x41, count: max(0, length - key.count - 1))
        key.append(rng.element(alphabet))
        return key
    }

    func makeValue(keyLength: Int) -> Bytes {
        let roll = rng.int(0..<100)
        let length: Int
        switch roll {
        case 0..<10: length = 0
        case 10..<50: length = rng.int(1...40)
        case 50..<70: length = rng.int(41...600)
        case 70..<80: length = rng.int(600...1100)
        case 80..<85:
            // Right at the inline/overflow boundary for this key.
            let inline = maxInlineEntry - 6 - keyLength
            length = max(0, inline + rng.int(-2...2))
        case 85..<95: length = rng.int(1100...5000)
        default: length = rng.int(5000...20480)
        }
        return rng.bytes(length)
    }

    // MARK: Checking

    /// Compares a cursor's moves with the model: seeks both ways, then a few steps forward or
    /// backward from there, and off either end.
    func checkCursor<S: PageSource>(_ cursor: inout Cursor<S>, _ tree: ModelTree, _ what: String) throws {
        let probe = makeKey(existing: tree)
        if rng.chance(50) {
            let index = tree.lowerBound(probe)
            let found = try cursor.seek(probe)
            try #require(found == (index < tree.count), "\(context): \(what) seek(\(probe.prefix(12)))")
            try walk(&cursor, tree, from: index, forward: rng.chance(70), what: "\(what) after seek")
        } else {
            let index = tree.lastAtOrBefore(probe)
            let found = try cursor.seek(atOrBefore: probe)
            try #require(found == (index >= 0), "\(context): \(what) seek(atOrBefore: \(probe.prefix(12)))")
            try walk(&cursor, tree, from: index, forward: rng.chance(30), what: "\(what) after seek(atOrBefore:)")
        }
    }

    func walk<S: PageSource>(_ cursor: inout Cursor<S>, _ tree: ModelTree, from start: Int, forward: Bool, what: String) throws {
        var index = start
        let steps = rng.chance(10) ? tree.count + 1 : rng.int(0...8)
        for step in 0...steps {
            let expectedValid = index >= 0 && index < tree.count
            try #require(cursor.isValid == expectedValid, "\(context): \(what), step \(step): validity")
            guard expectedValid else { return }
            let key = tree.keys[index]
            try #require(Array(cursor.key) == key, "\(context): \(what), step \(step): key")
            try #require(Array(try cursor.value()) == tree.values[key]!, "\(context): \(what), step \(step): value")
            if step == steps { return }
            let moved = forward ? try cursor.next() : try cursor.previous()
            index += forward ? 1 : -1
            try #require(moved == (index >= 0 && index < tree.count), "\(context): \(what), step \(step): move result")
        }
    }

    /// Checks a snapshot against a model: tree names, counts, point reads, seeks and scans.
    func checkSnapshot(_ snapshot: Snapshot, _ model: ModelState, thorough: Bool, _ what: String) throws {
        try #require(try snapshot.treeNames() == model.sortedNames, "\(context): \(what): tree names")
        try #require(try snapshot.tree(named: "no such tree") == nil, "\(context): \(what)")
        for name in model.sortedNames {
            let modelTree = model.trees[name]!
            let tree = try #require(try snapshot.tree(named: name), "\(context): \(what): tree \(name) missing")
            try #require(tree.count == modelTree.count, "\(context): \(what): count of \(name)")
            for _ in 0..<(thorough ? 20 : 4) {
                let key = makeKey(existing: modelTree)
                let expected = modelTree.values[key]
                try #require(try tree.value(forKey: key) == expected, "\(context): \(what): value in \(name)")
                try #require(try tree.contains(key) == (expected != nil), "\(context): \(what): contains in \(name)")
                let zeroCopy = try key.withUnsafeBytes { k in try tree.withValue(forKey: k) { Array($0) } }
                try #require(zeroCopy == expected, "\(context): \(what): withValue in \(name)")
            }
            var cursor = tree.makeCursor()
            for _ in 0..<(thorough ? 6 : 2) { try checkCursor(&cursor, modelTree, "\(what) tree \(name)") }
            if thorough {
                let scanned = try modelTestScan(tree)
                try #require(scanned.map(\.key) == modelTree.keys, "\(context): \(what): forward scan keys of \(name)")
                for (key, value) in scanned {
                    try #require(value == modelTree.values[key]!, "\(context): \(what): scanned value in \(name)")
                }
                var backward: [Bytes] = []
                var more = try cursor.last()
                while more {
                    backward.append(Array(cursor.key))
                    more = try cursor.previous()
                }
                try #require(backward == modelTree.keys.reversed(), "\(context): \(what): backward scan of \(name)")
            }
        }
    }

    /// Runs `verify()` on the latest version and compares its report with the model and with
    /// `statistics()`.
    func verifyLatest() throws {
        let storage = storage!
        let snapshot = try storage.snapshot()
        let report = try snapshot.verify()
        try #require(report.version == version, "\(context): verify version")
        try #require(report.entries == UInt64(committed.entries), "\(context): verify entries")
        try #require(report.trees == committed.trees.count, "\(context): verify trees")
        let stats = try storage.statistics()
        try #require(stats.version == version)
        try #require(stats.pageCount == report.pageCount, "\(context): statistics pageCount")
        try #require(stats.usedPages == report.reachablePages, "\(context): statistics usedPages")
        try #require(stats.freePages == report.freePages, "\(context): statistics freePages")
        // A file shorter than its pages cannot be opened again (`truncated`).
        #expect(stats.fileSize >= stats.pageCount * pageSize, "\(context): the file is shorter than the pages its meta counts")
        lastPageCount = stats.pageCount
    }

    // MARK: Transactions

    func openTree(_ txn: WriteTransaction, _ name: String, _ pending: inout ModelState, _ changed: inout Bool) throws -> TreeID {
        let existed = pending.trees[name] != nil
        let id = try txn.openTree(named: name)
        if !existed {
            pending.trees[name] = ModelTree()
            changed = true
        }
        return id
    }

    /// One random operation inside a write transaction, checked against `pending`.
    func step(_ txn: WriteTransaction, _ pending: inout ModelState, _ changed: inout Bool, _ triedChange: inout Bool) throws {
        operations += 1
        let name = rng.element(modelTreeNames)
        let roll = rng.int(0..<1000)
        switch roll {
        case 0..<430:  // put
            let id = try openTree(txn, name, &pending, &changed)
            let key = makeKey(existing: pending.trees[name])
            let value = makeValue(keyLength: key.count)
            let replaced: Bool
            if rng.chance(20) {
                replaced = try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try txn.put(k, v, in: id) } }
            } else {
                replaced = try txn.put(key, value, in: id)
            }
            try #require(replaced == pending.trees[name]!.put(key, value), "\(context): put replaced")
            changed = true
        case 430..<580:  // delete
            guard let id = try txn.tree(named: name) else {
                try #require(pending.trees[name] == nil, "\(context): tree \(name) missing in transaction")
                return
            }
            let key = makeKey(existing: pending.trees[name])
            triedChange = true
            let removed = try txn.delete(key, from: id)
            try #require(removed == pending.trees[name]!.delete(key), "\(context): delete result")
            if removed { changed = true }
        case 580..<680:  // point reads inside the transaction
            guard let id = try txn.tree(named: name) else {
                try #require(pending.trees[name] == nil, "\(context): tree \(name) missing in transaction")
                return
            }
            let tree = pending.trees[name]!
            let key = makeKey(existing: tree)
            try #require(try txn.value(forKey: key, in: id) == tree.values[key], "\(context): transaction value")
            let zeroCopy = try key.withUnsafeBytes { k in try txn.withValue(forKey: k, in: id) { Array($0) } }
            try #require(zeroCopy == tree.values[key], "\(context): transaction withValue")
            try #require(try txn.count(of: id) == tree.count, "\(context): transaction count")
        case 680..<780:  // seeks and scans inside the transaction
            guard let id = try txn.tree(named: name) else { return }
            var cursor = try txn.makeCursor(for: id)
            try checkCursor(&cursor, pending.trees[name]!, "transaction cursor")
        case 780..<800:  // a change invalidates an open cursor
            let id = try openTree(txn, name, &pending, &changed)
            var cursor = try txn.makeCursor(for: id)
            _ = try cursor.first()
            let key = makeKey(existing: pending.trees[name])
            let value = makeValue(keyLength: key.count)
            try #require(try txn.put(key, value, in: id) == pending.trees[name]!.put(key, value), "\(context): put replaced")
            changed = true
            #expect(throws: StorageError.cursorInvalidated, "\(context)") { try cursor.next() }
            #expect(throws: StorageError.cursorInvalidated, "\(context)") { try cursor.previous() }
            var fresh = try txn.makeCursor(for: id)
            try checkCursor(&fresh, pending.trees[name]!, "fresh transaction cursor")
        case 800..<815:  // create (or fail to re-create) a tree
            if pending.trees[name] != nil {
                #expect(throws: StorageError.treeExists(name: name), "\(context)") { _ = try txn.createTree(named: name) }
            } else {
                _ = try txn.createTree(named: name)
                pending.trees[name] = ModelTree()
                changed = true
            }
        case 815..<817:  // drop a tree
            if pending.trees[name] != nil {
                try txn.dropTree(named: name)
                pending.trees[name] = nil
                changed = true
                try #require(try txn.tree(named: name) == nil, "\(context): dropped tree still there")
            } else {
                #expect(throws: StorageError.noSuchTree(name: name), "\(context)") { try txn.dropTree(named: name) }
            }
        case 817..<819:  // empty a tree
            guard let id = try txn.tree(named: name) else { return }
            try txn.removeAll(in: id)
            pending.trees[name] = ModelTree()
            changed = true
            try #require(try txn.count(of: id) == 0, "\(context): count after removeAll")
        case 819..<845:  // the transaction's view of the catalog
            try #require(try txn.treeNames() == pending.sortedNames, "\(context): transaction tree names")
        case 845..<960:  // a run of ascending keys sharing a prefix (appends to a page's end)
            let id = try openTree(txn, name, &pending, &changed)
            var prefix = makeKey(existing: nil)
            if prefix.count > maxKeySize - 2 { prefix.removeLast(3) }
            for i in 0..<rng.int(5...60) {
                let key = prefix + [UInt8(i / 256), UInt8(i % 256)]
                let value = rng.chance(90) ? rng.bytes(rng.int(0...60)) : makeValue(keyLength: key.count)
                try #require(try txn.put(key, value, in: id) == pending.trees[name]!.put(key, value), "\(context): run put")
            }
            changed = true
        default:  // delete a run of neighbouring keys (empties and merges pages)
            guard let id = try txn.tree(named: name), let tree = pending.trees[name], tree.count > 0 else { return }
            let start = rng.int(0..<tree.count)
            let keys = Array(tree.keys[start..<min(tree.count, start + rng.int(5...40))])
            triedChange = true
            for key in keys {
                try #require(try txn.delete(key, from: id), "\(context): run delete")
                pending.trees[name]!.delete(key)
            }
            changed = true
        }
    }

    /// One transaction of random operations, then a commit, an abort or a drop.
    func transaction(budget: Int) async throws -> Int {
        let storage = storage!
        let txn = rng.chance(50) ? try await storage.beginWrite() : try storage.beginWriteBlocking()
        try #require(txn.baseVersion == version, "\(context): base version")
        var pending = committed
        var changed = false
        var triedChange = false
        let count = min(budget, rng.chance(10) ? rng.int(100...300) : rng.int(1...40))
        // Some transactions keep only a few pages in memory and spill the rest as they go.
        if rng.chance(25) { txn.memoryLimit = rng.int(1...16) * storage.pageSize }
        for _ in 0..<count { try step(txn, &pending, &changed, &triedChange) }
        if txn.dirtyPageCounts.spilled > 0 { spilled += 1 }

        let roll = rng.int(0..<100)
        if roll < 12 {
            txn.abort()
            aborts += 1
            #expect(throws: StorageError.transactionFinished, "\(context)") { try txn.put([1], [1], in: try txn.openTree(named: "a")) }
            try #require(storage.version == version, "\(context): abort changed the version")
            return count
        }
        if roll < 16 {
            // Dropped without commit or abort: its deinit must give the lock back.
            aborts += 1
            return count
        }
        let durability: Durability = rng.chance(10) ? .full : .normal
        let newVersion = try txn.commit(durability: durability)
        commits += 1
        if changed {
            try #require(newVersion == version + 1, "\(context): a changing commit must add exactly one version")
        } else if !triedChange {
            try #require(newVersion == version, "\(context): a commit without changes must keep the version")
        } else {
            try #require(newVersion == version || newVersion == version + 1, "\(context): version after a no-op commit")
        }
        #expect(throws: StorageError.transactionFinished, "\(context)") { try txn.commit() }
        version = newVersion
        committed = pending
        try #require(storage.version == version, "\(context): storage.version after commit")
        return count
    }

    /// Checks the latest version, and sometimes keeps it (or releases an old one).
    func afterTransaction() throws {
        let storage = storage!
        let snapshot = try storage.snapshot()
        try #require(snapshot.version == version, "\(context): snapshot version")
        try checkSnapshot(snapshot, committed, thorough: commits % 10 == 0, "latest")
        if rng.chance(12) { kept.append((snapshot, committed)) }
        if kept.count > 6 || (kept.count > 0 && rng.chance(8)) {
            let index = rng.int(0..<kept.count)
            try checkSnapshot(kept[index].snapshot, kept[index].model, thorough: true, "released snapshot v\(kept[index].snapshot.version)")
            kept.remove(at: index)
        }
        if !kept.isEmpty && rng.chance(15) {
            let (old, model) = rng.element(kept)
            try checkSnapshot(old, model, thorough: rng.chance(40), "kept snapshot v\(old.version)")
        }
        if commits % 25 == 0 {
            try verifyLatest()
            if let (old, model) = kept.first {
                let report = try old.verify()
                try #require(report.entries == UInt64(model.entries), "\(context): verify of kept snapshot v\(old.version)")
            }
        }
        let stats = try storage.statistics()
        let pinned = Set(kept.map { $0.snapshot.version }).union([version])
        try #require(stats.pinnedVersions == pinned.count, "\(context): pinned versions")
        try #require(stats.oldestPinnedVersion == pinned.min(), "\(context): oldest pinned version")
    }

    /// Lets go of every reference, opens the database again and checks it against the model.
    func reopen() throws {
        for (snapshot, model) in kept {
            try checkSnapshot(snapshot, model, thorough: true, "kept snapshot v\(snapshot.version) before reopening")
        }
        kept.removeAll()
        weak let old = storage
        storage = nil
        // A sync round running in the background holds the handle until it ends (a round waiting
        // in its queue does not); nothing else may.
        let released = TestWait.until(timeout: 30) { old == nil }
        try #require(released, "\(context): a reference to the storage outlived the test's")
        // The page size option only applies to new files: ask for the other one.
        let other = StorageOptions(pageSize: pageSize == 4096 ? 16384 : 4096)
        switch backing {
        case .memory: storage = try Storage(device: device!, options: other)
        case .file: storage = try Storage.open(path: path!, options: other)
        }
        let storage = storage!
        try #require(storage.pageSize == pageSize, "\(context): page size after reopening")
        try #require(storage.version == version, "\(context): version after reopening")
        try checkSnapshot(try storage.snapshot(), committed, thorough: true, "after reopening")
        try verifyLatest()
    }

    func run(operations total: Int) async throws {
        var done = 0
        var reopened = false
        while done < total {
            done += try await transaction(budget: total - done)
            try afterTransaction()
            if !reopened && done >= total / 2 {
                reopened = true
                try reopen()
            }
        }
        for (snapshot, model) in kept {
            try checkSnapshot(snapshot, model, thorough: true, "kept snapshot v\(snapshot.version) at the end")
            let report = try snapshot.verify()
            try #require(report.entries == UInt64(model.entries), "\(context): verify of kept snapshot v\(snapshot.version)")
        }
        try checkSnapshot(try storage!.snapshot(), committed, thorough: true, "final")
        try verifyLatest()
        try reopen()
    }
}

@Suite("ModelBased")
struct ModelBasedTests {
    static let cases: [(ModelTestBacking, Int)] = [(.memory, 4096), (.memory, 16384), (.file, 4096), (.file, 16384)]

    @Test("random operations match the model", arguments: cases)
    func randomOperations(backing: ModelTestBacking, pageSize: Int) async throws {
        let operations = TestEnvironment.count("BURROW_MODEL_OPS", default: 5000)
        let base = TestSeed.make("ModelBased random operations, \(backing)/\(pageSize), \(operations) operations")
        let seed = base ^ UInt64(pageSize) ^ (backing == .file ? 0x5EED_F11E : 0)
        let runner = try ModelRunner(backing: backing, pageSize: pageSize, seed: seed)
        try await runner.run(operations: operations)
        print(
            "model \(backing)/\(pageSize): \(runner.commits) commits, \(runner.aborts) aborted, \(runner.spilled) spilled,",
            "version \(runner.version), \(runner.committed.entries) entries, \(runner.lastPageCount) pages")
        #expect(runner.commits > 0)
        if backing == .file { #expect(runner.spilled > 0, "no transaction spilled") }
    }

    /// Long keys make trees deep with few entries (a branch holds only a handful of them), so
    /// this grows a tree several levels deep in random order, then deletes it down to nothing in
    /// random order, checking against the model and keeping a snapshot of the full tree.
    @Test("deep trees grow and shrink", arguments: [ModelTestBacking.memory, .file])
    func deepTrees(backing: ModelTestBacking) throws {
        let base = TestSeed.make("ModelBased deep trees, \(backing)")
        let seed = base ^ 0xDEE9 ^ (backing == .file ? 1 : 0)
        var rng = TestRandom(seed: seed)
        let directory = try TemporaryDirectory("deep")
        let storage =
            switch backing {
            case .memory: try Storage(device: MemoryDevice(name: "deep"))
            case .file: try Storage.open(path: directory.file("deep.burrow"))
            }
        let count = TestEnvironment.count("BURROW_MODEL_OPS", default: 5000) / 2
        // 300-byte keys with shared prefixes; the distinguishing bytes sit at the end.
        func key(_ i: Int) -> Bytes {
            var key = [UInt8](repeating: UInt8(ascii: "p"), count: 300)
            key[0] = UInt8((i % 3 + 3) % 3)
            for j in 0..<4 { key[296 + j] = UInt8(truncatingIfNeeded: i >> (24 - 8 * j)) }
            return key
        }
        func value(_ i: Int) -> Bytes { i % 50 == 0 ? rng.bytes(6000) : Array("v\(i)".utf8) }
        var model = ModelTree()
        let order = (0..<count).shuffled(using: &rng)
        for chunk in stride(from: 0, to: count, by: 500) {
            let txn = try storage.beginWriteBlocking()
            let t = try txn.openTree(named: "deep")
            for i in order[chunk..<min(count, chunk + 500)] {
                let v = value(i)
                try txn.put(key(i), v, in: t)
                model.put(key(i), v)
            }
            try txn.commit(durability: .normal)
        }
        let full = try storage.snapshot()
        let fullModel = model
        // Depth: follow the leftmost path from the root.
        var depth = 1
        var page = try full.page(try #require(try full.tree(named: "deep")).state.root)
        while !PageHeader.isLeaf(page) {
            depth += 1
            page = try full.page(PageHeader.child(page, 0))
        }
        #expect(depth >= 4, "seed \(base): the tree should be at least four levels deep, not \(depth)")

        func check(_ snapshot: Snapshot, _ model: ModelTree, _ what: String) throws {
            let tree = try #require(try snapshot.tree(named: "deep"), "seed \(base): \(what)")
            let scanned = try modelTestScan(tree)
            try #require(scanned.map(\.key) == model.keys, "seed \(base): \(what): keys")
            try #require(scanned.allSatisfy { model.values[$0.key] == $0.value }, "seed \(base): \(what): values")
            var cursor = tree.makeCursor()
            for _ in 0..<50 {
                let probe = key(rng.int(-5...count + 5))
                let index = model.lowerBound(probe)
                try #require(try cursor.seek(probe) == (index < model.count), "seed \(base): \(what): seek")
                if index < model.count { try #require(Array(cursor.key) == model.keys[index]) }
                let before = model.lastAtOrBefore(probe)
                try #require(try cursor.seek(atOrBefore: probe) == (before >= 0), "seed \(base): \(what): seek(atOrBefore:)")
                if before >= 0 {
                    try #require(Array(cursor.key) == model.keys[before])
                    if before > 0 {
                        try #require(try cursor.previous())
                        try #require(Array(cursor.key) == model.keys[before - 1])
                    }
                }
            }
            let report = try snapshot.verify()
            try #require(report.entries == UInt64(model.count), "seed \(base): \(what): verify")
        }
        try check(full, fullModel, "full tree")

        let deletions = (0..<count).shuffled(using: &rng)
        for chunk in stride(from: 0, to: count, by: 400) {
            let txn = try storage.beginWriteBlocking()
            let t = try txn.tree(named: "deep")!
            for i in deletions[chunk..<min(count, chunk + 400)] {
                try #require(try txn.delete(key(i), from: t), "seed \(base)")
                model.delete(key(i))
            }
            try txn.commit(durability: .normal)
            try check(try storage.snapshot(), model, "after deleting \(min(count, chunk + 400)) keys")
        }
        #expect(model.count == 0)
        #expect(try storage.snapshot().tree(named: "deep")?.count == 0)
        // The full snapshot survived it all.
        try check(full, fullModel, "full tree after deleting everything")
    }

    /// With no old snapshot alive, freed pages are reused: after most keys are deleted, putting
    /// back less than was deleted does not grow the file, and a steady put/delete workload
    /// levels off.
    /// `.normal` commits never sync themselves, but once the pages they free and hold back from
    /// reuse pass `heldBackLimit`, a sync round runs in the background and makes them reusable:
    /// a long run of `.normal` commits does not grow the file for ever.
    @Test("freed pages are reused under .normal commits alone")
    func freePagesAreReusedUnderNormalCommits() throws {
        let storage = try Storage(device: MemoryDevice(name: "normal reuse"))
        let value = [UInt8](repeating: 7, count: 3000)  // one overflow page per put
        var highWater: [Int] = []
        for round in 0..<120 {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "t")
            for i in 0..<40 { try txn.put(Array("k\(i)".utf8), value + [UInt8(truncatingIfNeeded: round)], in: tree) }
            try txn.commit(durability: .normal)
            highWater.append(try storage.statistics().pageCount)
        }
        // Each round frees about 40 pages: without reuse, 120 rounds would need about 4,800.
        let limit = Storage.heldBackLimit(pageCount: PageNumber(highWater.last!))
        #expect(highWater.last! < 3 * limit, "\(highWater)")
        #expect(highWater[100...].max()! <= highWater[60..<100].max()! + 50, "\(highWater)")
        _ = try storage.snapshot().verify()
    }

    @Test("freed pages are reused", arguments: cases)
    func freePagesAreReused(backing: ModelTestBacking, pageSize: Int) throws {
        let base = TestSeed.make("ModelBased free-page reuse, \(backing)/\(pageSize)")
        let seed = base ^ UInt64(pageSize) ^ (backing == .file ? 0xF4EE : 0xF4EE_0000)
        var rng = TestRandom(seed: seed)
        let directory = try TemporaryDirectory("reuse")
        let storage: Storage
        switch backing {
        case .memory: storage = try Storage(device: MemoryDevice(name: "reuse"), options: StorageOptions(pageSize: pageSize))
        case .file: storage = try Storage.open(path: directory.file("reuse.burrow"), options: StorageOptions(pageSize: pageSize))
        }
        func key(_ i: Int) -> Bytes { Array("key-\(i * 7919 % 100_003)".utf8) }
        func value(_ i: Int, _ round: Int) -> Bytes {
            // Sizes depend on the key only, so the amount of data stays the same from round to round.
            let length = i % 11 == 0 ? 3000 + i % 7 * 1000 : 20 + i % 300
            return [UInt8](repeating: UInt8(truncatingIfNeeded: round &+ i), count: length)
        }
        func commitRound(_ body: (WriteTransaction, TreeID) throws -> Void) throws {
            let txn = try storage.beginWriteBlocking()
            try body(txn, try txn.openTree(named: "t"))
            try txn.commit(durability: .normal)
        }
        let keyCount = 1500
        for chunk in stride(from: 0, to: keyCount, by: 300) {
            try commitRound { txn, t in for i in chunk..<chunk + 300 { try txn.put(key(i), value(i, 0), in: t) } }
        }
        let full = try storage.statistics()
        // Delete nine in ten keys, then let a few commits move the freed pages into reach.
        try commitRound { txn, t in for i in 0..<keyCount where i % 10 != 0 { try txn.delete(key(i), from: t) } }
        for round in 1...3 { try commitRound { txn, t in try txn.put(key(0), value(0, round), in: t) } }
        // Pages freed by a version are reused once it is durable (the durable meta, which a power
        // cut falls back to, may reach them); `.normal` commits leave that to sync rounds in the
        // background, after enough freed pages are held back. Wait for one here.
        try storage.waitUntilDurableBlocking(CommitReceipt(version: storage.version))
        let afterDelete = try storage.statistics()
        #expect(afterDelete.freePages > full.pageCount / 2, "seed \(base): most pages should be free after deleting 90% of the keys")
        #expect(afterDelete.pinnedVersions == 0, "seed \(base): no snapshot is alive")

        // Put back half of what was deleted: it must fit in the freed pages.
        try commitRound { txn, t in for i in 0..<keyCount where i % 10 != 0 && i % 2 == 0 { try txn.put(key(i), value(i, 1), in: t) } }
        let refilled = try storage.statistics()
        #expect(
            refilled.pageCount == afterDelete.pageCount,
            "seed \(base): re-inserting deleted data grew the file from \(afterDelete.pageCount) to \(refilled.pageCount) pages")

        // A steady workload: rewrite and delete/re-insert random keys; the data size is constant.
        let live = (0..<keyCount).filter { $0 % 10 == 0 || $0 % 2 == 0 }
        var highWater: [Int] = []
        for round in 0..<60 {
            try commitRound { txn, t in
                for _ in 0..<40 {
                    let i = rng.element(live)
                    try txn.put(key(i), value(i, round), in: t)
                }
                let victims = (0..<15).map { _ in rng.element(live) }
                for i in victims { try txn.delete(key(i), from: t) }
                for i in victims { try txn.put(key(i), value(i, round &+ 1), in: t) }
            }
            // Each round's freed pages become reusable once it is durable.
            try storage.waitUntilDurableBlocking(CommitReceipt(version: storage.version))
            highWater.append(try storage.statistics().pageCount)
        }
        print("free-page reuse \(backing)/\(pageSize): after delete \(afterDelete.pageCount) pages, steady workload \(highWater)")
        let early = highWater[0..<20].max()!
        let late = highWater[20...].max()!
        #expect(late <= early, "seed \(base): page count kept growing under a steady workload: \(highWater)")
        #expect(late <= afterDelete.pageCount, "seed \(base): the steady workload outgrew the file (\(afterDelete.pageCount) pages)")
        let report = try storage.snapshot().verify()
        #expect(report.entries == UInt64(live.count), "seed \(base)")
        #expect(report.pageCount == highWater.last!)
    }
}
