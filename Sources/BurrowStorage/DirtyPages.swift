/// The pages a write transaction owns, by page number, each with its length in pages and either
/// its buffer in memory or, once spilled, nothing but the checksum it was written with (its
/// bytes are in the file: see WriteTransaction+Spill.swift).
///
/// Every page a transaction reads or changes is looked up here first (a page of the
/// transaction's shadows the committed one), several times per B-tree operation, so the lookup
/// has to be cheap: an open-addressing table with linear probing and a multiplicative hash of
/// the page number, where a `Dictionary` would run SipHash on every lookup. Page number 0 marks
/// an empty slot: it is a meta page, never a dirty one. Removal shifts the following entries of
/// the probe run back, so lookups never meet a tombstone.
struct DirtyPages: Sequence {
    /// A page in memory: its buffer and its length in pages.
    typealias Entry = (pointer: UnsafeMutableRawPointer, pages: Int)

    /// One page the transaction owns, as the table holds it.
    struct Page {
        /// 0: an empty slot.
        var number: PageNumber
        var pages: UInt32
        /// The transaction's operation that last allocated or changed the page (for choosing
        /// what to spill), or, once spilled, the checksum the page was written with.
        var lastUseOrChecksum: UInt64
        /// Where `resident` lists the page while it is in memory (once the table tracks them).
        var residentIndex: UInt32 = 0
        /// The buffer; nil once the page is spilled.
        var pointer: UnsafeMutableRawPointer?

        static var empty: Page { Page(number: 0, pages: 0, lastUseOrChecksum: 0, pointer: nil) }
        var isSpilled: Bool { pointer == nil }
        var lastUse: UInt64 { lastUseOrChecksum }
        var checksum: UInt64 { lastUseOrChecksum }
    }

    private var slots: [Page]
    private var mask: Int
    /// How many pages (and overflow runs) the table holds, spilled or not.
    private(set) var count = 0
    /// How many pages the buffers in memory hold (an overflow run counts all its pages).
    private(set) var pagesInMemory = 0
    /// How many pages (and overflow runs) are spilled.
    private(set) var spilledCount = 0
    /// The numbers of the pages in memory, in no order, kept from the first spill on
    /// (`residentPages`), so that choosing what to spill reads the pages in memory only, not
    /// every page the transaction has written: with a limit of a few pages a transaction
    /// spills before nearly every operation. Until then it is not kept, and a transaction that
    /// never spills pays nothing for it.
    private var resident: [PageNumber] = []
    private var tracksResident = false

    init() {
        // Room for the eight pages of a small commit (two trees' paths) before the first growth.
        let capacity = 16
        slots = Self.emptySlots(capacity)
        mask = capacity - 1
    }

    /// `count` empty slots. Not `Array(repeating:count:)`: that allocates through the standard
    /// library's unspecialized code, which looks the array's type up at run time (about 650
    /// instructions per transaction), where `reserveCapacity` and `append` are specialized here.
    private static func emptySlots(_ count: Int) -> [Page] {
        var slots: [Page] = []
        slots.reserveCapacity(count)
        slots.append(contentsOf: repeatElement(.empty, count: count))
        return slots
    }

    var isEmpty: Bool { count == 0 }

