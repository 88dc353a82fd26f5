extension Tree {
    /// Calls `body` with every entry's key and value from the first key not less than `start`
    /// (from the first key if `start` is nil), in key order, while it returns true.
    ///
    /// For scans: the walk descends once toward `start`, then goes leaf by leaf and, within a
    /// leaf, slot by slot, with the branch path on a small stack, so each entry costs a call of
    /// `body` and nothing else, where stepping a `Cursor` costs three calls (and the cursor's
    /// checks) per entry. The buffers are valid during the call only, as long as the snapshot
    /// lives.
    package func forEachEntry(
        from start: UnsafeRawBufferPointer? = nil,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(StorageError) -> Bool
    ) throws(StorageError) {
        guard state.root != 0 else { return }
        // A compact leaf keeps a long key in two parts, which are gathered into `keyBuffer`; and
        // the branches above the current page, with the index of the child to visit next. Both
        // on the call's own stack.
        try withUnsafeTemporaryAllocation(byteCount: snapshot.layout.maxKeySize, alignment: 8) { keyBuffer throws(StorageError) in
            try forEachEntry(from: start, keyBuffer: keyBuffer.baseAddress!, body)
        }
    }

    private func forEachEntry(
        from start: UnsafeRawBufferPointer?, keyBuffer: UnsafeMutableRawPointer,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(StorageError) -> Bool
    ) throws(StorageError) {
        try withUnsafeTemporaryAllocation(of: (page: UnsafeRawPointer, next: Int).self, capacity: BTree.maxDepth) {
            branches throws(StorageError) in
            var depth = 0
            // The key the first descent looks for; the later ones take the leftmost child.
            var seeking = start
            var number = state.root
            while true {
                let p = try snapshot.page(number)
                try BTree.checkTreePage(snapshot, p, number)
                if PageHeader.isLeaf(p) {
                    var index = 0
                    if let key = seeking {
                        index = PageHeader.leafSearch(p, key).index
                        seeking = nil
                    }
                    let compact = PageHeader.isCompact(p)
                    let count = PageHeader.count(p)
                    while index < count {
                        // The common entry of a compact leaf, a key of up to eight bytes (in its
                        // slot) and a short inline value: both lengths in a byte each, read in one
                        // load. Other entries are decoded in full.
                        if compact {
                            let offset = PageHeader.slot(p, index)
                            let lengths = Int(p.u16(offset))
                            let keyLength = lengths & 0xFF
                            let stored = lengths &>> 8
                            if lengths & 0x8080 == 0, keyLength <= PageLayout.keyInHead, stored != 0 {
                                let key = UnsafeRawBufferPointer(
                                    start: p + (PageLayout.headerSize &+ PageLayout.slotSize &* index &+ 2), count: keyLength)
                                guard try body(key, UnsafeRawBufferPointer(start: p + (offset &+ 2), count: stored &- 1)) else { return }
                                index &+= 1
                                continue
                            }
                        }
                        // One decoding of the entry serves its key and its value.
                        let entry = PageHeader.leafEntry(p, index, compact: compact)
                        let value =
                            entry.isOverflow
                            ? try BTree.overflowValue(snapshot, reference: p + entry.storedStart)
                            : UnsafeRawBufferPointer(start: p + entry.storedStart, count: entry.storedCount)
                        let key =
                            entry.isSplit
                            ? PageHeader.leafKey(p, index, buffer: keyBuffer)
                            : UnsafeRawBufferPointer(start: p + entry.keyStart, count: entry.keyLength)
                        guard try body(key, value) else { return }
                        index += 1
                    }
                    // Up to the nearest branch with a child left, then down that child.
                    while depth > 0, branches[depth - 1].next >= PageHeader.count(branches[depth - 1].page) { depth -= 1 }
                    guard depth > 0 else { return }
                    let top = branches[depth - 1]
                    branches[depth - 1].next = top.next + 1
                    number = PageHeader.child(top.page, top.next)
                } else {
                    guard depth < BTree.maxDepth else {
                        throw .corruptPage(path: snapshot.name, page: state.root, detail: "heads a tree with a loop")
                    }
                    let child = seeking.map { PageHeader.branchSearch(p, $0) } ?? 0
                    branches.initializeElement(at: depth, to: (p, child + 1))
                    depth += 1
                    number = PageHeader.child(p, child)
                }
            }
        }
    }

    /// `forEachEntry(from:_:)` from the first key not less than `start`.
    package func forEachEntry(
        from start: [UInt8],
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(StorageError) -> Bool
    ) throws(StorageError) {
        try withBytes(start) { key throws(StorageError) in try forEachEntry(from: key, body) }
    }
}
