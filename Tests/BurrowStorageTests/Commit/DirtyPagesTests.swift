import BurrowTestSupport
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// The write transaction's table of the pages it owns, checked against a `Dictionary` through
/// random inserts, removals, spills, loads and uses: clustered page numbers (as allocation makes
/// them) and scattered ones, across growth, with every lookup, the counts (pages in memory,
/// pages spilled), a full iteration and the list of pages in memory compared.
@Suite struct DirtyPagesTests {
    /// What the table should hold for one page.
    private struct Expected: Equatable {
        var pages: Int
        var pointer: UnsafeMutableRawPointer?
        var lastUseOrChecksum: UInt64
    }

    @Test func testTheTableMatchesADictionaryThroughRandomOperations() {
        let seed = TestSeed.make("DirtyPagesTests.testTheTableMatchesADictionaryThroughRandomOperations")
        var random = TestRandom(seed: seed)
        let operations = TestEnvironment.count("BURROW_MODEL_OPS", default: 4_000) * 5
        var table = DirtyPages()
        var model: [PageNumber: Expected] = [:]
        let marker = UnsafeMutableRawPointer(bitPattern: 0x1000)!
        for step in 0..<operations {
            // Mostly a dense range (long probe runs), sometimes a far page.
            let number = random.chance(80) ? PageNumber(2 + random.int(0..<600)) : PageNumber(2 + random.int(0..<1_000_000))
            let stamp = UInt64(step)
            switch random.int(0..<12) {
            case 0..<5:
                guard model[number] == nil else { break }
                let pages = random.int(1..<4)
                table.insert(number, pointer: marker + pages, pages: pages, at: stamp)
                model[number] = Expected(pages: pages, pointer: marker + pages, lastUseOrChecksum: stamp)
            case 5..<7:
                let removed = table.removeValue(forKey: number)
                let expected = model.removeValue(forKey: number)
                #expect(
                    removed.map { Expected(pages: Int($0.pages), pointer: $0.pointer, lastUseOrChecksum: $0.lastUseOrChecksum) } == expected,
                    "seed \(seed), step \(step): removing \(number)")
            case 7:
                guard let expected = model[number], expected.pointer != nil else { break }
                let checksum = random.next()
                table.markSpilled(number, checksum: checksum)
                model[number] = Expected(pages: expected.pages, pointer: nil, lastUseOrChecksum: checksum)
            case 8:
                guard let expected = model[number], expected.pointer == nil else { break }
                table.markLoaded(number, pointer: marker + 7, at: stamp)
                model[number] = Expected(pages: expected.pages, pointer: marker + 7, lastUseOrChecksum: stamp)
            case 9:
                // A use records the stamp on a page in memory, never on a spilled one's checksum.
                let used = table.use(number, at: stamp)
                if var expected = model[number], expected.pointer != nil {
                    expected.lastUseOrChecksum = stamp
                    model[number] = expected
                }
                #expect(used?.number == (model[number] == nil ? nil : number), "seed \(seed), step \(step): using \(number)")
            default:
                let expected = model[number]
                #expect(table[number]?.pages == (expected?.pointer == nil ? nil : expected?.pages), "seed \(seed), step \(step): \(number)")
                #expect(table.lookup(number)?.isSpilled == expected.map { $0.pointer == nil }, "seed \(seed), step \(step): \(number)")
            }
            if step % 500 == 0 || step == operations - 1 {
                #expect(table.count == model.count, "seed \(seed), step \(step)")
                #expect(table.spilledCount == model.values.filter { $0.pointer == nil }.count, "seed \(seed), step \(step)")
                #expect(
                    table.pagesInMemory == model.values.filter { $0.pointer != nil }.reduce(0) { $0 + $1.pages }, "seed \(seed), step \(step)")
                var listed: [PageNumber: Expected] = [:]
                for page in table {
                    listed[page.number] = Expected(pages: Int(page.pages), pointer: page.pointer, lastUseOrChecksum: page.lastUseOrChecksum)
                }
                #expect(listed == model, "seed \(seed), step \(step): iteration")
                #expect(table.sortedPageNumbers() == model.keys.sorted(), "seed \(seed), step \(step): sorted numbers")
                // The pages in memory, as the spill reads them (listed from the first call on).
                let resident = table.residentPages()
                let inMemory = model.filter { $0.value.pointer != nil }
                #expect(resident.count == inMemory.count, "seed \(seed), step \(step): resident pages")
                for page in resident {
                    #expect(inMemory[page.number]?.lastUseOrChecksum == page.lastUseOrChecksum, "seed \(seed), step \(step): \(page.number)")
                }
            }
        }
        table.removeAll()
        #expect(table.isEmpty && table.sortedPageNumbers().isEmpty && table.lookup(2) == nil, "seed \(seed)")
        #expect(table.pagesInMemory == 0 && table.spilledCount == 0, "seed \(seed)")
    }
}
