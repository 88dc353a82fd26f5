import BurrowTestSupport
import Testing

@testable import BurrowStorage
@testable import StorageCrashWorker

/// `FreePagePool` against a model (a set of free pages and the rules written out plainly): a
/// given page is taken only if free, a run starts at the lowest page of that many consecutive
/// free pages, and a single page is the lowest.
@Suite struct FreePagePoolTests {
    @Test func testTakesGivenPagesLowestRunsAndLowestPages() {
        let seed = TestSeed.make("FreePagePoolTests.testTakesGivenPagesLowestRunsAndLowestPages")
        var random = TestRandom(seed: seed)
        var pool = FreePagePool()
        var model = Set<PageNumber>()
        for step in 0..<20_000 {
            switch random.int(0..<10) {
            case 0..<4:
                // Free pages arrive one by one, or as a record's sorted batch.
                if random.chance(50) {
                    let page = PageNumber(2 + random.int(0..<300))
                    guard !model.contains(page) else { continue }
                    pool.insert(page)
                    model.insert(page)
                } else {
                    // Short batches go in page by page, long ones (a record's) are merged into
                    // the pool, or become the pool (empty), or take in its few pages.
                    let start = 2 + random.int(0..<300)
                    let length = random.chance(50) ? random.int(1..<12) : random.int(9..<60)
                    let batch = (start..<(start + length)).map { PageNumber($0) }.filter { !model.contains($0) }
                    pool.insert(contentsOf: random.chance(20) ? Array(batch.reversed()) : batch)
                    model.formUnion(batch)
                }
            case 4..<6:
                let page = PageNumber(2 + random.int(0..<300))
                let taken = pool.take(page)
                #expect(taken == model.contains(page), "seed \(seed), step \(step): page \(page)")
                model.remove(page)
            case 6..<8:
                let length = random.int(1..<6)
                #expect(pool.lowestRunStart(length) == Self.expectedRun(model, length), "seed \(seed), step \(step): run of \(length)")
                let taken = pool.takeLowest()
                #expect(taken == model.min(), "seed \(seed), step \(step)")
                if let taken { model.remove(taken) }
            default:
                let length = random.int(2..<6)
                let expected = Self.expectedRun(model, length)
                let taken = pool.takeRun(length)
                #expect(taken == expected, "seed \(seed), step \(step): run of \(length)")
                if let taken { for page in taken..<(taken + PageNumber(length)) { model.remove(page) } }
            }
            #expect(pool.count == model.count, "seed \(seed), step \(step)")
            if step % 97 == 0 { #expect(pool.ascending() == model.sorted(), "seed \(seed), step \(step)") }
        }
        #expect(pool.ascending() == model.sorted(), "seed \(seed)")
    }

    /// `trimTail` gives back exactly the pages at the end of the file numbered `firstNew` or
    /// higher, and shortens the file by them.
    @Test func testTrimTailGivesBackOnlyNewPagesAtTheEnd() {
        let seed = TestSeed.make("FreePagePoolTests.testTrimTailGivesBackOnlyNewPagesAtTheEnd")
        var random = TestRandom(seed: seed)
        for round in 0..<2_000 {
            let pageCount = PageNumber(10 + random.int(0..<60))
            let firstNew = PageNumber(2 + random.int(0..<Int(pageCount) - 2))
            let free = (2..<pageCount).filter { _ in random.chance(40) }
            var pool = FreePagePool()
            pool.insert(contentsOf: free)
            var trimmedCount = pageCount
            pool.trimTail(pageCount: &trimmedCount, firstNew: firstNew)
            var expectedCount = pageCount
            var expectedFree = free
            while let last = expectedFree.last, last == expectedCount - 1, last >= firstNew {
                expectedFree.removeLast()
                expectedCount -= 1
            }
            #expect(trimmedCount == expectedCount, "seed \(seed), round \(round)")
            #expect(pool.ascending() == expectedFree, "seed \(seed), round \(round)")
        }
    }

    /// The lowest page starting `length` consecutive free pages.
    private static func expectedRun(_ free: Set<PageNumber>, _ length: Int) -> PageNumber? {
        free.sorted().first { start in (0..<PageNumber(length)).allSatisfy { free.contains(start + $0) } }
    }
}
