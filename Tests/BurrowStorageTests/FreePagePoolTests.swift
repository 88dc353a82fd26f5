import Testing
@testable import BurrowStorage
@testable import StorageCrashWorker

/// `FreePagePool`'s choice of pages, against a model (a set of free pages and the rules written
/// out plainly): a single page follows the transaction's previous one when it is free, else
/// starts the lowest run of `preferredRun` free pages, else is the lowest page; runs for overflow
/// values are the lowest of their length.
@Suite struct FreePagePoolTests {
    @Test func testTakesFollowThePreviousPageThenStartRunsThenTakeTheLowest() {
        let seed = ModelTestEnvironment.seed()
        var random = ModelTestRandom(seed: seed)
        var pool = FreePagePool()
        var model = Set<PageNumber>()
        var previous: PageNumber?
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
                    let start = 2 + random.int(0..<300)
                    let batch = (start..<(start + random.int(1..<12))).map { PageNumber($0) }.filter { !model.contains($0) }
                    pool.insert(contentsOf: batch)
                    model.formUnion(batch)
                }
            case 4..<9:
                let expected = Self.expectedSingle(model, after: previous)
                let taken = pool.take(after: previous)
                #expect(taken == expected, "seed \(seed), step \(step): after \(previous.map(String.init) ?? "none")")
                if let taken { model.remove(taken) }
                // A new transaction now and then: nothing taken before.
                previous = random.chance(20) ? nil : taken
            default:
                let length = random.int(2..<6)
                let expected = Self.expectedRun(model, length)
                let taken = pool.takeRun(length)
                #expect(taken == expected, "seed \(seed), step \(step): run of \(length)")
                if let taken { for page in taken..<(taken + PageNumber(length)) { model.remove(page) } }
            }
            #expect(pool.count == model.count, "seed \(seed), step \(step)")
        }
        #expect(pool.ascending() == model.sorted(), "seed \(seed)")
    }

    /// The lowest page starting `length` consecutive free pages.
    private static func expectedRun(_ free: Set<PageNumber>, _ length: Int) -> PageNumber? {
        free.sorted().first { start in (0..<PageNumber(length)).allSatisfy { free.contains(start + $0) } }
    }

    private static func expectedSingle(_ free: Set<PageNumber>, after previous: PageNumber?) -> PageNumber? {
        if let previous, free.contains(previous + 1) { return previous + 1 }
        return expectedRun(free, FreePagePool.preferredRun) ?? free.min()
    }
}
