/// Making room in a full leaf by moving entries to a sibling instead of splitting it.
///
/// A split leaves two pages half full, so a tree filled in random key order (an index of names)
/// settles at about two thirds full. Before a leaf splits, the insert looks at its neighbours
/// under the same parent; if one of them has room, the entries of both pages and the new one
/// are shared out between the two about equally, and the parent's separator between them moves.
/// No page is added, and the tree settles fuller. Ascending inserts at the right edge of a tree
/// (keys in creation order) still start a new page, which keeps each page full.
extension WriteTransaction {
    /// Shares the entries of `leaf` (page `number`, at the end of `path`), with the new entry
    /// at `index`, and those of a sibling out between the two pages. Returns false, having
    /// changed nothing, when the leaf is the root, when neither sibling has room for its share, or
    /// when the parent has no room for the new separator.
    func shareWithSibling(
        _ leaf: UnsafeMutableRawPointer, number: PageNumber, insertAt index: Int, key: UnsafeRawBufferPointer,
        field: UInt32, stored: UnsafeRawBufferPointer, size newSize: Int
    ) throws(StorageError) -> Bool {
        guard let level = path.indices.last else { return false }
        let parent = dirty[path[level].number]!.pointer
        let position = path[level].index
        let capacity = layout.pageSize - PageLayout.headerSize
        let leafCount = PageHeader.count(UnsafeRawPointer(leaf))
        var leafBytes = newSize + PageLayout.slotSize
        for i in 0..<leafCount { leafBytes += PageHeader.leafEntrySize(UnsafeRawPointer(leaf), i) + PageLayout.slotSize }
        for siblingPosition in [position + 1, position - 1] where siblingPosition >= 0 && siblingPosition < PageHeader.count(parent) {
            let sibling = try page(PageHeader.child(parent, siblingPosition))
            guard PageHeader.isLeaf(sibling) else { return false }
            let siblingCount = PageHeader.count(sibling)
            var siblingBytes = 0
            for i in 0..<siblingCount { siblingBytes += PageHeader.leafEntrySize(sibling, i) + PageLayout.slotSize }
            // Worth a move only if the two pages end clearly below full: a share that leaves both
            // nearly full splits again at the next insert.
            guard leafBytes + siblingBytes <= capacity * 2 - capacity / 8 else { continue }
            if try share(
                leaf, leafCount: leafCount, insertAt: index, key: key, field: field, stored: stored, size: newSize,
                parent: parent, position: position, siblingPosition: siblingPosition)
            {
                return true
            }
        }
        return false
    }

