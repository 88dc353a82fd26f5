/// Pages this transaction may write over right away: taken from free-tree records that no live
/// snapshot needs, or allocated and then released within the transaction. Kept in
/// descending order so that the lowest page is taken first (keeping the file compact) and runs of
/// consecutive pages are easy to find.
struct FreePagePool {
    private var pages: [PageNumber] = []

    var count: Int { pages.count }
    var isEmpty: Bool { pages.isEmpty }

    /// Inserts `number` in its place (a binary search and one move), so the pool is always in
    /// order: a commit releases and takes pages in turn many times, and re-sorting the whole pool
    /// before every take cost more than the inserts.
    mutating func insert(_ number: PageNumber) {
        pages.insert(number, at: position(of: number))
    }

    /// Where `number` is or would go in the pool's descending order (a binary search).
    private func position(of number: PageNumber) -> Int {
        var low = 0, high = pages.count
        while low < high {
            let mid = (low + high) / 2
            if pages[mid] > number { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Takes `number` if the pool holds it; returns whether it did.
    mutating func take(_ number: PageNumber) -> Bool {
        let index = position(of: number)
        guard index < pages.count, pages[index] == number else { return false }
        pages.remove(at: index)
        return true
    }

    /// Inserts many pages at once (a free record's), merging them into the pool in one pass
    /// instead of a binary search and a move per page.
    mutating func insert(contentsOf incoming: [PageNumber]) {
        // A few pages (a commit's rewritten path, taken back within a sync round) go in one by
        // one: cheaper than building the merged array.
        guard incoming.count > 8 else {
            for number in incoming { insert(number) }
            return
        }
        // Records are written in ascending order; sort only one that is not.
        let ascending = zip(incoming, incoming.dropFirst()).allSatisfy { $0 < $1 }
        let added = ascending ? Array(incoming.reversed()) : incoming.sorted(by: >)
        var merged: [PageNumber] = []
        merged.reserveCapacity(pages.count + added.count)
        var i = 0, j = 0
        while i < pages.count, j < added.count {
            if pages[i] > added[j] {
                merged.append(pages[i])
                i += 1
            } else {
                merged.append(added[j])
                j += 1
            }
        }
        merged.append(contentsOf: pages[i...])
        merged.append(contentsOf: added[j...])
        pages = merged
    }

    mutating func insert(run first: PageNumber, count: Int) {
        for i in 0..<count { insert(first + PageNumber(i)) }
    }

    mutating func takeLowest() -> PageNumber? {
        return pages.popLast()
    }

    /// Takes `length` consecutive pages, returning the first, or nil if the pool has no such run.
    mutating func takeRun(_ length: Int) -> PageNumber? {
        guard let run = lowestRun(length) else { return nil }
        let first = pages[run.upperBound]
        pages.removeSubrange(run)
        return first
    }

    /// The first page of the lowest `length` consecutive pages in the pool, left in the pool, or
    /// nil if it has no such run.
    func lowestRunStart(_ length: Int) -> PageNumber? {
        lowestRun(length).map { pages[$0.upperBound] }
    }

    /// The positions of the lowest `length` consecutive pages in the pool (the run's lowest page
    /// at the upper bound, the pool descending), or nil if it has no such run.
    private func lowestRun(_ length: Int) -> ClosedRange<Int>? {
        guard length >= 1, length <= pages.count else { return nil }
        var runLow = pages.count - 1
        var index = pages.count - 1
        while index >= 0 {
            if index < runLow, pages[index] != pages[index + 1] &+ 1 { runLow = index }
            if runLow - index + 1 == length { return index...runLow }
            index -= 1
        }
        return nil
    }

    /// Gives back the pages at the very end of the file that no version has ever written
    /// (numbered `firstNew` or higher): the file then ends at its last written page, as
    /// `pageCount` must promise.
    mutating func trimTail(pageCount: inout PageNumber, firstNew: PageNumber) {
        var trimmed = 0
        while trimmed < pages.count, pages[trimmed] == pageCount - 1, pageCount - 1 >= firstNew {
            pageCount -= 1
            trimmed += 1
        }
        pages.removeFirst(trimmed)
    }

    /// The pages in ascending order.
    func ascending() -> [PageNumber] {
        pages.reversed()
    }
}
