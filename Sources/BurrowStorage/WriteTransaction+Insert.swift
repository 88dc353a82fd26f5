/// Insertion into a B+tree of a write transaction, splitting full pages on the way back up.
extension WriteTransaction {
    /// Inserts or replaces `key`. Returns true if a value was replaced.
    func insert(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, into tree: inout TreeState) throws(StorageError) -> Bool {
        let inlineSize = PageLayout.leafEntryHeader + key.count + value.count
        return try withUnsafeTemporaryAllocation(byteCount: PageLayout.overflowReferenceSize, alignment: 8) {
            reference throws(StorageError) -> Bool in
            // Build the stored form first: inline bytes, or a reference to a new overflow run.
            let field: UInt32
            let stored: UnsafeRawBufferPointer
            if inlineSize <= layout.maxInlineEntry {
                field = UInt32(value.count)
                stored = value
            } else {
                let first = try writeOverflow(value)
                reference.baseAddress!.setU32(0, first)
                reference.baseAddress!.setU64(4, UInt64(value.count))
                field = PageLayout.overflowMarker
                stored = UnsafeRawBufferPointer(reference)
            }
            // The entry's size on a leaf of either form.
            func size(compact: Bool) -> Int {
                PageLayout.leafEntrySize(
                    keyLength: key.count, storedCount: stored.count, overflow: field == PageLayout.overflowMarker, compact: compact)
            }

            if tree.root == 0 {
                let (number, leaf) = try allocate()
                PageWriter.initialize(leaf, kind: .leaf, version: meta.version, pageSize: layout.pageSize, compact: compactLeaves)
                let at = PageWriter.insertSlot(
                    leaf, at: 0, size: size(compact: compactLeaves), key: key, pageSize: layout.pageSize, scratch: scratch)
                PageWriter.writeLeafEntry(at, key: key, valueField: field, stored: stored, compact: compactLeaves)
                tree = TreeState(root: number, count: 1)
                return false
            }

            let (number, found) = try descend(root: tree.root, key: key)
            let (index, exists) = PageHeader.leafSearch(found, key)
            let (leafNumber, leaf) = try touchPath(leaf: number, entries: exists ? 0 : 1, tree: &tree)
            if exists {
                try releaseOverflow(of: UnsafeRawPointer(leaf), index: index)
                PageWriter.removeSlot(leaf, at: index)
            }
            let compact = PageHeader.isCompact(UnsafeRawPointer(leaf))
            let size = size(compact: compact)
            if PageWriter.fits(UnsafeRawPointer(leaf), size: size) {
                let at = PageWriter.insertSlot(leaf, at: index, size: size, key: key, pageSize: layout.pageSize, scratch: scratch)
                PageWriter.writeLeafEntry(at, key: key, valueField: field, stored: stored, compact: compact)
            } else {
                try splitLeaf(leaf, number: leafNumber, insertAt: index, key: key, field: field, stored: stored, size: size, tree: &tree)
            }
            if !exists { tree.count += 1 }
            return exists
        }
    }

    /// Whether every branch on `path` (down to `level`, exclusive) points at its last child: the
    /// page below is the rightmost of the tree, where ascending inserts land.
    private func isRightmost(levels: Int) throws(StorageError) -> Bool {
        for level in 0..<levels {
            let p = try page(path[level].number)
            if path[level].index != PageHeader.count(p) - 1 { return false }
        }
        return true
    }

    /// Chooses where to split `total` entries: the first index of the right page.
    private func splitPoint(total: Int, newIndex: Int, appendOnly: Bool, size: (Int) -> Int) -> Int {
        // Ascending inserts into the rightmost page: keep it full and start a new one, so a
        // bulk load in key order fills its pages instead of leaving them half empty.
        if appendOnly && newIndex == total - 1 { return total - 1 }
        var bytes = 0
        for i in 0..<total { bytes += size(i) + PageLayout.slotSize }
        var accumulated = 0
        for i in 0..<total {
            accumulated += size(i) + PageLayout.slotSize
            if accumulated >= bytes / 2 { return min(max(i + 1, 1), total - 1) }
        }
        return total - 1
    }

    private func splitLeaf(
        _ leaf: UnsafeMutableRawPointer, number: PageNumber, insertAt index: Int, key: UnsafeRawBufferPointer,
        field: UInt32, stored: UnsafeRawBufferPointer, size newSize: Int, tree: inout TreeState
    ) throws(StorageError) {
        let appendOnly = try isRightmost(levels: path.count) && index == PageHeader.count(UnsafeRawPointer(leaf))
        if !appendOnly, sharesWithSiblings,
            try shareWithSibling(leaf, insertAt: index, key: key, field: field, stored: stored, size: newSize)
        {
            return
        }
        scratch.copyMemory(from: leaf, byteCount: layout.pageSize)
        let old = UnsafeRawPointer(scratch)
        let total = PageHeader.count(old) + 1
        let size = { (i: Int) -> Int in
            i == index ? newSize : PageHeader.leafEntrySize(old, i < index ? i : i - 1)
        }
        let split = splitPoint(total: total, newIndex: index, appendOnly: appendOnly, size: size)

        let (rightNumber, right) = try allocate()
        // Both halves keep the leaf's form, so that its entries copy as they are.
        let compact = PageHeader.isCompact(old)
        PageWriter.initialize(leaf, kind: .leaf, version: meta.version, pageSize: layout.pageSize, compact: compact)
        PageWriter.initialize(right, kind: .leaf, version: meta.version, pageSize: layout.pageSize, compact: compact)
        for i in 0..<total {
            let target = i < split ? leaf : right
            if i == index {
                let at = PageWriter.insertSlot(
                    target, at: PageHeader.count(UnsafeRawPointer(target)), size: newSize, key: key, pageSize: layout.pageSize,
                    scratch: scratch)
                PageWriter.writeLeafEntry(at, key: key, valueField: field, stored: stored, compact: compact)
            } else {
                PageWriter.appendEntry(target, from: old, i < index ? i : i - 1)
            }
        }
        let separator = PageHeader.leafKey(UnsafeRawPointer(right), 0, buffer: keyScratch)
        try insertIntoParent(
            level: path.count - 1, left: number, leftEntries: UInt64(PageHeader.count(UnsafeRawPointer(leaf))),
            separator: separator, right: rightNumber, rightEntries: UInt64(PageHeader.count(UnsafeRawPointer(right))), tree: &tree)
    }

