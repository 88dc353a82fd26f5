import BurrowTestSupport
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// The commit state's sorted lists of pages freed within a sync round (`RoundFreedPages`) and of
/// pages held back per version (`HeldBackPages`), checked against dictionaries through random
/// operations in the order commits and rounds make them.
@Suite struct RoundPagesTests {
    @Test func testRoundFreedPagesMatchADictionary() {
        let seed = TestSeed.make("RoundPagesTests.testRoundFreedPagesMatchADictionary")
        var random = TestRandom(seed: seed)
        var list = RoundFreedPages()
        var model: [PageNumber: RoundFreedPages.Life] = [:]
        var version: UInt64 = 10
        for step in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 4_000) {
            let page = PageNumber(2 + random.int(0..<120))
            switch random.int(0..<10) {
            case 0..<4:
                version += 1
                let life = RoundFreedPages.Life(written: version - UInt64(random.int(1..<4)), freedBy: version)
                list.set(page, life)
                model[page] = life
            case 4..<7:
                #expect(list.remove(page) == model.removeValue(forKey: page), "seed \(seed), step \(step): removing \(page)")
            case 7:
                let target = version - UInt64(random.int(0..<6))
                list.keepWritten(after: target)
                model = model.filter { $0.value.written > target }
            default:
                #expect(list[page] == model[page], "seed \(seed), step \(step): looking up \(page)")
            }
            #expect(list.count == model.count && list.isEmpty == model.isEmpty, "seed \(seed), step \(step)")
            #expect(list.pages == model.keys.sorted(), "seed \(seed), step \(step): order")
        }
        list.removeAll()
        #expect(list.isEmpty && list[2] == nil)
    }

    @Test func testHeldBackPagesMatchADictionary() {
        let seed = TestSeed.make("RoundPagesTests.testHeldBackPagesMatchADictionary")
        var random = TestRandom(seed: seed)
        var held = HeldBackPages()
        var model: [UInt64: Int] = [:]
        var version: UInt64 = 10
        for step in 0..<TestEnvironment.count("BURROW_MODEL_OPS", default: 4_000) {
            switch random.int(0..<10) {
            case 0..<4:
                // Mostly the next version; now and then the same one again, or (never seen in
                // practice) an older one.
                if random.chance(70) { version += 1 }
                let at = random.chance(5) ? version - UInt64(random.int(1..<5)) : version
                let pages = random.int(1..<6)
                held.add(pages, version: at)
                model[at, default: 0] += pages
            case 4..<8:
                let at = version - UInt64(random.int(0..<8))
                held.releaseOne(version: at)
                if let n = model[at] { model[at] = n > 1 ? n - 1 : nil }
            case 8:
                let target = version - UInt64(random.int(0..<8))
                held.removeVersions(upTo: target)
                model = model.filter { $0.key > target }
            default:
                let at = version - UInt64(random.int(0..<8))
                #expect(held.pages(heldBy: at) == model[at] ?? 0, "seed \(seed), step \(step): version \(at)")
            }
            #expect(held.total == model.values.reduce(0, +), "seed \(seed), step \(step): total")
            #expect(held.entries.map(\.version) == model.keys.sorted(), "seed \(seed), step \(step): order")
            #expect(held.isEmpty == model.isEmpty, "seed \(seed), step \(step)")
        }
    }

    /// Commit compacts every page it writes, skipping those already compact: after random puts
    /// and deletes (inserts in the middle of pages, replacements, splits, merges), every page
    /// of the latest version holds no garbage, and its entry bodies lie in key order, packed up
    /// to the page's end.
    @Test func testCommittedPagesAreCompact() throws {
        let seed = TestSeed.make("RoundPagesTests.testCommittedPagesAreCompact")
        var random = TestRandom(seed: seed)
        let storage = try Storage(device: SimulatedDisk(name: "compact pages"))
        defer { storage.close() }
        for round in 0..<40 {
            let txn = try storage.beginWriteBlocking()
            let tree = try txn.openTree(named: "t")
            for _ in 0..<random.int(1..<60) {
                let key = Array("key-\(random.int(0..<3_000))".utf8)
                if random.chance(75) {
                    try txn.put(key, [UInt8](repeating: UInt8(round), count: random.int(0..<120)), in: tree)
                } else {
                    try txn.delete(key, from: tree)
                }
            }
            try txn.commit(durability: .normal)
            let snapshot = try storage.snapshot()
            guard let root = try snapshot.tree(named: "t")?.state.root, root != 0 else { continue }
            var pending = [root]
            while let number = pending.popLast() {
                let p = try snapshot.page(number)
                #expect(PageHeader.garbage(p) == 0, "seed \(seed), round \(round): page \(number) keeps garbage")
                var offset = PageHeader.heapStart(p)
                for i in 0..<PageHeader.count(p) {
                    #expect(PageHeader.slot(p, i) == offset, "seed \(seed), round \(round): page \(number), entry \(i) out of place")
                    offset += PageHeader.entrySize(p, i)
                    if !PageHeader.isLeaf(p) { pending.append(PageHeader.child(p, i)) }
                }
                #expect(offset == snapshot.layout.pageSize, "seed \(seed), round \(round): page \(number) is not packed")
            }
        }
        #expect(try storage.snapshot().verify().entries >= 0)
    }
}
