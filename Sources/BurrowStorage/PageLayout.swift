/// A page's number: its offset in the file divided by the page size. Pages 0 and 1 are the meta
/// pages, so 0 also serves as "no page" (the root of an empty tree).
package typealias PageNumber = UInt32

/// What a tree or overflow page holds, stored in byte 16 of its header.
enum PageKind: UInt8 {
    case branch = 1
    case leaf = 2
    case overflow = 3
}

/// The byte layout of tree and overflow pages (see Documentation/FileFormat.md).
///
/// Every non-meta page starts with a 24-byte header:
///
///     0  checksum   UInt64   XXH64 of bytes 8..<end, seeded with the page number
///     8  version    UInt64   the transaction that wrote the page
///     16 kind       UInt8    PageKind
///     17 form       UInt8    0, or 1 for a leaf whose entries have the compact form
///     18 count      UInt16   entries (branch, leaf)
///     20 heapStart  UInt16   lowest byte used by entry bodies (branch, leaf)
///     22 garbage    UInt16   bytes of dead entry bodies below the page end (branch, leaf)
///     20 pages      UInt32   length of the run in pages (overflow, overlaps heapStart/garbage)
///
/// Branch and leaf pages then hold `count` 10-byte slots, in key order: the UInt16 offset of an
/// entry body in the heap (which grows down from the end of the page), then the key's head, its
/// first eight bytes zero-padded. Searches compare heads and read an entry's key only on a tie,
/// so a lookup touches the slot array and the one entry it finds rather than a cache line per
/// probe.
///
///     leaf entry:   keyLength UInt16, valueLength UInt32, key, value
///                   (valueLength == overflowMarker: the value is a 12-byte reference,
///                    first page UInt32 + length UInt64, to an overflow run)
///     compact leaf entry (form 1, file format 7):
///                   keyLength, stored (each in one byte below 0x80, else two: 0x80 | high
///                   bits, low byte), the key's bytes after its eighth, value
///                   (stored: 0 for an overflow reference, else the value's length plus one;
///                    the key's first eight bytes are its slot's head, whose bytes are in key
///                    order, so a key of up to eight bytes lives in its slot alone)
///     branch entry: child PageNumber (UInt32), entries UInt64, keyLength UInt16, key
///                   (entries: how many leaf entries the child's subtree holds, so that
///                    positions and ranks are found in one descent;
///                    the key of slot 0 is ignored: it stands for "below every key")
///
/// The head of a form-0 page is a big-endian number stored as a little-endian UInt64; a compact
/// leaf keeps the head's bytes in key order, so that a key of up to eight bytes reads in place.
///
/// An overflow run is `pages` consecutive pages: the header, then the value's bytes.
package struct PageLayout: Sendable, Equatable {
    static let headerSize = 24
    static let slotSize = 10
    static let leafEntryHeader = 6
    static let branchEntryHeader = 14
    static let overflowReferenceSize = 12
    static let overflowMarker = UInt32.max
    /// Byte 17 of a leaf whose entries have the compact form.
    static let compactForm: UInt8 = 1
    /// The bytes of a key that a compact leaf keeps in its slot's head alone: a key of up to
    /// this many lives in its slot, a longer one keeps only the rest in its body.
    static let keyInHead = 8
    static let minimumPageSize = 4096
    static let maximumPageSize = 32768

    package let pageSize: Int
    /// The largest entry body plus slot that may sit inline, chosen so that any page holds at
    /// least four entries and a split always leaves both halves able to take the new entry.
    package let maxInlineEntry: Int
    package let maxKeySize: Int

    init(pageSize: Int) {
        self.pageSize = pageSize
        maxInlineEntry = (pageSize - Self.headerSize) / 4 - Self.slotSize
        maxKeySize = maxInlineEntry - Self.leafEntryHeader - Self.overflowReferenceSize
    }

    static func isValidPageSize(_ size: Int) -> Bool {
        size >= minimumPageSize && size <= maximumPageSize && size & (size - 1) == 0
    }

    /// Pages needed for an overflow run carrying `valueLength` bytes.
    func overflowPages(valueLength: Int) -> Int {
        (Self.headerSize + valueLength + pageSize - 1) / pageSize
    }

    /// The bytes of a length of a compact entry: one below 0x80, else two.
    @inline(__always) static func lengthSize(_ n: Int) -> Int { n < 0x80 ? 1 : 2 }

    /// The body size of a leaf entry with a key of `keyLength` bytes and `storedCount` bytes
    /// after it (the value, or an overflow reference when `overflow`), in either form.
    @inline(__always)
    static func leafEntrySize(keyLength: Int, storedCount: Int, overflow: Bool, compact: Bool) -> Int {
        guard compact else { return leafEntryHeader &+ keyLength &+ storedCount }
        return lengthSize(keyLength) &+ (overflow ? 1 : lengthSize(storedCount &+ 1))
            &+ (keyLength > keyInHead ? keyLength &- keyInHead : 0) &+ storedCount
    }
}

