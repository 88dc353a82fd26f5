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

    private var numbers: [PageNumber]
    private var entries: [Entry?]
    private var mask: Int
    /// How many pages the table holds.
    private(set) var count = 0

    init() {
        // Room for the eight pages of a small commit (two trees' paths) before the first growth.
        let capacity = 16
        numbers = Array(repeating: 0, count: capacity)
        entries = Array(repeating: nil, count: capacity)
        mask = capacity - 1
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
            let found = numbers[index]
            if found == number || found == 0 { return index }
            index = (index &+ 1) & mask
        }
    }

    /// The entry of page `number`; assigning nil removes it, as with a `Dictionary`.
    subscript(number: PageNumber) -> Entry? {
        get {
            let index = slot(of: number)
            return numbers[index] == 0 ? nil : entries[index]
        }
        set {
            precondition(number != 0, "internal error: page 0 is never dirty")
            guard let newValue else {
                removeValue(forKey: number)
                return
            }
            let index = slot(of: number)
            if numbers[index] == 0 {
                numbers[index] = number
                count += 1
            }
            entries[index] = newValue
            if count * 2 > numbers.count { grow() }
        }
    }

    /// Removes page `number` and returns its entry, if it was there.
    @discardableResult
    mutating func removeValue(forKey number: PageNumber) -> Entry? {
        var hole = slot(of: number)
        guard numbers[hole] != 0 else { return nil }
        let removed = entries[hole]
        // Close the hole: move back each later entry of the run whose home does not lie
        // between the hole and its slot, so every entry stays reachable from its home.
        var next = (hole &+ 1) & mask
        while numbers[next] != 0 {
            let distanceFromHome = (next &- home(numbers[next])) & mask
            let distanceFromHole = (next &- hole) & mask
            if distanceFromHome >= distanceFromHole {
                numbers[hole] = numbers[next]
                entries[hole] = entries[next]
                hole = next
            }
            next = (next &+ 1) & mask
        }
        numbers[hole] = 0
        entries[hole] = nil
        count -= 1
        return removed
    }

    mutating func removeAll() {
        for index in numbers.indices where numbers[index] != 0 {
            numbers[index] = 0
            entries[index] = nil
        }
        count = 0
    }

    /// The page numbers held, in ascending order: one array, sorted by insertion (a commit holds
    /// a handful of pages; a large one falls back to the standard sort).
    func sortedPageNumbers() -> [PageNumber] {
        var sorted: [PageNumber] = []
        sorted.reserveCapacity(count)
        for number in numbers where number != 0 { sorted.append(number) }
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
        let oldNumbers = numbers, oldEntries = entries
        numbers = Array(repeating: 0, count: oldNumbers.count * 2)
        entries = Array(repeating: nil, count: oldNumbers.count * 2)
        mask = numbers.count - 1
        for index in oldNumbers.indices where oldNumbers[index] != 0 {
            let slot = slot(of: oldNumbers[index])
            numbers[slot] = oldNumbers[index]
            entries[slot] = oldEntries[index]
        }
    }

    func makeIterator() -> Iterator { Iterator(table: self) }

    /// The pages and their entries, in no particular order.
    struct Iterator: IteratorProtocol {
        fileprivate let table: DirtyPages
        fileprivate var index = 0

        mutating func next() -> (key: PageNumber, value: Entry)? {
            while index < table.numbers.count {
                defer { index += 1 }
                if table.numbers[index] != 0, let entry = table.entries[index] { return (table.numbers[index], entry) }
            }
            return nil
        }
    }
}
