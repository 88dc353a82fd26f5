/// Rewriting the values of many existing keys of one tree in one pass: a bulk update.
extension WriteTransaction {
    /// Replaces the values of existing keys of `tree`, each by what `body` makes of its old value.
    ///
    /// `keys` holds the keys back to back, `keySize` bytes each. For each key in that order that
    /// the tree holds, `body(index, old, &new)` gets the key's index in `keys` and its value
    /// (valid only during the call), appends the new value to `new` (empty on entry), and
    /// returns true to store it or false to leave the entry as it is. `body` must not use the
    /// transaction. Keys the tree does not hold are skipped (`body` is not called for them);
    /// their indexes are returned, in order.
    ///
    /// The result is that of a `put` of each new value in turn. Keys in ascending order are
    /// the fast case: the keys that fall in one leaf share its descent, the leaf is copied (if
    /// committed) once, and its entries are rewritten in place, or the leaf rebuilt once if
    /// sizes change. A leaf whose new entries no longer fit, or an entry whose old or new value
    /// lives in an overflow run, takes the path of `put` for its changed entries. A key not
    /// above the one before it starts a new descent, so any order is correct, only slower.
    ///
    /// Throws `valueTooLarge` (before changing anything for that key) as `put` does; like any
    /// change that throws, that leaves the transaction able only to abort.
    package func rewriteValues(
        in tree: TreeID, keys: UnsafeRawBufferPointer, keySize: Int,
        _ body: (_ index: Int, _ old: UnsafeRawBufferPointer, _ new: inout [UInt8]) -> Bool
    ) throws(StorageError) -> [Int] {
        precondition(keySize > 0 && keys.count % keySize == 0, "rewriteValues: keys must be whole keys of keySize bytes")
        var state = try state(of: tree)
        let keyCount = keys.count / keySize
        var missing: [Int] = []
        guard keyCount > 0 else { return missing }
        let key = { (i: Int) in UnsafeRawBufferPointer(rebasing: keys[(i &* keySize)..<((i &+ 1) &* keySize)]) }
        let changed = try mutate { () throws(StorageError) -> Bool in
            guard keySize <= layout.maxKeySize, state.root != 0 else {
                missing = Array(0..<keyCount)
                return false
            }
            var rewriter = LeafRewriter()
            var changedAny = false
            var next = 0
            while next < keyCount {
                let (leafNumber, leaf) = try descend(root: state.root, key: key(next))
                try rewriter.setUpperBound(self)
                // The keys that lie in this leaf, in ascending order.
                rewriter.begin()
                var i = next
                while i < keyCount {
                    let k = key(i)
                    if i > next && compareKeys(key(i &- 1), k) >= 0 { break }
                    if !rewriter.isBelowUpperBound(k) { break }
                    let (index, found) = PageHeader.leafSearch(leaf, k)
                    if found {
                        let old = try BTree.value(self, leaf: leaf, index: index)
                        let keyIndex = i
                        try rewriter.collect(slot: index, key: k, old: old) { new in body(keyIndex, old, &new) }
                    } else {
                        missing.append(i)
                    }
                    i &+= 1
                }
                next = i
                guard rewriter.hasChanges else { continue }
                changedAny = true
                try rewriter.apply(to: leafNumber, leaf, tree: &state, in: self)
            }
            return changedAny
        }
        if changed {
            trees[tree.index].state = state
            trees[tree.index].changed = true
        }
        return missing
    }

    /// `rewriteValues` for every entry of `tree`, in key order: `body(key, old, &new)` gets
    /// each entry's key and value (valid only during the call). Walks the leaves one after
    /// another, with no key to search for.
    package func rewriteAllValues(
        in tree: TreeID, _ body: (_ key: UnsafeRawBufferPointer, _ old: UnsafeRawBufferPointer, _ new: inout [UInt8]) -> Bool
    ) throws(StorageError) {
        var state = try state(of: tree)
        let changed = try mutate { () throws(StorageError) -> Bool in
            guard state.root != 0 else { return false }
            var rewriter = LeafRewriter()
            var changedAny = false
            // The lower bound of the next leaf: empty for the first (no key is below it).
            var lower: [UInt8] = []
            while true {
                let (leafNumber, leaf) = try withBytes(lower) { k throws(StorageError) in try descend(root: state.root, key: k) }
                try rewriter.setUpperBound(self)
                rewriter.begin()
                for index in 0..<PageHeader.count(leaf) {
                    let k = PageHeader.leafKey(leaf, index)
                    let old = try BTree.value(self, leaf: leaf, index: index)
                    try rewriter.collect(slot: index, key: k, old: old) { new in body(k, old, &new) }
                }
                if rewriter.hasChanges {
                    changedAny = true
                    try rewriter.apply(to: leafNumber, leaf, tree: &state, in: self)
                }
                guard rewriter.hasUpperBound else { break }
                // Entries a split moved out of this leaf stay below the bound: the next leaf
                // is the one the bound starts.
                lower = rewriter.upperBound
            }
            return changedAny
        }
        if changed {
            trees[tree.index].state = state
            trees[tree.index].changed = true
        }
    }
}

/// The changes `rewriteValues` gathers for one leaf, and how it applies them.
private struct LeafRewriter {
    /// The leaf's changed entries in slot order: the slot, and where its key lies in `keys`
    /// and its new value in `values` (copied, so that they outlive changes to the leaf).
    var changes: [(slot: Int, keyStart: Int, keyCount: Int, start: Int, count: Int)] = []
    var keys: [UInt8] = []
    /// The new values of `changes`, back to back.
    var values: [UInt8] = []
    /// The new value `body` is writing.
    var value: [UInt8] = []
    /// The separator above the leaf (every key in it is below), if the leaf is not the last.
    var upperBound: [UInt8] = []
    var hasUpperBound = false