/// Where the parts of a leaf entry lie in its page: offsets from the page's start.
///
/// The key is whole at `keyStart` unless `isSplit`: then its first eight bytes are there (the
/// slot's head) and the rest at `restStart`.
struct LeafEntry {
    var keyStart: Int
    var keyLength: Int
    var restStart: Int
    var isSplit: Bool
    var storedStart: Int
    var storedCount: Int
    var isOverflow: Bool
    /// The body's size in the heap.
    var size: Int
}

/// Reading the fields of a tree page. Pure functions of a page pointer, so they serve mapped pages
/// and dirty pages alike.
enum PageHeader {
    @inline(__always) static func version(_ p: UnsafeRawPointer) -> UInt64 { p.u64(8) }
    @inline(__always) static func kind(_ p: UnsafeRawPointer) -> UInt8 { p.u8(16) }
    @inline(__always) static func isLeaf(_ p: UnsafeRawPointer) -> Bool { p.u8(16) == PageKind.leaf.rawValue }
    @inline(__always) static func count(_ p: UnsafeRawPointer) -> Int { Int(p.u16(18)) }
    @inline(__always) static func heapStart(_ p: UnsafeRawPointer) -> Int { Int(p.u16(20)) }
    @inline(__always) static func garbage(_ p: UnsafeRawPointer) -> Int { Int(p.u16(22)) }
    @inline(__always) static func overflowPages(_ p: UnsafeRawPointer) -> Int { Int(p.u32(20)) }
    @inline(__always) static func slot(_ p: UnsafeRawPointer, _ index: Int) -> Int {
        Int(p.u16(PageLayout.headerSize &+ PageLayout.slotSize &* index))
    }
    @inline(__always) static func head(_ p: UnsafeRawPointer, _ index: Int) -> UInt64 {
        p.u64(PageLayout.headerSize &+ PageLayout.slotSize &* index &+ 2)
    }

    /// A key's first eight bytes, zero-padded, as a big-endian number: heads order as their keys
    /// do, except that keys with equal heads need a full comparison.
    @inline(__always) static func keyHead(_ key: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = key.baseAddress else { return 0 }
        if key.count >= 8 { return UInt64(bigEndian: base.loadUnaligned(as: UInt64.self)) }
        var head: UInt64 = 0
        for i in 0..<key.count { head |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << UInt64(56 - 8 * i) }
        return head
    }

    /// Whether `p` is a leaf whose entries have the compact form.
    @inline(__always) static func isCompact(_ p: UnsafeRawPointer) -> Bool { p.u8(17) == PageLayout.compactForm }

    /// The head of slot `index` of a compact leaf, whose bytes are in key order.
    @inline(__always) static func compactHead(_ p: UnsafeRawPointer, _ index: Int) -> UInt64 {
        UInt64(bigEndian: p.loadUnaligned(fromByteOffset: PageLayout.headerSize &+ PageLayout.slotSize &* index &+ 2, as: UInt64.self))
    }

    /// A length of a compact entry at `offset`, and how many bytes it takes.
    @inline(__always) static func compactLength(_ p: UnsafeRawPointer, _ offset: Int) -> (value: Int, size: Int) {
        let first = Int(p.u8(offset))
        if first < 0x80 { return (first, 1) }
        return ((first & 0x7F) << 8 | Int(p.u8(offset &+ 1)), 2)
    }

    // Leaf entries.
    @inline(__always) static func leafEntry(_ p: UnsafeRawPointer, _ index: Int) -> LeafEntry {
        leafEntry(p, index, compact: isCompact(p))
    }

