/// The free tree: which pages no version needs any more, and since when.
///
/// Each record's key is `(freedBy, writtenBy, chunk)` as big-endian (UInt64, UInt64, UInt32);
/// its value is a packed list of little-endian page numbers. Pages a commit stops using are
/// recorded under `freedBy` = that commit's version: a snapshot of an older version may still
/// read them, so they may be written over only once the oldest live snapshot is at least that
/// version. Pages that were already reusable when a commit ended (taken out of the tree but not
/// used) go back under `freedBy` = 0, reusable by the next transaction whatever it pins.
///
/// While the records are few they live in the meta page instead (`InlineFreeList`, the free
/// tree's root is then 0): a commit then writes no free-tree page. Records that outgrow the room
/// the meta page leaves become a tree; a tree that has shrunk to one leaf whose records fill
/// less than half that room goes back into the meta page.
extension WriteTransaction {
    static let freeKeySize = 20

    /// Page numbers per record, so that a record's value always sits inline in its leaf.
    var freeRecordCapacity: Int {
        (layout.maxInlineEntry - PageLayout.leafEntryHeader - Self.freeKeySize) / 4
    }

    static func freeKey(freedBy: UInt64, writtenBy: UInt64, chunk: Int) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: freeKeySize)
        for i in 0..<8 {
            key[i] = UInt8(truncatingIfNeeded: freedBy >> (56 - 8 * UInt64(i)))
            key[8 + i] = UInt8(truncatingIfNeeded: writtenBy >> (56 - 8 * UInt64(i)))
        }
        for i in 0..<4 { key[16 + i] = UInt8(truncatingIfNeeded: UInt32(chunk) >> (24 - 8 * UInt32(i))) }
        return key
    }

    static func freedBy(key: UnsafeRawBufferPointer) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(key[i]) }
        return value
    }

    /// Moves reusable records from the free tree into the pool until it holds enough pages for
    /// an operation, or no record is reusable yet. Runs before an operation starts, never inside
    /// one, because taking a record out changes the free tree itself.
    ///
    /// Removing records from a free tree needs pages too (the path to the leaf is copied, leaves
    /// merge), and a record may be empty. So records are first borrowed (their pages enter the
    /// pool, the records stay in the tree) until the pool is full enough, and only then removed:
    /// the removal draws on the pages just borrowed, never on the end of the file while reusable
    /// records remain. This also removes the records the previous operation borrowed when the
    /// pool ran dry in its middle (`borrowReusableRecord`).
    func refillPool() throws(StorageError) {
        if roundReusable != nil { takeRoundFreedPages() }
        while true {
            while pool.count < Self.poolTarget, !freeTreeExhausted, !isCommitting,
                try takeReusableRecord(untilPoolHolds: Self.poolTarget)
            {}
            guard !borrowedFreeKeys.isEmpty else { return }
            try removeBorrowedRecords()
        }
    }

    /// Moves the pages of held-back inline records that were written and freed since the
    /// durable version, and may be written over already (`roundReusable`), into the pool, once
    /// per transaction. Reusing them keeps commits between two sync rounds from writing fresh
    /// pages: the same few pages are rewritten, and the page cache writes each back once per
    /// round. Their records stay, shorter (possibly empty), and the commit folds them with the
    /// other held-back records. A free tree's records are left alone: taking pages out of the
    /// middle of its records would rewrite them.
    private func takeRoundFreedPages() {
        guard let reusable = roundReusable else { return }
        roundReusable = nil
        guard freeTree.root == 0, !isCommitting else { return }
        let pages = inlineFree.takePages(freedAfter: reclaimLimit) { reusable.contains($0) }
        guard !pages.isEmpty else { return }
        pool.insert(contentsOf: pages)
        reclaimedPages += UInt64(pages.count)
    }

    /// Called when the pool runs dry in the middle of an operation (which needed more pages than
    /// `refillPool` provided): moves the next reusable record's pages into the pool, so that the
    /// page comes from free space instead of the end of the file. Returns false if there is none,
    /// or if the free list may not be touched now: while committing (the commit is writing the
    /// free list, and its settling loop relies on a pool that only shrinks) and while the free
    /// tree itself is being edited (reading it mid-edit could see a half-done split).
    ///
    /// An inline record is simply taken out of the list, which is an array in memory. A record
    /// of a free *tree* cannot be removed mid-operation: removing it edits the free tree, which
    /// needs pages and the transaction's descent path that the operation in progress is using.
    /// So it stays in the tree, its key is remembered in `borrowedFreeKeys`, and the next
    /// `refillPool` (before the next operation or the commit's catalog edits) or
    /// `recordFreePages` removes it. Until then nobody reads the records: borrowed keys are the
    /// first records of the tree, since every borrow and refill takes the first one left, and
    /// later borrows skip them.
    func borrowReusableRecord() throws(StorageError) -> Bool {
        guard !freeTreeExhausted, !isCommitting, !isEditingFreeTree else { return false }
        return try takeReusableRecord()
    }

    /// The pages `refillPool` puts in the pool before an operation, while reusable records last:
    /// twice the deepest tree's path.
    static let poolTarget = 2 * BTree.maxDepth

    /// Moves the pages of the first reusable record (after those already borrowed) into the
    /// pool: an inline record leaves the list at once (with the reusable records after it, up to
    /// the pool's target, when the pool is being refilled), a tree's record is borrowed. Returns
    /// false, and marks the free list exhausted, if no record is reusable.
    private func takeReusableRecord(untilPoolHolds wanted: Int = 0) throws(StorageError) -> Bool {
        if freeTree.root == 0 { return try takeReusableInlineRecords(untilPoolHolds: wanted) }
        var cursor = Cursor(source: self, root: freeTree.root)
        var found = try cursor.first()
        for borrowed in borrowedFreeKeys {
            guard found, cursor.key.elementsEqual(borrowed) else {
                throw .corruptPage(path: storage.name, page: freeTree.root, detail: "lost a free-list record while it was being reused")
            }
            found = try cursor.next()
        }
        guard found, cursor.key.count == Self.freeKeySize, Self.freedBy(key: cursor.key) <= reclaimLimit else {
            freeTreeExhausted = true
            return false
        }
        let key = Array(cursor.key)
        let value = try cursor.value()
        guard value.count % 4 == 0 else {
            throw .corruptPage(path: storage.name, page: freeTree.root, detail: "holds a free-list record of \(counted(value.count, "byte"))")
        }
        var pages: [PageNumber] = []
        pages.reserveCapacity(value.count / 4)
        for i in 0..<(value.count / 4) {
            let number = value.baseAddress!.u32(4 * i)
            guard number >= 2, number < base.meta.pageCount else {
                throw .corruptPage(path: storage.name, page: number, detail: "is listed as free but lies outside the file")
            }
            pages.append(number)
        }
        pool.insert(contentsOf: pages)
        reclaimedPages += UInt64(pages.count)
        borrowedFreeKeys.append(key)
        return true
    }

    /// Moves the pages of the first inline record, and of the reusable records after it until the
    /// pool holds `wanted` pages, into the pool, and takes those records out of the list in one
    /// change (the list is shared with the base version's meta until the first change, which
    /// copies it). Returns false, and marks the free list exhausted, if the first record is not
    /// reusable; marks it exhausted too if the records ran out before the pool was full, as
    /// taking them one at a time would have found.
    private func takeReusableInlineRecords(untilPoolHolds wanted: Int) throws(StorageError) -> Bool {
        let records = inlineFree.records
        let before = pool.count
        var taken = 0
        var pages = before
        while taken < records.count, records[taken].freedBy <= reclaimLimit, taken == 0 || pages < wanted {
            for number in records[taken].pages where number >= base.meta.pageCount {
                throw .corruptPage(path: storage.name, page: number, detail: "is listed as free but lies outside the file")
            }
            pages += records[taken].pages.count
            taken += 1
        }
        if taken == 0 || (pages < wanted && (taken == records.count || records[taken].freedBy > reclaimLimit)) {
            freeTreeExhausted = true
        }
        guard taken > 0 else { return false }
        inlineFree.removeFirst(taken)
        for record in records[..<taken] { pool.insert(contentsOf: record.pages) }
        reclaimedPages += UInt64(pages - before)
        freeTree.count -= UInt64(taken)
        return true
    }

    /// Removes the borrowed records from the free tree; their pages are in the pool already.
    private func removeBorrowedRecords() throws(StorageError) {
        isEditingFreeTree = true
        defer { isEditingFreeTree = false }
        for key in borrowedFreeKeys {
            let removed = try withBytes(key) { k throws(StorageError) in try remove(k, from: &freeTree) }
            guard removed else {
                throw .corruptPage(path: storage.name, page: freeTree.root, detail: "lost a free-list record while it was being reused")
            }
        }
        borrowedFreeKeys.removeAll()
    }

    /// Records this version's freed pages and the unused pool in the free tree. Writing the tree
    /// copies its pages, which frees more and uses pool pages, so it repeats until nothing
    /// changes. It settles: from the second round the records are rewritten in dirty pages, the
    /// pool only shrinks, and no record is ever deleted here (a shrunken leftover list keeps its
    /// old chunks as empty records, which the next transaction discards).
    func recordFreePages() throws(StorageError) {
        // Records borrowed by the last operation leave the tree before the commit writes it.
        if !borrowedFreeKeys.isEmpty { try refillPool() }
        isCommitting = true
        try moveSmallFreeTreeInline()
        let room = Meta.inlineRoom(pageSize: layout.pageSize) - (catalog.root == 0 ? inlineCatalog.encodedSize : 0)
        let capacity = freeRecordCapacity
        let carried = foldHeldBackRecords()
        if !carried.pages.isEmpty {
            try writeRecords(carried.pages.sorted(), freedBy: carried.freedBy, capacity: capacity, minimumChunks: 0)
        }
        var writtenFreed = -1
        var writtenLeftover: [PageNumber]?
        var leftoverChunks = 0
        for _ in 0..<64 {
            if freed.count != writtenFreed {
                freed.sort()
                writtenFreed = freed.count
                try writeRecords(freed, freedBy: meta.version, capacity: capacity, minimumChunks: 0)
            }
            let leftover = pool.ascending()
            if leftover != writtenLeftover {
                leftoverChunks = try writeRecords(leftover, freedBy: 0, capacity: capacity, minimumChunks: leftoverChunks)
                writtenLeftover = leftover
            }
            if freed.count == writtenFreed && pool.count == writtenLeftover?.count {
                if freeTree.root == 0 && inlineFree.encodedSize > room {
                    // Too many records for the meta page: they become a tree, which takes pages
                    // from the pool, so the leftovers are written again.
                    try moveInlineFreeListToTree()
                    continue
                }
                meta.freePageCount = base.meta.freePageCount - reclaimedPages + UInt64(freed.count + carried.pages.count + pool.count)
                return
            }
        }
        throw .corruptPage(path: storage.name, page: freeTree.root, detail: "holds a free tree that would not settle while committing")
    }

    /// Writes `pages` as records `(freedBy, this version, 0...)`, padding with empty records up
    /// to `minimumChunks`. Returns the number of records written.
    @discardableResult
    private func writeRecords(_ pages: [PageNumber], freedBy: UInt64, capacity: Int, minimumChunks: Int) throws(StorageError) -> Int {
        let chunks = max((pages.count + capacity - 1) / capacity, minimumChunks)
        for chunk in 0..<chunks {
            let start = min(chunk * capacity, pages.count)
            let end = min(start + capacity, pages.count)
            if freeTree.root == 0 {
                // A record of every page shares the caller's array (the pool's leftovers: no copy).
                let record = InlineFreeList.Record(
                    freedBy: freedBy, writtenBy: meta.version, chunk: UInt32(chunk),
                    pages: end - start == pages.count ? pages : Array(pages[start..<end]))
                let before = inlineFree.records.count
                inlineFree.set(record)
                freeTree.count += UInt64(inlineFree.records.count - before)
                continue
            }
            var value = [UInt8](repeating: 0, count: 4 * (end - start))
            value.withUnsafeMutableBytes { bytes in
                for (i, number) in pages[start..<end].enumerated() { bytes.baseAddress!.setU32(4 * i, number) }
            }
            let key = Self.freeKey(freedBy: freedBy, writtenBy: meta.version, chunk: chunk)
            try withBytes(key) { k throws(StorageError) in
                try withBytes(value) { v throws(StorageError) in _ = try insert(k, v, into: &freeTree) }
            }
        }
        return chunks
    }

    /// Takes the inline records nobody may reuse yet (freed by versions after `reclaimLimit`:
    /// not durable yet, or newer than a pinned snapshot) out of the list, and returns their
    /// pages with the newest of their versions, under which this commit records them again as
    /// one record. That is safe, since a page unused from version f on is unused from any later
    /// version on; it delays the reuse of the older ones among them only until the newest may
    /// be reused, which under `.normal` commits is the same sync round. A run of `.normal`
    /// commits between two rounds then leaves one such record instead of one per commit, and
    /// the list stays short enough for the meta page.
    private func foldHeldBackRecords() -> (pages: [PageNumber], freedBy: UInt64) {
        guard freeTree.root == 0 else { return ([], 0) }
        var pages: [PageNumber] = []
        var newest: UInt64 = 0
        while let last = inlineFree.records.last, last.freedBy > reclaimLimit {
            let record = inlineFree.removeLast()
            pages += record.pages
            newest = max(newest, record.freedBy)
            freeTree.count -= 1
        }
        reclaimedPages += UInt64(pages.count)
        return (pages, newest)
    }

    /// Puts every inline record into a new free tree.
    private func moveInlineFreeListToTree() throws(StorageError) {
        let records = inlineFree.records
        inlineFree = .empty
        freeTree = .empty
        for record in records {
            var value = [UInt8](repeating: 0, count: 4 * record.pages.count)
            value.withUnsafeMutableBytes { bytes in
                for (i, number) in record.pages.enumerated() { bytes.baseAddress!.setU32(4 * i, number) }
            }
            let key = Self.freeKey(freedBy: record.freedBy, writtenBy: record.writtenBy, chunk: Int(record.chunk))
            try withBytes(key) { k throws(StorageError) in
                try withBytes(value) { v throws(StorageError) in _ = try insert(k, v, into: &freeTree) }
            }
        }
    }

    /// Moves the records of a free tree that is one leaf, and would fill less than half the
    /// room the meta page leaves, into the meta page, and releases the leaf.
    private func moveSmallFreeTreeInline() throws(StorageError) {
        guard freeTree.root != 0 else { return }
        let leaf = try page(freeTree.root)
        guard PageHeader.isLeaf(leaf) else { return }
        let room = Meta.inlineRoom(pageSize: layout.pageSize) - (catalog.root == 0 ? inlineCatalog.encodedSize : 0)
        // Each record takes its leaf entry's bytes less two on a leaf of the first form (a 26-byte
        // entry header and key against a 24-byte record header), and at least nine more on a
        // compact one (two or three bytes of lengths and the key's twelve after the slot's
        // eight): known from the page header, without a walk.
        let bodies = layout.pageSize - PageHeader.heapStart(leaf) - PageHeader.garbage(leaf)
        let count = PageHeader.count(leaf)
        let recordBytes = PageHeader.isCompact(leaf) ? bodies + 9 * count : bodies - 2 * count
        guard 2 * recordBytes <= room else { return }
        var records: [InlineFreeList.Record] = []
        var size = 0
        var cursor = Cursor(source: self, root: freeTree.root)
        var more = try cursor.first()
        while more {
            let key = cursor.key
            let value = try cursor.value()
            guard key.count == Self.freeKeySize, value.count % 4 == 0 else {
                throw .corruptPage(path: storage.name, page: freeTree.root, detail: "holds a free-list record of \(counted(value.count, "byte"))")
            }
            size += InlineFreeList.recordHeader + value.count
            if 2 * size > room { return }
            var record = InlineFreeList.Record(
                freedBy: Self.freedBy(key: key), writtenBy: Self.bigEndian(key, at: 8, length: 8),
                chunk: UInt32(Self.bigEndian(key, at: 16, length: 4)), pages: [])
            for i in 0..<(value.count / 4) { record.pages.append(value.baseAddress!.u32(4 * i)) }
            records.append(record)
            more = try cursor.next()
        }
        let root = freeTree.root
        freeTree = TreeState(root: 0, count: UInt64(records.count))
        inlineFree = .empty
        for record in records { inlineFree.set(record) }
        release(root)
    }

    static func bigEndian(_ key: UnsafeRawBufferPointer, at offset: Int, length: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<length { value = value << 8 | UInt64(key[offset + i]) }
        return value
    }
}