    /// The slot a page number's probe run starts at: the high bits of a Fibonacci product, so
    /// that runs of consecutive page numbers spread over the table.
    @inline(__always)
    private func home(_ number: PageNumber) -> Int {
        Int(truncatingIfNeeded: (UInt64(number) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The slot holding `number`, or the empty slot where it would go.
    @inline(__always)
    private func slot(of number: PageNumber) -> Int {
        var index = home(number)
        while true {
            let found = slots[index].number
            if found == number || found == 0 { return index }
            index = (index &+ 1) & mask
        }
    }

    /// The buffer and length of page `number` if the transaction holds it in memory; nil if it
    /// does not own the page or has spilled it.
    subscript(number: PageNumber) -> Entry? {
        let page = slots[slot(of: number)]
        guard let pointer = page.pointer else { return nil }
        return (pointer, Int(page.pages))
    }

    /// Page `number` as the table holds it (in memory or spilled), or nil if the transaction
    /// does not own it.
    @inline(__always)
    func lookup(_ number: PageNumber) -> Page? {
        let page = slots[slot(of: number)]
        return page.number == 0 ? nil : page
    }

    /// Page `number` as `lookup` finds it, recording operation `stamp` as its last use if it is
    /// in memory: what `touch` calls for a page the operation is about to change.
    @inline(__always)
    mutating func use(_ number: PageNumber, at stamp: UInt64) -> Page? {
        let index = slot(of: number)
        guard slots[index].number != 0 else { return nil }
        if slots[index].pointer != nil { slots[index].lastUseOrChecksum = stamp }
        return slots[index]
    }

    /// Adds page `number` (not in the table yet), in memory, last used by operation `stamp`.
    mutating func insert(_ number: PageNumber, pointer: UnsafeMutableRawPointer, pages: Int, at stamp: UInt64) {
        precondition(number != 0, "internal error: page 0 is never dirty")
        let index = slot(of: number)
        precondition(slots[index].number == 0, "internal error: page \(number) is already dirty")
        slots[index] = Page(number: number, pages: UInt32(pages), lastUseOrChecksum: stamp, pointer: pointer)
        count += 1
        pagesInMemory += pages
        if tracksResident { addResident(at: index) }
        if count * 2 > slots.count { grow() }
    }

    /// Records that page `number`, in memory, was written to the file with `checksum`: its
    /// buffer is the caller's again.
    mutating func markSpilled(_ number: PageNumber, checksum: UInt64) {
        let index = slot(of: number)
        precondition(slots[index].pointer != nil, "internal error: page \(number) is not in memory")
        slots[index].pointer = nil
        slots[index].lastUseOrChecksum = checksum
        pagesInMemory -= Int(slots[index].pages)
        spilledCount += 1
        if tracksResident { removeResident(at: Int(slots[index].residentIndex)) }
    }

    /// Records that spilled page `number` is in memory again, in `pointer`, used by `stamp`.
    mutating func markLoaded(_ number: PageNumber, pointer: UnsafeMutableRawPointer, at stamp: UInt64) {
        let index = slot(of: number)
        precondition(slots[index].number != 0 && slots[index].pointer == nil, "internal error: page \(number) is not spilled")
        slots[index].pointer = pointer
        slots[index].lastUseOrChecksum = stamp
        pagesInMemory += Int(slots[index].pages)
        spilledCount -= 1
        if tracksResident { addResident(at: index) }
    }

    /// The pages in memory (for choosing what to spill); from the first call on the table
    /// keeps their list as it changes.
    mutating func residentPages() -> [Page] {
        if !tracksResident {
            tracksResident = true
            resident.removeAll(keepingCapacity: true)
            for index in slots.indices where slots[index].pointer != nil { addResident(at: index) }
        }
        return resident.map { slots[slot(of: $0)] }
    }

    /// Lists the page in slot `index`, in memory, in `resident`.
    private mutating func addResident(at index: Int) {
        slots[index].residentIndex = UInt32(resident.count)
        resident.append(slots[index].number)
    }

    /// Takes entry `position` out of `resident`, moving the last entry into its place.
    private mutating func removeResident(at position: Int) {
        let last = resident.removeLast()
        guard position < resident.count else { return }
        resident[position] = last
        slots[slot(of: last)].residentIndex = UInt32(position)
    }

    /// Removes page `number` and returns it, if it was there.
    @discardableResult
    mutating func removeValue(forKey number: PageNumber) -> Page? {
        var hole = slot(of: number)
        guard slots[hole].number != 0 else { return nil }
        let removed = slots[hole]
        // Close the hole: move back each later entry of the run whose home does not lie
        // between the hole and its slot, so every entry stays reachable from its home.
        var next = (hole &+ 1) & mask
        while slots[next].number != 0 {
            let distanceFromHome = (next &- home(slots[next].number)) & mask
            let distanceFromHole = (next &- hole) & mask
            if distanceFromHome >= distanceFromHole {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next &+ 1) & mask
        }
        slots[hole] = .empty
        count -= 1
        if removed.isSpilled {
            spilledCount -= 1
        } else {
            pagesInMemory -= Int(removed.pages)
            if tracksResident { removeResident(at: Int(removed.residentIndex)) }
        }
        return removed
    }

    mutating func removeAll() {
        for index in slots.indices where slots[index].number != 0 { slots[index] = .empty }
        count = 0
        pagesInMemory = 0
        spilledCount = 0
        resident.removeAll()
        tracksResident = false
    }

    /// The page numbers held, in ascending order: one array, sorted by insertion (a commit holds
    /// a handful of pages; a large one falls back to the standard sort).
    func sortedPageNumbers() -> [PageNumber] {
        var sorted: [PageNumber] = []
        sorted.reserveCapacity(count)
        for slot in slots where slot.number != 0 { sorted.append(slot.number) }
        if sorted.count > 32 {
            sorted.sort()
            return sorted
        }
        sorted.withUnsafeMutableBufferPointer { b in
            for i in b.indices.dropFirst() {
                let number = b[i]
                var j = i
                while j > 0, b[j &- 1] > number {
                    b[j] = b[j &- 1]
                    j &-= 1
                }
                b[j] = number
            }
        }
        return sorted
    }

    private mutating func grow() {
        let old = slots
        slots = Self.emptySlots(old.count * 2)
        mask = slots.count - 1
        for slot in old where slot.number != 0 { slots[self.slot(of: slot.number)] = slot }
    }

    func makeIterator() -> Iterator { Iterator(table: self) }

    /// The pages, in no particular order.
    struct Iterator: IteratorProtocol {
        fileprivate let table: DirtyPages
        fileprivate var index = 0

        mutating func next() -> Page? {
            while index < table.slots.count {
                defer { index += 1 }
                let page = table.slots[index]
                if page.number != 0 { return page }
            }
            return nil
        }
    }
}