    /// Entry `index` of leaf `p`, whose form the caller has read (once for a page it walks).
    @inline(__always) static func leafEntry(_ p: UnsafeRawPointer, _ index: Int, compact: Bool) -> LeafEntry {
        let offset = slot(p, index)
        if !compact {
            let keyLength = Int(p.u16(offset))
            let field = p.u32(offset &+ 2)
            let overflow = field == PageLayout.overflowMarker
            let stored = overflow ? PageLayout.overflowReferenceSize : Int(field)
            return LeafEntry(
                keyStart: offset &+ PageLayout.leafEntryHeader, keyLength: keyLength, restStart: 0, isSplit: false,
                storedStart: offset &+ PageLayout.leafEntryHeader &+ keyLength, storedCount: stored, isOverflow: overflow,
                size: PageLayout.leafEntryHeader &+ keyLength &+ stored)
        }
        // Both lengths below 0x80, a byte each, is the common case: one load decides it.
        let pair = Int(p.u16(offset))
        let keyLength: Int
        let keySize: Int
        let field: Int
        let fieldSize: Int
        if pair & 0x8080 == 0 {
            (keyLength, keySize, field, fieldSize) = (pair & 0xFF, 1, pair &>> 8, 1)
        } else {
            (keyLength, keySize) = compactLength(p, offset)
            (field, fieldSize) = compactLength(p, offset &+ keySize)
        }
        let overflow = field == 0
        let stored = overflow ? PageLayout.overflowReferenceSize : field &- 1
        let rest = keyLength > PageLayout.keyInHead ? keyLength &- PageLayout.keyInHead : 0
        let restStart = offset &+ keySize &+ fieldSize
        return LeafEntry(
            keyStart: PageLayout.headerSize &+ PageLayout.slotSize &* index &+ 2, keyLength: keyLength, restStart: restStart,
            isSplit: rest > 0, storedStart: restStart &+ rest, storedCount: stored, isOverflow: overflow,
            size: keySize &+ fieldSize &+ rest &+ stored)
    }

    /// The key of entry `index`: in the page if it lies whole there, else gathered into
    /// `buffer` (room for `PageLayout.maxKeySize` bytes), which then holds it until reused.
    @inline(__always)
    static func leafKey(_ p: UnsafeRawPointer, _ index: Int, buffer: UnsafeMutableRawPointer) -> UnsafeRawBufferPointer {
        let entry = leafEntry(p, index)
        guard entry.isSplit else { return UnsafeRawBufferPointer(start: p + entry.keyStart, count: entry.keyLength) }
        buffer.copyMemory(from: p + entry.keyStart, byteCount: PageLayout.keyInHead)
        (buffer + PageLayout.keyInHead).copyMemory(from: p + entry.restStart, byteCount: entry.keyLength &- PageLayout.keyInHead)
        return UnsafeRawBufferPointer(start: buffer, count: entry.keyLength)
    }

    /// Calls `body` with the key of entry `index`, gathered on the stack if it is split.
    @inline(__always)
    static func withLeafKey<R>(_ p: UnsafeRawPointer, _ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let entry = leafEntry(p, index)
        guard entry.isSplit else { return body(UnsafeRawBufferPointer(start: p + entry.keyStart, count: entry.keyLength)) }
        return withUnsafeTemporaryAllocation(byteCount: entry.keyLength, alignment: 8) { buffer in
            body(leafKey(p, index, buffer: buffer.baseAddress!))
        }
    }

    /// The key of entry `index` as an array.
    static func leafKeyBytes(_ p: UnsafeRawPointer, _ index: Int) -> [UInt8] {
        withLeafKey(p, index) { Array($0) }
    }

    /// The first bytes of the key of entry `index`, up to eight: all its head is made of.
    @inline(__always) static func leafKeyPrefix(_ p: UnsafeRawPointer, _ index: Int) -> UnsafeRawBufferPointer {
        let entry = leafEntry(p, index)
        return UnsafeRawBufferPointer(start: p + entry.keyStart, count: min(entry.keyLength, PageLayout.keyInHead))
    }

    /// Compares the key of entry `index` with `key`, as `compareKeys` does, when their heads are
    /// equal: a search compares keys only on such a tie, without gathering a key in two parts. On a compact leaf equal heads mean equal first eight bytes (zeros after a
    /// shorter key), so a key of up to eight bytes orders by its length, and two longer keys by
    /// their rest alone; on a leaf of the first form the whole keys are compared.
    @inline(__always)
    static func compareTiedLeafKey(_ p: UnsafeRawPointer, _ index: Int, _ key: UnsafeRawBufferPointer, compact: Bool) -> Int {
        let offset = slot(p, index)
        guard compact else {
            return compareKeys(UnsafeRawBufferPointer(start: p + (offset &+ PageLayout.leafEntryHeader), count: Int(p.u16(offset))), key)
        }
        let first = Int(p.u8(offset))
        let keyLength = first < 0x80 ? first : (first & 0x7F) << 8 | Int(p.u8(offset &+ 1))
        let headCount = PageLayout.keyInHead
        if keyLength <= headCount || key.count <= headCount { return keyLength < key.count ? -1 : keyLength > key.count ? 1 : 0 }
        let keySize = first < 0x80 ? 1 : 2
        let restStart = offset &+ keySize &+ (p.u8(offset &+ keySize) < 0x80 ? 1 : 2)
        return compareKeys(
            UnsafeRawBufferPointer(start: p + restStart, count: keyLength &- headCount),
            UnsafeRawBufferPointer(start: key.baseAddress! + headCount, count: key.count &- headCount))
    }

