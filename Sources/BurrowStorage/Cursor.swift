/// A position in a B+tree, for ordered scans in either direction and for seeks.
///
/// The key and value buffers it hands out point into pages: they stay valid while the cursor's
/// source lives and, for a write transaction, until that transaction changes a tree. A cursor of
/// a write transaction throws `cursorInvalidated` if moved after such a change; seek again.
package struct Cursor<Source: PageSource> {
    let source: Source
    let root: PageNumber
    private var stack: [(page: UnsafeRawPointer, index: Int)] = []
    private var stamp: UInt64

    /// Whether the cursor is on an entry.
    package private(set) var isValid = false

    init(source: Source, root: PageNumber) {
        self.source = source
        self.root = root
        stamp = source.modificationStamp
        stack.reserveCapacity(8)
    }

    /// The current entry's key. Only while `isValid`.
    package var key: UnsafeRawBufferPointer {
        precondition(isValid && stamp == source.modificationStamp, "cursor read while not on an entry")
        let top = stack[stack.count - 1]
        return PageHeader.leafKey(top.page, top.index)
    }

    /// The current entry's value. Only while `isValid`.
    package func value() throws(StorageError) -> UnsafeRawBufferPointer {
        precondition(isValid && stamp == source.modificationStamp, "cursor read while not on an entry")
        let top = stack[stack.count - 1]
        return try BTree.value(source, leaf: top.page, index: top.index)
    }

    /// Moves to the smallest key. Returns false for an empty tree.
    @discardableResult
    package mutating func first() throws(StorageError) -> Bool {
        reset()
        guard root != 0 else { return false }
        try descend(from: root, leftmost: true)
        isValid = true
        return true
    }

    /// Moves to the largest key. Returns false for an empty tree.
    @discardableResult
    package mutating func last() throws(StorageError) -> Bool {
        reset()
        guard root != 0 else { return false }
        try descend(from: root, leftmost: false)
        isValid = true
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
                stack.append((p, index))
                if index < PageHeader.count(p) {
                    isValid = true
                    return true
                }
                stack[stack.count - 1].index = index - 1
                isValid = true
                return try next()
            }
            guard stack.count < BTree.maxDepth else {
                throw .corruptPage(path: source.name, page: root, detail: "heads a tree with a loop")
            }
            let index = PageHeader.branchSearch(p, key)
            stack.append((p, index))
            number = PageHeader.child(p, index)
        }
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

    /// Moves to the first key not less than `key`. Returns false if there is none.
    @discardableResult
    package mutating func seek(_ key: [UInt8]) throws(StorageError) -> Bool {
        try withBytes(key) { k throws(StorageError) in try seek(k) }
    }

    /// Moves to the last key not greater than `key`. Returns false if there is none.
    @discardableResult
    package mutating func seek(atOrBefore key: [UInt8]) throws(StorageError) -> Bool {
        try withBytes(key) { k throws(StorageError) in try seek(atOrBefore: k) }
    }

    /// Moves to the next key. Returns false (and becomes invalid) past the last one.
    @discardableResult
    package mutating func next() throws(StorageError) -> Bool {
        try checkStamp()
        guard isValid else { return false }
        let leaf = stack.count - 1
        if stack[leaf].index + 1 < PageHeader.count(stack[leaf].page) {
            stack[leaf].index += 1
            return true
        }
        var level = leaf - 1
        while level >= 0 {
            let (p, index) = stack[level]
            if index + 1 < PageHeader.count(p) {
                stack.removeSubrange((level + 1)...)
                stack[level].index = index + 1
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
        try checkStamp()
        guard isValid else { return false }
        let leaf = stack.count - 1
        if stack[leaf].index > 0 {
            stack[leaf].index -= 1
            return true
        }
        var level = leaf - 1
        while level >= 0 {
            let (p, index) = stack[level]
            if index > 0 {
                stack.removeSubrange((level + 1)...)
                stack[level].index = index - 1
                try descend(from: PageHeader.child(p, index - 1), leftmost: false)
                return true
            }
            level -= 1
        }
        reset()
        return false
    }

    private mutating func reset() {
        stack.removeAll(keepingCapacity: true)
        isValid = false
        stamp = source.modificationStamp
    }

    private func checkStamp() throws(StorageError) {
        if stamp != source.modificationStamp { throw .cursorInvalidated }
    }

    private mutating func descend(from start: PageNumber, leftmost: Bool) throws(StorageError) {
        var number = start
        while true {
            let p = try source.page(number)
            try BTree.checkTreePage(source, p, number)
            let index = leftmost ? 0 : PageHeader.count(p) - 1
            stack.append((p, index))
            if PageHeader.isLeaf(p) { return }
            guard stack.count < BTree.maxDepth else {
                throw .corruptPage(path: source.name, page: root, detail: "heads a tree with a loop")
            }
            number = PageHeader.child(p, index)
        }
    }
}
