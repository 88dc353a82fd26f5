import BurrowTestSupport
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// The write transaction's table of dirty pages, checked against a `Dictionary` through random
/// inserts, replacements and removals: clustered page numbers (as allocation makes them) and
/// scattered ones, across growth, with every lookup, the count and a full iteration compared.
@Suite struct DirtyPagesTests {
    @Test func testTheTableMatchesADictionaryThroughRandomOperations() {
        let seed = TestSeed.make("DirtyPagesTests.testTheTableMatchesADictionaryThroughRandomOperations")
        var random = TestRandom(seed: seed)
        let operations = TestEnvironment.count("BURROW_MODEL_OPS", default: 4_000) * 5
        var table = DirtyPages()
        var model: [PageNumber: Int] = [:]
        let marker = UnsafeMutableRawPointer(bitPattern: 0x1000)!
        for step in 0..<operations {
            // Mostly a dense range (long probe runs), sometimes a far page.
            let number = random.chance(80) ? PageNumber(2 + random.int(0..<600)) : PageNumber(2 + random.int(0..<1_000_000))
            switch random.int(0..<10) {
            case 0..<5:
                let pages = random.int(1..<4)
                table[number] = (marker + pages, pages)
                model[number] = pages
            case 5..<8:
                let removed = table.removeValue(forKey: number)
                #expect(removed?.pages == model.removeValue(forKey: number), "seed \(seed), step \(step): removing \(number)")
            case 8:
                table[number] = nil
                model[number] = nil
            default:
                #expect(table[number]?.pages == model[number], "seed \(seed), step \(step): looking up \(number)")
            }
            if step % 500 == 0 || step == operations - 1 {
                #expect(table.count == model.count, "seed \(seed), step \(step)")
                for (page, pages) in model {
                    #expect(table[page]?.pages == pages && table[page]?.pointer == marker + pages, "seed \(seed), step \(step): page \(page)")
                }
                let listed = Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value.pages) })
                #expect(listed == model, "seed \(seed), step \(step): iteration")
                #expect(table.sortedPageNumbers() == model.keys.sorted(), "seed \(seed), step \(step): sorted numbers")
            }
        }
        table.removeAll()
        #expect(table.isEmpty && table.sortedPageNumbers().isEmpty && table[2] == nil, "seed \(seed)")
    }
}