    /// Whether the value of entry `index` lies in an overflow run.
    @inline(__always) static func leafIsOverflow(_ p: UnsafeRawPointer, _ index: Int) -> Bool {
        leafEntry(p, index).isOverflow
    }
    /// The bytes stored after the key: the value itself, or the overflow reference.
    @inline(__always) static func leafStored(_ p: UnsafeRawPointer, _ index: Int) -> UnsafeRawBufferPointer {
        let entry = leafEntry(p, index)
        return UnsafeRawBufferPointer(start: p + entry.storedStart, count: entry.storedCount)
    }
    @inline(__always) static func leafEntrySize(_ p: UnsafeRawPointer, _ index: Int) -> Int {
        leafEntry(p, index).size
    }
    /// The size entry `index` of leaf `p` takes on a leaf of the form `compact`.
    @inline(__always) static func leafEntrySize(_ p: UnsafeRawPointer, _ index: Int, compact: Bool) -> Int {
        let entry = leafEntry(p, index)
        return PageLayout.leafEntrySize(
            keyLength: entry.keyLength, storedCount: entry.storedCount, overflow: entry.isOverflow, compact: compact)
    }

    // Branch entries.
    @inline(__always) static func child(_ p: UnsafeRawPointer, _ index: Int) -> PageNumber {
        p.u32(slot(p, index))
    }
    /// The number of leaf entries in the subtree of child `index`.
    @inline(__always) static func childEntries(_ p: UnsafeRawPointer, _ index: Int) -> UInt64 {
        p.u64(slot(p, index) + 4)
    }
    @inline(__always) static func branchKeyLength(_ p: UnsafeRawPointer, _ index: Int) -> Int {
        Int(p.u16(slot(p, index) + 12))
    }
    @inline(__always) static func branchKey(_ p: UnsafeRawPointer, _ index: Int) -> UnsafeRawBufferPointer {
        let offset = slot(p, index)
        return UnsafeRawBufferPointer(start: p + offset + PageLayout.branchEntryHeader, count: Int(p.u16(offset + 12)))
    }
    @inline(__always) static func branchEntrySize(_ p: UnsafeRawPointer, _ index: Int) -> Int {
        PageLayout.branchEntryHeader + branchKeyLength(p, index)
    }

    /// The number of leaf entries under page `p`: a leaf's count, a branch's children's sum.
    static func subtreeEntries(_ p: UnsafeRawPointer) -> UInt64 {
        if isLeaf(p) { return UInt64(count(p)) }
        var total: UInt64 = 0
        for i in 0..<count(p) { total &+= childEntries(p, i) }
        return total
    }

    @inline(__always) static func entrySize(_ p: UnsafeRawPointer, _ index: Int) -> Int {
        isLeaf(p) ? leafEntrySize(p, index) : branchEntrySize(p, index)
    }

    /// Bytes in use: header, slots and live entry bodies.
    @inline(__always) static func usedBytes(_ p: UnsafeRawPointer, pageSize: Int) -> Int {
        PageLayout.headerSize + PageLayout.slotSize * count(p) + (pageSize - heapStart(p) - garbage(p))
    }

    /// The slot every search probes first. Any page of the smallest size has room for it (so the
    /// load is always inside the page), and it splits a typical leaf near its middle.
    static let firstProbe = 20

    /// The index of the first entry whose key is not less than `key`, and whether it is equal.
    @inline(__always)
    static func leafSearch(_ p: UnsafeRawPointer, _ key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
        isCompact(p) ? leafSearch(p, key, ByteOrderHeads.self) : leafSearch(p, key, NumberHeads.self)
    }

