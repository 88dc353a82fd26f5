import BurrowStorage

/// `List` fields keep their elements in a tree of their own, keyed by the owner's object key
/// and a position number. Positions leave gaps, so an insertion between two elements takes the
/// number halfway between theirs; the counted tree finds the element at an index in one
/// descent. Appending, removing and reading at an index each cost O(log n). When two neighbours
/// have no number left between them, the numbers around them are spread out again as in the
/// order-maintenance algorithm of Bender, Cole, Demaine, Farach-Colton and Zito ("Two
/// simplified algorithms for maintaining order in a list", 2002): take the smallest aligned
/// range of 2^i numbers around the crowded spot whose density is below (3/4)^i, and renumber its
/// elements evenly. The counted tree counts a range's elements in two descents, so each
/// insertion costs O(log n) amortized renumberings, however the insertions are placed.
extension ObjectStore {
    package static let listFirstPosition: UInt64 = 1 << 40
    package static let listGap: UInt64 = 1 << 20

    package static func listEntryKey(_ owner: ObjectKey, _ position: UInt64) -> [UInt8] {
        var key = owner.bytes
        withUnsafeBytes(of: position.bigEndian) { key.append(contentsOf: $0) }
        return key
    }

    /// The position number of the element at `index` of `owner`'s list, whose entries start at
    /// tree position `start`.
    private func listPosition(_ tree: TreeName, start: Int, index: Int, in write: WriteState) throws(StorageError) -> UInt64? {
        try write.trees.entry(tree, at: start + index) { key, _ in
            UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
    }

    /// Inserts `element` at `index` (0...count) of list field `field` of `owner`.
    package func listInsert(_ table: Table, _ owner: ObjectKey, _ field: Int, _ element: StoreValue, at index: Int, in write: WriteState)
        throws(StoreError)
    {
        let property = table.stored.properties[field]
        var payload: [UInt8] = []
        ValueCodec.append(element, as: property.type, to: &payload)
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            try putListEntry(payload, at: index, in: tree, table, owner, in: write)
            try adjustElementBacklink(payload, table, owner, field, by: 1, in: write)
            return 1
        }
    }

    /// Stores the element `payload` at `index` (0...count) of `owner`'s list in `tree`, between
    /// its neighbours, spreading their position numbers out first if none is left between them.
    private func putListEntry(_ payload: [UInt8], at index: Int, in tree: TreeName, _ table: Table, _ owner: ObjectKey, in write: WriteState)
        throws(StorageError)
    {
        var position = try newListPosition(tree, owner, index: index, in: write)
        if position == nil {
            try spreadList(tree, owner, around: index, in: write)
            position = try newListPosition(tree, owner, index: index, in: write)
        }
        guard let position else {
            throw .corruptPage(path: displayName, page: 0, detail: "holds a list of \(table.name) \(owner) whose positions cannot be spread")
        }
        try write.trees.put(tree, Self.listEntryKey(owner, position), payload)
    }

    /// A free position number for a new element at `index`, or nil if its neighbours leave none.
    private func newListPosition(_ tree: TreeName, _ owner: ObjectKey, index: Int, in write: WriteState) throws(StorageError) -> UInt64? {
        let start = try write.trees.position(tree, of: owner.bytes)
        let count = try write.trees.position(tree, of: ObjectKey(owner.rawValue &+ 1).bytes) - start
        let before = index > 0 ? try listPosition(tree, start: start, index: index - 1, in: write) : nil
        let after = index < count ? try listPosition(tree, start: start, index: index, in: write) : nil
        switch (before, after) {
        case (nil, nil): return Self.listFirstPosition
        case (let b?, nil): return b <= UInt64.max - Self.listGap ? b + Self.listGap : nil
        case (nil, let a?): return a >= 2 ? a / 2 : nil
        case (let b?, let a?): return a - b >= 2 ? b + (a - b) / 2 : nil
        }
    }

