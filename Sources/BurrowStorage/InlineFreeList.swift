/// The free tree's records kept in the meta page while they are few (format 4), so that a
/// commit that frees and reuses a handful of pages rewrites no free-tree page. The records are
/// those of the free tree (see WriteTransaction+FreeSpace.swift), in the same key order; each
/// is encoded as `freedBy` (8), `writtenBy` (8), `chunk` (4), the number of pages (4) and the
/// page numbers (4 each), little-endian.
package struct InlineFreeList: Sendable, Equatable {
    struct Record: Sendable, Equatable {
        var freedBy: UInt64
        var writtenBy: UInt64
        var chunk: UInt32
        var pages: [PageNumber]

        /// The order of the free tree's big-endian keys.
        func precedes(_ other: Record) -> Bool {
            (freedBy, writtenBy, chunk) < (other.freedBy, other.writtenBy, other.chunk)
        }
    }

    private(set) var records: [Record]

    static let empty = InlineFreeList(records: [])
    static let recordHeader = 24

    var encodedSize: Int { records.reduce(0) { $0 + Self.recordHeader + 4 * $1.pages.count } }
    var pageCount: Int { records.reduce(0) { $0 + $1.pages.count } }

    /// Removes the first `count` records. A transaction's list is shared with its base version's
    /// meta until its first change, so the rest goes into a new array at once, with room for the
    /// two records a commit adds (its freed pages and the pool's leftovers), rather than being
    /// copied by the removal and grown again by the commit.
    mutating func removeFirst(_ count: Int) {
        var rest: [Record] = []
        rest.reserveCapacity(records.count - count + 2)
        rest.append(contentsOf: records[count...])
        records = rest
    }
    mutating func removeLast() -> Record { records.removeLast() }

    /// Takes the pages that satisfy `include` out of the records freed after version `limit`
    /// (the last records), leaving the records in place, shorter or empty. Asks `include` once
    /// per page, and changes a record only if it gives up a page.
    mutating func takePages(freedAfter limit: UInt64, where include: (PageNumber) -> Bool) -> [PageNumber] {
        var taken: [PageNumber] = []
        var index = records.count - 1
        while index >= 0, records[index].freedBy > limit {
            let pages = records[index].pages
            if let first = pages.firstIndex(where: include) {
                var kept = Array(pages[..<first])
                taken.append(pages[first])
                for number in pages[(first + 1)...] {
                    if include(number) { taken.append(number) } else { kept.append(number) }
                }
                records[index].pages = kept
            }
            index -= 1
        }
        return taken
    }

    /// Sets the record with `record`'s key, adding it in its place if there is none.
    mutating func set(_ record: Record) {
        var low = 0
        var high = records.count
        while low < high {
            let mid = (low + high) / 2
            if records[mid].precedes(record) { low = mid + 1 } else { high = mid }
        }
        if low < records.count, !record.precedes(records[low]) {
            records[low] = record
        } else {
            records.insert(record, at: low)
        }
    }

    func encode(into p: UnsafeMutableRawPointer) {
        var at = 0
        for record in records {
            p.setU64(at, record.freedBy)
            p.setU64(at + 8, record.writtenBy)
            p.setU32(at + 16, record.chunk)
            p.setU32(at + 20, UInt32(record.pages.count))
            at += Self.recordHeader
            for number in record.pages {
                p.setU32(at, number)
                at += 4
            }
        }
    }

    /// Reads `count` records from `bytes`; nil unless they fill it exactly, in strictly
    /// increasing key order, with every page from 2 to `pageCount − 1`.
    static func decode(_ bytes: UnsafeRawBufferPointer, count: Int, pageCount: PageNumber) -> InlineFreeList? {
        if count == 0 { return bytes.isEmpty ? .empty : nil }
        guard let p = bytes.baseAddress else { return nil }
        var records: [Record] = []
        records.reserveCapacity(count)
        var at = 0
        for _ in 0..<count {
            guard at + recordHeader <= bytes.count else { return nil }
            let length = Int(p.u32(at + 20))
            guard length <= (bytes.count - at - recordHeader) / 4 else { return nil }
            var record = Record(freedBy: p.u64(at), writtenBy: p.u64(at + 8), chunk: p.u32(at + 16), pages: [])
            at += recordHeader
            record.pages.reserveCapacity(length)
            for _ in 0..<length {
                let number = p.u32(at)
                guard number >= 2, number < pageCount else { return nil }
                record.pages.append(number)
                at += 4
            }
            if let last = records.last, !last.precedes(record) { return nil }
            records.append(record)
        }
        guard at == bytes.count else { return nil }
        return InlineFreeList(records: records)
    }
}
