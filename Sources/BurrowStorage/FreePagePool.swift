/// Pages this transaction may write over right away: taken from free-tree records that no live
/// snapshot needs, or allocated and then released within the transaction. Kept in ascending
/// order, the order free records keep their pages in, so that a record's pages enter an empty
/// pool and the unused ones leave it at commit without a copy (the pool shares the record's
/// array), the lowest page is easy to take (keeping the file compact), and runs of consecutive
/// pages are easy to find.
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

    /// Where `number` is or would go in the pool's ascending order (a binary search).
    private func position(of number: PageNumber) -> Int {
        var low = 0
        var high = pages.count
        while low < high {
            let mid = (low &+ high) >> 1
            if pages[mid] < number { low = mid &+ 1 } else { high = mid }
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

    /// Inserts many pages at once (a free record's). A record's pages are in ascending order:
    /// into an empty pool they go as they are, the pool sharing the record's array; into a pool
    /// of a few pages (a commit's rewritten path, taken back within a sync round) the pool's
    /// pages go into them one by one; otherwise the two are merged in one pass.
    mutating func insert(contentsOf incoming: [PageNumber]) {
        guard incoming.count > 8 else {
            for number in incoming { insert(number) }
            return
        }
        let ascending = zip(incoming, incoming.dropFirst()).allSatisfy { $0 < $1 }
        let added = ascending ? incoming : incoming.sorted()
        if pages.count <= 8 {
            let few = pages
            pages = added
            for number in few { insert(number) }
            return
        }
        var merged: [PageNumber] = []
        merged.reserveCapacity(pages.count + added.count)
        var i = 0
        var j = 0
        while i < pages.count, j < added.count {
            if pages[i] < added[j] {
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
        pages.isEmpty ? nil : pages.removeFirst()
    }

    /// Takes `length` consecutive pages, returning the first, or nil if the pool has no such run.
    mutating func takeRun(_ length: Int) -> PageNumber? {
        guard let run = lowestRun(length) else { return nil }
        let first = pages[run.lowerBound]
        pages.removeSubrange(run)
        return first
    }

    /// The first page of the lowest `length` consecutive pages in the pool, left in the pool, or
    /// nil if it has no such run.
    func lowestRunStart(_ length: Int) -> PageNumber? {
        lowestRun(length).map { pages[$0.lowerBound] }
    }

    /// The positions of the lowest `length` consecutive pages in the pool, or nil if it has no
    /// such run. The pages are distinct and ascending, so `length` pages from position `i` are
    /// consecutive exactly when the last is the first plus `length − 1`: one comparison per start.
    private func lowestRun(_ length: Int) -> ClosedRange<Int>? {
        guard length >= 1, length <= pages.count else { return nil }
        let span = PageNumber(length &- 1)
        for start in 0...(pages.count &- length) where pages[start &+ length &- 1] &- pages[start] == span {
            return start...(start &+ length &- 1)
        }
        return nil
    }

    /// Gives back the pages at the very end of the file that no version has ever written
    /// (numbered `firstNew` or higher): the file then ends at its last written page, as
    /// `pageCount` must promise.
    mutating func trimTail(pageCount: inout PageNumber, firstNew: PageNumber) {
        while let last = pages.last, last == pageCount - 1, pageCount - 1 >= firstNew {
            pageCount -= 1
            pages.removeLast()
        }
    }

    /// The pages in ascending order (the pool's own array: no copy).
    func ascending() -> [PageNumber] {
        pages
    }
}