    var hasChanges: Bool { !changes.isEmpty }

    mutating func begin() {
        changes.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// Reads the leaf's upper bound from the transaction's `path` (just descended): the key
    /// after the child taken at the lowest branch where that child is not the last.
    mutating func setUpperBound(_ txn: WriteTransaction) throws(StorageError) {
        hasUpperBound = false
        var level = txn.path.count - 1
        while level >= 0 {
            let p = try txn.page(txn.path[level].number)
            let index = txn.path[level].index
            if index &+ 1 < PageHeader.count(p) {
                upperBound.removeAll(keepingCapacity: true)
                upperBound.append(contentsOf: PageHeader.branchKey(p, index &+ 1))
                hasUpperBound = true
                return
            }
            level -= 1
        }
    }

    func isBelowUpperBound(_ key: UnsafeRawBufferPointer) -> Bool {
        guard hasUpperBound else { return true }
        return upperBound.withUnsafeBytes { compareKeys(key, $0) < 0 }
    }

    /// Asks `body` for the new value of the entry at `slot`, whose key is `key`, and records
    /// it if there is one.
    mutating func collect(
        slot: Int, key: UnsafeRawBufferPointer, old: UnsafeRawBufferPointer, _ body: (_ new: inout [UInt8]) -> Bool
    ) throws(StorageError) {
        value.removeAll(keepingCapacity: true)
        guard body(&value) else { return }
        guard value.count <= WriteTransaction.maxValueSize else {
            throw .valueTooLarge(size: value.count, limit: WriteTransaction.maxValueSize)
        }
        changes.append((slot, keys.count, key.count, values.count, value.count))
        keys.append(contentsOf: key)
        values.append(contentsOf: value)
    }

    /// Writes the gathered changes into leaf `number` (`leaf` as read, before any copy).
    mutating func apply(
        to number: PageNumber, _ leaf: UnsafeRawPointer, tree: inout TreeState, in txn: WriteTransaction
    ) throws(StorageError) {
        let layout = txn.layout
        // The bytes the leaf uses once changed, and whether every change keeps its entry's size.
        var used = PageHeader.usedBytes(leaf, pageSize: layout.pageSize)
        var sameSizes = true
        var inline = true
        for change in changes {
            let newSize = PageLayout.leafEntryHeader + change.keyCount + change.count
            if PageHeader.leafValueField(leaf, change.slot) == PageLayout.overflowMarker || newSize > layout.maxInlineEntry {
                inline = false
                break
            }
            let oldSize = PageHeader.leafEntrySize(leaf, change.slot)
            if oldSize != newSize { sameSizes = false }
            used += newSize - oldSize
        }
        guard inline, used <= layout.pageSize else {
            // Overflow runs to write or release, or a leaf to split: `put`'s path, entry by entry.
            for change in changes {
                try withBytes(keys) { allKeys throws(StorageError) in
                    try withBytes(values) { all throws(StorageError) in
                        let key = UnsafeRawBufferPointer(rebasing: allKeys[change.keyStart..<(change.keyStart + change.keyCount)])
                        let value = UnsafeRawBufferPointer(rebasing: all[change.start..<(change.start + change.count)])
                        _ = try txn.insert(key, value, into: &tree)
                    }
                }
            }
            return
        }
        let (_, page) = try txn.touchPath(leaf: number, entries: 0, tree: &tree)
        if sameSizes {
            values.withUnsafeBytes { all in
                for change in changes where change.count > 0 {
                    let at = page + PageHeader.slot(UnsafeRawPointer(page), change.slot) + PageLayout.leafEntryHeader + change.keyCount
                    at.copyMemory(from: all.baseAddress! + change.start, byteCount: change.count)
                }
            }
            return
        }
        rebuild(page, pageSize: layout.pageSize, scratch: txn.scratch)
    }

    /// Rewrites `page` (writable, its changes gathered, the result known to fit) with every
    /// changed entry's new value: the bodies packed in slot order at ascending addresses up to
    /// the page end, as compaction leaves them. Slots and key heads stay as they are.
    private func rebuild(_ page: UnsafeMutableRawPointer, pageSize: Int, scratch: UnsafeMutableRawPointer) {
        scratch.copyMemory(from: page, byteCount: pageSize)
        let old = UnsafeRawPointer(scratch)
        let count = PageHeader.count(old)
        var live = 0
        var c = 0
        for slot in 0..<count {
            if c < changes.count && changes[c].slot == slot {
                live &+= PageLayout.leafEntryHeader &+ PageHeader.leafKey(old, slot).count &+ changes[c].count
                c &+= 1
            } else {
                live &+= PageHeader.leafEntrySize(old, slot)
            }
        }
        let heapStart = pageSize &- live
        var offset = heapStart
        c = 0
        values.withUnsafeBytes { all in
            for slot in 0..<count {
                let from = PageHeader.slot(old, slot)
                page.setU16(PageLayout.headerSize &+ PageLayout.slotSize &* slot, UInt16(offset))
                if c < changes.count && changes[c].slot == slot {
                    let change = changes[c]
                    let stored = UnsafeRawBufferPointer(rebasing: all[change.start..<(change.start &+ change.count)])
                    let key = PageHeader.leafKey(old, slot)
                    PageWriter.writeLeafEntry(page + offset, key: key, valueField: UInt32(change.count), stored: stored)
                    offset &+= PageLayout.leafEntryHeader &+ key.count &+ change.count
                    c &+= 1
                } else {
                    let size = PageHeader.leafEntrySize(old, slot)
                    (page + offset).copyMemory(from: old + from, byteCount: size)
                    offset &+= size
                }
            }
        }
        PageWriter.setHeapStart(page, heapStart)
        PageWriter.setGarbage(page, 0)
    }
}
