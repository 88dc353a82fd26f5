// Searches among keys whose first eight bytes (their heads, which a page's slots keep) are the
// same: strings with a common prefix, as an index of names holds. A search cannot place such
// keys by their heads (its four-way steps give way to binary steps that read the keys whole).
// Checked against a sorted model: lookups inside the write, and lookups, seeks and scans in
// committed snapshots.
//
// Replay a failure with the seed it prints: BURROW_SEED=<seed> swift test --filter TiedHeads

import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage

@Suite("TiedHeads")
struct TiedHeadSearchTests {
    @Test("searches among keys sharing their heads match the model", arguments: [4096, 16384])
    func tiedHeads(pageSize: Int) throws {
        // `seed` is the one printed (and replayed); each page size draws its own sequence.
        let seed = TestSeed.make("TiedHeads \(pageSize)")
        var rng = TestRandom(seed: seed ^ UInt64(pageSize))
        let storage = try Storage(device: MemoryDevice(name: "tied-\(seed)"), options: StorageOptions(pageSize: pageSize))
        // Families of keys with a common prefix of 7 to 12 bytes, then a short suffix that may
        // hold 0x00 and 0xFF: most keys of a page share their head with many others.
        let prefixes: [[UInt8]] = ["\u{3}Buster ", "\u{3}Charlie ", "\u{3}Buster", "\u{3}Winston 1", "\u{3}Bentley 42", "\u{3}Rex 1"].map {
            Array($0.utf8)
        }
        func makeKey() -> [UInt8] {
            var key = rng.element(prefixes)
            for _ in 0..<rng.int(0...6) { key.append(rng.chance(10) ? rng.element([0x00, 0xFF]) : UInt8(rng.int(0x30...0x39))) }
            if rng.chance(30) { key += [0, 0] + (0..<8).map { _ in UInt8(rng.int(0...255)) } }
            return key
        }
        var model: [[UInt8]: [UInt8]] = [:]
        func sortedKeys() -> [[UInt8]] { model.keys.sorted { $0.lexicographicallyPrecedes($1) } }

        func check(_ what: String, _ keys: [[UInt8]], withValue: ([UInt8]) throws -> [UInt8]?, tree: Tree?) throws {
            for _ in 0..<400 {
                let probe = rng.chance(50) && !keys.isEmpty ? rng.element(keys) : makeKey()
                try #require(try withValue(probe) == model[probe], "seed \(seed): \(what): value of \(probe)")
                guard let tree else { continue }
                let index = keys.firstIndex { !$0.lexicographicallyPrecedes(probe) } ?? keys.count
                var cursor = tree.makeCursor()
                try #require(try cursor.seek(probe) == (index < keys.count), "seed \(seed): \(what): seek \(probe)")
                if index < keys.count { try #require(Array(cursor.key) == keys[index], "seed \(seed): \(what): seek \(probe)") }
                var first: [UInt8]?
                try tree.forEachEntry(from: probe) { key, _ in
                    first = Array(key)
                    return false
                }
                try #require(first == (index < keys.count ? keys[index] : nil), "seed \(seed): \(what): scan from \(probe)")
            }
        }

        for round in 0..<12 {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "names")
            for _ in 0..<rng.int(300...1500) {
                let key = makeKey()
                if rng.chance(25), model[key] != nil {
                    try #require(try txn.delete(key, from: tree))
                    model[key] = nil
                } else {
                    let value = Array("v\(rng.int(0...999))".utf8)
                    try txn.put(key, value, in: tree)
                    model[key] = value
                }
            }
            let keys = sortedKeys()
            try check("round \(round), in the write", keys, withValue: { key in try txn.value(forKey: key, in: tree) }, tree: nil)
            try txn.commit(durability: .normal)
            let snapshot = try storage.snapshot()
            let committed = try #require(try snapshot.tree(named: "names"))
            try check("round \(round), committed", keys, withValue: { key in try committed.value(forKey: key) }, tree: committed)
        }
        print("TiedHeads \(pageSize): \(model.count) keys (seed \(seed))")
    }
}
