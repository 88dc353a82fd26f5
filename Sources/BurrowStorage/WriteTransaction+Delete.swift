/// Deletion from a B+tree of a write transaction. Empty pages are unlinked; a page left less
/// than a quarter full is merged into a sibling when both fit in one page; a root branch with a
/// single child gives way to that child.
extension WriteTransaction {
    /// Removes `key`. Returns false if it was not there.
    func remove(_ key: UnsafeRawBufferPointer, from tree: inout TreeState) throws(StorageError) -> Bool {
        guard tree.root != 0 else { return false }
        let (number, found) = try descend(root: tree.root, key: key)
        let (index, exists) = PageHeader.leafSearch(found, key)
        guard exists else { return false }
        let (leafNumber, leaf) = try touchPath(leaf: number, entries: -1, tree: &tree)
        try releaseOverflow(of: UnsafeRawPointer(leaf), index: index)
        PageWriter.removeSlot(leaf, at: index)
        tree.count -= 1
        try rebalance(level: path.count, number: leafNumber, page: leaf, tree: &tree)
        return true
    }

    /// Restores the tree's shape after page `number` (at depth `level`, its ancestors on `path`,
    /// all dirty) lost an entry.
    private func rebalance(level: Int, number: PageNumber, page p: UnsafeMutableRawPointer, tree: inout TreeState) throws(StorageError) {
        let count = PageHeader.count(UnsafeRawPointer(p))
        if level == 0 {
            if count == 0 {
                release(number)
                tree.root = 0
            } else if count == 1 && !PageHeader.isLeaf(UnsafeRawPointer(p)) {
                tree.root = PageHeader.child(UnsafeRawPointer(p), 0)
                release(number)
            }
            return
        }
        let parentNumber = path[level - 1].number
        let parent = dirty[parentNumber]!.pointer
        let slot = path[level - 1].index
        if count == 0 {
            release(number)
            PageWriter.removeSlot(parent, at: slot)
            try rebalance(level: level - 1, number: parentNumber, page: parent, tree: &tree)
            return
        }
        // The free tree is rewritten until it settles while committing; merging there could
        // release pages and keep it from settling, and it shrinks again in later transactions.
        guard !isCommitting, PageHeader.usedBytes(UnsafeRawPointer(p), pageSize: layout.pageSize) < layout.pageSize / 4 else { return }
        let siblings = PageHeader.count(UnsafeRawPointer(parent))
        guard siblings >= 2 else {
            if level - 1 == 0 { try rebalance(level: 0, number: parentNumber, page: parent, tree: &tree) }
            return
        }
        let leftSlot = slot + 1 < siblings ? slot : slot - 1
        let rightSlot = leftSlot + 1
        let rightNumber = PageHeader.child(UnsafeRawPointer(parent), rightSlot)
        let right = try page(rightNumber)
        try BTree.checkTreePage(self, right, rightNumber)
        let isLeaf = PageHeader.isLeaf(right)
        let separator = PageHeader.branchKey(UnsafeRawPointer(parent), rightSlot)

        // Bytes the right page's entries need in the left one, in the left one's form (its first
        // branch entry takes the separator as its key).
        let leftNumber = PageHeader.child(UnsafeRawPointer(parent), leftSlot)
        var leftCompact = false
        if isLeaf { leftCompact = willBeCompact(leftNumber, try page(leftNumber)) }
        var needed = 0
        for i in 0..<PageHeader.count(right) {
            needed += (isLeaf ? PageHeader.leafEntrySize(right, i, compact: leftCompact) : PageHeader.entrySize(right, i)) + PageLayout.slotSize
        }
        if !isLeaf { needed += separator.count - PageHeader.branchKeyLength(right, 0) }
        let (_, left) = try touchChild(of: parent, slot: leftSlot)
        precondition(!isLeaf || PageHeader.isCompact(UnsafeRawPointer(left)) == leftCompact, "internal error: a merge sized for another form")
        guard PageWriter.gap(UnsafeRawPointer(left)) + PageHeader.garbage(UnsafeRawPointer(left)) >= needed else { return }

        if PageWriter.gap(UnsafeRawPointer(left)) < needed { PageWriter.compact(left, pageSize: layout.pageSize, scratch: scratch) }
        for i in 0..<PageHeader.count(right) {
            if !isLeaf && i == 0 {
                let at = PageWriter.insertSlot(
                    left, at: PageHeader.count(UnsafeRawPointer(left)), size: PageLayout.branchEntryHeader + separator.count,
                    key: separator, pageSize: layout.pageSize, scratch: scratch)
                PageWriter.writeBranchEntry(at, child: PageHeader.child(right, 0), entries: PageHeader.childEntries(right, 0), key: separator)
            } else {
                PageWriter.appendEntry(left, from: right, i)
            }
        }
        PageWriter.addChildEntries(parent, leftSlot, Int(PageHeader.childEntries(UnsafeRawPointer(parent), rightSlot)))
        release(rightNumber)
        PageWriter.removeSlot(parent, at: rightSlot)
        try rebalance(level: level - 1, number: parentNumber, page: parent, tree: &tree)
    }
}
