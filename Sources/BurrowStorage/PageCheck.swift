/// The checks a committed page passes before the engine trusts it: its checksum, then a structure
/// that every later read can rely on without bounds checks (slots inside the page, entry bodies
/// inside the heap, keys in strictly increasing order, lengths within limits).
enum PageCheck {
    /// Returns nil when the page at `p` (numbered `number`) is sound, or what is wrong with it.
    /// `pageCount` bounds overflow runs; `maxVersion` is the version of the snapshot reading it,
    /// and `format` its file format (compact leaves exist from format 7 on).
    static func problem(
        _ p: UnsafeRawPointer, number: PageNumber, layout: PageLayout, pageCount: PageNumber, maxVersion: UInt64, format: UInt32
    ) -> String? {
        let pageSize = layout.pageSize
        let kind = PageHeader.kind(p)
        if PageHeader.version(p) > maxVersion {
            return "claims to be written by version \(PageHeader.version(p)), after this snapshot's \(maxVersion)"
        }
        if kind == PageKind.overflow.rawValue {
            let pages = PageHeader.overflowPages(p)
            guard pages >= 1, UInt64(number) + UInt64(pages) <= UInt64(pageCount) else {
                return "is an overflow run whose length runs past the end of the file"
            }
            guard p.u64(0) == Checksum.page(p, length: pages * pageSize, pageNumber: number) else {
                return "fails its checksum"
            }
            return nil
        }
        guard p.u64(0) == Checksum.page(p, length: pageSize, pageNumber: number) else {
            return "fails its checksum"
        }
        guard kind == PageKind.leaf.rawValue || kind == PageKind.branch.rawValue else {
            return "has unknown kind \(kind)"
        }
        let isLeaf = kind == PageKind.leaf.rawValue
        let form = p.u8(17)
        guard form == 0 || (isLeaf && form == PageLayout.compactForm) else { return "has unknown form \(form)" }
        let compact = form == PageLayout.compactForm
        if compact && format < Meta.firstCompactFormat { return "is a compact leaf in a version of format \(format), which has none" }
        let count = PageHeader.count(p)
        let heapStart = PageHeader.heapStart(p)
        let slotsEnd = PageLayout.headerSize + PageLayout.slotSize * count
        guard count >= 1, slotsEnd <= heapStart, heapStart <= pageSize, PageHeader.garbage(p) <= pageSize - heapStart
        else { return "has an impossible header (count \(count), heap start \(heapStart))" }
        var live = 0
        if compact {
            switch compactEntriesProblem(p, layout: layout, pageCount: pageCount) {
            case .problem(let problem): return problem
            case .live(let bytes): live = bytes
            }
        }
        for i in 0..<(compact ? 0 : count) {
            let offset = PageHeader.slot(p, i)
            guard offset >= heapStart, offset + (isLeaf ? PageLayout.leafEntryHeader : PageLayout.branchEntryHeader) <= pageSize else {
                return "has slot \(i) outside its heap"
            }
            let size: Int
            if isLeaf {
                let keyLength = Int(p.u16(offset))
                let field = p.u32(offset + 2)
                let stored = field == PageLayout.overflowMarker ? PageLayout.overflowReferenceSize : Int(field)
                guard keyLength <= layout.maxKeySize,
                    field == PageLayout.overflowMarker || stored <= layout.maxInlineEntry
                else { return "has entry \(i) with impossible lengths" }
                size = PageLayout.leafEntryHeader + keyLength + stored
                if field == PageLayout.overflowMarker {
                    let first = (p + offset + PageLayout.leafEntryHeader + keyLength).u32(0)
                    guard first >= 2, first < pageCount else { return "has entry \(i) pointing at page \(first), outside the file" }
                }
            } else {
                let keyLength = Int(p.u16(offset + 12))
                guard keyLength <= layout.maxKeySize else { return "has entry \(i) with an impossible key length" }
                size = PageLayout.branchEntryHeader + keyLength
                let child = p.u32(offset)
                guard child >= 2, child < pageCount else { return "has child \(i) at page \(child), outside the file" }
            }
            guard offset + size <= pageSize else { return "has entry \(i) running past the page end" }
            // A leaf of the first form keeps its keys whole in the body.
            let key = isLeaf ? firstFormKey(p, i) : PageHeader.branchKey(p, i)
            guard PageHeader.head(p, i) == PageHeader.keyHead(key) else { return "has slot \(i) whose key head does not match its key" }
            live += size
            if i > (isLeaf ? 0 : 1) {
                let previous = isLeaf ? firstFormKey(p, i - 1) : PageHeader.branchKey(p, i - 1)
                guard compareKeys(previous, key) < 0 else { return "has keys out of order at entry \(i)" }
            }
        }
        guard live + PageHeader.garbage(p) == pageSize - heapStart else {
            return "has a heap whose entries do not add up"
        }
        return nil
    }

