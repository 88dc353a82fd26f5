import BurrowTestSupport
import Foundation
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// Positions in trees, checked against a sorted array: every branch entry counts the entries
/// below it, and `seek(toPosition:)` and `position(of:)` use the counts.
@Suite struct PositionTests {
    @Test func testPositionsMatchASortedModelThroughInsertsAndDeletes() throws {
        let seed = TestSeed.make("PositionTests.testPositionsMatchASortedModelThroughInsertsAndDeletes")
        var random = TestRandom(seed: seed)
        let operations = TestEnvironment.count("BURROW_MODEL_OPS", default: 4_000)
        let storage = try Storage.inMemory(identifier: "positions-\(seed)")
        var model: [[UInt8]] = []
        for round in 0..<4 {
            let write = try storage.beginWriteBlocking()
            let tree = try write.openTree(named: "t")
            for _ in 0..<operations {
                if model.isEmpty || random.chance(65) {
                    // Short keys with shared prefixes: many equal heads, deep trees at 4 KiB.
                    let key = Array("k\(random.int(0..<50_000))".utf8) + random.bytes(random.int(0..<24))
                    if try !write.put(key, random.bytes(random.int(0..<80)), in: tree) {
                        let index = model.firstIndex { !modelTestKeyLess($0, key) } ?? model.count
                        model.insert(key, at: index)
                    }
                } else {
                    let key = model.remove(at: random.int(0..<model.count))
                    #expect(try write.delete(key, from: tree))
                }
            }
            // Positions inside the transaction (dirty pages) ...
            var cursor = try write.makeCursor(for: tree)
            try checkPositions(&cursor, model: model, random: &random, seed: seed)
            try write.commit()
            // ... and in the committed snapshot.
            let snapshot = try storage.snapshot()
            var committed = try #require(try snapshot.tree(named: "t")).makeCursor()
            try checkPositions(&committed, model: model, random: &random, seed: seed)
            _ = try snapshot.verify()
            #expect(try snapshot.tree(named: "t")?.count == model.count, "round \(round), seed \(seed)")
        }
    }

    private func checkPositions<S: PageSource>(
        _ cursor: inout Cursor<S>, model: [[UInt8]], random: inout TestRandom, seed: UInt64
    ) throws {
        for _ in 0..<300 {
            let position = random.int(0..<(model.count + 2))
            let found = try cursor.seek(toPosition: position)
            #expect(found == (position < model.count), "position \(position) of \(model.count), seed \(seed)")
            if found {
                #expect(Array(cursor.key) == model[position], "seed \(seed)")
                // The cursor moves on from a position like from any seek.
                if try cursor.next() {
                    #expect(position + 1 < model.count && Array(cursor.key) == model[position + 1], "seed \(seed)")
                }
            }
            let probe = random.chance(50) && !model.isEmpty ? model[random.int(0..<model.count)] : Array("k\(random.int(0..<50_000))".utf8)
            let expected = model.firstIndex { !modelTestKeyLess($0, probe) } ?? model.count
            #expect(try cursor.position(of: probe) == expected, "seed \(seed)")
        }
        #expect(try !cursor.seek(toPosition: -1))
    }
}