    @inline(__always)
    private static func leafSearch<Heads: SlotHeads>(
        _ p: UnsafeRawPointer, _ key: UnsafeRawBufferPointer, _ heads: Heads.Type
    ) -> (index: Int, found: Bool) {
        let keyHead = keyHead(key)
        // The first probe is at a fixed slot, so its load does not wait for the header's count:
        // the two cache misses of a cold page overlap instead of following one another.
        let probeHead = Heads.head(p, firstProbe)
        var low = 0
        var high = count(p)
        if firstProbe < high {
            let c = probeHead < keyHead ? -1 : probeHead > keyHead ? 1 : compareTiedLeafKey(p, firstProbe, key, compact: Heads.compact)
            if c < 0 { low = firstProbe &+ 1 } else if c > 0 { high = firstProbe } else { return (firstProbe, true) }
        }
        while high &- low > quarteringThreshold {
            guard let range = quartered(p, low, high, keyHead, Heads.self) else { break }
            (low, high) = range
        }
        while low < high {
            let mid = (low &+ high) &>> 1
            let h = Heads.head(p, mid)
            let c = h < keyHead ? -1 : h > keyHead ? 1 : compareTiedLeafKey(p, mid, key, compact: Heads.compact)
            if c < 0 { low = mid &+ 1 } else if c > 0 { high = mid } else { return (mid, true) }
        }
        return (low, false)
    }

    /// The index of the child whose subtree holds `key`: the last entry whose key is not greater.
    @inline(__always)
    static func branchSearch(_ p: UnsafeRawPointer, _ key: UnsafeRawBufferPointer) -> Int {
        let keyHead = keyHead(key)
        let probeHead = head(p, firstProbe)
        var low = 1
        var high = count(p)
        if firstProbe < high {
            let notGreater = probeHead < keyHead || (probeHead == keyHead && compareKeys(branchKey(p, firstProbe), key) <= 0)
            if notGreater { low = firstProbe &+ 1 } else { high = firstProbe }
        }
        while high &- low > quarteringThreshold {
            guard let range = quartered(p, low, high, keyHead, NumberHeads.self) else { break }
            (low, high) = range
        }
        while low < high {
            let mid = (low &+ high) &>> 1
            let h = head(p, mid)
            let notGreater = h < keyHead || (h == keyHead && compareKeys(branchKey(p, mid), key) <= 0)
            if notGreater { low = mid &+ 1 } else { high = mid }
        }
        return low &- 1
    }

    /// Below this many candidate slots, searches halve instead of quartering.
    static let quarteringThreshold = 8

    /// One four-way step of a search over slots `low..<high`: the part between the three
    /// quartiles where the key's head falls. The three heads are loaded together and compared
    /// without branches, so on a cold page their cache misses overlap where a binary search
    /// would wait for each in turn. The narrowed range keeps both searches' invariant: every
    /// slot below it orders before the key, every slot from its end on after it. Nil if a
    /// quartile's head equals the key's: only a full comparison can place the key against it,
    /// which the caller's binary search makes.
    @inline(__always)
    static func quartered<Heads: SlotHeads>(
        _ p: UnsafeRawPointer, _ low: Int, _ high: Int, _ keyHead: UInt64, _ heads: Heads.Type
    ) -> (Int, Int)? {
        let quarter = (high &- low) &>> 2
        let i1 = low &+ quarter
        let i2 = i1 &+ quarter
        let i3 = i2 &+ quarter
        let h1 = Heads.head(p, i1)
        let h2 = Heads.head(p, i2)
        let h3 = Heads.head(p, i3)
        if h1 == keyHead || h2 == keyHead || h3 == keyHead { return nil }
        // Heads are sorted, so the quartiles below the key are a prefix of (i1, i2, i3).
        let below = (h1 < keyHead ? 1 : 0) &+ (h2 < keyHead ? 1 : 0) &+ (h3 < keyHead ? 1 : 0)
        switch below {
        case 0: return (low, i1)
        case 1: return (i1 &+ 1, i2)
        case 2: return (i2 &+ 1, i3)
        default: return (i3 &+ 1, high)
        }
    }
}

/// How a page stores its slots' heads: as numbers (branches, and leaves of the first form) or
/// with their bytes in key order (compact leaves).
protocol SlotHeads {
    /// Whether the page is a compact leaf.
    static var compact: Bool { get }
    static func head(_ p: UnsafeRawPointer, _ index: Int) -> UInt64
}

enum NumberHeads: SlotHeads {
    static var compact: Bool { false }
    @inline(__always) static func head(_ p: UnsafeRawPointer, _ index: Int) -> UInt64 { PageHeader.head(p, index) }
}

enum ByteOrderHeads: SlotHeads {
    static var compact: Bool { true }
    @inline(__always) static func head(_ p: UnsafeRawPointer, _ index: Int) -> UInt64 { PageHeader.compactHead(p, index) }
}

