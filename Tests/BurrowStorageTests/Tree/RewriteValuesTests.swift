// `WriteTransaction.rewriteValues` and `rewriteAllValues` (bulk updates of existing keys)
// against a dictionary model:
// random trees, random key subsets (ascending, shuffled, with duplicates and absent keys), new
// values that keep their size, grow, shrink or move to and from overflow runs, so that leaves
// are patched in place, rebuilt, split and left alone. Every transaction is checked entry by
// entry and with `verify()`.
//
// Replay a failure with the seed it prints:
//     BURROW_SEED=<seed> swift test --filter RewriteValues

import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage

@Suite("RewriteValues")
struct RewriteValuesTests {
    /// What the test's `body` makes of an old value: nil to leave it, otherwise the new value.
    /// A function of the old value, the key's index and a salt alone, so the model computes the
    /// same whatever order the engine asks in.
    static func newValue(_ old: [UInt8], index: Int, salt: UInt64, overflowSize: Int) -> [UInt8]? {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in old { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        var rng = TestRandom(seed: salt ^ hash ^ UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9)
        let fill = UInt8(truncatingIfNeeded: rng.next())
        switch rng.int(0..<100) {
        case 0..<15: return nil
        case 15..<35: return [UInt8](repeating: fill, count: old.count)
        case 35..<60: return [UInt8](repeating: fill, count: old.count + rng.int(1...40))
        case 60..<80: return [UInt8](repeating: fill, count: max(0, old.count - rng.int(1...40)))
        case 80..<85: return []
        case 85..<92: return rng.bytes(overflowSize + rng.int(0...3000))
        default: return rng.bytes(rng.int(0...120))
        }
    }

    @Test("rewriteValues matches a put of each new value, over random trees and key subsets", arguments: [4096, 16384])
    func matchesModel(pageSize: Int) throws {
        let seed = TestSeed.make("RewriteValues pageSize \(pageSize)")
        var rng = TestRandom(seed: seed)
        let rounds = TestEnvironment.count("BURROW_MODEL_OPS", default: 8)
        for round in 0..<rounds {
            let storage = try Storage(device: MemoryDevice(name: "rewrite-\(seed)-\(round)"), options: StorageOptions(pageSize: pageSize))
            defer { storage.close() }
            let keySize = rng.element([1, 2, 8, 8, 8, 24])
            let keySpace = keySize == 1 ? 256 : keySize == 2 ? 2_000 : 1 << 40
            let overflowSize = storage.layout.maxInlineEntry
            var model: [[UInt8]: [UInt8]] = [:]
            func randomKey() -> [UInt8] {
                let n = UInt64(rng.int(0..<keySpace))
                var bytes = withUnsafeBytes(of: n.bigEndian) { Array($0) }
                if keySize < 8 { return Array(bytes.suffix(keySize)) }
                while bytes.count < keySize { bytes.append(UInt8(truncatingIfNeeded: n &* 31 &+ UInt64(bytes.count))) }
                return bytes
            }
            // A tree of random size, values mostly small, some in overflow runs.
            try modelTestCommit(storage) { txn in
                let tree = try txn.openTree(named: "t")
                for _ in 0..<rng.int(0...(keySize == 1 ? 300 : 4_000)) {
                    let key = randomKey()
                    let value = rng.chance(3) ? rng.bytes(overflowSize + rng.int(0...2_000)) : rng.bytes(rng.int(0...90))
                    try txn.put(key, value, in: tree)
                    model[key] = value
                }
            }
            for transaction in 0..<6 {
                let txn = try storage.beginWriteBlocking()
                let tree = try txn.openTree(named: "t")
                for call in 0..<rng.int(1...4) {
                    // Some puts and deletes first, so that leaves carry garbage and dirty pages.
                    let before = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
                    for _ in 0..<rng.int(0...30) {
                        let key = randomKey()
                        if rng.chance(30), !before.isEmpty {
                            let existing = rng.element(before)
                            try txn.delete(existing, from: tree)
                            model[existing] = nil
                        } else {
                            let value = rng.bytes(rng.int(0...60))
                            try txn.put(key, value, in: tree)
                            model[key] = value
                        }
                    }
                    if rng.chance(20) {
                        // Every entry, with no keys given.
                        let salt = rng.next()
                        let expectedKeys = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
                        for key in expectedKeys {
                            if let new = Self.newValue(model[key]!, index: key.count, salt: salt ^ UInt64(key.last ?? 0), overflowSize: overflowSize)
                            {
                                model[key] = new
                            }
                        }
                        var visited: [[UInt8]] = []
                        try txn.rewriteAllValues(in: tree) { key, old, new in
                            visited.append(Array(key))
                            guard
                                let value = Self.newValue(
                                    Array(old), index: key.count, salt: salt ^ UInt64(key.last ?? 0), overflowSize: overflowSize)
                            else { return false }
                            new.append(contentsOf: value)
                            return true
                        }
                        let label = "seed \(seed) round \(round) transaction \(transaction) call \(call), every entry"
                        #expect(visited == expectedKeys, "\(label): keys visited in order")
                        #expect(try txn.count(of: tree) == model.count, "\(label): count")
                        continue
                    }
                    // The keys: a subset of the tree's, some absent keys, in ascending order
                    // mostly, sometimes shuffled or with duplicates.
                    let present = model.keys.sorted { $0.lexicographicallyPrecedes($1) }
                    let share = rng.element([1, 5, 30, 100])
                    var chosen = present.filter { _ in rng.int(0..<100) < share }
                    for _ in 0..<rng.int(0...5) { chosen.append(randomKey()) }
                    let order = rng.int(0..<10)
                    if order < 7 {
                        chosen.sort { $0.lexicographicallyPrecedes($1) }
                        chosen = chosen.enumerated().filter { $0.offset == 0 || chosen[$0.offset - 1] != $0.element }.map(\.element)
                    } else if order < 9 {
                        chosen.shuffle(using: &rng)
                    } else {
                        chosen += chosen.prefix(rng.int(0...chosen.count))
                        chosen.sort { $0.lexicographicallyPrecedes($1) }
                    }
                    let salt = rng.next()
                    // The model: a put of each new value in turn.
                    var expectedMissing: [Int] = []
                    for (index, key) in chosen.enumerated() {
                        guard let old = model[key] else {
                            expectedMissing.append(index)
                            continue
                        }
                        if let new = Self.newValue(old, index: index, salt: salt, overflowSize: overflowSize) { model[key] = new }
                    }
                    let flat = chosen.flatMap { $0 }
                    var asked: [Int] = []
                    let missing = try flat.withUnsafeBytes { keys in
                        try txn.rewriteValues(in: tree, keys: keys, keySize: keySize) { index, old, new in
                            asked.append(index)
                            guard let value = Self.newValue(Array(old), index: index, salt: salt, overflowSize: overflowSize) else { return false }
                            new.append(contentsOf: value)
                            return true
                        }
                    }
                    let label = "seed \(seed) round \(round) transaction \(transaction) call \(call)"
                    #expect(missing == expectedMissing, "\(label): missing keys")
                    #expect(asked == (0..<chosen.count).filter { !expectedMissing.contains($0) }, "\(label): keys asked in order")
                    #expect(try txn.count(of: tree) == model.count, "\(label): count")
                    for (key, value) in model where rng.chance(10) {
                        #expect(try txn.value(forKey: key, in: tree) == value, "\(label): value of \(key)")
                    }
                }
                if rng.chance(15) {
                    txn.abort()
                    let snapshot = try storage.snapshot()
                    model = [:]
                    if let tree = try snapshot.tree(named: "t") {
                        for (key, value) in try modelTestScan(tree) { model[key] = value }
                    }
                    continue
                }
                _ = try txn.commit(durability: .normal)
                let snapshot = try storage.snapshot()
                _ = try snapshot.verify()
                let stored = try modelTestScan(try #require(try snapshot.tree(named: "t")))
                let expected = model.sorted { $0.key.lexicographicallyPrecedes($1.key) }
                let label = "seed \(seed) round \(round) transaction \(transaction)"
                #expect(stored.count == expected.count, "\(label): entries")
                #expect(stored.map(\.key) == expected.map(\.key), "\(label): keys")
                #expect(stored.map(\.value) == expected.map(\.value), "\(label): values")
                if stored.map(\.value) != expected.map(\.value) { return }
            }
        }
    }

    @Test("rewriteValues on an empty tree reports every key missing and changes nothing")
    func emptyTree() throws {
        let storage = try Storage(device: MemoryDevice(name: "rewrite-empty"))
        defer { storage.close() }
        let txn = try storage.beginWriteBlocking()
        let tree = try txn.openTree(named: "t")
        let keys: [UInt8] = [1, 2, 3, 4]
        let missing = try keys.withUnsafeBytes { k in
            try txn.rewriteValues(in: tree, keys: k, keySize: 2) { _, _, _ in
                Issue.record("body called for an absent key")
                return true
            }
        }
        #expect(missing == [0, 1])
        #expect(try txn.count(of: tree) == 0)
        txn.abort()
    }

    @Test("a leaf whose entries all keep their sizes is patched; one whose entries grow is rebuilt, carries entries into the next, or splits")
    func growingLeaves() throws {
        let storage = try Storage(device: MemoryDevice(name: "rewrite-grow"))
        defer { storage.close() }
        var keys: [UInt8] = []
        try modelTestCommit(storage) { txn in
            let tree = try txn.openTree(named: "t")
            for i in 0..<2_000 {
                let key = withUnsafeBytes(of: UInt64(i).bigEndian) { Array($0) }
                keys += key
                try txn.put(key, [UInt8](repeating: 1, count: 40), in: tree)
            }
        }
        let loadedPages = try storage.snapshot().verify().reachablePages
        for (round, size) in [40, 41, 60, 10, 300, 10, 40].enumerated() {
            try modelTestCommit(storage) { txn in
                let tree = try txn.openTree(named: "t")
                let missing = try keys.withUnsafeBytes { k in
                    try txn.rewriteValues(in: tree, keys: k, keySize: 8) { index, old, new in
                        new.append(contentsOf: [UInt8](repeating: UInt8(truncatingIfNeeded: index &+ round), count: size))
                        return true
                    }
                }
                #expect(missing.isEmpty)
            }
            let snapshot = try storage.snapshot()
            let report = try snapshot.verify()
            if round == 1 {
                // Entries one byte longer than the full leaves of an ascending load hold are
                // carried along into the following leaves, not split into half-empty ones.
                #expect(report.reachablePages <= loadedPages + loadedPages / 8, "\(loadedPages) pages before, \(report.reachablePages) after")
            }
            let entries = try modelTestScan(try #require(try snapshot.tree(named: "t")))
            #expect(entries.count == 2_000)
            for (index, entry) in entries.enumerated() {
                #expect(entry.value == [UInt8](repeating: UInt8(truncatingIfNeeded: index &+ round), count: size), "round \(round), entry \(index)")
                if entry.value.count != size { return }
            }
        }
    }

    @Test(
        "entries whose values live in overflow runs stay in their leaf when the leaf's other entries grow, whichever way the next leaf is written",
        arguments: [false, true], [1, 4, 10, 40])
    func unchangedOverflowEntriesAmongGrowingOnes(everyKey: Bool, growth: Int) throws {
        let storage = try Storage(device: MemoryDevice(name: "rewrite-overflow-\(everyKey)-\(growth)"), options: StorageOptions(pageSize: 4096))
        defer { storage.close() }
        let count = 600
        // Every seventh value is too long for a leaf and lives in an overflow run.
        let isLong = { (index: Int) in index % 7 == 6 }
        var keys: [UInt8] = []
        try modelTestCommit(storage) { txn in
            let tree = try txn.openTree(named: "t")
            for index in 0..<count {
                let key = withUnsafeBytes(of: UInt64(index).bigEndian) { Array($0) }
                keys += key
                try txn.put(key, [UInt8](repeating: isLong(index) ? 9 : 1, count: isLong(index) ? 2_000 : 40), in: tree)
            }
        }
        // Only the short values grow; the long ones are left as they are.
        let grow = { (old: UnsafeRawBufferPointer, new: inout [UInt8]) -> Bool in
            guard old.count == 40 else { return false }
            new.append(contentsOf: [UInt8](repeating: 2, count: 40 + growth))
            return true
        }
        try modelTestCommit(storage) { txn in
            let tree = try txn.openTree(named: "t")
            if everyKey {
                try txn.rewriteAllValues(in: tree) { _, old, new in grow(old, &new) }
            } else {
                let missing = try keys.withUnsafeBytes { k in
                    try txn.rewriteValues(in: tree, keys: k, keySize: 8) { _, old, new in grow(old, &new) }
                }
                #expect(missing.isEmpty)
            }
        }
        let snapshot = try storage.snapshot()
        _ = try snapshot.verify()
        let entries = try modelTestScan(try #require(try snapshot.tree(named: "t")))
        #expect(entries.count == count)
        for (index, entry) in entries.enumerated() {
            let expected = isLong(index) ? [UInt8](repeating: 9, count: 2_000) : [UInt8](repeating: 2, count: 40 + growth)
            #expect(entry.value == expected, "entry \(index)")
            if entry.value != expected { return }
        }
    }
}
