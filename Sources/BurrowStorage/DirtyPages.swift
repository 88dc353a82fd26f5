/// The pages a write transaction owns, by page number, each with its buffer and its length in
/// pages.
///
/// Every page a transaction reads or changes is looked up here first (a dirty page shadows the
/// committed one), several times per B-tree operation, so the lookup has to be cheap: an
/// open-addressing table with linear probing and a multiplicative hash of the page number,
/// where a `Dictionary` would run SipHash on every lookup. Page number 0 marks an empty slot:
/// it is a meta page, never a dirty one. Removal shifts the following entries of the probe run
/// back, so lookups never meet a tombstone.
struct DirtyPages: Sequence {
    typealias Entry = (pointer: UnsafeMutableRawPointer, pages: Int)

    /// One slot of the table: a page number (0: empty) with its entry, in one array, so that a
    /// transaction's table is one allocation.
    private struct Slot {
        var number: PageNumber
        var pages: Int
        var pointer: UnsafeMutableRawPointer?

        static var empty: Slot { Slot(number: 0, pages: 0, pointer: nil) }
        var entry: Entry { (pointer!, pages) }
    }

    private var slots: [Slot]
    private var mask: Int
    /// How many pages the table holds.
    private(set) var count = 0

    init() {
        // Room for the eight pages of a small commit (two trees' paths) before the first growth.
        let capacity = 16
        slots = Self.emptySlots(capacity)
        mask = capacity - 1
    }

    /// `count` empty slots. Not `Array(repeating:count:)`: that allocates through the standard
    /// library's unspecialized code, which looks the array's type up at run time (about 650
    /// instructions per transaction), where `reserveCapacity` and `append` are specialized here.
    private static func emptySlots(_ count: Int) -> [Slot] {
        var slots: [Slot] = []
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

    /// The entry of page `number`; assigning nil removes it, as with a `Dictionary`.
    subscript(number: PageNumber) -> Entry? {
        get {
            let slot = slots[slot(of: number)]
            return slot.number == 0 ? nil : slot.entry
        }
        set {
            precondition(number != 0, "internal error: page 0 is never dirty")
            guard let newValue else {
                removeValue(forKey: number)
                return
            }
            let index = slot(of: number)
            if slots[index].number == 0 { count += 1 }
            slots[index] = Slot(number: number, pages: newValue.pages, pointer: newValue.pointer)
            if count * 2 > slots.count { grow() }
        }
    }

    /// Removes page `number` and returns its entry, if it was there.
    @discardableResult
    mutating func removeValue(forKey number: PageNumber) -> Entry? {
        var hole = slot(of: number)
        guard slots[hole].number != 0 else { return nil }
        let removed = slots[hole].entry
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
        return removed
    }

    mutating func removeAll() {
        for index in slots.indices where slots[index].number != 0 { slots[index] = .empty }
        count = 0
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

    /// The pages and their entries, in no particular order.
    struct Iterator: IteratorProtocol {
        fileprivate let table: DirtyPages
        fileprivate var index = 0

        mutating func next() -> (key: PageNumber, value: Entry)? {
            while index < table.slots.count {
                defer { index += 1 }
                let slot = table.slots[index]
                if slot.number != 0 { return (slot.number, slot.entry) }
            }
            return nil
        }
    }
}
