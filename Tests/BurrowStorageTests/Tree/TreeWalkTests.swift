import BurrowTestSupport
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// `Tree.forEachEntry`, the leaf walk that whole-tree scans use, against a cursor's scan of the
/// same tree and against a sorted model: trees from empty to several levels deep, values inline
/// and in overflow runs, a walk stopped part-way, and walks from a start key.
@Suite struct TreeWalkTests {
    @Test func testTheWalkMatchesTheModelAndTheCursorAndStopsWhenAsked() throws {
        let seed = TestSeed.make("TreeWalkTests.testTheWalkMatchesTheModelAndTheCursorAndStopsWhenAsked")
        var random = TestRandom(seed: seed)
        let storage = try Storage.inMemory(identifier: "walk-\(seed)")
        var model: [[UInt8]: [UInt8]] = [:]
        for round in 0..<5 {
            let write = try storage.beginWriteBlocking()
            let tree = try write.openTree(named: "t")
            // Each round adds more (the last ones deep trees), and removes some.
            for _ in 0..<(round * round * 400) {
                let key = Array("k\(random.int(0..<1_000_000))".utf8)
                // Mostly short values; now and then one too large for a page (an overflow run).
                let value = random.bytes(random.chance(3) ? 5_000 + random.int(0..<3_000) : random.int(0..<60))
                try write.put(key, value, in: tree)
                model[key] = value
            }
            for key in model.keys.shuffled().prefix(model.count / 5) {
                try write.delete(key, from: tree)
                model[key] = nil
            }
            try write.commit()

            let snapshot = try storage.snapshot()
            let expected = model.sorted { modelTestKeyLess($0.key, $1.key) }.map { ($0.key, $0.value) }
            var walked: [(key: [UInt8], value: [UInt8])] = []
            if let tree = try snapshot.tree(named: "t") {
                try tree.forEachEntry { key, value throws(StorageError) in
                    walked.append((Array(key), Array(value)))
                    return true
                }
                let scanned = try modelTestScan(tree)
                #expect(walked.map(\.key) == scanned.map(\.key), "seed \(seed), round \(round): walk and cursor")
                // Stopping: the body returning false ends the walk at once.
                let stopAt = expected.count / 2
                var visited = 0
                try tree.forEachEntry { _, _ throws(StorageError) in
                    visited += 1
                    return visited <= stopAt
                }
                #expect(visited == min(stopAt + 1, expected.count), "seed \(seed), round \(round): stop")
                // From a start key: every entry not less than it, whether the start is a key of
                // the tree, falls between keys, or lies before or after all of them.
                var starts: [[UInt8]] = [[], Array("l".utf8), Array("k".utf8)]
                for _ in 0..<20 { starts.append(Array("k\(random.int(0..<1_000_000))".utf8)) }
                if !expected.isEmpty { starts.append(expected[random.int(0..<expected.count)].0) }
                for start in starts {
                    var from: [[UInt8]] = []
                    try tree.forEachEntry(from: start) { key, _ throws(StorageError) in
                        from.append(Array(key))
                        return true
                    }
                    let wanted = expected.map(\.0).filter { !modelTestKeyLess($0, start) }
                    #expect(from == wanted, "seed \(seed), round \(round): from \(String(decoding: start, as: UTF8.self))")
                }
            }
            #expect(walked.map(\.key) == expected.map(\.0), "seed \(seed), round \(round): keys")
            #expect(walked.map(\.value) == expected.map(\.1), "seed \(seed), round \(round): values")
            let report = try snapshot.verify()
            #expect(report.entries == UInt64(model.count), "seed \(seed), round \(round): verify")
        }
    }
}
