/// The pages reachable from the latest version that were written after the durable version, with
/// the checksum each was last written with and the version that wrote it, kept in page order.
///
/// Every commit updates it and writes it into its meta as the written-page list, so it is kept as
/// the list itself, sorted: a commit's few changes are binary-searched insertions and removals
/// into at most 64 entries, and the meta takes `entries` as they are, without a sort or a copy.
/// (A dictionary cost a map and a sort of the whole list per commit.)
struct UnsyncedPages {
    /// In ascending page order.
    private(set) var entries: [WrittenPages.Entry] = []
    /// `versions[i]` wrote `entries[i]`.
    private var versions: [UInt64] = []

    var count: Int { entries.count }

    private func index(of page: PageNumber) -> (index: Int, found: Bool) {
        sortedPageIndex(of: page, in: entries) { $0.page }
    }

    /// Records that `version` wrote `page` with `checksum`, replacing an older write of it.
    mutating func set(_ page: PageNumber, checksum: UInt64, version: UInt64) {
        let (i, found) = index(of: page)
        if found {
            entries[i].checksum = checksum
            versions[i] = version
        } else {
            entries.insert(WrittenPages.Entry(page: page, checksum: checksum), at: i)
            versions.insert(version, at: i)
        }
    }

    /// Forgets `page`; returns the version that wrote it, if it was listed.
    mutating func remove(_ page: PageNumber) -> UInt64? {
        let (i, found) = index(of: page)
        guard found else { return nil }
        entries.remove(at: i)
        return versions.remove(at: i)
    }

    /// Keeps only the pages written after `version`.
    mutating func removeWritten(upTo version: UInt64) {
        var kept = 0
        for i in entries.indices where versions[i] > version {
            entries[kept] = entries[i]
            versions[kept] = versions[i]
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        versions.removeLast(versions.count - kept)
    }

    mutating func removeAll() {
        entries.removeAll()
        versions.removeAll()
    }
}

/// Where `page` is, or would go, in `items`, which are in ascending order of `pageOf`: a binary
/// search. The commit state's short page lists (`UnsyncedPages`, `RoundFreedPages`) use it.
@inline(__always)
func sortedPageIndex<Item>(of page: PageNumber, in items: [Item], _ pageOf: (Item) -> PageNumber) -> (index: Int, found: Bool) {
    var low = 0
    var high = items.count
    while low < high {
        let mid = (low &+ high) >> 1
        if pageOf(items[mid]) < page { low = mid &+ 1 } else { high = mid }
    }
    return (low, low < items.count && pageOf(items[low]) == page)
}