    /// Spreads out the position numbers around the insertion point `index` (see the type's
    /// comment), so that a number is free between the neighbours of `index`.
    private func spreadList(_ tree: TreeName, _ owner: ObjectKey, around index: Int, in write: WriteState) throws(StorageError) {
        let start = try write.trees.position(tree, of: owner.bytes)
        guard let anchor = try listPosition(tree, start: start, index: max(0, index - 1), in: write) else { return }
        var density = 1.0
        for bits in 1..<64 {
            density *= 4.0 / 3.0
            let size = UInt64(1) << UInt64(bits)
            let low = anchor & ~(size - 1)
            let first = try write.trees.position(tree, of: Self.listEntryKey(owner, low))
            let end =
                low > UInt64.max - size
                ? try write.trees.position(tree, of: ObjectKey(owner.rawValue &+ 1).bytes)
                : try write.trees.position(tree, of: Self.listEntryKey(owner, low + size))
            let count = end - first
            guard Double(count + 2) < density else { continue }
            var entries: [(key: [UInt8], value: [UInt8])] = []
            for i in first..<end {
                if let entry = try write.trees.entry(tree, at: i, { (Array($0), Array($1)) }) { entries.append(entry) }
            }
            for entry in entries { try write.trees.delete(tree, entry.key) }
            let step = size / UInt64(count + 2)
            for (offset, entry) in entries.enumerated() {
                try write.trees.put(tree, Self.listEntryKey(owner, low + UInt64(offset + 1) * step), entry.value)
            }
            return
        }
    }

    /// Removes the element at `index` of list field `field` of `owner`.
    package func listRemove(_ table: Table, _ owner: ObjectKey, _ field: Int, at index: Int, in write: WriteState) throws(StoreError) {
        let property = table.stored.properties[field]
        var removed: [UInt8] = []
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            let start = try write.trees.position(tree, of: owner.bytes)
            guard let entry = try write.trees.entry(tree, at: start + index, { (Array($0), Array($1)) }) else { return 0 }
            try write.trees.delete(tree, entry.0)
            try adjustElementBacklink(entry.1, table, owner, field, by: -1, in: write)
            removed = entry.1
            return -1
        }
        try deleteOrphanedEmbedded(Self.elementProperty(property), old: removed, new: nil, in: write)
    }

    /// Moves the element at `from` to `to` (both in 0..<count) of list field `field` of
    /// `owner`. The element's stored value moves as it is: an embedded object stays the same
    /// object, and no backlink changes.
    package func listMove(_ table: Table, _ owner: ObjectKey, _ field: Int, from: Int, to: Int, in write: WriteState) throws(StoreError) {
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            let start = try write.trees.position(tree, of: owner.bytes)
            guard let entry = try write.trees.entry(tree, at: start + from, { (Array($0), Array($1)) }) else { return 0 }
            try write.trees.delete(tree, entry.0)
            try putListEntry(entry.1, at: to, in: tree, table, owner, in: write)
            return 0
        }
    }

    /// Exchanges the elements at `i` and `j` (both in 0..<count) of list field `field` of
    /// `owner`, as `listMove` moves one: stored values as they are.
    package func listSwap(_ table: Table, _ owner: ObjectKey, _ field: Int, _ i: Int, _ j: Int, in write: WriteState) throws(StoreError) {
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            let start = try write.trees.position(tree, of: owner.bytes)
            guard let first = try write.trees.entry(tree, at: start + i, { (Array($0), Array($1)) }),
                let second = try write.trees.entry(tree, at: start + j, { (Array($0), Array($1)) })
            else { return 0 }
            try write.trees.put(tree, first.0, second.1)
            try write.trees.put(tree, second.0, first.1)
            return 0
        }
    }

    /// Replaces the element at `index` of list field `field` of `owner`.
    package func listSet(_ table: Table, _ owner: ObjectKey, _ field: Int, _ element: StoreValue, at index: Int, in write: WriteState)
        throws(StoreError)
    {
        let property = table.stored.properties[field]
        var payload: [UInt8] = []
        ValueCodec.append(element, as: property.type, to: &payload)
        var replaced: [UInt8] = []
        _ = try mutateCollection(table, owner, field, in: write) { tree throws(StorageError) in
            let start = try write.trees.position(tree, of: owner.bytes)
            guard let entry = try write.trees.entry(tree, at: start + index, { (Array($0), Array($1)) }) else { return 0 }
            try write.trees.put(tree, entry.0, payload)
            try adjustElementBacklink(entry.1, table, owner, field, by: -1, in: write)
            try adjustElementBacklink(payload, table, owner, field, by: 1, in: write)
            replaced = entry.1
            return 0
        }
        try deleteOrphanedEmbedded(Self.elementProperty(property), old: replaced, new: payload, in: write)
    }
}