    /// Shares the entries out between the leaf at `position` of `parent` and its sibling at
    /// `siblingPosition`; false, having changed nothing, if the parent cannot hold the new
    /// separator.
    private func share(
        _ leaf: UnsafeMutableRawPointer, leafCount: Int, insertAt index: Int, key: UnsafeRawBufferPointer, field: UInt32,
        stored: UnsafeRawBufferPointer, size newSize: Int, parent: UnsafeMutableRawPointer, position: Int, siblingPosition: Int
    ) throws(StorageError) -> Bool {
        let pageSize = layout.pageSize
        let leftPosition = min(position, siblingPosition)
        let rightPosition = leftPosition + 1
        return try withUnsafeTemporaryAllocation(byteCount: pageSize, alignment: 16) { siblingCopy throws(StorageError) -> Bool in
            let siblingNumber = PageHeader.child(parent, siblingPosition)
            siblingCopy.baseAddress!.copyMemory(from: try page(siblingNumber), byteCount: pageSize)
            scratch.copyMemory(from: leaf, byteCount: pageSize)
            let oldLeaf = UnsafeRawPointer(scratch)
            let oldSibling = UnsafeRawPointer(siblingCopy.baseAddress!)
            let siblingCount = PageHeader.count(oldSibling)
            // The entries of both pages and the new one, in key order: (page, index), with the new
            // entry as (nil, 0).
            let total = siblingCount + leafCount + 1
            func entry(_ i: Int) -> (page: UnsafeRawPointer?, index: Int) {
                let inLeaf: Int
                if siblingPosition < position {
                    if i < siblingCount { return (oldSibling, i) }
                    inLeaf = i - siblingCount
                } else {
                    if i >= leafCount + 1 { return (oldSibling, i - leafCount - 1) }
                    inLeaf = i
                }
                if inLeaf == index { return (nil, 0) }
                return (oldLeaf, inLeaf < index ? inLeaf : inLeaf - 1)
            }
            func size(_ i: Int) -> Int {
                let (page, at) = entry(i)
                return (page.map { PageHeader.leafEntrySize($0, at) } ?? newSize) + PageLayout.slotSize
            }
            func entryKey(_ i: Int) -> UnsafeRawBufferPointer {
                let (page, at) = entry(i)
                return page.map { PageHeader.leafKey($0, at) } ?? key
            }
            // About half the bytes on each side (the entry at the middle goes where it evens them
            // out more); both sides must fit.
            var bytes = 0
            for i in 0..<total { bytes += size(i) }
            var split = 0
            var leftBytes = 0
            while split < total, leftBytes + size(split) <= bytes / 2 {
                leftBytes += size(split)
                split += 1
            }
            if split < total, abs(2 * (leftBytes + size(split)) - bytes) < abs(2 * leftBytes - bytes) {
                leftBytes += size(split)
                split += 1
            }
            let capacity = pageSize - PageLayout.headerSize
            guard split > 0, split < total, leftBytes <= capacity, bytes - leftBytes <= capacity else { return false }
            // The parent's separator for the right page becomes the right page's first key.
            let separator = entryKey(split)
            let oldSeparatorSize = PageHeader.branchEntrySize(UnsafeRawPointer(parent), rightPosition)
            let newSeparatorSize = PageLayout.branchEntryHeader + separator.count
            guard PageWriter.gap(UnsafeRawPointer(parent)) + PageHeader.garbage(UnsafeRawPointer(parent)) + oldSeparatorSize >= newSeparatorSize
            else { return false }
            let separatorBytes = Array(separator)

            // Nothing has changed so far; from here the share is made.
            let siblingPage = try touch(siblingNumber)
            if siblingPage.number != siblingNumber { PageWriter.setChild(parent, siblingPosition, siblingPage.number) }
            let left = siblingPosition < position ? siblingPage.pointer : leaf
            let right = siblingPosition < position ? leaf : siblingPage.pointer
            PageWriter.initialize(left, kind: .leaf, version: meta.version, pageSize: pageSize)
            PageWriter.initialize(right, kind: .leaf, version: meta.version, pageSize: pageSize)
            for i in 0..<total {
                let target = i < split ? left : right
                let (page, at) = entry(i)
                if let page {
                    PageWriter.append(
                        target, UnsafeRawBufferPointer(start: page + PageHeader.slot(page, at), count: PageHeader.leafEntrySize(page, at)))
                } else {
                    withUnsafeTemporaryAllocation(byteCount: newSize, alignment: 8) { entry in
                        PageWriter.writeLeafEntry(entry.baseAddress!, key: key, valueField: field, stored: stored)
                        PageWriter.append(target, UnsafeRawBufferPointer(entry))
                    }
                }
            }
            // The parent: both children's entry counts, and the separator of the right one.
            let rightChild = PageHeader.child(UnsafeRawPointer(parent), rightPosition)
            let rightEntries = UInt64(PageHeader.count(UnsafeRawPointer(right)))
            PageWriter.setChildEntries(parent, leftPosition, UInt64(PageHeader.count(UnsafeRawPointer(left))))
            PageWriter.removeSlot(parent, at: rightPosition)
            separatorBytes.withUnsafeBytes { separator in
                let at = PageWriter.insertSlot(
                    parent, at: rightPosition, size: newSeparatorSize, key: separator, pageSize: pageSize, scratch: scratch)
                PageWriter.writeBranchEntry(at, child: rightChild, entries: rightEntries, key: separator)
            }
            return true
        }
    }
}