/// Writing tree pages in place. Only dirty pages (owned by a write transaction) are passed here.
enum PageWriter {
    /// Makes `p` an empty page of `kind`: a leaf of the compact form if `compact`.
    static func initialize(_ p: UnsafeMutableRawPointer, kind: PageKind, version: UInt64, pageSize: Int, compact: Bool = false) {
        p.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.headerSize)
        p.setU64(8, version)
        p.setU8(16, kind.rawValue)
        if compact && kind == .leaf { p.setU8(17, PageLayout.compactForm) }
        p.setU16(18, 0)
        p.setU16(20, UInt16(pageSize))
        p.setU16(22, 0)
    }

    @inline(__always) static func setCount(_ p: UnsafeMutableRawPointer, _ n: Int) { p.setU16(18, UInt16(n)) }
    @inline(__always) static func setHeapStart(_ p: UnsafeMutableRawPointer, _ n: Int) { p.setU16(20, UInt16(n)) }
    @inline(__always) static func setGarbage(_ p: UnsafeMutableRawPointer, _ n: Int) { p.setU16(22, UInt16(n)) }
    @inline(__always) static func setChild(_ p: UnsafeMutableRawPointer, _ index: Int, _ child: PageNumber) {
        p.setU32(PageHeader.slot(UnsafeRawPointer(p), index), child)
    }
    @inline(__always) static func setChildEntries(_ p: UnsafeMutableRawPointer, _ index: Int, _ entries: UInt64) {
        p.setU64(PageHeader.slot(UnsafeRawPointer(p), index) + 4, entries)
    }
    /// Adds `delta` (which may be negative) to the entry count of child `index`.
    @inline(__always) static func addChildEntries(_ p: UnsafeMutableRawPointer, _ index: Int, _ delta: Int) {
        let current = PageHeader.childEntries(UnsafeRawPointer(p), index)
        setChildEntries(p, index, UInt64(bitPattern: Int64(bitPattern: current) &+ Int64(delta)))
    }

    /// Free bytes between the slot array and the heap.
    @inline(__always) static func gap(_ p: UnsafeRawPointer) -> Int {
        PageHeader.heapStart(p) - PageLayout.headerSize - PageLayout.slotSize * PageHeader.count(p)
    }

    /// Whether an entry body of `size` bytes (plus its slot) fits, after compaction if need be.
    @inline(__always) static func fits(_ p: UnsafeRawPointer, size: Int) -> Bool {
        gap(p) + PageHeader.garbage(p) >= size + PageLayout.slotSize
    }

    /// Reserves room for an entry body of `size` bytes, whose key is `key`, at slot `index` and
    /// returns its address. The caller has checked `fits`; `scratch` is a page-sized buffer used
    /// when compacting.
    static func insertSlot(
        _ p: UnsafeMutableRawPointer, at index: Int, size: Int, key: UnsafeRawBufferPointer, pageSize: Int,
        scratch: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer {
        if gap(p) < size + PageLayout.slotSize { compact(p, pageSize: pageSize, scratch: scratch) }
        let count = PageHeader.count(p)
        let heap = PageHeader.heapStart(p) - size
        let slots = p + PageLayout.headerSize
        let slotSize = PageLayout.slotSize
        if index < count {
            (slots + slotSize * (index + 1)).copyMemory(from: slots + slotSize * index, byteCount: slotSize * (count - index))
        }
        slots.setU16(slotSize * index, UInt16(heap))
        setHead(p, index, key)
        setCount(p, count + 1)
        setHeapStart(p, heap)
        return p + heap
    }

    /// Removes slot `index`; its body becomes garbage until the page is compacted.
    static func removeSlot(_ p: UnsafeMutableRawPointer, at index: Int) {
        let q = UnsafeRawPointer(p)
        let count = PageHeader.count(q)
        let size = PageHeader.entrySize(q, index)
        let offset = PageHeader.slot(q, index)
        let slots = p + PageLayout.headerSize
        let slotSize = PageLayout.slotSize
        if index + 1 < count {
            (slots + slotSize * index).copyMemory(from: slots + slotSize * (index + 1), byteCount: slotSize * (count - index - 1))
        }
        setCount(p, count - 1)
        if offset == PageHeader.heapStart(q) {
            setHeapStart(p, offset + size)
        } else {
            setGarbage(p, PageHeader.garbage(q) + size)
        }
    }

    /// Rewrites the heap so that all free space is one gap and the entry bodies lie in key order
    /// at ascending addresses (a forward scan then reads the page front to back).
    ///
    /// A page that already has that form (no garbage, bodies packed in slot order up to the end:
    /// a branch whose child or count changed in place) is left as it is. Otherwise the header,
    /// the slots and the heap (not the gap) are copied aside, and the bodies copied back a run at
    /// a time: bodies that follow each other in the old heap in slot order move as one block
    /// (after one insertion, the page is three such runs).
    static func compact(_ p: UnsafeMutableRawPointer, pageSize: Int, scratch: UnsafeMutableRawPointer) {
        let page = UnsafeRawPointer(p)
        let count = PageHeader.count(page)
        let oldHeap = PageHeader.heapStart(page)
        // Without garbage the bodies fill the heap exactly (live + garbage is always the heap's
        // size), so bodies at ascending addresses in slot order are packed: found from the
        // slots alone, without reading a body.
        if PageHeader.garbage(page) == 0 {
            var previous = oldHeap &- 1
            var ascending = true
            for i in 0..<count {
                let offset = PageHeader.slot(page, i)
                if offset <= previous {
                    ascending = false
                    break
                }
                previous = offset
            }
            if ascending && (count == 0 || PageHeader.slot(page, 0) == oldHeap) { return }
        }
        var live = 0
        var isCompact = PageHeader.garbage(page) == 0
        for i in 0..<count {
            if PageHeader.slot(page, i) != oldHeap &+ live { isCompact = false }
            live &+= PageHeader.entrySize(page, i)
        }
        if isCompact && oldHeap &+ live == pageSize { return }
        let slotsEnd = PageLayout.headerSize &+ PageLayout.slotSize &* count
        scratch.copyMemory(from: page, byteCount: slotsEnd)
        (scratch + oldHeap).copyMemory(from: page + oldHeap, byteCount: pageSize &- oldHeap)
        let source = UnsafeRawPointer(scratch)
        let heapStart = pageSize &- live
        var offset = heapStart
        // The run being gathered: `runLength` bytes from `runSource` in scratch go to `runTarget`.
        var runSource = 0
        var runTarget = heapStart
        var runLength = 0
        for i in 0..<count {
            let from = PageHeader.slot(source, i)
            let size = PageHeader.entrySize(source, i)
            if from != runSource &+ runLength {
                if runLength > 0 { (p + runTarget).copyMemory(from: source + runSource, byteCount: runLength) }
                runSource = from
                runTarget = offset
                runLength = 0
            }
            runLength &+= size
            p.setU16(PageLayout.headerSize &+ PageLayout.slotSize &* i, UInt16(offset))
            offset &+= size
        }
        if runLength > 0 { (p + runTarget).copyMemory(from: source + runSource, byteCount: runLength) }
        setHeapStart(p, heapStart)
        setGarbage(p, 0)
    }

    /// Writes the head of `key` into slot `index`, in the form of page `p`.
    @inline(__always) static func setHead(_ p: UnsafeMutableRawPointer, _ index: Int, _ key: UnsafeRawBufferPointer) {
        let at = PageLayout.headerSize &+ PageLayout.slotSize &* index &+ 2
        if PageHeader.isCompact(UnsafeRawPointer(p)) {
            p.storeBytes(of: PageHeader.keyHead(key).bigEndian, toByteOffset: at, as: UInt64.self)
        } else {
            p.setU64(at, PageHeader.keyHead(key))
        }
    }

    /// Appends entry `index` of `source` after the last slot of `p`, a page of the same kind:
    /// its body and its slot's head are copied as they are between pages of the same form, and
    /// a leaf entry is written anew in the form of `p` otherwise. The caller has checked that
    /// it fits (`PageHeader.leafEntrySize(_:_:compact:)` gives its size in either form).
    static func appendEntry(_ p: UnsafeMutableRawPointer, from source: UnsafeRawPointer, _ index: Int) {
        let page = UnsafeRawPointer(p)
        let count = PageHeader.count(page)
        if PageHeader.isLeaf(source) && PageHeader.isCompact(page) != PageHeader.isCompact(source) {
            let entry = PageHeader.leafEntry(source, index)
            let compact = PageHeader.isCompact(page)
            let size = PageLayout.leafEntrySize(
                keyLength: entry.keyLength, storedCount: entry.storedCount, overflow: entry.isOverflow, compact: compact)
            let heap = PageHeader.heapStart(page) - size
            p.setU16(PageLayout.headerSize + PageLayout.slotSize * count, UInt16(heap))
            PageHeader.withLeafKey(source, index) { key in
                setHead(p, count, key)
                writeLeafEntry(
                    p + heap, key: key, valueField: entry.isOverflow ? PageLayout.overflowMarker : UInt32(entry.storedCount),
                    stored: UnsafeRawBufferPointer(start: source + entry.storedStart, count: entry.storedCount), compact: compact)
            }
            setCount(p, count + 1)
            setHeapStart(p, heap)
            return
        }
        let size = PageHeader.entrySize(source, index)
        let heap = PageHeader.heapStart(page) - size
        (p + heap).copyMemory(from: source + PageHeader.slot(source, index), byteCount: size)
        let to = PageLayout.headerSize + PageLayout.slotSize * count
        p.setU16(to, UInt16(heap))
        (p + to + 2).copyMemory(from: source + PageLayout.headerSize + PageLayout.slotSize * index + 2, byteCount: 8)
        setCount(p, count + 1)
        setHeapStart(p, heap)
    }

    /// Writes a leaf entry's body at `at`, in the compact form if `compact` (which keeps only
    /// the key's bytes after its eighth: the slot's head, which `insertSlot` or `setHead`
    /// writes, holds the others).
    static func writeLeafEntry(
        _ at: UnsafeMutableRawPointer, key: UnsafeRawBufferPointer, valueField: UInt32,
        stored: UnsafeRawBufferPointer, compact: Bool
    ) {
        var offset: Int
        if compact {
            offset = writeLength(at, 0, key.count)
            offset &+= writeLength(at, offset, valueField == PageLayout.overflowMarker ? 0 : Int(valueField) &+ 1)
            if key.count > PageLayout.keyInHead, let k = key.baseAddress {
                let rest = key.count &- PageLayout.keyInHead
                (at + offset).copyMemory(from: k + PageLayout.keyInHead, byteCount: rest)
                offset &+= rest
            }
        } else {
            at.setU16(0, UInt16(key.count))
            at.setU32(2, valueField)
            if let k = key.baseAddress { (at + PageLayout.leafEntryHeader).copyMemory(from: k, byteCount: key.count) }
            offset = PageLayout.leafEntryHeader &+ key.count
        }
        if let s = stored.baseAddress { (at + offset).copyMemory(from: s, byteCount: stored.count) }
    }

    /// Writes a length of a compact entry at `offset`; returns the bytes it took.
    @inline(__always) private static func writeLength(_ at: UnsafeMutableRawPointer, _ offset: Int, _ n: Int) -> Int {
        if n < 0x80 {
            at.setU8(offset, UInt8(n))
            return 1
        }
        at.setU8(offset, UInt8(0x80 | n >> 8))
        at.setU8(offset &+ 1, UInt8(n & 0xFF))
        return 2
    }

    /// Writes the entries of `source`, a leaf of the first form, into `p` as a compact leaf of
    /// `version`, compacted (the bodies in key order at ascending addresses). A compact entry
    /// is never larger than its first form, so they fit.
    static func writeCompact(_ p: UnsafeMutableRawPointer, from source: UnsafeRawPointer, version: UInt64, pageSize: Int) {
        let count = PageHeader.count(source)
        var total = 0
        for i in 0..<count {
            let entry = PageHeader.leafEntry(source, i)
            total &+= PageLayout.leafEntrySize(
                keyLength: entry.keyLength, storedCount: entry.storedCount, overflow: entry.isOverflow, compact: true)
        }
        initialize(p, kind: .leaf, version: version, pageSize: pageSize, compact: true)
        // The gap between the slots and the heap is zeroed: the buffer may hold another page's
        // bytes, which would otherwise reach the file.
        let slotsEnd = PageLayout.headerSize &+ PageLayout.slotSize &* count
        (p + slotsEnd).initializeMemory(as: UInt8.self, repeating: 0, count: pageSize &- total &- slotsEnd)
        var offset = pageSize &- total
        setHeapStart(p, offset)
        setCount(p, count)
        for i in 0..<count {
            let entry = PageHeader.leafEntry(source, i)
            let key = UnsafeRawBufferPointer(start: source + entry.keyStart, count: entry.keyLength)
            p.setU16(PageLayout.headerSize &+ PageLayout.slotSize &* i, UInt16(offset))
            setHead(p, i, key)
            writeLeafEntry(
                p + offset, key: key, valueField: entry.isOverflow ? PageLayout.overflowMarker : UInt32(entry.storedCount),
                stored: UnsafeRawBufferPointer(start: source + entry.storedStart, count: entry.storedCount), compact: true)
            offset &+= PageLayout.leafEntrySize(
                keyLength: entry.keyLength, storedCount: entry.storedCount, overflow: entry.isOverflow, compact: true)
        }
    }

    static func writeBranchEntry(_ at: UnsafeMutableRawPointer, child: PageNumber, entries: UInt64, key: UnsafeRawBufferPointer) {
        at.setU32(0, child)
        at.setU64(4, entries)
        at.setU16(12, UInt16(key.count))
        if let k = key.baseAddress { (at + PageLayout.branchEntryHeader).copyMemory(from: k, byteCount: key.count) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
