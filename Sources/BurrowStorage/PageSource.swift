/// Anything trees can be read from: a snapshot (committed pages through the mapping) or a write
/// transaction (its own dirty pages first, then its base snapshot's).
package protocol PageSource: AnyObject {
    var layout: PageLayout { get }
    /// The page, checked: in range, checksum and structure valid. Throws `corruptPage` otherwise.
    func page(_ number: PageNumber) throws(StorageError) -> UnsafeRawPointer
    /// Changes whenever a tree read through this source may have changed shape (never, for a snapshot).
    var modificationStamp: UInt64 { get }
    /// For error messages.
    var name: String { get }
}

/// Read operations on B+trees, shared by snapshots and write transactions.
enum BTree {
    /// Trees deeper than this are impossible (each level at least quadruples the entries), so a
    /// deeper descent means a damaged file whose pages point in a loop.
    static let maxDepth = 24

    /// The leaf and index holding `key`, if present.
    @inline(__always)
    static func find<S: PageSource>(
        _ source: S, root: PageNumber, key: UnsafeRawBufferPointer
    ) throws(StorageError) -> (page: UnsafeRawPointer, index: Int)? {
        guard root != 0 else { return nil }
        var p = try source.page(root)
        var depth = 0
        while !PageHeader.isLeaf(p) {
            try checkTreePage(source, p, root)
            depth += 1
            if depth > maxDepth { throw .corruptPage(path: source.name, page: root, detail: "heads a tree with a loop") }
            p = try source.page(PageHeader.child(p, PageHeader.branchSearch(p, key)))
        }
        let (index, found) = PageHeader.leafSearch(p, key)
        return found ? (p, index) : nil
    }

    @inline(__always)
    static func checkTreePage<S: PageSource>(_ source: S, _ p: UnsafeRawPointer, _ number: PageNumber) throws(StorageError) {
        let kind = PageHeader.kind(p)
        guard kind == PageKind.branch.rawValue || kind == PageKind.leaf.rawValue else {
            throw .corruptPage(path: source.name, page: number, detail: "is reached as a tree page but is an overflow page")
        }
    }

    /// The value of entry `index` of leaf `p`: inline bytes, or the bytes of its overflow run.
    @inline(__always)
    static func value<S: PageSource>(_ source: S, leaf p: UnsafeRawPointer, index: Int) throws(StorageError) -> UnsafeRawBufferPointer {
        let entry = PageHeader.leafEntry(p, index)
        let stored = UnsafeRawBufferPointer(start: p + entry.storedStart, count: entry.storedCount)
        guard entry.isOverflow else { return stored }
        return try overflowValue(source, reference: stored.baseAddress!)
    }

    static func overflowValue<S: PageSource>(_ source: S, reference: UnsafeRawPointer) throws(StorageError) -> UnsafeRawBufferPointer {
        let first = reference.u32(0)
        let length = reference.u64(4)
        let run = try source.page(first)
        guard PageHeader.kind(run) == PageKind.overflow.rawValue,
            length <= UInt64(PageHeader.overflowPages(run) * source.layout.pageSize - PageLayout.headerSize)
        else {
            throw .corruptPage(path: source.name, page: first, detail: "is referenced as an overflow run but does not hold one of that length")
        }
        return UnsafeRawBufferPointer(start: run + PageLayout.headerSize, count: Int(length))
    }
}
