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
        for i in 0..<count {
            let offset = PageHeader.slot(p, i)
            let header =
                isLeaf ? (compact ? compactHeaderSize(p, offset, pageSize: pageSize) : PageLayout.leafEntryHeader) : PageLayout.branchEntryHeader
            guard offset >= heapStart, let header, offset + header <= pageSize else {
                return "has slot \(i) outside its heap"
            }
            let size: Int
            if compact {
                let entry = PageHeader.leafEntry(p, i)
                guard entry.keyLength <= layout.maxKeySize, entry.isOverflow || entry.storedCount <= layout.maxInlineEntry,
                    minimal(p, offset), minimal(p, offset + PageLayout.lengthSize(entry.keyLength))
                else { return "has entry \(i) with impossible lengths" }
                size = entry.size
                if entry.isOverflow {
                    guard entry.storedStart + PageLayout.overflowReferenceSize <= pageSize else {
                        return "has entry \(i) running past the page end"
                    }
                    let first = (p + entry.storedStart).u32(0)
                    guard first >= 2, first < pageCount else { return "has entry \(i) pointing at page \(first), outside the file" }
                }
            } else if isLeaf {
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
            // A head depends on the key's first eight bytes alone (on a compact leaf, a head
            // whose key is shorter must be zero after it).
            let prefix = isLeaf ? PageHeader.leafKeyPrefix(p, i) : PageHeader.branchKey(p, i)
            let head = compact ? PageHeader.compactHead(p, i) : PageHeader.head(p, i)
            guard head == PageHeader.keyHead(prefix) else { return "has slot \(i) whose key head does not match its key" }
            live += size
            if i > (isLeaf ? 0 : 1) {
                let ordered =
                    isLeaf
                    ? PageHeader.withLeafKey(p, i) { PageHeader.compareLeafKey(p, i - 1, $0) < 0 }
                    : compareKeys(PageHeader.branchKey(p, i - 1), PageHeader.branchKey(p, i)) < 0
                guard ordered else { return "has keys out of order at entry \(i)" }
            }
        }
        guard live + PageHeader.garbage(p) == pageSize - heapStart else {
            return "has a heap whose entries do not add up"
        }
        return nil
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