    /// The key of entry `i` of a leaf of the first form, whole in its body.
    private static func firstFormKey(_ p: UnsafeRawPointer, _ i: Int) -> UnsafeRawBufferPointer {
        let entry = PageHeader.leafEntry(p, i, compact: false)
        return UnsafeRawBufferPointer(start: p + entry.keyStart, count: entry.keyLength)
    }

    private enum CompactCheck {
        case problem(String)
        case live(Int)
    }

    /// The entries of a compact leaf: lengths, bounds and overflow references as for the first
    /// form, each length in the fewest bytes, the head's bytes after a key shorter than eight
    /// zero, and the keys in order (by their heads, and part by part where heads tie). Returns
    /// the bytes the entries take.
    private static func compactEntriesProblem(_ p: UnsafeRawPointer, layout: PageLayout, pageCount: PageNumber) -> CompactCheck {
        let pageSize = layout.pageSize
        let heapStart = PageHeader.heapStart(p)
        var live = 0
        var previousHead: UInt64 = 0
        for i in 0..<PageHeader.count(p) {
            let offset = PageHeader.slot(p, i)
            guard offset >= heapStart, let header = compactHeaderSize(p, offset, pageSize: pageSize), offset + header <= pageSize else {
                return .problem("has slot \(i) outside its heap")
            }
            let entry = PageHeader.leafEntry(p, i, compact: true)
            guard entry.keyLength <= layout.maxKeySize, entry.isOverflow || entry.storedCount <= layout.maxInlineEntry,
                header == 2 || (minimal(p, offset) && minimal(p, offset + PageLayout.lengthSize(entry.keyLength)))
            else { return .problem("has entry \(i) with impossible lengths") }
            guard offset + entry.size <= pageSize else { return .problem("has entry \(i) running past the page end") }
            if entry.isOverflow {
                let first = (p + entry.storedStart).u32(0)
                guard first >= 2, first < pageCount else { return .problem("has entry \(i) pointing at page \(first), outside the file") }
            }
            let head = PageHeader.compactHead(p, i)
            // The head holds the key's first bytes as they are; after a shorter key, zeros.
            if entry.keyLength < PageLayout.keyInHead {
                guard head & (UInt64.max >> (8 * UInt64(entry.keyLength))) == 0 else {
                    return .problem("has slot \(i) whose key head does not match its key")
                }
            }
            if i > 0 {
                // Equal heads: the previous key's order against this one's, as a search places
                // a key that ties a head.
                let ordered =
                    head != previousHead
                    ? head > previousHead
                    : PageHeader.withLeafKey(p, i) { PageHeader.compareTiedLeafKey(p, i - 1, $0, compact: true) < 0 }
                guard ordered else { return .problem("has keys out of order at entry \(i)") }
            }
            previousHead = head
            live += entry.size
        }
        return .live(live)
    }

    /// The bytes of the two lengths of the compact entry at `offset`, or nil if they do not lie
    /// in the page.
    private static func compactHeaderSize(_ p: UnsafeRawPointer, _ offset: Int, pageSize: Int) -> Int? {
        guard offset < pageSize else { return nil }
        let keySize = p.u8(offset) < 0x80 ? 1 : 2
        guard offset + keySize < pageSize else { return nil }
        return keySize + (p.u8(offset + keySize) < 0x80 ? 1 : 2)
    }

    /// Whether the compact length at `offset` takes two bytes only for a value that needs them:
    /// sizes are computed from the values, so a longer encoding would not add up.
    private static func minimal(_ p: UnsafeRawPointer, _ offset: Int) -> Bool {
        let (value, size) = PageHeader.compactLength(p, offset)
        return size == PageLayout.lengthSize(value)
    }
}
