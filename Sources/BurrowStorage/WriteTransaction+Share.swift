/// Making room in a full leaf by moving entries to a sibling instead of splitting it.
///
/// A split leaves two pages half full, so a tree filled in random key order (an index of names)
/// settles at about two thirds full. Before a leaf splits, the insert looks at its neighbours
/// under the same parent; if one of them has room, the leaf's entries nearest it move across (the
/// new one among them where it falls) until the two pages hold about half their bytes each, and
/// the parent's separator between them moves. No page is added, and the tree settles fuller. Ascending inserts at the right edge of a tree
/// (keys in creation order) still start a new page, which keeps each page full.
extension WriteTransaction {
    /// Shares the entries of `leaf` (the page at the end of `path`), with the new entry at
    /// `index`, and those of a sibling out between the two pages. Returns false, having changed
    /// nothing, when the leaf is the root, when neither sibling has room for its share, or when
    /// the parent has no room for the new separator.
    func shareWithSibling(
        _ leaf: UnsafeMutableRawPointer, insertAt index: Int, key: UnsafeRawBufferPointer, field: UInt32,
        stored: UnsafeRawBufferPointer, size newSize: Int
    ) throws(StorageError) -> Bool {
        guard let level = path.indices.last else { return false }
        let parent = dirty[path[level].number]!.pointer
        let position = path[level].index
        let capacity = layout.pageSize - PageLayout.headerSize
        let leafCount = PageHeader.count(UnsafeRawPointer(leaf))
        let pageSize = layout.pageSize
        let leafBytes = PageHeader.usedBytes(UnsafeRawPointer(leaf), pageSize: pageSize) - PageLayout.headerSize + newSize + PageLayout.slotSize
        for siblingPosition in [position + 1, position - 1] where siblingPosition >= 0 && siblingPosition < PageHeader.count(parent) {
            let siblingNumber = PageHeader.child(parent, siblingPosition)
            let sibling = try page(siblingNumber)
            guard PageHeader.isLeaf(sibling) else { return false }
            // Entries move as they are, so only between leaves of one form (two forms meet only
            // in a transaction that upgraded the file's format after touching some leaves).
            let siblingCompact = willBeCompact(siblingNumber, sibling)
            guard siblingCompact == PageHeader.isCompact(UnsafeRawPointer(leaf)) else { continue }
            var siblingBytes = PageHeader.usedBytes(sibling, pageSize: pageSize) - PageLayout.headerSize
            if siblingCompact && !PageHeader.isCompact(sibling) {
                // A committed leaf of the first form, which the touch will make compact.
                siblingBytes = 0
                for i in 0..<PageHeader.count(sibling) {
                    siblingBytes += PageHeader.leafEntrySize(sibling, i, compact: true) + PageLayout.slotSize
                }
            }
            // Worth a move only if the two pages end clearly below full: a share that leaves both
            // nearly full splits again at the next insert.
            guard leafBytes + siblingBytes <= capacity * 2 - capacity / 8 else { continue }
            if try share(
                leaf, leafCount: leafCount, insertAt: index, key: key, field: field, stored: stored, size: newSize,
                parent: parent, position: position, siblingPosition: siblingPosition, bytes: (leafBytes, siblingBytes))
            {
                return true
            }
        }
        return false
    }

