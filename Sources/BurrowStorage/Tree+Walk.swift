extension Tree {
    /// Calls `body` with every entry's key and value, in key order, while it returns true.
    ///
    /// For scans of a whole tree: the walk goes leaf by leaf and, within a leaf, slot by slot,
    /// with the branch path on a small stack, so each entry costs a call of `body` and nothing
    /// else, where stepping a `Cursor` costs three calls (and the cursor's checks) per entry.
    /// The buffers are valid during the call only, as long as the snapshot lives.
    package func forEachEntry(
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(StorageError) -> Bool
    ) throws(StorageError) {
        guard state.root != 0 else { return }
        // Branches above the current page, with the index of the child to visit next.
        var branches: [(page: UnsafeRawPointer, next: Int)] = []
        branches.reserveCapacity(8)
        var number = state.root
        while true {
            let p = try snapshot.page(number)
            try BTree.checkTreePage(snapshot, p, number)
            if PageHeader.isLeaf(p) {
                for index in 0..<PageHeader.count(p) {
                    let value = try BTree.value(snapshot, leaf: p, index: index)
                    guard try body(PageHeader.leafKey(p, index), value) else { return }
                }
                // Up to the nearest branch with a child left, then down that child.
                while let top = branches.last, top.next >= PageHeader.count(top.page) { branches.removeLast() }
                guard let top = branches.last else { return }
                branches[branches.count - 1].next = top.next + 1
                number = PageHeader.child(top.page, top.next)
            } else {
                guard branches.count < BTree.maxDepth else {
                    throw .corruptPage(path: snapshot.name, page: state.root, detail: "heads a tree with a loop")
                }
                branches.append((p, 1))
                number = PageHeader.child(p, 0)
            }
        }
    }
}
