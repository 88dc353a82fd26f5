/// Page allocation and copy-on-write for a write transaction.
extension WriteTransaction {
    /// Allocates `pages` consecutive dirty pages, zeroed unless the caller fills them whole
    /// (`zeroed: false`): from the pool if it has such a run, otherwise at the end of the file.
    /// A single page goes into this transaction's run of consecutive pages if it can
    /// (`takePageInRun`), otherwise it is the lowest free page.
    func allocate(pages: Int = 1, zeroed: Bool = true) throws(StorageError) -> (number: PageNumber, pointer: UnsafeMutableRawPointer) {
        let number: PageNumber
        // An operation that needs more pages than `refillPool` put in the pool takes the next
        // reusable record rather than growing the file.
        while pages == 1, pool.isEmpty, runGrowthLeft == 0, try borrowReusableRecord() {}
        if pages == 1, let placed = takePageInRun() {
            number = placed
        } else if let reused = pages == 1 ? pool.takeLowest() : pool.takeRun(pages) {
            number = reused
        } else {
            guard UInt64(meta.pageCount) + UInt64(pages) < UInt64(PageNumber.max) else {
                throw .fileTooLarge(path: storage.name)
            }
            number = meta.pageCount
            meta.pageCount += PageNumber(pages)
        }
        if pages == 1 {
            nextInRun = number &+ 1
            runPagesTaken += 1
        }
        let pointer = takeBuffer(pages: pages)
        if zeroed { pointer.initializeMemory(as: UInt8.self, repeating: 0, count: pages * layout.pageSize) }
        dirty.insert(number, pointer: pointer, pages: pages, at: modificationStamp)
        return (number, pointer)
    }

    /// A page for this transaction's run of consecutive pages, or nil to take the lowest free
    /// page. So that a commit's pages lie next to each other and go out in one `pwritev`: on
    /// the benchmark machine a sync after four scattered 4 KiB pages and the meta took about
    /// 24 µs longer than after the four in a run and the meta.
    ///
    /// The transaction expects as many single pages as the latest commit took (`expectedPages`).
    /// The first starts at the lowest run of that many free pages in the pool; each next page
    /// is the one after the page taken last, while it is free. With no such run, the run starts
    /// at the end of the file instead, growing it by at most the pages expected, if
    /// `PageRuns.mayGrow` allowed it when the transaction began (few free pages in the file, and
    /// not too soon after the last time); otherwise the page is the lowest free one. Runs then
    /// keep themselves: the commit that copies a path again frees the pages of the run together,
    /// and a commit two versions later (once no snapshot reads them) reuses them as a run. While
    /// a commit's pages are scattered (each taken from the holes earlier commits left), no order
    /// of taking them makes a run: in the objects benchmark the pool then held exactly the four
    /// pages freed two commits earlier, in two alternating scattered sets.
    ///
    /// Which pages a transaction takes changes nothing for crash safety: they all come from the
    /// pool (pages no version that opening or a snapshot may choose reaches) or from beyond the
    /// end of the file, as before.
    private func takePageInRun() -> PageNumber? {
        if let next = nextInRun {
            if pool.take(next) { return next }
            if next == meta.pageCount, runGrowthLeft > 0, !isCommitting {
                runGrowthLeft -= 1
                meta.pageCount += 1
                return next
            }
        }
        let wanted = expectedPages - runPagesTaken
        guard wanted >= 2 else { return nil }
        if let first = pool.lowestRunStart(wanted) {
            _ = pool.take(first)
            return first
        }
        guard !grewForRun, !isCommitting, mayGrowForRun else { return nil }
        grewForRun = true
        runGrowthLeft = wanted - 1
        let first = meta.pageCount
        meta.pageCount += 1
        return first
    }

    /// The longest run a transaction expects (a commit of many pages writes most of them at the
    /// end of the file anyway).
    static let longestExpectedRun = 16

    /// Releases `pages` pages starting at `number`: straight back to the pool if this transaction
    /// allocated them (in memory or spilled), otherwise onto the list of pages this version frees.
    func release(_ number: PageNumber, pages: Int = 1) {
        if let owned = dirty.removeValue(forKey: number) {
            if let pointer = owned.pointer { freeBuffer((pointer, Int(owned.pages))) }
            pool.insert(run: number, count: Int(owned.pages))
        } else {
            for i in 0..<pages { freed.append(number + PageNumber(i)) }
        }
    }

    /// A buffer for `pages` pages with undefined contents: a single page's from the
    /// transaction's spares if it has one, an overflow run's from the allocator.
    func takeBuffer(pages: Int) -> UnsafeMutableRawPointer {
        if pages == 1, let spare = spareBuffers.popLast() { return spare }
        return PageBufferStash.allocate(byteCount: pages * layout.pageSize)
    }

    /// Returns a dirty page's buffer: a single page's to the transaction's spares (which go
    /// back to the storage's stash when it ends), an overflow run's to the allocator.
    func freeBuffer(_ entry: (pointer: UnsafeMutableRawPointer, pages: Int)) {
        if entry.pages == 1 { spareBuffers.append(entry.pointer) } else { entry.pointer.deallocate() }
    }

    /// A writable copy of page `number`: the page itself if the transaction owns it (read back
    /// into memory if spilled), otherwise a new dirty page holding its bytes (the committed one
    /// is released), a leaf in the compact form if the transaction writes that form. Returns the
    /// number to link to.
    func touch(_ number: PageNumber) throws(StorageError) -> (number: PageNumber, pointer: UnsafeMutableRawPointer) {
        if let owned = dirty.use(number, at: modificationStamp) {
            if let pointer = owned.pointer { return (number, pointer) }
            return (number, try loadSpilled(owned))
        }
        let source = try base.page(number)
        let copy = try allocate(zeroed: false)
        if compactLeaves && PageHeader.isLeaf(source) && !PageHeader.isCompact(source) {
            PageWriter.writeCompact(copy.pointer, from: source, version: meta.version, pageSize: layout.pageSize)
            release(number)
            return copy
        }
        copy.pointer.copyMemory(from: source, byteCount: layout.pageSize)
        copy.pointer.setU64(8, meta.version)
        release(number)
        return copy
    }

