/// Rewriting the values of many existing keys of one tree in one pass: a bulk update.
extension WriteTransaction {
    /// Replaces the values of existing keys of `tree`, each by what `body` makes of its old value.
    ///
    /// `keys` holds the keys back to back, `keySize` bytes each. For each key in that order that
    /// the tree holds, `body(index, old, &new)` gets the key's index in `keys` and its value
    /// (valid only during the call), appends the new value to `new` (which may already hold
    /// bytes before it, to be left as they are), and returns true to store it or false to
    /// leave the entry as it is. `body` must not use the transaction. Keys the tree does not
    /// hold are skipped (`body` is not called for them); their indexes are returned, in order.
    ///
    /// The result is that of a `put` of each new value in turn. Keys in ascending order are
    /// the fast case: the keys that fall in one leaf share its descent, the leaf is copied (if
    /// committed) once, and its entries are rewritten in place, or the leaf rebuilt once if
    /// sizes change. Entries a rebuilt leaf no longer holds are carried into the next leaf of
    /// the same parent (see `LeafRewriter.apply`); where they cannot be, and for an entry whose
    /// old or new value lives in an overflow run, the changed entries take the path of `put`.
    /// A key not above the one before it starts a new descent, so any order is correct, only
    /// slower.
    ///
    /// Throws `valueTooLarge` (before changing anything for that key) as `put` does; like any
    /// change that throws, that leaves the transaction able only to abort.
    package func rewriteValues(
        in tree: TreeID, keys: UnsafeRawBufferPointer, keySize: Int,
        _ body: (_ index: Int, _ old: UnsafeRawBufferPointer, _ new: inout [UInt8]) -> Bool
    ) throws(StorageError) -> [Int] {
        sharesWithSiblings = false
        defer { sharesWithSiblings = true }
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
            while next < keyCount || rewriter.hasCarry {
                // The leaf entries were carried into, or the one of the next key.
                let carrying = rewriter.hasCarry
                // Between leaves nothing points into a page, so one bulk rewrite of a large tree
                // stays within the memory limit as a series of puts would.
                if !carrying { try spillIfOverLimit() }
                let (leafNumber, leaf) =
                    carrying
                    ? try withBytes(rewriter.carryTarget) { k throws(StorageError) in
                        try descend(root: state.root, key: k, changing: false)
                    }
                    : try descend(root: state.root, key: key(next), changing: false)
                try rewriter.setUpperBound(self)
                // The keys that lie in this leaf, in ascending order.
                rewriter.begin()
                var i = next
                while i < keyCount {
                    let k = key(i)
                    if i > next && compareKeys(key(i &- 1), k) >= 0 { break }
                    if carrying && i == next && rewriter.carryTarget.withUnsafeBytes({ compareKeys(k, $0) < 0 }) { break }
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
                guard rewriter.hasChanges || rewriter.hasCarry else { continue }
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
        sharesWithSiblings = false
        defer { sharesWithSiblings = true }
        var state = try state(of: tree)
        let changed = try mutate { () throws(StorageError) -> Bool in
            guard state.root != 0 else { return false }
            var rewriter = LeafRewriter()
            var changedAny = false
            // The lower bound of the next leaf: empty for the first (no key is below it).
            var lower: [UInt8] = []
            while true {
                if !rewriter.hasCarry { try spillIfOverLimit() }
                let (leafNumber, leaf) = try withBytes(lower) { k throws(StorageError) in
                    try descend(root: state.root, key: k, changing: false)
                }
                try rewriter.setUpperBound(self)
                rewriter.begin()
                for index in 0..<PageHeader.count(leaf) {
                    let k = PageHeader.leafKey(leaf, index, buffer: keyScratch)
                    let old = try BTree.value(self, leaf: leaf, index: index)
                    try rewriter.collect(slot: index, key: k, old: old) { new in body(k, old, &new) }
                }
                if rewriter.hasChanges || rewriter.hasCarry {
                    changedAny = true
                    try rewriter.apply(to: leafNumber, leaf, tree: &state, in: self)
                }
                guard rewriter.hasUpperBound else { break }
                // Entries a split moved out of this leaf stay below the bound, and entries
                // carried out of it go into the leaf the bound starts, which is the next (its
                // separator is this bound until they do).
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
    /// The separator above the leaf (every key in it is below), if the leaf is not the last.
    var upperBound: [UInt8] = []
    var hasUpperBound = false
    /// Entries carried out of the leaf rewritten last into the next one (whole entry bodies
    /// back to back, inline values only: see `carriesOverflowReference`), with their sizes; the parent page and child slot
    /// of the leaf they left; and the next leaf's separator as it was (to descend to it).
    var carry: [UInt8] = []
    var carrySizes: [Int] = []
    var carryFrom: (parent: PageNumber, slot: Int)?
    var carryTarget: [UInt8] = []
    /// The entries of the leaf being rebuilt (see `combine`), in the first form whatever the
    /// leaf's (an entry of that form holds its whole key), and their sizes in that form and in
    /// the form the rebuilt leaf takes.
    var combined: [UInt8] = []
    var combinedSizes: [Int] = []
    var targetSizes: [Int] = []

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
        // The body appends straight to `values`, after the values gathered before.
        let start = values.count
        guard body(&values) else {
            if values.count > start { values.removeLast(values.count - start) }
            return
        }
        let count = values.count - start
        guard count <= WriteTransaction.maxValueSize else {
            throw .valueTooLarge(size: count, limit: WriteTransaction.maxValueSize)
        }
        changes.append((slot, keys.count, key.count, start, count))
        keys.append(contentsOf: key)
    }

    /// Whether entries of the previous leaf wait to go into this one.
    var hasCarry: Bool { carryFrom != nil }

    /// Writes the gathered changes, and the entries carried out of the previous leaf if any,
    /// into leaf `number` (`leaf` as read, before any copy; the transaction's `path` leads to
    /// it).
    ///
    /// Entries that keep their sizes are patched in place. Otherwise the leaf is rebuilt once;
    /// if its entries no longer fit, it keeps those that do and the rest are carried into the
    /// next leaf under the same parent (rebuilt next, its separator lowered to its new first
    /// key), so that growing entries fill the following leaves instead of splitting every
    /// leaf in two. Where that cannot be done (no next leaf under the parent, a separator of
    /// another length, too much to carry), and for entries whose old or new value lies in an
    /// overflow run, the changes and the carried entries take `put`'s path, entry by entry.
    mutating func apply(
        to number: PageNumber, _ leaf: UnsafeRawPointer, tree: inout TreeState, in txn: WriteTransaction
    ) throws(StorageError) {
        let layout = txn.layout
        var sameSizes = true
        for change in changes {
            // Whether a value stays inline is decided on its size in the first form, as `put` does.
            let newSize = PageLayout.leafEntryHeader + change.keyCount + change.count
            if PageHeader.leafIsOverflow(leaf, change.slot) || newSize > layout.maxInlineEntry {
                try applyByInsert(tree: &tree, in: txn)
                return
            }
            if PageHeader.leafStored(leaf, change.slot).count != change.count { sameSizes = false }
        }
        if sameSizes && !hasCarry {
            // The touched copy may be in the other form (a committed leaf made compact), so the
            // values' places are read from it.
            let (_, page) = try txn.touchPath(leaf: number, entries: 0, tree: &tree)
            values.withUnsafeBytes { all in
                for change in changes where change.count > 0 {
                    let at = page + PageHeader.leafEntry(UnsafeRawPointer(page), change.slot).storedStart
                    at.copyMemory(from: all.baseAddress! + change.start, byteCount: change.count)
                }
            }
            return
        }
        combine(leaf, compact: txn.compactLeaves)
        let pageSize = layout.pageSize
        var used = PageLayout.headerSize
        var keep = 0
        for size in targetSizes {
            if used + PageLayout.slotSize + size > pageSize { break }
            used += PageLayout.slotSize + size
            keep += 1
        }
        let level = txn.path.count - 1
        if keep < combinedSizes.count {
            // Too much for one page: carry the rest into the next leaf of the same parent, if
            // its separator can take the first carried key in place.
            let carried = combinedSizes[keep...].reduce(0, +)
            // A carried entry is put back by key and value if the next leaf cannot take it
            // (`applyByInsert`), which an entry holding an overflow run's reference is not.
            guard keep > 0, level >= 0, carried <= pageSize / 2, !carriesOverflowReference(from: keep) else {
                try applyByInsert(tree: &tree, in: txn)
                return
            }
            let parent = try txn.page(txn.path[level].number)
            let slot = txn.path[level].index
            let firstCarried = combinedOffset(keep)
            let carriedKeyLength = Int(combined[firstCarried]) | Int(combined[firstCarried + 1]) << 8
            guard slot + 1 < PageHeader.count(parent), PageHeader.branchKeyLength(parent, slot + 1) == carriedKeyLength else {
                try applyByInsert(tree: &tree, in: txn)
                return
            }
        }
        let (_, page) = try txn.touchPath(leaf: number, entries: 0, tree: &tree)
        let incoming = carrySizes.count
        writeLeaf(page, entries: keep, version: txn.meta.version, pageSize: pageSize, compact: txn.compactLeaves)
        if hasCarry { settleCarry(into: page, moved: incoming, in: txn) }
        // What did not fit becomes the carry into the next leaf.
        carry.removeAll(keepingCapacity: true)
        carrySizes.removeAll(keepingCapacity: true)
        carryFrom = nil
        if keep < combinedSizes.count {
            let start = combinedOffset(keep)
            carry.append(contentsOf: combined[start...])
            carrySizes.append(contentsOf: combinedSizes[keep...])
            let parent = try txn.page(txn.path[level].number)
            let slot = txn.path[level].index
            carryFrom = (txn.path[level].number, slot)
            carryTarget.removeAll(keepingCapacity: true)
            carryTarget.append(contentsOf: PageHeader.branchKey(parent, slot + 1))
        }
    }

    /// `combined`: the carried entries, then the leaf's entries with the changes applied,
    /// as whole entry bodies of the first form back to back; `targetSizes`, their sizes on a
    /// leaf of the form `compact`.
    private mutating func combine(_ leaf: UnsafeRawPointer, compact: Bool) {
        combinedSizes.removeAll(keepingCapacity: true)
        combinedSizes.append(contentsOf: carrySizes)
        targetSizes.removeAll(keepingCapacity: true)
        if compact {
            carry.withUnsafeBytes { bytes in
                var offset = 0
                for size in carrySizes {
                    targetSizes.append(Self.compactSize(ofEntryAt: bytes.baseAddress! + offset))
                    offset += size
                }
            }
        } else {
            targetSizes.append(contentsOf: carrySizes)
        }
        var total = carry.count
        var c = 0
        for slot in 0..<PageHeader.count(leaf) {
            let entry = PageHeader.leafEntry(leaf, slot)
            var stored = entry.storedCount
            if c < changes.count && changes[c].slot == slot {
                stored = changes[c].count
                c += 1
            }
            let size = PageLayout.leafEntrySize(keyLength: entry.keyLength, storedCount: stored, overflow: entry.isOverflow, compact: false)
            combinedSizes.append(size)
            targetSizes.append(
                compact
                    ? PageLayout.leafEntrySize(keyLength: entry.keyLength, storedCount: stored, overflow: entry.isOverflow, compact: true)
                    : size)
            total += size
        }
        combined.removeAll(keepingCapacity: true)
        combined.append(contentsOf: repeatElement(0, count: total))
        combined.withUnsafeMutableBytes { out in
            carry.withUnsafeBytes { if $0.count > 0 { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            values.withUnsafeBytes { newValues in
                var offset = carry.count
                var c = 0
                for slot in 0..<PageHeader.count(leaf) {
                    let at = out.baseAddress! + offset
                    if c < changes.count && changes[c].slot == slot {
                        let change = changes[c]
                        let keyLength = PageHeader.withLeafKey(leaf, slot) { key in
                            PageWriter.writeLeafEntry(
                                at, key: key, valueField: UInt32(change.count),
                                stored: UnsafeRawBufferPointer(rebasing: newValues[change.start..<(change.start + change.count)]),
                                compact: false)
                            return key.count
                        }
                        offset += PageLayout.leafEntryHeader + keyLength + change.count
                        c += 1
                    } else if !PageHeader.isCompact(leaf) {
                        let size = PageHeader.leafEntrySize(leaf, slot)
                        at.copyMemory(from: leaf + PageHeader.slot(leaf, slot), byteCount: size)
                        offset += size
                    } else {
                        let entry = PageHeader.leafEntry(leaf, slot)
                        PageHeader.withLeafKey(leaf, slot) { key in
                            PageWriter.writeLeafEntry(
                                at, key: key, valueField: entry.isOverflow ? PageLayout.overflowMarker : UInt32(entry.storedCount),
                                stored: UnsafeRawBufferPointer(start: leaf + entry.storedStart, count: entry.storedCount), compact: false)
                        }
                        offset += PageLayout.leafEntryHeader + entry.keyLength + entry.storedCount
                    }
                }
            }
        }
    }

    /// Whether an entry of `combined` from `index` on holds a reference to an overflow run
    /// rather than its value.
    private func carriesOverflowReference(from index: Int) -> Bool {
        var offset = combinedOffset(index)
        for size in combinedSizes[index...] {
            let field = combined.withUnsafeBytes { $0.baseAddress!.u32(offset + 2) }
            if field == PageLayout.overflowMarker { return true }
            offset += size
        }
        return false
    }

    /// Where entry `index` of `combined` starts.
    private func combinedOffset(_ index: Int) -> Int {
        var offset = 0
        for i in 0..<index { offset += combinedSizes[i] }
        return offset
    }

    /// The size on a compact leaf of the entry of the first form at `entry`.
    private static func compactSize(ofEntryAt entry: UnsafeRawPointer) -> Int {
        let field = entry.u32(2)
        let overflow = field == PageLayout.overflowMarker
        return PageLayout.leafEntrySize(
            keyLength: Int(entry.u16(0)), storedCount: overflow ? PageLayout.overflowReferenceSize : Int(field), overflow: overflow,
            compact: true)
    }

    /// Rewrites `page` as a leaf of the form `compact` holding the first `entries` entries of
    /// `combined`, the bodies in slot order at ascending addresses up to the page end, as
    /// compaction leaves them.
    private func writeLeaf(_ page: UnsafeMutableRawPointer, entries: Int, version: UInt64, pageSize: Int, compact: Bool) {
        var bytes = 0
        for i in 0..<entries { bytes += targetSizes[i] }
        PageWriter.initialize(page, kind: .leaf, version: version, pageSize: pageSize, compact: compact)
        let heapStart = pageSize - bytes
        combined.withUnsafeBytes { all in
            if !compact { (page + heapStart).copyMemory(from: all.baseAddress!, byteCount: bytes) }
            var source = 0
            var offset = heapStart
            for i in 0..<entries {
                let entry = all.baseAddress! + source
                let keyLength = Int(entry.u16(0))
                let key = UnsafeRawBufferPointer(start: entry + PageLayout.leafEntryHeader, count: keyLength)
                page.setU16(PageLayout.headerSize + PageLayout.slotSize * i, UInt16(offset))
                PageWriter.setHead(page, i, key)
                if compact {
                    let field = entry.u32(2)
                    let stored = field == PageLayout.overflowMarker ? PageLayout.overflowReferenceSize : Int(field)
                    PageWriter.writeLeafEntry(
                        page + offset, key: key, valueField: field,
                        stored: UnsafeRawBufferPointer(start: entry + PageLayout.leafEntryHeader + keyLength, count: stored), compact: true)
                }
                source += combinedSizes[i]
                offset += targetSizes[i]
            }
        }
        PageWriter.setCount(page, entries)
        PageWriter.setHeapStart(page, heapStart)
        PageWriter.setGarbage(page, 0)
    }

    /// Records that `moved` entries went from the leaf before into `page` (just written, the
    /// next child of the same parent): the two children's entry counts, and the separator
    /// of `page`, now its first key (of the separator's length, checked when carried).
    private func settleCarry(into page: UnsafeMutableRawPointer, moved: Int, in txn: WriteTransaction) {
        let level = txn.path.count - 1
        let from = carryFrom!
        precondition(
            level >= 0 && txn.path[level].number == from.parent && txn.path[level].index == from.slot + 1,
            "internal error: entries carried to a leaf that does not follow theirs")
        let parent = txn.dirty[from.parent]!.pointer
        PageWriter.addChildEntries(parent, from.slot, -moved)
        PageWriter.addChildEntries(parent, from.slot + 1, moved)
        PageHeader.withLeafKey(UnsafeRawPointer(page), 0) { first in
            let offset = PageHeader.slot(UnsafeRawPointer(parent), from.slot + 1)
            (parent + offset + PageLayout.branchEntryHeader).copyMemory(from: first.baseAddress!, byteCount: first.count)
            parent.setU64(PageLayout.headerSize + PageLayout.slotSize * (from.slot + 1) + 2, PageHeader.keyHead(first))
        }
    }

    /// `put`'s path for the changes, and for the carried entries (counted out of the leaf
    /// they left, which sits under the same parent just before this one, then inserted anew).
    private mutating func applyByInsert(tree: inout TreeState, in txn: WriteTransaction) throws(StorageError) {
        if let from = carryFrom {
            let moved = carrySizes.count
            let level = txn.path.count - 1
            precondition(
                level >= 0 && txn.path[level].number == from.parent && txn.path[level].index == from.slot + 1,
                "internal error: entries carried to a leaf that does not follow theirs")
            for upper in 0..<level {
                PageWriter.addChildEntries(txn.dirty[txn.path[upper].number]!.pointer, txn.path[upper].index, -moved)
            }
            PageWriter.addChildEntries(txn.dirty[from.parent]!.pointer, from.slot, -moved)
            tree.count -= UInt64(moved)
            let entries = carry
            let sizes = carrySizes
            carry.removeAll(keepingCapacity: true)
            carrySizes.removeAll(keepingCapacity: true)
            carryFrom = nil
            try withBytes(entries) { all throws(StorageError) in
                var offset = 0
                for size in sizes {
                    let entry = all.baseAddress! + offset
                    let keyLength = Int(entry.u16(0))
                    let valueLength = Int(entry.u32(2))
                    let key = UnsafeRawBufferPointer(start: entry + PageLayout.leafEntryHeader, count: keyLength)
                    let value = UnsafeRawBufferPointer(start: entry + PageLayout.leafEntryHeader + keyLength, count: valueLength)
                    _ = try txn.insert(key, value, into: &tree)
                    offset += size
                }
            }
        }
        for change in changes {
            try withBytes(keys) { allKeys throws(StorageError) in
                try withBytes(values) { all throws(StorageError) in
                    let key = UnsafeRawBufferPointer(rebasing: allKeys[change.keyStart..<(change.keyStart + change.keyCount)])
                    let value = UnsafeRawBufferPointer(rebasing: all[change.start..<(change.start + change.count)])
                    _ = try txn.insert(key, value, into: &tree)
                }
            }
        }
    }
}