    /// Links a new right sibling into the branch at `level` of `path` (or a new root), with the
    /// entry counts of both halves of the page that split.
    private func insertIntoParent(
        level: Int, left: PageNumber, leftEntries: UInt64, separator: UnsafeRawBufferPointer, right: PageNumber,
        rightEntries: UInt64, tree: inout TreeState
    ) throws(StorageError) {
        if level < 0 {
            let (number, root) = try allocate()
            PageWriter.initialize(root, kind: .branch, version: meta.version, pageSize: layout.pageSize)
            let below = UnsafeRawBufferPointer(start: nil, count: 0)
            var at = PageWriter.insertSlot(
                root, at: 0, size: PageLayout.branchEntryHeader, key: below, pageSize: layout.pageSize, scratch: scratch)
            PageWriter.writeBranchEntry(at, child: left, entries: leftEntries, key: below)
            at = PageWriter.insertSlot(
                root, at: 1, size: PageLayout.branchEntryHeader + separator.count, key: separator, pageSize: layout.pageSize,
                scratch: scratch)
            PageWriter.writeBranchEntry(at, child: right, entries: rightEntries, key: separator)
            tree.root = number
            return
        }
        let parentNumber = path[level].number
        let parent = dirty[parentNumber]!.pointer
        PageWriter.setChildEntries(parent, path[level].index, leftEntries)
        let index = path[level].index + 1
        let size = PageLayout.branchEntryHeader + separator.count
        if PageWriter.fits(UnsafeRawPointer(parent), size: size) {
            let at = PageWriter.insertSlot(parent, at: index, size: size, key: separator, pageSize: layout.pageSize, scratch: scratch)
            PageWriter.writeBranchEntry(at, child: right, entries: rightEntries, key: separator)
            return
        }
        try splitBranch(parent, number: parentNumber, level: level, insertAt: index, child: right, entries: rightEntries, key: separator, tree: &tree)
    }

    private func splitBranch(
        _ branch: UnsafeMutableRawPointer, number: PageNumber, level: Int, insertAt index: Int,
        child: PageNumber, entries childEntries: UInt64, key: UnsafeRawBufferPointer, tree: inout TreeState
    ) throws(StorageError) {
        // The new key may point into the page being split's sibling, never into this page or
        // the scratch buffer, so it stays readable while the pages are rebuilt.
        scratch.copyMemory(from: branch, byteCount: layout.pageSize)
        let old = UnsafeRawPointer(scratch)
        let total = PageHeader.count(old) + 1
        let newSize = PageLayout.branchEntryHeader + key.count
        let size = { (i: Int) -> Int in
            i == index ? newSize : PageHeader.branchEntrySize(old, i < index ? i : i - 1)
        }
        let split = splitPoint(total: total, newIndex: index, appendOnly: try isRightmost(levels: level), size: size)
        let entry = { (i: Int) -> (child: PageNumber, entries: UInt64, key: UnsafeRawBufferPointer) in
            if i == index { return (child, childEntries, key) }
            let j = i < index ? i : i - 1
            return (PageHeader.child(old, j), PageHeader.childEntries(old, j), PageHeader.branchKey(old, j))
        }
        // The first key of the right page moves up; in the right page it becomes "below all".
        let pushedUp = Array(entry(split).key)

        let (rightNumber, right) = try allocate()
        PageWriter.initialize(branch, kind: .branch, version: meta.version, pageSize: layout.pageSize)
        PageWriter.initialize(right, kind: .branch, version: meta.version, pageSize: layout.pageSize)
        var leftEntries: UInt64 = 0
        var rightEntries: UInt64 = 0
        for i in 0..<total {
            let target = i < split ? branch : right
            let (childNumber, entries, entryKey) = entry(i)
            let keyToWrite = i == split ? UnsafeRawBufferPointer(start: nil, count: 0) : entryKey
            let at = PageWriter.insertSlot(
                target, at: PageHeader.count(UnsafeRawPointer(target)), size: PageLayout.branchEntryHeader + keyToWrite.count,
                key: keyToWrite, pageSize: layout.pageSize, scratch: scratch)
            PageWriter.writeBranchEntry(at, child: childNumber, entries: entries, key: keyToWrite)
            if i < split { leftEntries &+= entries } else { rightEntries &+= entries }
        }
        try withBytes(pushedUp) { separator throws(StorageError) in
            try insertIntoParent(
                level: level - 1, left: number, leftEntries: leftEntries, separator: separator, right: rightNumber,
                rightEntries: rightEntries, tree: &tree)
        }
    }
}
