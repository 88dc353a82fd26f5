/// Positions: every branch entry counts the leaf entries below it, so the entry at a position,
/// and the position of a key, are each found in one descent (O(log n) pages, a sum over one
/// page's entries at each level).
extension Cursor {
    /// Moves to the entry at `position` (0 is the smallest key). Returns false if the tree has
    /// no entry there.
    @discardableResult
    package mutating func seek(toPosition position: Int) throws(StorageError) -> Bool {
        reset()
        guard position >= 0, root != 0 else { return false }
        var remaining = UInt64(position)
        var number = root
        var trail: [(page: UnsafeRawPointer, index: Int)] = []
        while true {
            let p = try source.page(number)
            try BTree.checkTreePage(source, p, number)
            let count = PageHeader.count(p)
            if PageHeader.isLeaf(p) {
                guard remaining < UInt64(count) else { return false }
                place(on: p, index: Int(remaining), count: count, branches: trail)
                return true
            }
            guard trail.count < BTree.maxDepth else {
                throw .corruptPage(path: source.name, page: root, detail: "heads a tree with a loop")
            }
            var index = 0
            while index < count - 1, remaining >= PageHeader.childEntries(p, index) {
                remaining -= PageHeader.childEntries(p, index)
                index += 1
            }
            trail.append((p, index))
            number = PageHeader.child(p, index)
        }
    }

    /// The number of entries whose keys are less than `key` (the position `key` has or would
    /// have).
    package func position(of key: [UInt8]) throws(StorageError) -> Int {
        try withBytes(key) { k throws(StorageError) in try BTree.position(source, root: root, key: k) }
    }
}

extension BTree {
    /// The number of entries of the tree under `root` whose keys are less than `key`.
    static func position<S: PageSource>(_ source: S, root: PageNumber, key: UnsafeRawBufferPointer) throws(StorageError) -> Int {
        guard root != 0 else { return 0 }
        var before: UInt64 = 0
        var number = root
        var depth = 0
        while true {
            let p = try source.page(number)
            try checkTreePage(source, p, number)
            if PageHeader.isLeaf(p) {
                return Int(before) + PageHeader.leafSearch(p, key).index
            }
            depth += 1
            if depth > maxDepth { throw .corruptPage(path: source.name, page: root, detail: "heads a tree with a loop") }
            let index = PageHeader.branchSearch(p, key)
            for i in 0..<index { before &+= PageHeader.childEntries(p, i) }
            number = PageHeader.child(p, index)
        }
    }
}