    /// The form a leaf has once the transaction has touched it: compact if it is, or if it is
    /// still the committed page (not one the transaction changed, in memory or spilled) and the
    /// transaction writes compact leaves.
    func willBeCompact(_ number: PageNumber, _ leaf: UnsafeRawPointer) -> Bool {
        PageHeader.isCompact(leaf) || (compactLeaves && dirty.lookup(number) == nil)
    }

    /// Makes the child at `slot` of the (dirty) inner page `parent` writable, relinking it if copied.
    func touchChild(of parent: UnsafeMutableRawPointer, slot: Int) throws(StorageError) -> (number: PageNumber, pointer: UnsafeMutableRawPointer) {
        let number = PageHeader.child(UnsafeRawPointer(parent), slot)
        let copy = try touch(number)
        if copy.number != number { PageWriter.setChild(parent, slot, copy.number) }
        return copy
    }

    /// Makes every page on `path` and the leaf below it writable, top down, relinking copies
    /// into their parents (or the root), and adds `entries` (the change the caller is about to
    /// make to the leaf: +1, -1 or 0) to the entry count of every branch entry on the path.
    /// Returns the leaf.
    func touchPath(leaf: PageNumber, entries delta: Int, tree: inout TreeState) throws(StorageError) -> (
        number: PageNumber, pointer: UnsafeMutableRawPointer
    ) {
        var parent: UnsafeMutableRawPointer?
        for level in 0...path.count {
            let number = level < path.count ? path[level].number : leaf
            let copy = try touch(number)
            if copy.number != number {
                if level == 0 { tree.root = copy.number } else { PageWriter.setChild(parent!, path[level - 1].index, copy.number) }
                if level < path.count { path[level].number = copy.number }
            }
            if level < path.count, delta != 0 { PageWriter.addChildEntries(copy.pointer, path[level].index, delta) }
            if level == path.count { return copy }
            parent = copy.pointer
        }
        fatalError("unreachable")
    }

    /// Descends from `root` towards `key`, filling `path`; returns the leaf's number and page.
    /// An insert or a delete changes the pages it passes, so a spilled one is read back into
    /// memory here rather than read through the mapping first; a caller that may change none
    /// of them (`rewriteValues`) passes `changing: false` and reads them where they are.
    func descend(root: PageNumber, key: UnsafeRawBufferPointer, changing: Bool = true) throws(StorageError) -> (
        number: PageNumber, page: UnsafeRawPointer
    ) {
        path.removeAll(keepingCapacity: true)
        var number = root
        var p = try changing ? pageToChange(number) : page(number)
        while !PageHeader.isLeaf(p) {
            try BTree.checkTreePage(self, p, number)
            guard path.count < BTree.maxDepth else {
                throw .corruptPage(path: storage.name, page: root, detail: "heads a tree with a loop")
            }
            let index = PageHeader.branchSearch(p, key)
            path.append((number, index))
            number = PageHeader.child(p, index)
            p = try changing ? pageToChange(number) : page(number)
        }
        return (number, p)
    }

    /// Page `number` for an operation about to change it: as `page` reads it, but a spilled
    /// page is read back into memory.
    @inline(__always)
    private func pageToChange(_ number: PageNumber) throws(StorageError) -> UnsafeRawPointer {
        if dirty.spilledCount != 0, let owned = dirty.lookup(number), owned.isSpilled { return UnsafeRawPointer(try loadSpilled(owned)) }
        return try page(number)
    }

    /// Writes `value` into a new overflow run and returns its first page.
    func writeOverflow(_ value: UnsafeRawBufferPointer) throws(StorageError) -> PageNumber {
        let pages = layout.overflowPages(valueLength: value.count)
        let (number, p) = try allocate(pages: pages)
        p.setU64(8, meta.version)
        p.setU8(16, PageKind.overflow.rawValue)
        p.setU32(20, UInt32(pages))
        if let bytes = value.baseAddress { (p + PageLayout.headerSize).copyMemory(from: bytes, byteCount: value.count) }
        return number
    }

    /// Releases the overflow run of entry `index` of `leaf`, if it has one.
    func releaseOverflow(of leaf: UnsafeRawPointer, index: Int) throws(StorageError) {
        guard PageHeader.leafIsOverflow(leaf, index) else { return }
        let first = PageHeader.leafStored(leaf, index).baseAddress!.u32(0)
        let run = try page(first)
        guard PageHeader.kind(run) == PageKind.overflow.rawValue else {
            throw .corruptPage(path: storage.name, page: first, detail: "is referenced as an overflow run but is not one")
        }
        release(first, pages: PageHeader.overflowPages(run))
    }

    /// Releases every page of the tree under `root`.
    func freeTree(root: PageNumber, depth: Int) throws(StorageError) {
        guard root != 0 else { return }
        guard depth <= BTree.maxDepth else { throw .corruptPage(path: storage.name, page: root, detail: "heads a tree with a loop") }
        let p = try page(root)
        try BTree.checkTreePage(self, p, root)
        for i in 0..<PageHeader.count(p) {
            if PageHeader.isLeaf(p) {
                try releaseOverflow(of: p, index: i)
            } else {
                try freeTree(root: PageHeader.child(p, i), depth: depth + 1)
            }
        }
        release(root)
    }
}
