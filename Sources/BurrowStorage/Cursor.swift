/// A position in a B+tree, for ordered scans in either direction and for seeks.
///
/// The value buffers it hands out point into pages: they stay valid while the cursor's source
/// lives and, for a write transaction, until that transaction changes a tree. A key points into
/// its page too, unless a compact leaf keeps it in two parts (its first eight bytes in the slot):
/// then the cursor gathers it into a buffer of its own, valid until the cursor's key is read
/// again. A cursor of a write transaction throws `cursorInvalidated` if moved after such a
/// change; seek again.
///
/// The leaf the cursor is on is kept apart from the branches above it, so that stepping within
/// a leaf, and reading the key and value there, touch nothing but that page.
package struct Cursor<Source: PageSource> {
    let source: Source
    let root: PageNumber
    /// Branch pages from the root down to the leaf's parent, with the child index taken at each.
    private var branches: [(page: UnsafeRawPointer, index: Int)] = []
    private var leaf: UnsafeRawPointer?
    private var leafIndex = 0
    private var leafCount = 0
    /// The source's modification stamp when the cursor was positioned; a snapshot's is 0 and
    /// never changes, so only a write transaction's cursors compare it.
    private var stamp: UInt64
    /// Where a key in two parts is gathered; made when the first such key is read.
    private var gathered: GatheredKey?

    init(source: Source, root: PageNumber) {
        self.source = source
        self.root = root
        stamp = source.modificationStamp
        branches.reserveCapacity(8)
    }

    /// Whether the cursor is on an entry.
    package var isValid: Bool { leaf != nil }

    /// The current entry's key. Only while `isValid`.
    package var key: UnsafeRawBufferPointer {
        mutating get {
            guard let leaf else { preconditionFailure("cursor read while not on an entry") }
            // A write transaction's change (or its end) may have rebuilt or freed the leaf.
            if stamp != 0 { precondition(stamp == source.modificationStamp, "cursor read after its transaction changed or ended") }
            let entry = PageHeader.leafEntry(leaf, leafIndex)
            guard entry.isSplit else { return UnsafeRawBufferPointer(start: leaf + entry.keyStart, count: entry.keyLength) }
            // A copy of this cursor shares its buffer: a key it handed out stays as it was.
            if gathered == nil || gathered!.byteCount < entry.keyLength || !isKnownUniquelyReferenced(&gathered!) {
                gathered = GatheredKey(byteCount: max(entry.keyLength, GatheredKey.initialByteCount))
            }
            return PageHeader.leafKey(leaf, leafIndex, buffer: gathered!.pointer)
        }
    }

    /// The current entry's value. Only while `isValid`.
    package func value() throws(StorageError) -> UnsafeRawBufferPointer {
        guard let leaf else { preconditionFailure("cursor read while not on an entry") }
        if stamp != 0 { try checkStamp() }
        return try BTree.value(source, leaf: leaf, index: leafIndex)
    }

    /// Moves to the smallest key. Returns false for an empty tree.
    @discardableResult
    package mutating func first() throws(StorageError) -> Bool {
        reset()
        guard root != 0 else { return false }
        try descend(from: root, leftmost: true)
        return true
    }

    /// Moves to the largest key. Returns false for an empty tree.
    @discardableResult
    package mutating func last() throws(StorageError) -> Bool {
        reset()
        guard root != 0 else { return false }
        try descend(from: root, leftmost: false)
        return true
    }

    /// Moves to the first key not less than `key`. Returns false if there is none.
    @discardableResult
    package mutating func seek(_ key: UnsafeRawBufferPointer) throws(StorageError) -> Bool {
        reset()
        guard root != 0 else { return false }
        var number = root
        while true {
            let p = try source.page(number)
            try BTree.checkTreePage(source, p, number)
            if PageHeader.isLeaf(p) {
                let (index, _) = PageHeader.leafSearch(p, key)
                leaf = p
                leafCount = PageHeader.count(p)
                if index < leafCount {
                    leafIndex = index
                    return true
                }
                leafIndex = leafCount - 1
                return try next()
            }
            guard branches.count < BTree.maxDepth else {
                throw .corruptPage(path: source.name, page: root, detail: "heads a tree with a loop")
            }
            let index = PageHeader.branchSearch(p, key)
            branches.append((p, index))
            number = PageHeader.child(p, index)
        }
    }

    /// Moves to the first key not less than `key`. Returns false if there is none.
    @discardableResult
    package mutating func seek(_ key: [UInt8]) throws(StorageError) -> Bool {
        try withBytes(key) { k throws(StorageError) in try seek(k) }
    }

    /// Moves to the last key not greater than `key`. Returns false if there is none.
    @discardableResult
    package mutating func seek(atOrBefore key: UnsafeRawBufferPointer) throws(StorageError) -> Bool {
        if try seek(key) {
            if compareKeys(self.key, key) == 0 { return true }
            return try previous()
        }
        return try last()
    }

    /// Moves to the last key not greater than `key`. Returns false if there is none.
    @discardableResult
    package mutating func seek(atOrBefore key: [UInt8]) throws(StorageError) -> Bool {
        try withBytes(key) { k throws(StorageError) in try seek(atOrBefore: k) }
    }

    /// Moves to the next key. Returns false (and becomes invalid) past the last one.
    @discardableResult
    package mutating func next() throws(StorageError) -> Bool {
        if stamp != 0 { try checkStamp() }
        guard leaf != nil else { return false }
        if leafIndex &+ 1 < leafCount {
            leafIndex &+= 1
            return true
        }
        var level = branches.count - 1
        while level >= 0 {
            let (p, index) = branches[level]
            if index + 1 < PageHeader.count(p) {
                branches.removeSubrange((level + 1)...)
                branches[level].index = index + 1
                try descend(from: PageHeader.child(p, index + 1), leftmost: true)
                return true
            }
            level -= 1
        }
        reset()
        return false
    }

    /// Moves to the previous key. Returns false (and becomes invalid) before the first one.
    @discardableResult
    package mutating func previous() throws(StorageError) -> Bool {
        if stamp != 0 { try checkStamp() }
        guard leaf != nil else { return false }
        if leafIndex > 0 {
            leafIndex &-= 1
            return true
        }
        var level = branches.count - 1
        while level >= 0 {
            let (p, index) = branches[level]
            if index > 0 {
                branches.removeSubrange((level + 1)...)
                branches[level].index = index - 1
                try descend(from: PageHeader.child(p, index - 1), leftmost: false)
                return true
            }
            level -= 1
        }
        reset()
        return false
    }

    mutating func reset() {
        branches.removeAll(keepingCapacity: true)
        leaf = nil
        stamp = source.modificationStamp
    }

    private func checkStamp() throws(StorageError) {
        if stamp != source.modificationStamp { throw .cursorInvalidated }
    }

    /// Places the cursor on entry `index` of leaf `p`, reached through `branches`.
    mutating func place(on p: UnsafeRawPointer, index: Int, count: Int, branches trail: [(page: UnsafeRawPointer, index: Int)]) {
        reset()
        branches.append(contentsOf: trail)
        leaf = p
        leafIndex = index
        leafCount = count
    }

    /// Walks down from page `start` along first (or last) children, ending on a leaf entry.
    private mutating func descend(from start: PageNumber, leftmost: Bool) throws(StorageError) {
        var number = start
        while true {
            let p = try source.page(number)
            try BTree.checkTreePage(source, p, number)
            let count = PageHeader.count(p)
            let index = leftmost ? 0 : count - 1
            if PageHeader.isLeaf(p) {
                leaf = p
                leafIndex = index
                leafCount = count
                return
            }
            guard branches.count < BTree.maxDepth else {
                throw .corruptPage(path: source.name, page: root, detail: "heads a tree with a loop")
            }
            branches.append((p, index))
            number = PageHeader.child(p, index)
        }
    }
}

/// A buffer a cursor gathers a key in two parts into, freed with the last cursor holding it.
final class GatheredKey {
    /// Room for the keys of most indexes; a longer key gets a buffer of its size.
    static let initialByteCount = 64
    let pointer: UnsafeMutableRawPointer
    let byteCount: Int

    init(byteCount: Int) {
        self.byteCount = byteCount
        pointer = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 8)
    }

    deinit { pointer.deallocate() }
}