    /// Shares the entries out between the leaf at `position` of `parent` and its sibling at
    /// `siblingPosition`: the leaf's last entries (with the new one where it falls) move to the
    /// front of a right sibling, or its first ones to the end of a left sibling, until about
    /// half the bytes of the two pages are on each side. Only the entries that move are copied.
    /// False, having changed nothing, if the parent cannot hold the new separator.
    /// `bytes`: what the leaf (with the new entry) and the sibling hold, slots included.
    private func share(
        _ leaf: UnsafeMutableRawPointer, leafCount: Int, insertAt index: Int, key: UnsafeRawBufferPointer, field: UInt32,
        stored: UnsafeRawBufferPointer, size newSize: Int, parent: UnsafeMutableRawPointer, position: Int, siblingPosition: Int,
        bytes: (leaf: Int, sibling: Int)
    ) throws(StorageError) -> Bool {
        let pageSize = layout.pageSize
        let compact = PageHeader.isCompact(UnsafeRawPointer(leaf))
        let toRight = siblingPosition > position
        let rightPosition = max(position, siblingPosition)
        let siblingNumber = PageHeader.child(parent, siblingPosition)
        let leafPage = UnsafeRawPointer(leaf)
        // The leaf's entries with the new one at `index`: `leafCount + 1` of them.
        func size(_ i: Int) -> Int {
            (i == index ? newSize : PageHeader.leafEntrySize(leafPage, i < index ? i : i - 1)) + PageLayout.slotSize
        }
        func entryKey(_ i: Int) -> [UInt8] {
            i == index ? Array(key) : PageHeader.leafKeyBytes(leafPage, i < index ? i : i - 1)
        }
        let (leafBytes, siblingBytes) = bytes
        let half = (leafBytes + siblingBytes) / 2
        // Move entries, nearest the sibling first, while the sibling stays at most half, then one
        // more if that evens the two out more; the leaf keeps at least one.
        var moved = 0
        var movedBytes = 0
        func next() -> Int { size(toRight ? leafCount - moved : moved) }
        while moved < leafCount, siblingBytes + movedBytes + next() <= half {
            movedBytes += next()
            moved += 1
        }
        if moved < leafCount, abs(2 * (siblingBytes + movedBytes + next()) - 2 * half) < abs(2 * (siblingBytes + movedBytes) - 2 * half) {
            movedBytes += next()
            moved += 1
        }
        let capacity = pageSize - PageLayout.headerSize
        guard moved > 0, leafBytes - movedBytes <= capacity, siblingBytes + movedBytes <= capacity else { return false }
        // The parent's separator for the right page becomes the right page's first key: the
        // first entry moved to a right sibling, or the first the leaf keeps.
        let firstMoved = toRight ? leafCount + 1 - moved : 0
        let separatorBytes = entryKey(toRight ? firstMoved : moved)
        let oldSeparatorSize = PageHeader.branchEntrySize(UnsafeRawPointer(parent), rightPosition)
        let newSeparatorSize = PageLayout.branchEntryHeader + separatorBytes.count
        guard PageWriter.gap(UnsafeRawPointer(parent)) + PageHeader.garbage(UnsafeRawPointer(parent)) + oldSeparatorSize >= newSeparatorSize
        else { return false }

        // Nothing has changed so far; from here the share is made.
        let sibling = try touch(siblingNumber)
        precondition(PageHeader.isCompact(UnsafeRawPointer(sibling.pointer)) == compact, "internal error: a share between leaves of two forms")
        if sibling.number != siblingNumber { PageWriter.setChild(parent, siblingPosition, sibling.number) }
        let newMoves = toRight ? index >= firstMoved : index < moved
        for j in 0..<moved {
            let i = firstMoved + j
            let at = toRight ? j : PageHeader.count(UnsafeRawPointer(sibling.pointer))
            if i == index {
                let body = PageWriter.insertSlot(sibling.pointer, at: at, size: newSize, key: key, pageSize: pageSize, scratch: scratch)
                PageWriter.writeLeafEntry(body, key: key, valueField: field, stored: stored, compact: compact)
            } else {
                let old = i < index ? i : i - 1
                let entrySize = PageHeader.leafEntrySize(leafPage, old)
                // The two leaves have one form, so the body and the key's head (all a slot takes
                // of the key) move as they are.
                let body = PageWriter.insertSlot(
                    sibling.pointer, at: at, size: entrySize, key: PageHeader.leafKeyPrefix(leafPage, old), pageSize: pageSize,
                    scratch: scratch)
                body.copyMemory(from: leafPage + PageHeader.slot(leafPage, old), byteCount: entrySize)
            }
        }
        let oldMoved = moved - (newMoves ? 1 : 0)
        for _ in 0..<oldMoved { PageWriter.removeSlot(leaf, at: toRight ? PageHeader.count(leafPage) - 1 : 0) }
        if !newMoves {
            let body = PageWriter.insertSlot(
                leaf, at: toRight ? index : index - moved, size: newSize, key: key, pageSize: pageSize, scratch: scratch)
            PageWriter.writeLeafEntry(body, key: key, valueField: field, stored: stored, compact: compact)
        }
        // The parent: both children's entry counts, and the separator of the right one.
        PageWriter.setChildEntries(parent, position, UInt64(PageHeader.count(leafPage)))
        PageWriter.setChildEntries(parent, siblingPosition, UInt64(PageHeader.count(UnsafeRawPointer(sibling.pointer))))
        let rightChild = PageHeader.child(UnsafeRawPointer(parent), rightPosition)
        let rightEntries = PageHeader.childEntries(UnsafeRawPointer(parent), rightPosition)
        PageWriter.removeSlot(parent, at: rightPosition)
        separatorBytes.withUnsafeBytes { separator in
            let at = PageWriter.insertSlot(
                parent, at: rightPosition, size: newSeparatorSize, key: separator, pageSize: pageSize, scratch: scratch)
            PageWriter.writeBranchEntry(at, child: rightChild, entries: rightEntries, key: separator)
        }
        return true
    }
}
